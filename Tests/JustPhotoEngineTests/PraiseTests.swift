import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import PoseSpec
import Replay
import Testing


/// Praise (ENGINE §3.12) and its place in the pipeline (§3.15 steps 6–7, 9).
@Suite("Praise (ENGINE §3.12)")
struct PraiseTests {
  typealias F = Fixture

  /// Feeds `events`, firing the engine's timers when due (before an event at the same time,
  /// as the replayer does for timers scheduled earlier), then the timers due by `end`.
  static func tap(at t: Millis) -> InputEvent {
    InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .shutter_tap, fields: [:])))
  }

  @Test("S06 (§7): praise on FRAME_X at the 4th exit frame while the gate holds; off by timeout at +5000")
  func s06() {
    let events = F.frames(0..<105) { k in F.subject(dx: (21..<54).contains(k) ? 0.0 : 0.15) }
    let lines = F.lines(F.runWithTimers(F.engine(), events, until: 7000))
    #expect(
      lines == [
        "200 cue_display FRAME_MOVE_LEFT/hard none noRef",
        "200 script_card FRAME_MOVE_LEFT v0 FRAME_MOVE_LEFT 提示 v0 | FRAME_MOVE_LEFT en v0 frozen=false",
        "1600 praise on exit_crossed FRAME_X",
        "1600 script_card null v0 PRAISE_FREEZE 提示 v0 | PRAISE_FREEZE en v0 frozen=true",
        "3200 cue_display null/none none noRef",
        "4000 cue_display FRAME_MOVE_LEFT/hard none noRef",
        "6600 praise off exit_crossed FRAME_X timeout",
        // §3.10 [pinned 2026-11-27]: the card visible again after the freeze is a showing;
        // LEFT's card was shown once before (200), so variant 1.
        "6600 script_card FRAME_MOVE_LEFT v1 FRAME_MOVE_LEFT 提示 v1 | FRAME_MOVE_LEFT en v1 frozen=false",
      ])
  }

  @Test("§3.10 [pinned 2026-11-27]: each end of a freeze is a showing of the card; a cue displayed while frozen is not")
  func cardAfterFreezeIsAShowing() {
    let script = CueScript(zh: ["a", "b", "c"], en: ["A", "B", "C"])
    var card = DirectorCard()
    #expect(card.display("X", script: script)?.variant == 0)
    // The freeze ends with X still displayed: its second showing.
    #expect(card.showAfterFreeze("X", script: script).variant == 1)
    #expect(card.showAfterFreeze("X", script: script).zh == "c")
    // Another cue becomes visible at the end of a freeze: its first showing.
    #expect(card.showAfterFreeze("Y", script: script).variant == 0)
    #expect(card.display("X", script: script)?.variant == 0)  // 3 showings of X before: 3 mod 3
    // No cue: the empty card.
    let none = card.showAfterFreeze(nil, script: nil)
    #expect(none == ScriptCard.empty)
  }

  @Test("S10 (§7): shutter_tap unfreezes at once and cancels the timeout")
  func s10() {
    var events = F.frames(0..<45) { k in F.subject(dx: k < 21 ? 0.15 : 0.0) }
    events.append(Self.tap(at: 2800))
    events.sort { $0.t < $1.t }
    let out = F.runWithTimers(F.engine(), events, until: 8000)
    let praise = F.lines(out.filter { $0.out == "praise" })
    #expect(praise == ["1600 praise on exit_crossed FRAME_X", "2800 praise off exit_crossed FRAME_X shutter_tap"])
    // §3.10: the card visible again after the freeze is LEFT's second showing (variant 1).
    #expect(F.lines(out).contains("2800 script_card FRAME_MOVE_LEFT v1 FRAME_MOVE_LEFT 提示 v1 | FRAME_MOVE_LEFT en v1 frozen=false"))
  }

  @Test("§3.12: the per-dimension cooldown is strict — 9999 ms after is ignored, 10000 ms after praises")
  func cooldownBoundary() {
    var p = PraiseController(policy: .reference)
    let results = [
      p.trigger(dimension: "FRAME_X", kind: "exit_crossed", at: 1000),
      p.trigger(dimension: "FRAME_X", kind: "exit_crossed", at: 10_999),
      p.trigger(dimension: "FRAME_Y", kind: "exit_crossed", at: 10_999),  // another dimension
      p.trigger(dimension: "FRAME_X", kind: "exit_crossed", at: 11_000),
    ]
    #expect(results == [true, false, true, true])
  }

  @Test("§3.12: a disabled policy never praises; unfreezeOn limits what unfreezes (reset always does)")
  func policy() throws {
    var off = PraiseController.reference(enabled: false)
    let offAccepted = off.trigger(dimension: "FRAME_X", kind: "exit_crossed", at: 0)
    #expect(!offAccepted)
    var policy = PraisePolicy.reference
    policy.unfreezeOn = ["timeout"]
    var p = PraiseController(policy: policy)
    let accepted = p.trigger(dimension: "D", kind: "exit_crossed", at: 0)
    #expect(accepted)
    let byTap = p.unfreeze(reason: "shutter_tap")
    #expect(byTap == nil)
    #expect(p.isFrozen)
    let byReset = p.unfreeze(reason: "reset")
    #expect(byReset?.dimension == "D")
    #expect(!p.isFrozen)
  }

  @Test("§3.12: the spec's praisePolicy is read (cooldown, freeze text and timeout come from the file)")
  func fromSpec() throws {
    let edited = try F.referenceEdited {
      F.setPath(2000, ["praisePolicy", "freezeAfterExit", "timeoutMs"], in: &$0)
      F.setPath(.array(["拍！"]), ["praisePolicy", "freezeAfterExit", "script", "zh"], in: &$0)
    }
    #expect(edited.praisePolicy.timeoutMs == 2000)
    let events = F.frames(0..<40) { k in F.subject(dx: k < 21 ? 0.15 : 0.0) }
    let lines = F.lines(F.runWithTimers(F.engine(edited), events, until: 4000))
    #expect(lines.contains("1600 script_card null v0 拍！ | PRAISE_FREEZE en v0 frozen=true"))
    #expect(lines.contains("3600 praise off exit_crossed FRAME_X timeout"))
  }

  @Test("§3.12: a new praise during a freeze restarts the timeout (one timer, rescheduled)")
  func restart() {
    // LEFT exits at 1600 (praised, FRAME_X); UP shown later exits too — a FRAME_Y praise while
    // frozen moves the timeout to its own t + 5000 and does not emit a second frozen card.
    let events = F.frames(0..<150) { k in
      k < 21 ? F.subject(dx: 0.15) : (k < 60 ? F.subject(dy: 0.2) : F.subject())
    }
    let out = F.runWithTimers(F.engine(), events, until: 12_000)
    let praise = F.lines(out.filter { $0.out == "praise" })
    #expect(praise.count == 3, "\(praise)")
    let praiseRecords = out.filter { (r: TraceRecord) in r.out == "praise" }
    let on: [Millis] = praiseRecords.filter { (r: TraceRecord) in r.fields["state"] == .string("on") }.map { $0.t }
    let off: [Millis] = praiseRecords.filter { (r: TraceRecord) in r.fields["state"] == .string("off") }.map { $0.t }
    #expect(on.count == 2)
    #expect(off == [(on.last ?? 0) + 5000])
    let frozenCards = out.filter { (r: TraceRecord) in r.out == "script_card" && r.fields["frozen"] == .bool(true) }
    #expect(frozenCards.count == 1)
  }
}

