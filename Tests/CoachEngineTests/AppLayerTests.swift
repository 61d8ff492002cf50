import CanonicalJSON
@testable import CoachEngine
import EngineIO
import Replay
import Testing


/// Drives an `Engine` like the replayer does (ENGINE §1.3 rule 3): a virtual clock, every timer
/// the engine asks for fired at its due time before the inputs stamped with the same time
/// (ascending due, ties by creation order), and a log of every output, A.13 line and flush.
struct AppRig {
  static let wall: Int64 = 1_770_860_000_000
  static let hourMs: Int64 = 3_600_000
  static let dayMs: Int64 = 86_400_000

  var e: Engine
  var now: Millis = 0
  var pending: [(id: TimerID, at: Millis, seq: Int)] = []
  var seq = 0
  var out: [TraceRecord] = []
  var diags: [DiagnosticLine] = []
  /// The last `Effects.persist` (what the adapter would have written to the store).
  var lastPersist: StoreSnapshot?
  /// Timers scheduled for a time before the instant they were requested at (§1.3 rule 2).
  var pastSchedules: [(at: Millis, due: Millis, id: TimerID)] = []

  /// The engine of the app-layer tests: the reference spec, `outdoor`, `angleFix=on` (as
  /// `Fixture.engine`), wall start `wall`, and `initial` on top.
  init(initial: JSONObject = [:], options: [String: String] = [:]) {
    var o = EngineOptions()
    try! o.set("angleFix", "on")
    for (k, v) in options.sorted(by: { $0.key < $1.key }) { try! o.set(k, v) }
    var ini = initial
    if ini["scene"] == nil { ini["scene"] = "outdoor" }
    e = Engine(configuration: EngineConfiguration(spec: Fixture.reference, options: o, initial: ini, wallStartMs: Self.wall))
    apply(e.start())
  }

  mutating func apply(_ fx: Effects) {
    out += fx.records(at: now)
    diags += fx.diagnostics
    if let p = fx.persist { lastPersist = p }
    for r in fx.timers {
      switch r {
      case .schedule(let id, let at):
        if at < now { pastSchedules.append((now, at, id)) }
        pending.removeAll { $0.id == id }
        seq += 1
        pending.append((id, at, seq))
      case .cancel(let id):
        pending.removeAll { $0.id == id }
      }
    }
  }

  /// Fires every timer due ≤ t (a timer due in the past fires at once, at the current time),
  /// then sets the clock to t.
  mutating func advance(to t: Millis) {
    precondition(t >= now)
    while let next = pending.filter({ $0.at <= t }).min(by: { ($0.at, $0.seq) < ($1.at, $1.seq) }) {
      pending.removeAll { $0.id == next.id }
      now = max(now, next.at)
      apply(e.fire(next.id, at: now))
    }
    now = t
  }

  /// An app event at t; returns what that call produced.
  @discardableResult mutating func send(_ kind: EventKind, at t: Millis, _ fields: JSONObject = [:]) -> Effects {
    advance(to: t)
    let fx = e.handle(InputEvent(t: t, payload: .generic(GenericEvent(kind: kind, fields: fields))))
    apply(fx)
    return fx
  }

  /// `app_launch` at t through the typed relaunch entry, with what the store holds.
  @discardableResult mutating func relaunch(at t: Millis, restoring stored: StoreSnapshot) -> Effects {
    advance(to: t)
    let fx = e.relaunch(InputEvent(t: t, payload: .generic(GenericEvent(kind: .app_launch))), restoring: stored)
    apply(fx)
    return fx
  }

  mutating func feed(_ events: [InputEvent]) {
    // Stable: inputs with the same t keep their order.
    for ev in events.enumerated().sorted(by: { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }).map(\.element) {
      advance(to: ev.t)
      apply(e.handle(ev))
    }
  }

  // MARK: Recorded inputs

