import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
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
    // A test event the engine refuses (fields that do not match the kind's definition) is a
    // mistake in the test, not a silent no-op.
    if let refused = fx.refused { Issue.record("the engine refused an event: \(refused)") }
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
    let fx = e.handle(InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: kind, fields: fields))))
    apply(fx)
    return fx
  }

  /// `app_launch` at t through the typed relaunch entry, with what the store holds.
  @discardableResult mutating func relaunch(at t: Millis, restoring stored: StoreSnapshot) -> Effects {
    advance(to: t)
    let fx = e.relaunch(InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .app_launch))), restoring: stored)
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
