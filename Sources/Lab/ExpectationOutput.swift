import CoachEngine
import EngineIO
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

  public mutating func emit(_ output: EngineOutput, at t: Millis) throws {
    switch output {
    case .cueDisplay(let d): trace.append(.display(t: t, cue: d.cueId))
    case .praise(let p): trace.append(.praise(t: t, on: p.state == .on))
    default: break
    }
  }

  public mutating func emit(_ line: DiagnosticLine) {}
}