extension PraiseController {
  static func reference(enabled: Bool) -> PraiseController {
    var p = PraisePolicy.reference
    p.enabled = enabled
    return PraiseController(policy: p)
  }
}

/// The card and praise controls of ENGINE §3.10 / §3.12: 👎, quiet mode, entitlement, and the
/// retractPraiseOnInstability option (§1.8).
@Suite("Card feedback, quiet mode, entitlement (ENGINE §3.10, §3.12)")
struct CardControlTests {
  typealias F = Fixture

  static func event(_ kind: EventKind, at t: Millis, _ fields: JSONObject = [:]) -> InputEvent {
    InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: kind, fields: fields)))
  }

  @Test("§3.10: 👎 advances the shown cue's card at once, at most once per 3000 ms, and toasts 已记录")
  func thumbsDownAdvances() {
    var events = F.frames(0..<100) { _ in F.subject(dx: 0.15) }
    events.append(Self.event(.praise_feedback, at: 1000, ["vote": "down"]))
    events.append(Self.event(.praise_feedback, at: 2000, ["vote": "down"]))
    events.append(Self.event(.praise_feedback, at: 4100, ["vote": "down"]))
    events.sort { $0.t < $1.t }
    let out = F.runWithTimers(F.engine(), events, until: 6000)
    let cards = out.filter { $0.out == "script_card" }.map { "\($0.t) v\(Int($0.fields["variant"]!.doubleValue!))" }
    // FRAME_MOVE_LEFT has 3 variants; the 👎 at 2000 is within 3000 ms of the one at 1000.
    #expect(cards == ["200 v0", "1000 v1", "4100 v2"])
    // The toast goes through the prompt system (§4.4): the one at 2000 is 1000 ms after the
    // previous show, under the L1 per-key interval of 2 s (A.3.2) → dropped as throttle.
    let toasts = out.filter { $0.out == "prompt" && $0.fields["key"] == "feedback_recorded" && $0.fields["op"] != "dismissed" }
    #expect(toasts.map { "\($0.t) \($0.fields["op"]!.stringValue!)" } == ["1000 shown", "2000 dropped", "4100 shown"])
  }

  @Test("§3.12: quiet mode marks praise quiet; an expired entitlement suppresses card and praise")
  func quietAndEntitlement() {
    let events =
      [Self.event(.quiet_mode, at: 0, ["on": true])]
      + F.frames(0..<40) { k in F.subject(dx: k < 21 ? 0.15 : 0.0) }
    let out = F.runWithTimers(F.engine(), events, until: 3000)
    #expect(out.first { $0.out == "praise" }?.fields["quiet"] == true)
    var expired = Engine(
      configuration: EngineConfiguration(
        spec: F.reference, options: try! { var o = EngineOptions(); try o.set("angleFix", "on"); return o }(),
        initial: ["scene": "outdoor", "entitlement": "expired"]))
    _ = expired.start()
    var lines: [TraceRecord] = []
    for e in F.frames(0..<40, { k in F.subject(dx: k < 21 ? 0.15 : 0.0) }) { lines += expired.handle(e).records(at: e.t) }
    #expect(lines.contains { $0.out == "cue_display" })
    #expect(!lines.contains { $0.out == "script_card" || $0.out == "praise" })
  }

  @Test("§1.8 retractPraiseOnInstability: a new cue during the freeze takes the praise back")
  func retract() {
    // LEFT shown, exits at 1600 (praise), then the subject moves far down: MOVE_UP after hold.
    let events = F.frames(0..<90) { k in k < 21 ? F.subject(dx: 0.15) : (k < 60 ? F.subject() : F.subject(dy: 0.2)) }
    let plain = F.runWithTimers(F.engine(), events, until: 7000).filter { $0.out == "praise" }
    #expect(plain.map { $0.fields["state"] } == ["on", "off"])
    #expect(plain.last?.fields["off_reason"] == "timeout")
    let retracting = F.runWithTimers(F.engine(options: ["retractPraiseOnInstability": "true"]), events, until: 7000)
      .filter { $0.out == "praise" }
    #expect(retracting.last?.fields["off_reason"] == "retracted")
    #expect(retracting.last!.t < 6600)
  }
}
