import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Replay
import Testing

/// The engine's app side through `Engine` (ENGINE §4.4–4.7, §5.1, §5.3, §5.4, §5.12, §5.14, §6.5).
@Suite("AppLayerTests (ENGINE §4–6 through the engine)")
struct AppLayerTests {
  typealias F = Fixture
  typealias R = AppRig
  static let invalidSpec: JSONValue = {
    var bad = Fixture.reference.raw.objectValue!
    bad["prdVersion"] = "v0.0.0"
    return .object(bad)
  }()

  // MARK: §5.3 shutter gate

  @Test("§5.3 rows 1–3: camera_not_authorized beats warmup_failed / ready; warmup_failed beats warmup_not_ready")
  func gateAuthAndWarmupOrder() {
    var r = R(initial: ["camera_ready": false])
    r.send(.app_launch, at: 0)
    r.advance(to: 8000)  // warm-up fails
    r.send(.camera_auth, at: 9000, ["status": "denied"])
    r.send(.camera_ready, at: 9500)  // the camera is ready but not authorized
    r.send(.camera_auth, at: 10_000, ["status": "authorized"])  // entering again: a new warm-up
    r.send(.camera_ready, at: 10_500)
    #expect(
      r.shutterLines == [
        "0 false warmup_not_ready", "8000 false warmup_failed", "9000 false camera_not_authorized",
        "10000 false warmup_not_ready", "10500 true",
      ])
    #expect(r.promptLines("camera_denied_banner") == ["9000 shown camera_denied_banner"])
  }

  @Test("§5.3 rows 4, 6–8: blocked_by_write_failed > workset_full > posespec_invalid > app_inactive > interrupted > rotating; a line only on changes")
  func gateLowerRowsInOrder() {
    // 20 items, shot 7 write_failed with its pending file: both row 4 and row 6 hold.
    var items = R.savedItems(20)
    items[13] = R.itemJSON(shot: 7, state: "write_failed", pending: true, reason: "no_space")
    var r = R(initial: ["session_restore": R.sessionJSON(lastActive: R.wall - 60_000, items: items)])
    #expect(r.e.app.session.worksetCount == 20)
    // Every lower condition is added; the reason does not change, so no new line.
    r.send(.posespec_reload, at: 10, ["sha256": "x", "spec": Self.invalidSpec])
    r.send(.app_lifecycle, at: 20, ["state": "inactive"])
    r.send(.camera_interrupted, at: 30, ["reason": "audio_device_in_use_by_another_client"])
    r.send(.rotation, at: 40, ["orientation": "landscape_left"])
    #expect(r.shutterLines == ["0 false blocked_by_write_failed"])
    // Row 4 resolved (retry from the Viewer bar, then saved) → row 6.
    r.send(.viewer_open, at: 1000, ["item": 7])
    r.action(at: 1100, "write_failed", "retry_write")
    r.writeOK(at: 1200, shot: 7, attempt: 2)
    r.send(.viewer_close, at: 1300, ["item": 7])
    // Row 6 resolved through the 20-limit modal, re-shown by a tap once the L3 window allows it
    // (the PoseSpec modal, priority 99, is closed first; the spec stays invalid).
    r.action(at: 60_000, "posespec_version_mismatch_modal", "retry")
    r.tap(at: 61_000)
    #expect(r.promptLines("session_full_20").last == "61000 shown session_full_20")
    r.action(at: 61_100, "session_full_20", "clear_unliked")
    #expect(r.e.app.session.worksetCount == 0)
    r.send(.posespec_reload, at: 62_000, ["sha256": "y", "spec": F.reference.raw])
    r.send(.app_lifecycle, at: 63_000, ["state": "active"])
    r.send(.rotation, at: 63_500, ["orientation": "portrait"])  // under `interrupted`: no line
    r.send(.camera_interruption_ended, at: 63_600, ["reason": "audio_device_in_use_by_another_client"])
    r.send(.camera_ready, at: 63_700)
    r.advance(to: 70_000)
    #expect(
      r.shutterLines == [
        "0 false blocked_by_write_failed", "1100 false workset_full", "61100 false posespec_invalid",
        "62000 false app_inactive", "63000 false interrupted",
        // §5.12: the end of an interruption restarts the warm-up.
        "63600 false warmup_not_ready", "63700 false rotating", "63800 true",
      ])
  }

  @Test("§5.3 row 5: in_flight_limit_reached beats workset_full")
  func gateInFlightBeatsFull() {
    var r = R(initial: ["session_restore": R.sessionJSON(lastActive: R.wall - 60_000, items: R.savedItems(18))])
    r.tap(at: 100)
    r.tap(at: 150)  // 20 items, 2 in flight
    #expect(r.e.app.session.worksetCount == 20)
    r.photoData(at: 300, shot: 19)
    r.writeOK(at: 500, shot: 19)  // in flight 1, still 20
    #expect(r.shutterLines == ["150 false in_flight_limit_reached", "500 false workset_full"])
    #expect(r.promptLines("session_full_20") == ["150 shown session_full_20"])
  }

  @Test("§5.3 row 8 / PRD §B.4.3: rotation disables the shutter for exactly 300 ms; a tap at +299 is refused, at +300 accepted")
  func rotatingExactly300ms() {
    var r = R()
    r.send(.rotation, at: 1000, ["orientation": "landscape_left"])
    r.tap(at: 1299)
    #expect(r.effects("capture_photo").isEmpty)
    #expect(r.records("shutter_tap").map { "\($0.t) \(R.str($0, "reason"))" } == ["1299 rotating"])
    r.tap(at: 1300)
    #expect(r.effects("capture_photo").map(\.t) == [1300])
    // A second rotation inside the window extends it from the last one; one line each way.
    r.send(.rotation, at: 2000, ["orientation": "portrait"])
    r.send(.rotation, at: 2100, ["orientation": "landscape_right"])
    r.advance(to: 3000)
    #expect(r.shutterLines == ["1000 false rotating", "1300 true", "2000 false rotating", "2400 true"])
  }

  @Test("§5.3: a shutter_tap at workset_full creates no item and re-emits session_full_20 through its throttle")
  func tapAtFullReemitsSessionFull() {
    var r = R(initial: ["session_restore": R.sessionJSON(lastActive: R.wall - 60_000, items: R.savedItems(20))])
    #expect(r.shutterLines == ["0 false workset_full"])
    r.action(at: 100, "session_full_20", "dismiss")  // cancel keeps the shutter disabled (§5.4)
    r.tap(at: 5000)  // per-key 10 s (§4.4 step 2 checks it first)
    r.tap(at: 15_000)  // suppressed 30 s after 取消
    r.tap(at: 40_000)  // L3 window: one show per 60 s
    r.tap(at: 61_000)
    #expect(
      r.promptLines("session_full_20") == [
        "0 shown session_full_20", "100 action session_full_20 dismiss", "100 dismissed session_full_20 action",
        "5000 dropped session_full_20 throttle", "15000 dropped session_full_20 suppressed",
        "40000 dropped session_full_20 throttle", "61000 shown session_full_20",
      ])
    #expect(r.records("shutter_tap").map { "\($0.t) \(R.str($0, "accepted")) \(R.str($0, "reason"))" } == [
      "5000 false workset_full", "15000 false workset_full", "40000 false workset_full", "61000 false workset_full",
    ])
    #expect(r.effects("capture_photo").isEmpty)
    #expect(r.records("item").isEmpty)
    #expect(r.e.app.session.worksetCount == 20 && r.e.app.session.nextShotSeq == 21)
    #expect(r.shutterLines == ["0 false workset_full"])
  }

  @Test("§5.3 last paragraph [D]: a shutter_tap while disabled creates no item and does not clear praise")
  func disabledTapKeepsPraise() {
    var r = R()
    var events = F.frames(0..<45) { k in F.subject(dx: k < 21 ? 0.15 : 0.0) }  // praise on at 1600 (S10)
    events.append(InputEvent(t: 2700, payload: .justPhoto(JustPhotoEvent(kind: .rotation, fields: ["orientation": "landscape_left"]))))
    events.append(InputEvent(t: 2800, payload: .justPhoto(JustPhotoEvent(kind: .shutter_tap))))
    r.feed(events)
    r.advance(to: 7000)
    #expect(r.effects("capture_photo").isEmpty)
    #expect(r.records("item").isEmpty)
    #expect(r.records("shutter_tap").map { "\($0.t) \(R.str($0, "reason"))" } == ["2800 rotating"])
    let praise = F.lines(r.records("praise"))
    #expect(praise.first == "1600 praise on exit_crossed FRAME_X")
    #expect(praise == ["1600 praise on exit_crossed FRAME_X", "6600 praise off exit_crossed FRAME_X timeout"])
  }

  // MARK: §5.12 warm-up

  @Test("§5.12 / S26: app_launch warms up; upgraded at +3000; failed at +8000 with camera_init_failed (unknown)")
  func warmupUpgradeAndFail() {
    var r = R(initial: ["camera_ready": false])
    r.send(.app_launch, at: 0)
    r.advance(to: 2999)
    #expect(r.cameraLines == ["0 warming"])
    r.advance(to: 7999)
    #expect(r.cameraLines == ["0 warming", "3000 upgraded"])
    #expect(r.records("camera").last?.fields["zh"] == "相机准备中…（可能需要几秒）")
    #expect(r.promptLines().isEmpty)
    r.advance(to: 8000)
    #expect(r.cameraLines == ["0 warming", "3000 upgraded", "8000 failed"])
    #expect(r.effects("start_camera").map(\.t) == [0])
    let shown = r.records("prompt").filter { $0.fields["op"] == "shown" }
    #expect(shown.map { "\($0.t) \(R.str($0, "key")) \(R.str($0, "level"))" } == ["8000 camera_init_failed L3"])
    #expect(shown.first?.fields["zh"] == "发生未知错误。相机准备超时（>8s）。")
    #expect(r.shutterReason == "warmup_failed")
    // 重试 restarts the 3 s / 8 s timers (S26).
    r.action(at: 9000, "camera_init_failed", "retry_camera_init")
    r.advance(to: 20_000)
    #expect(r.cameraLines == ["0 warming", "3000 upgraded", "8000 failed", "9000 warming", "12000 upgraded", "17000 failed"])
  }

  @Test("§4.8/§5.12: camera_start_failed {camera_in_use} makes the explanation 相机可能被其他应用占用")
  func warmupFailCameraInUse() {
    var r = R(initial: ["camera_ready": false])
    r.send(.app_launch, at: 0)
    r.send(.camera_start_failed, at: 400, ["reason": "camera_in_use"])
    r.advance(to: 8000)
    let shown = r.records("prompt").first { $0.fields["op"] == "shown" && $0.fields["key"] == "camera_init_failed" }
    #expect(shown?.t == 8000)
    #expect(shown?.fields["zh"] == "相机可能被其他应用占用。相机准备超时（>8s）。")
    #expect(shown?.fields["en"] == "The camera may be in use by another app. Camera warm-up timed out (>8 s).")
  }

  @Test("§5.12: camera_ready cancels both warm-up timers — nothing at 3000 or 8000")
  func cameraReadyCancelsTimers() {
    var r = R(initial: ["camera_ready": false])
    r.send(.app_launch, at: 0)
    r.send(.camera_ready, at: 2000)
    r.advance(to: 20_000)
    #expect(r.cameraLines == ["0 warming", "2000 ready"])
    #expect(r.promptLines().isEmpty)
    #expect(r.shutterLines == ["0 false warmup_not_ready", "2000 true"])
  }

  @Test("§5.12 / PRD §B.4.2: an interruption shows camera_occupied and disables the shutter; its end restarts the warm-up (8 s rule)")
  func interruptionRestartsWarmup() {
    var r = R(initial: ["camera_ready": false])
    r.send(.app_launch, at: 0)
    r.send(.camera_ready, at: 1000)
    r.send(.camera_interrupted, at: 4000, ["reason": "video_device_in_use_by_another_client"])
    #expect(r.promptLines() == ["4000 shown camera_occupied"])
    #expect(r.records("prompt").last?.fields["zh"] == "相机被占用，稍后会自动恢复")
    r.send(.camera_interruption_ended, at: 6000, ["reason": "video_device_in_use_by_another_client"])
    r.advance(to: 14_000)
    #expect(r.promptLines() == ["4000 shown camera_occupied", "6000 dismissed camera_occupied auto", "14000 shown camera_init_failed"])
    #expect(r.effects("start_camera").map(\.t) == [0, 6000])
    #expect(r.cameraLines == ["0 warming", "1000 ready", "6000 warming", "9000 upgraded", "14000 failed"])
    #expect(
      r.shutterLines == [
        "0 false warmup_not_ready", "1000 true", "4000 false interrupted", "6000 false warmup_not_ready",
        "14000 false warmup_failed",
      ])
  }

  @Test("§5.12: video_device_not_available_in_background is handled as background — no camera_occupied banner")
  func backgroundInterruptionNoBanner() {
    var r = R()
    r.send(.camera_interrupted, at: 1000, ["reason": "video_device_not_available_in_background"])
    #expect(r.promptLines().isEmpty)
    #expect(r.shutterLines == ["1000 false interrupted"])
  }

  // MARK: §5.1 TTL, recovery, reset

  @Test("§5.1 / S39: session_restore older than 12 h (by 1 ms) → new session S-0002, items gone")
  func ttlExpiredAtStart() {
    let items = R.savedItems(3)
    var r = R(initial: ["session_restore": R.sessionJSON(lastActive: R.wall - 12 * R.hourMs - 1, items: items)])
    let s = r.records("session")
    #expect(s.map { "\(R.str($0, "op")) \(R.str($0, "session_id")) \(R.str($0, "cause"))" } == ["created S-0002 ttl_expired"])
    #expect(r.e.app.session.sessionId == "S-0002" && r.e.app.session.items.isEmpty)
    #expect(r.lastPersist?.session?.sessionId == "S-0002")
    #expect(r.lastPersist?.session?.items.isEmpty == true)
    r.tap(at: 100)
    #expect(r.e.app.session.items.map(\.itemId) == ["I-2-1"])
  }

  @Test("§5.1 / S39: session_restore exactly 12 h old → restored with its items")
  func ttlBoundaryRestores() {
    let r = R(initial: ["session_restore": R.sessionJSON(lastActive: R.wall - 12 * R.hourMs, items: R.savedItems(3))])
    #expect(r.records("session").map { "\(R.str($0, "op")) \(R.str($0, "session_id")) \(R.str($0, "workset"))" } == ["restored S-0001 3"])
    #expect(r.e.app.session.items.map(\.shotSeq) == [3, 2, 1])
  }

  @Test("§5.1: app_lifecycle active after > 12 h of inactivity replaces the session; exactly 12 h keeps it")
  func ttlOnActive() {
    let restore: JSONObject = ["session_restore": R.sessionJSON(lastActive: R.wall - 60_000, items: R.savedItems(2))]
    var expired = R(initial: restore)
    expired.send(.app_lifecycle, at: 1000, ["state": "background"])
    expired.send(.app_lifecycle, at: 1000 + 12 * R.hourMs + 1, ["state": "active"])
    #expect(
      expired.records("session").map { "\($0.t) \(R.str($0, "op")) \(R.str($0, "session_id"))" } == [
        "0 restored S-0001", "\(1000 + 12 * R.hourMs + 1) created S-0002",
      ])
    #expect(expired.e.app.session.items.isEmpty)

    var kept = R(initial: restore)
    kept.send(.app_lifecycle, at: 1000, ["state": "background"])
    kept.send(.app_lifecycle, at: 1000 + 12 * R.hourMs, ["state": "active"])
    #expect(kept.records("session").map { R.str($0, "op") } == ["restored"])
    #expect(kept.e.app.session.sessionId == "S-0001" && kept.e.app.session.worksetCount == 2)
  }

  @Test("§5.1/§5.4: reset_session_tap → reset_session_confirm; reset_session → new session id, empty workset, shot numbers restart")
  func resetSession() {
    var r = R(initial: ["session_restore": R.sessionJSON(lastActive: R.wall - 60_000, items: R.savedItems(3))])
    r.send(.reset_session_tap, at: 100)
    #expect(r.promptLines() == ["100 shown reset_session_confirm"])
    #expect(r.e.app.session.worksetCount == 3)
    r.action(at: 200, "reset_session_confirm", "reset_session")
    #expect(
      r.records("session").map { "\($0.t) \(R.str($0, "op")) \(R.str($0, "session_id")) \(R.str($0, "cause"))" }.last
        == "200 created S-0002 reset")
    #expect(r.e.app.session.sessionId == "S-0002" && r.e.app.session.items.isEmpty)
    #expect(r.lastPersist?.session?.sessionId == "S-0002" && r.lastPersist?.session?.items.isEmpty == true)
    r.tap(at: 300)
    #expect(r.e.app.session.items.map(\.itemId) == ["I-2-1"])
  }
}
