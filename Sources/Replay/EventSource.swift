import CoachEngine
import PoseSpec

/// A recording opened for replay: its header and its input events, in file order.
///
/// The replayer pulls one event at a time, so an implementation can stream a recording of any
/// length in constant memory. Events come in non-decreasing `t` (the replayer rejects a step
/// back as bad input); equal times keep file order. `label` events may be included: the
/// replayer counts and skips them.
///
/// `Lab.RecordingSource` adapts the `Recording` module's readers (.jprec and JSONL) to this
/// protocol; tests use
/// ``InMemoryEventSource``.
public protocol EventSource {
  /// The recording header (ENGINE §1.4): `format`, `wall_start_ms`, `options`, `initial`,
  /// and optionally `duration_ms`.
  var header: JSONObject { get }
  /// The next input event, or nil at the end of the recording. Errors are reported as bad
  /// input (exit 2) naming the recording.
  mutating func next() throws -> InputEvent?
}

/// An event source over events held in memory (tests, generated sessions, `minimize`).
public struct InMemoryEventSource: EventSource, Sendable {
  public var header: JSONObject
  public var events: [InputEvent]
  private var index = 0

  public init(header: JSONObject = JSONObject(), events: [InputEvent]) {
    self.header = header
    self.events = events
  }

  public mutating func next() -> InputEvent? {
    guard index < events.count else { return nil }
    defer { index += 1 }
    return events[index]
  }
}

/// Typed access to the header fields the replayer and the engine configuration read.
public struct RecordingHeader: Sendable, Equatable {
  public var json: JSONObject
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
