@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Testing


/// Rules read against ENGINE after issue 12's fidelity review: the ODR failure toast and the
/// offline tap (§4.6, §5.14), the album banner wording (§5.9, §8 G-28) and the `eval`
/// evidence lines of `traceEvaluations` (§3.11).
@Suite("Fidelity: ODR, album banner, evaluation evidence")
struct FidelityTests {
  typealias R = AppRig
  typealias F = Fixture

  @Test("§4.6: a failed ODR fetch shows odr_unavailable even while the network is satisfied")
  func odrFetchFailureOnline() {
    var r = R()
    r.send(.inspiration_open, at: 100)
    r.send(.odr_result, at: 300, ["tag": "inspiration", "attempt": 1, "ok": false, "error": "disk_full"])
    let shown = r.records("prompt").filter { $0.fields["op"] == "shown" }
    #expect(shown.map { "\($0.t) \(R.str($0, "key"))" } == ["300 odr_unavailable"])
    #expect(r.records("odr").map { "\($0.t) \(R.str($0, "state"))" } == ["100 downloading", "300 failed_retry"])
  }

  @Test("§5.14: an image tap offline fails at once (failed_retry + toast); the network's return brings one auto-retry at +500")
  func odrOfflineTapThenRecovery() {
    var r = R()
    r.send(.inspiration_open, at: 100)
    r.send(.odr_result, at: 200, ["tag": "inspiration", "attempt": 1, "ok": true])
    r.send(.network, at: 1000, ["status": "unsatisfied"])
    r.send(.odr_tap, at: 1500, ["tag": "street"])
    #expect(r.effects("odr_request").count == 1)  // no request while offline
    #expect(r.records("odr").last.map { "\($0.t) \(R.str($0, "state"))" } == "1500 failed_retry")
    #expect(r.records("prompt").filter { $0.fields["op"] == "shown" }.map(\.t) == [1500])
    r.send(.network, at: 3000, ["status": "satisfied"])
    r.advance(to: 3499)
    #expect(r.effects("odr_request").count == 1)
    r.advance(to: 3500)
    // §1.6 [pinned 2026-11-27]: attempt counts per tag, so street's first request is attempt 1.
    #expect(r.effects("odr_request").map { "\($0.t) \(R.str($0, "tag")) \(R.str($0, "attempt"))" } == ["100 inspiration 1", "3500 street 1"])
    r.send(.odr_result, at: 3700, ["tag": "street", "attempt": 1, "ok": true])
    #expect(r.a13("odr_auto_retry").first?.payload.map { "\($0.key)=\($0.value)" } == ["state_before=failed_retry", "debounce_ms=500", "result=success"])
    r.advance(to: 10_000)
    #expect(r.effects("odr_request").count == 2)
  }

  @Test("§1.6 [pinned 2026-11-27]: odr_request attempt counts the requests of its own tag only")
  func odrAttemptPerTag() {
    var r = R()
    r.send(.inspiration_open, at: 100)
    r.send(.odr_result, at: 200, ["tag": "inspiration", "attempt": 1, "ok": false, "error": "network"])
    r.send(.odr_retry_tap, at: 300)
    r.send(.odr_result, at: 400, ["tag": "inspiration", "attempt": 2, "ok": true])
    r.send(.odr_tap, at: 500, ["tag": "street"])
    r.send(.odr_result, at: 600, ["tag": "street", "attempt": 1, "ok": false, "error": "network"])
    r.send(.odr_retry_tap, at: 700)
    r.send(.odr_result, at: 800, ["tag": "street", "attempt": 2, "ok": true])
    r.send(.odr_tap, at: 900, ["tag": "inspiration"])
    #expect(
      r.effects("odr_request").map { "\(R.str($0, "tag")) \(R.str($0, "attempt"))" }
        == ["inspiration 1", "inspiration 2", "street 1", "street 2", "inspiration 3"])
  }

  @Test("§5.9 / G-28 [D]: the album banner uses PRD §6.1.4's text and buttons 重试归档 / 稍后")
  func albumBannerWording() throws {
    let def = try #require(PromptCatalogue.definition(.album_add_failed))
    #expect(def.messageZh == "部分照片未归档到 Just Photo 相册")
    #expect(def.actions.map(\.zh) == ["重试归档", "稍后"])
    #expect(def.actions.map(\.id) == ["retry_album_add", "later"])
  }

  @Test("§3.11 / S24: traceEvaluations shows T0 evaluations ≥ 121 ms apart and no T1 tick while degraded")
  func evaluationEvidence() {
    var events = F.frames(0..<375) { _ in F.subject(feetY: 0.9) }
    events.append(InputEvent(t: 10_000, payload: .justPhoto(JustPhotoEvent(kind: .thermal, fields: ["state": "serious"]))))
    events.append(InputEvent(t: 20_000, payload: .justPhoto(JustPhotoEvent(kind: .thermal, fields: ["state": "nominal"]))))
    events.sort { $0.t < $1.t }
    let out = F.runWithTimers(F.engine(options: ["traceEvaluations": "true"]), events, until: 25_000)
    let evals = out.filter { $0.out == "eval" }
    let t0 = evals.filter { $0.fields["tier"] == "T0" }.map(\.t)
    let t1 = evals.filter { $0.fields["tier"] == "T1" }.map(\.t)
    let degraded = t0.filter { $0 > 10_000 && $0 < 20_000 }
    #expect(!degraded.isEmpty && zip(degraded, degraded.dropFirst()).allSatisfy { $1 - $0 >= 121 })
    #expect(t0.filter { $0 < 10_000 }.count == 150)
    #expect(!t1.contains { $0 > 10_000 && $0 < 21_000 })
    #expect(t1.contains(21_000) && t1.first == 500)
    // Off by default: goldens of other recordings never carry `eval` lines.
    let plain = F.runWithTimers(F.engine(), Array(events.prefix(30)), until: 2_000)
    #expect(!plain.contains { $0.out == "eval" })
  }
}
