import CanonicalJSON
import EngineIO
import EngineSeam

/// Typed access to the header fields the replayer and the engine configuration read.
public struct RecordingHeader: Sendable, Equatable {
  /// The header as written.
  public var json: JSONObject
  /// The header `json`.
  public init(_ json: JSONObject) { self.json = json }

  /// `duration_ms`: the end of the replay. nil means "the last input's t".
  public var durationMs: Millis? { json["duration_ms"]?.int64Value }
  /// `wall_start_ms`: Unix epoch ms at t = 0 (0 when absent).
  public var wallStartMs: Int64 { json["wall_start_ms"]?.int64Value ?? 0 }
  /// `posespec_sha256`: the PoseSpec the recording was made with (the CLI refuses a mismatch
  /// unless `--spec` is given).
  public var posespecSHA256: String? { json["posespec_sha256"]?.stringValue }
  /// `initial` (ENGINE §1.4), empty when absent.
  public var initial: JSONObject { json["initial"]?.objectValue ?? JSONObject() }
  /// The engine the recording is for: `engine`, Just Photo when absent; nil when the value is
  /// not an engine name (`EngineName.problem(in:)` says why).
  public var engine: String? { EngineName.of(header: json) }

  /// `options.strictEffects` (ENGINE §1.6, default true): through Just Photo's option catalogue
  /// for its recordings, read directly for another engine's (whose options are its own).
  public func strictEffects(engine: String) throws(BadInputError) -> Bool {
    if engine == justPhotoEngineName { return try engineOptions().strictEffects }
    guard let value = json["options"] else { return true }
    guard let object = value.objectValue else {
      throw BadInputError(message: "header key \"options\": expected an object, found \(value.typeName)")
    }
    guard let v = object["strictEffects"] else { return true }
    guard case .bool(let b) = v else {
      throw BadInputError(message: "header key \"options\": \"strictEffects\": expected true or false, found \(v.typeName)")
    }
    return b
  }

  /// The engine options recorded in `options`, defaults for absent ones.
  public func engineOptions() throws(BadInputError) -> EngineOptions {
    guard let value = json["options"] else { return EngineOptions() }
    guard let object = value.objectValue else {
      throw BadInputError(
        message: "header key \"options\": expected an object, found \(value.typeName)")
    }
    do { return try EngineOptions(json: object) } catch {
      throw BadInputError(message: "header key \"options\": \(error.description)")
    }
  }
}
