import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoPlugin
import Replay
import JustPhotoScenarios

/// A `ReplayOutput` that keeps what `expect:` rules are judged on (the trace records but
/// `cue_eval`, and the A.13 lines), for an in-process replay — `tune` checks a trial's replay against the scenario's
/// rules as hard constraints without formatting the trace:
///
/// ```swift
/// var out = ExpectationOutput()
/// try driver.replay(recordingURL, into: &out)
/// let broken = Expectations.check(scenario.expectations, trace: out.trace)
/// ```
package struct ExpectationOutput: ReplayOutput {
  package private(set) var trace = ExpectationTrace()

  package init() {}

  package mutating func emit(_ output: EngineOutput, at t: Millis) throws {
    if case .cueEval = output { return }
    // As verify hands them (`ReplayProducts.records`): the record its line reads back as.
    let r = TraceFormat.canonical(TraceRecord(output, at: t))
    trace.add(t: r.t, out: r.out, fields: r.fields)
  }

  package mutating func emit(_ line: DiagnosticLine) {
    trace.addA13(
      tsMs: line.tsMs, event: line.event, payload: JSONObject(line.payload.map { JSONMember($0.key, .string($0.value)) }))
  }
}
