import CanonicalJSON
import EngineIO
import JustPhotoIO

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
    return InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: results[0], fields: out)))
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