  mutating func tap(at t: Millis) { send(.shutter_tap, at: t) }
  mutating func action(at t: Millis, _ key: String, _ actionId: String) {
    send(.prompt_action, at: t, ["key": .string(key), "action_id": .string(actionId)])
  }
  mutating func photoData(at t: Millis, shot: Int) {
    send(.photo_data, at: t, ["shot": .number(Double(shot)), "bytes": 2_100_000, "ext": "heic"])
  }
  mutating func writeOK(at t: Millis, shot: Int, attempt: Int = 1) {
    send(
      .photokit_write_result, at: t,
      ["shot": .number(Double(shot)), "attempt": .number(Double(attempt)), "ok": true, "asset_id": .string("ASSET-\(shot)/L0/001")])
  }
  mutating func writeError(at t: Millis, shot: Int, attempt: Int = 1, code: Int = 3305) {
    send(
      .photokit_write_result, at: t,
      [
        "shot": .number(Double(shot)), "attempt": .number(Double(attempt)), "ok": false,
        "error": .object(["domain": "PHPhotosErrorDomain", "code": .number(Double(code))]),
      ])
  }

  // MARK: Queries

  static func str(_ r: TraceRecord, _ k: String) -> String {
    switch r.fields[k] {
    case .string(let v)?: v
    case .number(let d)?: JSONWriter.shortest(d)
    case .bool(let b)?: b ? "true" : "false"
    case nil: "-"
    default: "null"
    }
  }
  func records(_ kind: String) -> [TraceRecord] { out.filter { $0.out == kind } }
  /// "t enabled[ reason]".
  var shutterLines: [String] {
    records("shutter").map { r in
      "\(r.t) \(Self.str(r, "enabled"))" + (r.fields["reason"].map { " \($0.stringValue ?? "?")" } ?? "")
    }
  }
  var shutterReason: String? { shutterLines.last.flatMap { $0.split(separator: " ").dropFirst(2).first.map(String.init) } }
  /// "t op key[ dismiss_reason|drop_reason|action_id]".
  func promptLines(_ key: String? = nil) -> [String] {
    records("prompt").filter { key == nil || $0.fields["key"]?.stringValue == key }.map { r in
      var s = "\(r.t) \(Self.str(r, "op")) \(Self.str(r, "key"))"
      for k in ["dismiss_reason", "drop_reason", "action_id"] where r.fields[k] != nil { s += " \(Self.str(r, k))" }
      return s
    }
  }
  func effects(_ kind: String) -> [TraceRecord] { records("effect").filter { $0.fields["kind"]?.stringValue == kind } }
  func a13(_ event: String) -> [DiagnosticLine] { diags.filter { $0.event == event } }
  /// "t warmup".
  var cameraLines: [String] { records("camera").map { "\($0.t) \(Self.str($0, "warmup"))" } }

  // MARK: Persisted sessions (SessionModel+JSON keys)

  static func itemJSON(
    shot: Int, state: String, ordinal: Int = 1, pending: Bool = false, reason: String? = nil, liked: Bool = false
  ) -> JSONValue {
    var o: JSONObject = [
      "item_id": .string("I-\(ordinal)-\(shot)"), "shot_seq": .number(Double(shot)),
      "created_at_ms": .number(Double(wall - 600_000 + Int64(shot) * 1000)), "state": .string(state),
      "thumbnail_state": "ready", "album_state": .string(state == "write_success" ? "success" : "none"),
      "liked": .bool(liked), "write_attempts": 1,
    ]
    if state == "write_success" { o["asset_id"] = .string("ASSET-\(shot)/L0/001") }
    if pending { o["pending_file_rel_path"] = .string("pending/I-\(ordinal)-\(shot).heic") }
    if let reason { o["write_fail_reason"] = .string(reason) }
    return .object(o)
  }

