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

  /// `options.strictEffects` (ENGINE §1.6, default true) for the engine whose vocabulary is
  /// `V`: through its option catalogue when it has one (``HeaderOptionsVocabulary``, Just
  /// Photo's), read directly otherwise (the engine's options are its own).
  public func strictEffects<V: EngineVocabulary>(for _: V.Type) throws(BadInputError) -> Bool {
    if let catalogue = V.self as? any HeaderOptionsVocabulary.Type { return try catalogue.strictEffects(in: self) }
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
}

/// A vocabulary whose engine reads the header's `options` through a catalogue of its own (Just
/// Photo's `EngineOptions`), so every option is checked wherever one is read.
public protocol HeaderOptionsVocabulary: EngineVocabulary {
  /// `options.strictEffects` of a header, read through the engine's option catalogue.
  ///
  /// - Parameter header: the recording's header.
  /// - Returns: whether effect results must match a pending request (ENGINE §1.6).
  /// - Throws: ``BadInputError`` naming the option that does not read.
  ///
  /// Example: a header with `"options": {"strictEffects": false}` gives false.
  static func strictEffects(in header: RecordingHeader) throws(BadInputError) -> Bool
}
