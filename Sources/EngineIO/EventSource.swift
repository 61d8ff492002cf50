import CanonicalJSON

/// A recording opened for replay: its header and its input events, in file order.
///
/// The replayer pulls one event at a time, so an implementation can stream a recording of any
/// length in constant memory. Events come in non-decreasing `t` (the replayer rejects a step
/// back as bad input); equal times keep file order. `label` events may be included: the
/// replayer counts and skips them.
///
/// The `Recording` module's readers (`RecordingReader` for `.jprec`, `JSONLReader` for
/// `.jsonl` / `.jsonl.zst`) and the scenario generator's `GeneratedReader` conform directly;
/// tests and `minimize` use ``InMemoryEventSource``.
public protocol EventSource {
  /// The recording header (ENGINE §1.4): `format`, `wall_start_ms`, `options`, `initial`,
  /// and optionally `duration_ms`.
  var header: JSONObject { get }
  /// The next input event, or nil at the end of the recording. The error names the file and
  /// the place (line, chunk); the replayer wraps it once as bad input (exit 2).
  mutating func next() throws(RecordingError) -> InputEvent?
}

/// An event source over events held in memory (tests, generated sessions, `minimize`).
public struct InMemoryEventSource: EventSource, Sendable {
  /// The header handed out as ``EventSource/header`` (empty by default: every option at its default, wall time 0).
  public var header: JSONObject
  /// The events in the order ``next()`` returns them; the replayer expects non-decreasing `t`.
  public var events: [InputEvent]
  private var index = 0

  /// A source that returns `events` in order, then nil.
  public init(header: JSONObject = JSONObject(), events: [InputEvent]) {
    self.header = header
    self.events = events
  }

  /// The next event in ``events``, or nil after the last; never throws.
  public mutating func next() -> InputEvent? {
    guard index < events.count else { return nil }
    defer { index += 1 }
    return events[index]
  }
}