  /// A persisted session; `items` newest first.
  static func sessionJSON(id: String = "S-0001", lastActive: Int64, items: [JSONValue], ordinal: Int = 1) -> JSONValue {
    let seqs = items.compactMap { $0["shot_seq"]?.int64Value }
    return .object([
      "session_id": .string(id), "created_at_ms": .number(Double(lastActive - 3_600_000)),
      "last_active_at_ms": .number(Double(lastActive)), "scene": "outdoor", "flags": [], "items": .array(items),
      "next_shot_seq": .number(Double((seqs.max() ?? 0) + 1)), "ordinal": .number(Double(ordinal)),
    ])
  }

  /// Shots n…1 (newest first), all saved, thumbnails ready, album success.
  static func savedItems(_ n: Int) -> [JSONValue] { (1...n).reversed().map { itemJSON(shot: $0, state: "write_success") } }
}

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
    r.send(.viewer_close, at: 1300)
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
    events.append(InputEvent(t: 2700, payload: .generic(GenericEvent(kind: .rotation, fields: ["orientation": "landscape_left"]))))
    events.append(InputEvent(t: 2800, payload: .generic(GenericEvent(kind: .shutter_tap))))
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

  // MARK: Kill and relaunch

  /// Shot 1 captured and written to its pending file (state writing) by t = 280.
  static func writingRig() -> AppRig {
    var r = R()
    r.tap(at: 100)
    r.photoData(at: 280, shot: 1)
    return r
  }

  @Test("§5.1 recovery after a kill: a writing item comes back write_failed(photo_lib_unavailable) and blocks the shutter")
  func killAndRelaunch() throws {
    var r = Self.writingRig()
    #expect(r.e.app.session.items.first?.core == .writing)
    let snapshot = try #require(r.lastPersist)
    #expect(snapshot.session?.items.first?.core == .writing)
    #expect(snapshot.session?.items.first?.pendingFile == "pending/I-1-1.heic")
    r.send(.app_lifecycle, at: 500, ["state": "terminated"])
    #expect(r.records("session").last.map { "\($0.t) \(R.str($0, "op"))" } == "500 killed")
    // Dead until app_launch: inputs and timers (the 2 s deadline, thumbnails) produce nothing.
    let ignoredTap = r.send(.shutter_tap, at: 600)
    let ignoredResult = r.send(.photokit_write_result, at: 700, ["shot": 1, "attempt": 1, "ok": true, "asset_id": "A"])
    #expect(ignoredTap.isEmpty && ignoredResult.isEmpty)
    r.advance(to: 9999)
    #expect(r.out.filter { $0.t > 500 }.isEmpty)
    #expect(r.diags.filter { $0.tsMs > R.wall + 500 }.isEmpty)

    // The typed relaunch entry (what the replayer does with its session store).
    r.relaunch(at: 10_000, restoring: snapshot)
    let item = r.records("item").last
    #expect(item.map { "\($0.t) \(R.str($0, "shot")) \(R.str($0, "core")) \(R.str($0, "reason"))" } == "10000 1 write_failed photo_lib_unavailable")
    #expect(r.e.app.session.items.first?.core == .write_failed)
    #expect(r.e.app.session.items.first?.writeFailReason == "photo_lib_unavailable")
    r.send(.camera_ready, at: 10_500)
    #expect(r.shutterReason == "blocked_by_write_failed")
    #expect(r.promptLines().contains("10000 shown write_failed_block"))
    // The relaunched engine asks for no timer in the past (§1.3 rule 2).
    r.advance(to: 12_000)
    #expect(r.pastSchedules.map { "\($0.at)→\($0.due) \($0.id)" } == [])
  }

  @Test("§5.1: the same capture without a kill stays writing; the shutter is not blocked")
  func noKillNoRecovery() {
    var r = Self.writingRig()
    r.send(.camera_ready, at: 10_000)
    r.advance(to: 10_500)
    #expect(r.e.app.session.items.first?.core == .writing)
    #expect(!r.shutterLines.contains { $0.hasSuffix("blocked_by_write_failed") })
    #expect(r.shutterReason == nil)
    #expect(!r.records("item").contains { $0.fields["core"] == "write_failed" })
  }

  @Test("§4.3/§5.1: app_launch {store} after a kill restores the installOnce flags (UserDefaults)")
  func relaunchRestoresInstallFlags() throws {
    var r = R()
    r.send(.app_lifecycle, at: 100, ["state": "background"])
    let snapshot = try #require(r.lastPersist)
    #expect(snapshot.installFlags.isEmpty)
    r.send(.app_lifecycle, at: 200, ["state": "terminated"])
    let store = StoreSnapshot(session: snapshot.session, installFlags: ["ref_first_save_notice"])
    r.send(.app_launch, at: 1000, ["store": store.json])
    #expect(r.e.app.prompts.installFlags == ["ref_first_save_notice"])
    // The installOnce gate holds: the notice is dropped (a fresh install shows it).
    let fx = r.e.emitPrompt("ref_first_save_notice", at: 1100)
    #expect(fx.records(at: 1100).map { "\(R.str($0, "op")) \(R.str($0, "drop_reason"))" } == ["dropped gate"])
    var fresh = R()
    let shown = fresh.e.emitPrompt("ref_first_save_notice", at: 0)
    #expect(shown.records(at: 0).map { R.str($0, "op") } == ["shown"])
    // …and the next flush writes them back.
    r.send(.app_lifecycle, at: 2000, ["state": "background"])
    #expect(r.lastPersist?.installFlags == ["ref_first_save_notice"])
  }

  // MARK: §5.14 ODR

  /// Sheet open, the download fails offline at 300 → failed_retry.
  static func odrFailedRig() -> AppRig {
    var r = R()
    r.send(.inspiration_open, at: 100)
    r.send(.network, at: 200, ["status": "unsatisfied"])
    r.send(.odr_result, at: 300, ["tag": "inspiration", "attempt": 1, "ok": false, "error": "offline"])
    return r
  }

  @Test("§5.14 / S42: network recovery in failed_retry → exactly one retry at +500; odr_auto_retry result=success")
  func odrAutoRetry() {
    var r = Self.odrFailedRig()
    #expect(r.effects("odr_request").map { "\($0.t) \(R.str($0, "attempt"))" } == ["100 1"])
    #expect(r.records("odr").map { "\($0.t) \(R.str($0, "state"))" } == ["100 downloading", "300 failed_retry"])
    r.send(.network, at: 1000, ["status": "satisfied"])
    // A flap inside the debounce does not add a second retry.
    r.send(.network, at: 1100, ["status": "unsatisfied"])
    r.send(.network, at: 1200, ["status": "satisfied"])
    r.advance(to: 1499)
    #expect(r.effects("odr_request").count == 1)
    r.advance(to: 1500)
    #expect(r.effects("odr_request").map { "\($0.t) \(R.str($0, "attempt"))" } == ["100 1", "1500 2"])
    r.send(.odr_result, at: 1700, ["tag": "inspiration", "attempt": 2, "ok": true])
    let line = r.a13("odr_auto_retry")
    #expect(line.map(\.tsMs) == [R.wall + 1700])
    #expect(line.first?.payload.map { "\($0.key)=\($0.value)" } == ["state_before=failed_retry", "debounce_ms=500", "result=success"])
    // A second flap after success: nothing.
    r.send(.network, at: 2000, ["status": "unsatisfied"])
    r.send(.network, at: 2100, ["status": "satisfied"])
    r.advance(to: 10_000)
    #expect(r.effects("odr_request").count == 2)
    #expect(r.a13("odr_auto_retry").count == 1)
  }

  @Test("§5.14 [D]: closing the sheet during the debounce logs result=skipped_left_page and sends no request")
  func odrSkippedLeftPage() {
    var r = Self.odrFailedRig()
    r.send(.network, at: 1000, ["status": "satisfied"])
    r.send(.inspiration_close, at: 1200)
    r.advance(to: 10_000)
    #expect(r.effects("odr_request").map(\.t) == [100])
    let line = r.a13("odr_auto_retry")
    #expect(line.map(\.tsMs) == [R.wall + 1200])
    #expect(line.first?.payload.map { "\($0.key)=\($0.value)" } == ["state_before=failed_retry", "debounce_ms=500", "result=skipped_left_page"])
  }

  @Test("§5.14/§4.6: inspiration_open while offline → L1 odr_unavailable toast, no request")
  func odrOffline() {
    var r = R(initial: ["network": "unsatisfied"])
    r.send(.inspiration_open, at: 100)
    let shown = r.records("prompt").filter { $0.fields["op"] == "shown" }
    #expect(shown.map { "\($0.t) \(R.str($0, "key")) \(R.str($0, "level")) \(R.str($0, "surface"))" } == ["100 odr_unavailable L1 cameraToastBottom"])
    #expect(shown.first?.fields["zh"] == "网络不可用，先用关键词")
    #expect(r.effects("odr_request").isEmpty)
  }

  // MARK: §6.5 rotation hook

  static func file(_ daysAgo: Int64, mib: Int64) -> (name: String, json: JSONValue) {
    let mtime = R.wall - daysAgo * R.dayMs
    let name = DiagnosticsRotation.fileName(forWallMs: mtime)
    return (name, .object(["name": .string(name), "size_bytes": .number(Double(mib * 1_048_576)), "mtime_ms": .number(Double(mtime))]))
  }

  @Test("§6.5 / S43: after the first A.13 line, one `diagnostics` delete line per file the plan removes (age rule)")
  func rotationAge() {
    let old = Self.file(31, mib: 40)
    let recent = Self.file(2, mib: 11)
    let today = Self.file(0, mib: 2)
    var r = R(initial: ["diagnostics_files": [old.json, recent.json, today.json]])
    #expect(r.records("diagnostics").isEmpty)  // nothing appended yet
    r.send(.reset_session_tap, at: 100)  // prompt_shown
    #expect(r.a13("prompt_shown").map(\.tsMs) == [R.wall + 100])
    r.action(at: 200, "reset_session_confirm", "dismiss")  // more A.13 lines
    let d = r.records("diagnostics")
    #expect(d.map { "\($0.t) \(R.str($0, "op")) \(R.str($0, "file")) \(R.str($0, "rule"))" } == ["100 delete \(old.name) age"])
    // The delete line follows the prompt line of the same call.
    let i = r.out.firstIndex { $0.out == "diagnostics" }!
    #expect(r.out[..<i].contains { $0.out == "prompt" && $0.t == 100 })
    #expect(r.a13("RotationBySizeTriggered").isEmpty)
  }

  @Test("§6.5: over the 50 MiB cap the oldest files go (rule size) and RotationBySizeTriggered is logged; other files ignored")
  func rotationSize() {
    let a = Self.file(5, mib: 30)
    let b = Self.file(3, mib: 25)
    let c = Self.file(0, mib: 1)
    let export: JSONValue = .object(["name": "JustPhoto-Diagnostics-20260101-000000.txt", "size_bytes": .number(Double(200 * 1_048_576)), "mtime_ms": .number(Double(R.wall - 40 * R.dayMs))])
    var r = R(initial: ["diagnostics_files": [c.json, b.json, a.json, export]])
    r.send(.reset_session_tap, at: 100)
    r.action(at: 200, "reset_session_confirm", "dismiss")
    #expect(r.records("diagnostics").map { "\($0.t) \(R.str($0, "file")) \(R.str($0, "rule"))" } == ["100 \(a.name) size"])
    let trig = r.a13("RotationBySizeTriggered")
    #expect(trig.map(\.tsMs) == [R.wall + 100])
    #expect(trig.first?.payload.map { "\($0.key)=\($0.value)" } == ["file=\(a.name)"])
  }

  // MARK: §4.6 / §5.6 write_failed Viewer bar

  /// Shot 1 saved (t 100–503), shot 2 write_failed(no_space) at 1400.
  static func writeFailedRig() -> AppRig {
    var r = R()
    r.tap(at: 100)
    r.photoData(at: 280, shot: 1)
    r.writeOK(at: 500, shot: 1)
    r.send(.asset_fetch_result, at: 503, ["asset_id": "ASSET-1/L0/001", "attempt": 1, "count": 1])
    r.tap(at: 1000)
    r.photoData(at: 1180, shot: 2)
    r.writeError(at: 1400, shot: 2)
    return r
  }

  @Test("§4.6/§5.6: the write_failed bar appears only while the Viewer shows the write_failed item; withdrawn on viewer_close")
  func writeFailedBarViewer() {
    var r = Self.writeFailedRig()
    #expect(r.records("item").last.map { "\(R.str($0, "shot")) \(R.str($0, "core")) \(R.str($0, "reason"))" } == "2 write_failed no_space")
    #expect(r.promptLines().filter { $0.hasPrefix("1400") } == ["1400 shown write_failed_block", "1400 shown blocked_by_write_failed"])
    #expect(r.shutterReason == "blocked_by_write_failed")
    r.send(.viewer_open, at: 2000, ["item": 1])
    #expect(r.promptLines("write_failed").isEmpty)
    r.send(.viewer_page, at: 2500, ["item": 2])
    r.send(.viewer_close, at: 3000)
    #expect(r.promptLines("write_failed") == ["2500 shown write_failed", "3000 dismissed write_failed auto"])
    let bar = r.records("prompt").first { $0.fields["key"] == "write_failed" }
    #expect(bar?.fields["surface"] == "viewerBlockingBarTop")
    #expect(bar?.fields["zh"] == "未保存到系统相册（手机空间不够）")
    // The block itself stays (§5.6).
    #expect(r.shutterReason == "blocked_by_write_failed")
  }

  @Test("§4.7/§5.6: write_failed_block 查看并处理 (open_first_write_failed) opens the Viewer on the item and shows the bar")
  func writeFailedBarFromBlockModal() {
    var r = Self.writeFailedRig()
    r.action(at: 2000, "write_failed_block", "open_first_write_failed")
    #expect(
      r.promptLines().filter { $0.hasPrefix("2000") } == [
        "2000 action write_failed_block open_first_write_failed", "2000 dismissed write_failed_block action",
        "2000 shown write_failed",
      ])
    #expect(r.e.app.bridge.viewerItem == 2)
    r.send(.viewer_close, at: 2600)
    #expect(r.promptLines("write_failed").last == "2600 dismissed write_failed auto")
  }

  @Test("§4.6: viewer_open on a write_failed item directly shows the bar, with the item's reason")
  func writeFailedBarDirect() {
    var r = Self.writeFailedRig()
    r.send(.viewer_open, at: 2000, ["item": 2])
    #expect(r.promptLines("write_failed") == ["2000 shown write_failed"])
    r.send(.viewer_close, at: 2100)
    #expect(r.promptLines("write_failed") == ["2000 shown write_failed", "2100 dismissed write_failed auto"])
  }

  // MARK: §4.4 system dialogs

  @Test("§4.4 / G‑39: an L3 emitted while a system dialog is open waits until it closes; an L2 does not wait")
  func systemDialogDefersL3() {
    var r = R(initial: ["camera_ready": false])
    r.send(.app_launch, at: 0)
    r.send(.system_dialog, at: 1000, ["open": true])
    r.send(.camera_interrupted, at: 2000, ["reason": "audio_device_in_use_by_another_client"])
    r.advance(to: 8500)
    #expect(r.cameraLines.last == "8000 failed")
    #expect(r.shutterReason == "warmup_failed")
    #expect(r.promptLines() == ["2000 shown camera_occupied"])
    r.send(.system_dialog, at: 9000, ["open": false])
    #expect(r.promptLines() == ["2000 shown camera_occupied", "9000 shown camera_init_failed"])
    let line = r.a13("prompt_shown").last
    #expect(line?.tsMs == R.wall + 9000)
    // emittedAt is the instant of the emission (A.2.2), not of the show.
    #expect(line?.payload.first { $0.key == "emittedAt" }?.value == String(R.wall + 8000))
  }
}
