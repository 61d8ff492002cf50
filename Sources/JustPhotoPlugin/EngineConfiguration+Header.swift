import JustPhotoEngine
import EngineIO
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
