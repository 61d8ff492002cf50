import CanonicalJSON
import CoachEngine
import EngineIO
import EngineSeam

/// How a Just Photo effect request (`EngineOutput.effect`) is answered (ENGINE §1.6); the
/// seam form of this table is ``JustPhotoVocabulary/effectRules``.
public struct EffectRule: Sendable {
  /// The request kind, e.g. `photokit_write`.
  public var request: EffectKind
  /// The input kinds that answer it; the first is the success result used by lenient replay.
  public var results: [EventKind]
  /// The fields shared by request and result that form the correlation key.
  public var keyFields: [String]

  /// Every request that expects a result. Other requests (`start_camera`, `open_*`) expect none.
  public static let all: [EffectRule] = [
    EffectRule(
      request: .request_camera_permission, results: [.camera_permission_result], keyFields: []),
    EffectRule(
      request: .capture_photo, results: [.photo_data, .photo_capture_error], keyFields: ["shot"]),
    EffectRule(
      request: .photokit_write, results: [.photokit_write_result], keyFields: ["shot", "attempt"]),
    EffectRule(
      request: .fetch_asset, results: [.asset_fetch_result], keyFields: ["asset_id", "attempt"]),
    EffectRule(
      request: .album_add, results: [.album_add_result], keyFields: ["asset_id", "attempt"]),
    // thumb_result carries only `shot`: attempts of one shot are answered in request order.
    EffectRule(request: .generate_thumb, results: [.thumb_result], keyFields: ["shot"]),
    EffectRule(request: .favorite_sync, results: [.favorite_sync_result], keyFields: ["item"]),
    EffectRule(request: .odr_request, results: [.odr_result], keyFields: ["tag", "attempt"]),
  ]

  public static func forRequest(_ kind: EffectKind) -> EffectRule? { all.first { $0.request == kind } }
  public static func forResult(_ kind: EventKind) -> EffectRule? {
    all.first { $0.results.contains(kind) }
  }

  /// The correlation key of `fields`, e.g. `shot=2,attempt=1`; nil when a key field is missing.
  public func key(of fields: JSONObject) -> String? {
    var parts: [String] = []
    for name in keyFields {
      guard let v = fields[name] else { return nil }
      parts.append("\(name)=\(Self.text(v))")
    }
    return parts.joined(separator: ",")
  }

  /// A successful result for a request with `fields`, stamped `t` (lenient replay).
  public func syntheticSuccess(for fields: JSONObject, at t: Millis) -> InputEvent {
    var out = JSONObject()
    for name in keyFields { out[name] = fields[name] }
    switch results[0] {
    case .camera_permission_result: out["granted"] = true
    case .photo_data:
      out["bytes"] = 1_048_576
      out["ext"] = "heic"
    case .photokit_write_result:
      out["ok"] = true
      let shot = fields[TraceField.shot]?.int64Value ?? 0
      let attempt = fields[TraceField.attempt]?.int64Value ?? 0
      out["asset_id"] = .string(Self.syntheticAssetID(shot: shot, attempt: attempt))
    case .asset_fetch_result: out["count"] = 1
    case .album_add_result, .thumb_result, .odr_result: out["ok"] = true
    case .favorite_sync_result: out["result"] = "success"
    default: break
    }
    return InputEvent(t: t, payload: .generic(GenericEvent(kind: results[0], fields: out)))
  }

  /// A UUID-shaped local identifier derived from shot and attempt (no randomness).
  static func syntheticAssetID(shot: Int64, attempt: Int64) -> String {
    let tail = String(shot * 1000 + attempt, radix: 16, uppercase: true)
    return "5E1F0000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - tail.count))
      + tail + "/L0/001"
  }

  static func text(_ v: JSONValue) -> String {
    switch v {
    case .string(let s): s
    case .number(let d): JSONWriter.formatNumber(d)
    default: JSONWriter.write(v, sortKeys: true, numbers: .fixed6)
    }
  }
}

