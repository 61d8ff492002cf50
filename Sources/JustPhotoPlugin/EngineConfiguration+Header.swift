import JustPhotoEngine
import EngineIO
import JustPhotoIO
import PoseSpec
import Replay

extension EngineConfiguration {
  /// The configuration a recording asks for: its `options` (then `overrides`, as given by
  /// `replay --set key=value`), its `initial` state and its `wall_start_ms`.
  public init(
    spec: PoseSpecDocument, header: RecordingHeader,
    overrides: [(name: String, value: String)] = [],
    traceMetrics: Bool = false
  ) throws(BadInputError) {
    var options = try header.engineOptions()
    for o in overrides {
      do { try options.set(o.name, o.value) } catch {
        throw BadInputError(message: "--set: \(error.description)")
      }
    }
    self.init(
      spec: spec, options: options, initial: header.initial, wallStartMs: header.wallStartMs,
      traceMetrics: traceMetrics)
  }
}

extension RecordingHeader {
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

extension JustPhotoVocabulary: HeaderOptionsVocabulary {
  /// `options.strictEffects` through Just Photo's option catalogue (every recorded option is
  /// checked, as ``EngineConfiguration/init(spec:header:overrides:traceMetrics:)`` checks them).
  public static func strictEffects(in header: RecordingHeader) throws(BadInputError) -> Bool {
    try header.engineOptions().strictEffects
  }
}
