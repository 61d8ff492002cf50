import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Testing

/// Drives a `CapturePipeline` like the engine does: a virtual clock, timers collected from the
/// `.timer` outputs and fired at their due times (ascending due, ties by creation order, ENGINE
/// §1.3 rule 3), and a log of every output stamped with its time.
struct CaptureRig {
  static let wall: Int64 = 1_770_860_000_000
  var p = CapturePipeline()
  var s = SessionSnapshot(sessionId: "S-0001", createdAtMs: wall, lastActiveAtMs: wall, scene: "cafe")
  var now: Millis = 0
  var photoAuth = "authorized"
  var freeMB: Int? = 10_000
  var c41 = false
  var pending: [(id: TimerID, at: Millis, seq: Int)] = []
  var seq = 0
  var log: [(t: Millis, out: CaptureOutput)] = []

  var ctx: CaptureContext {
    CaptureContext(now: now, wallMs: Self.wall + now, photoAuth: photoAuth, freeMB: freeMB, writeFailStringsC41: c41)
  }

  @discardableResult mutating func record(_ outs: [CaptureOutput]) -> [CaptureOutput] {
    for o in outs {
      if case .timer(let r) = o {
        switch r {
        case .schedule(let id, let at):
          pending.removeAll { $0.id == id }
          seq += 1
          pending.append((id, at, seq))
        case .cancel(let id):
          pending.removeAll { $0.id == id }
        }
      }
      log.append((now, o))
    }
    return outs
  }

  /// Fires every timer due ≤ t, then sets the clock to t.
  mutating func advance(to t: Millis) {
    precondition(t >= now)
    while let next = pending.filter({ $0.at <= t }).min(by: { ($0.at, $0.seq) < ($1.at, $1.seq) }) {
      pending.removeAll { $0.id == next.id }
      now = next.at
      record(p.fire(next.id, &s, ctx))
    }
    now = t
  }

  @discardableResult mutating func tap(at t: Millis) -> [CaptureOutput] {
    advance(to: t)
    return record(p.shutterTap(&s, ctx))
  }

  @discardableResult mutating func event(at t: Millis, _ kind: EventKind, _ fields: JSONObject) -> [CaptureOutput] {
    advance(to: t)
    guard let e = Self.captureEvent(JustPhotoEvent(kind: kind, fields: fields)) else {
      Issue.record("not a capture event: \(kind.rawValue) \(fields)")
      return []
    }
    return record(p.handle(e, &s, ctx))
  }

  /// The capture pipeline's event for a generic event of one of its kinds (as the engine routes it).
  static func captureEvent(_ g: JustPhotoEvent) -> CaptureEvent? {
    switch try? CoachEvent(decoding: g) {
    case .photoData(let e): .photoData(e)
    case .photoCaptureError(let e): .photoCaptureError(e)
    case .pendingWriteFailed(let e): .pendingWriteFailed(e)
    case .photokitWriteResult(let e): .photokitWriteResult(e)
    case .assetFetchResult(let e): .assetFetchResult(e)
    case .albumAddResult(let e): .albumAddResult(e)
    case .thumbResult(let e): .thumbResult(e)
    case .favoriteSyncResult(let e): .favoriteSyncResult(e)
    case .likeToggle(let e): .likeToggle(e)
    case .viewerOpen(let e): .viewerOpen(e)
    case .rebuildThumbTap(let e): .rebuildThumbTap(e)
    default: nil
    }
  }

  @discardableResult mutating func action(at t: Millis, _ id: String, item: Int? = nil) -> [CaptureOutput] {
    advance(to: t)
    return record(p.action(id, item: item, &s, ctx))
  }