/// The requests waiting for results, and the checks of ENGINE §1.6, for the engine whose
/// vocabulary is `V` (its effect table, its kill event).
struct EffectLedger<V: EngineVocabulary> {
  struct Pending {
    var t: Millis
    var order: UInt64
    var request: String
    var key: String
    var synthesized = false
  }

  let strict: Bool
  let latencyMs: Millis
  /// Pending requests per `request|key`, oldest first.
  private var pending: [String: [Pending]] = [:]
  /// Keys whose result was synthesized (lenient), so a late recorded one is dropped.
  private var synthesizedKeys: [String: Int] = [:]
  private var order: UInt64 = 0
  private(set) var notes: [HarnessIssue] = []

  init(strict: Bool, latencyMs: Millis) {
    self.strict = strict
    self.latencyMs = latencyMs
  }

  /// Registers an effect request. Returns a synthesized result to deliver later (lenient).
  mutating func request(_ call: EffectCall, at t: Millis) throws(HarnessError) -> InputEvent? {
    guard let rule = V.rule(forRequest: call.kind) else { return nil }
    let kind = call.kind
    let fields = call.fields
    guard let key = rule.key(of: fields) else {
      let issue = HarnessIssue(
        kind: .malformedRequest, t: t, effect: kind,
        key: rule.keyFields.joined(separator: ","))
      if strict { throw HarnessError(issues: [issue]) }
      notes.append(issue)
      return nil
    }
    order += 1
    pending["\(kind)|\(key)", default: []].append(
      Pending(t: t, order: order, request: kind, key: key))
    return strict ? nil : V.syntheticSuccess(rule, request: fields, at: t + latencyMs)
  }

  /// Checks a recorded input. Returns false when the event must not reach the engine.
  mutating func recorded(_ event: InputEvent) throws(HarnessError) -> Bool {
    guard let rule = V.rule(forResult: event), let fields = event.jsonFields else { return true }
    let key = rule.key(of: fields) ?? "?"
    let slot = "\(rule.request)|\(key)"
    if var queue = pending[slot], !queue.isEmpty {
      queue.removeFirst()
      pending[slot] = queue.isEmpty ? nil : queue
      return true
    }
    if let n = synthesizedKeys[slot], n > 0 {
      synthesizedKeys[slot] = n - 1
      notes.append(
        HarnessIssue(kind: .lateResultDropped, t: event.t, effect: event.kindName, key: key))
      return false
    }
    let issue = HarnessIssue(
      kind: .resultWithoutRequest, t: event.t, effect: event.kindName, key: key)
    if strict { throw HarnessError(issues: [issue]) }
    notes.append(issue)
    return true
  }

  /// A synthesized result is due: deliver it only if its request is still unanswered.
  mutating func synthesized(_ event: InputEvent) -> Bool {
    guard let rule = V.rule(forResult: event), let fields = event.jsonFields, let key = rule.key(of: fields)
    else { return false }
    let slot = "\(rule.request)|\(key)"
    guard var queue = pending[slot], !queue.isEmpty else { return false }
    queue.removeFirst()
    pending[slot] = queue.isEmpty ? nil : queue
    synthesizedKeys[slot, default: 0] += 1
    notes.append(
      HarnessIssue(kind: .synthesizedResult, t: event.t, effect: event.kindName, key: key))
    return true
  }

  /// The app was killed (`app_lifecycle terminated`): its requests die with the process and
  /// expect no result (a recorded one after the kill is a result without a request).
  mutating func processKilled() {
    pending = [:]
    synthesizedKeys = [:]
  }

  /// Requests still unanswered, in request order.
  var unanswered: [HarnessIssue] {
    pending.values.flatMap { $0 }.sorted { $0.order < $1.order }
      .map { HarnessIssue(kind: .requestWithoutResult, t: $0.t, effect: $0.request, key: $0.key) }
  }
}
