import EngineIO
import Recording

/// The bounds a replay enforces on any source (`.jprec`, JSONL or in memory), so that its cost
/// is bounded by `RecordingLimits` whatever reader produced the events.
///
/// Replay cost grows with virtual time as well as with events: the engine's T1 timer fires
/// every 500 ms until the end (`duration_ms`, else the last event's t), even across a span with
/// no events. Bounding the span (`durationMsMax`) bounds those firings; bounding the events
/// (`eventsMax`) bounds the rest. Both are checked before the engine sees anything past them.
extension ReplayRun {
  /// `duration_ms` and `wall_start_ms` within their bounds (checked once, before `start()`).
  @inlinable func checkHeaderLimits() throws(ReplayError) {
    if let d = header.durationMs, d > RecordingLimits.durationMsMax {
      throw bad(
        nil,
        "header duration_ms \(d) is over the bound durationMsMax = \(RecordingLimits.durationMsMax) ms (\(RecordingLimits.durationMsMax / 3_600_000) h); split the recording"
      )
    }
    let wall = header.wallStartMs
    guard wall >= 0, wall <= RecordingLimits.wallStartMsMax else {
      throw bad(
        nil,
        "header wall_start_ms \(wall) is outside 0…wallStartMsMax = \(RecordingLimits.wallStartMsMax) (Unix epoch ms up to year 9999)"
      )
    }
  }

  /// One more event read: its `t` within the span bound, the count within `options.eventsMax`.
  @inlinable mutating func checkEventLimits(_ event: InputEvent) throws(ReplayError) {
    if event.t > RecordingLimits.durationMsMax {
      throw bad(
        event.t,
        "event \(event.kindName) is over the bound durationMsMax = \(RecordingLimits.durationMsMax) ms (\(RecordingLimits.durationMsMax / 3_600_000) h); split the recording"
      )
    }
    eventsRead += 1
    if eventsRead > options.eventsMax {
      throw bad(
        event.t,
        "event \(eventsRead) is over the bound eventsMax = \(options.eventsMax) events per recording; split the recording"
      )
    }
  }
}