  // Recorded effect results.
  mutating func photoData(at t: Millis, shot: Int = 1, bytes: Int = 2_100_000, ext: String = "heic") {
    event(at: t, .photo_data, ["shot": .number(Double(shot)), "bytes": .number(Double(bytes)), "ext": .string(ext)])
  }
  mutating func writeOK(at t: Millis, shot: Int = 1, attempt: Int = 1, asset: String = "ASSET-1/L0/001") {
    event(
      at: t, .photokit_write_result,
      ["shot": .number(Double(shot)), "attempt": .number(Double(attempt)), "ok": true, "asset_id": .string(asset)])
  }
  mutating func writeError(at t: Millis, shot: Int = 1, attempt: Int, domain: String, code: Int) {
    event(
      at: t, .photokit_write_result,
      [
        "shot": .number(Double(shot)), "attempt": .number(Double(attempt)), "ok": false,
        "error": .object(["domain": .string(domain), "code": .number(Double(code))]),
      ])
  }
  mutating func fetch(at t: Millis, asset: String = "ASSET-1/L0/001", attempt: Int, count: Int) {
    event(
      at: t, .asset_fetch_result,
      ["asset_id": .string(asset), "attempt": .number(Double(attempt)), "count": .number(Double(count))])
  }
  mutating func album(at t: Millis, asset: String = "ASSET-1/L0/001", attempt: Int, ok: Bool, kind: String = "other") {
    var f: JSONObject = ["asset_id": .string(asset), "attempt": .number(Double(attempt)), "ok": .bool(ok)]
    if !ok { f["error"] = .object(["kind": .string(kind), "domain": "PHPhotosErrorDomain", "code": 3300]) }
    event(at: t, .album_add_result, f)
  }
  /// Tap at t, data at t+180, write ok at t+420, fetch count 1 at t+423 (S28 timings).
  mutating func happyCapture(at t: Millis, shot: Int, asset: String) {
    tap(at: t)
    photoData(at: t + 180, shot: shot)
    writeOK(at: t + 420, shot: shot, asset: asset)
    fetch(at: t + 423, asset: asset, attempt: 1, count: 1)
  }

  // Queries over the log.
  func effects(_ kind: String) -> [(t: Millis, fields: JSONObject)] {
    log.compactMap { e in
      if case .effect(let request) = e.out, request.kind.rawValue == kind { return (e.t, request.fieldsWithoutKind) }
      return nil
    }
  }
  func prompts(_ key: PromptKey? = nil) -> [(t: Millis, key: PromptKey, payload: [String: PromptPayloadValue])] {
    log.compactMap { e in
      if case .prompt(let k, let p) = e.out, key == nil || k == key {
        return (e.t, k, Dictionary(uniqueKeysWithValues: p.map { ($0.key, $0.value) }))
      }
      return nil
    }
  }
  func withdrawals() -> [(t: Millis, key: PromptKey)] {
    log.compactMap { e in
      if case .withdraw(let k) = e.out { return (e.t, k) }
      return nil
    }
  }
  func diags(_ event: String) -> [(t: Millis, payload: [(key: String, value: String)])] {
    log.compactMap { e in
      if case .diagnostic(let ev, let p) = e.out, ev == event { return (e.t, p) }
      return nil
    }
  }
  /// "prev→next" of every item_state_changed line.
  func transitions() -> [String] {
    diags("item_state_changed").map { d in
      let m = Dictionary(uniqueKeysWithValues: d.payload.map { ($0.key, $0.value) })
      return "\(m["prev_state"]!)→\(m["next_state"]!)"
    }
  }
  func removals() -> [(t: Millis, shot: Int, reason: String)] {
    log.compactMap { e in
      if case .removed(let item, let r) = e.out { return (e.t, item.shotSeq, r) }
      return nil
    }
  }
  func item(_ shot: Int) -> SessionItem? { s.items.first { $0.shotSeq == shot } }
  func attempts(_ rows: [(t: Millis, fields: JSONObject)]) -> [Int] { rows.map { $0.fields.int("attempt") ?? -1 } }
}

extension JSONObject {
  /// An integer field (JSON number with an integral value), for reading trace and A.13 fields.
  func int(_ key: String) -> Int? { self[key]?.int64Value.map { Int($0) } }
}
