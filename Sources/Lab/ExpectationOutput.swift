import CoachEngine
import Replay
import Scenarios

/// A `ReplayOutput` that keeps only what `expect:` rules are judged on (displayed cues and
/// praise), for an in-process replay — `tune` checks a trial's replay against the scenario's
/// rules as hard constraints without formatting the trace:
///
/// ```swift
/// var out = ExpectationOutput()
/// try driver.replay(recordingURL, into: &out)
/// let broken = Expectations.check(scenario.expectations, trace: out.trace)
/// ```
public struct ExpectationOutput: ReplayOutput {
  public private(set) var trace = ExpectationTrace()

  public init() {}

  public mutating func emit(_ record: TraceRecord) throws {
    trace.add(t: record.t, out: record.out, fields: record.fields)
  }

  public mutating func emit(_ line: DiagnosticLine) {}
}
