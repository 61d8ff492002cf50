import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Replay

/// The canonical writers of DESIGN §4: trace lines (``TraceFormat``) to one sink, canonical
/// A.13 lines (``A13Canonicalizer``) to another.
public struct CanonicalOutput<Trace: LineSink, A13: LineSink>: ReplayOutput {
  public var trace: Trace
  public var a13: A13
  /// Only these kinds reach the trace; nil = all (`replay --trace kinds`).
  public var traceKinds: Set<OutputKind>?
  /// `cue_eval` records narrowed to these cues (`replay --cue`); empty = all.
  public var cues: Set<String>
  private var canonicalizer = A13Canonicalizer()

  public init(trace: Trace, a13: A13, traceKinds: Set<OutputKind>? = nil, cues: Set<String> = []) {
    self.trace = trace
    self.a13 = a13
    self.traceKinds = traceKinds
    self.cues = cues
  }

  public mutating func emit(_ output: EngineOutput, at t: Millis) throws {
    if let traceKinds, !traceKinds.contains(output.kind) { return }
    guard let kept = TraceKinds.narrow(output, to: cues) else { return }
    try trace.write(record: TraceRecord(kept, at: t))
  }

  public mutating func emit(_ line: DiagnosticLine) throws {
    try a13.write(line: canonicalizer.canonicalize(line))
  }
}

/// Keeps the outputs that pass a filter, and every diagnostic line (tests, explanations).
public struct CollectingOutput: ReplayOutput {
  public var outputs: [TimedOutput] = []
  public var diagnostics: [DiagnosticLine] = []
  public var keep: (TimedOutput) -> Bool

  public init(keep: @escaping (TimedOutput) -> Bool = { _ in true }) { self.keep = keep }

  /// The kept outputs rendered as trace records.
  public var records: [TraceRecord] { outputs.map(\.record) }

  public mutating func emit(_ output: EngineOutput, at t: Millis) {
    let timed = TimedOutput(t: t, output: output)
    if keep(timed) { outputs.append(timed) }
  }
  public mutating func emit(_ line: DiagnosticLine) { diagnostics.append(line) }
}

/// One engine output with the time of the call that produced it.
public struct TimedOutput: Equatable, Sendable {
  public var t: Millis
  public var output: EngineOutput
  public init(t: Millis, output: EngineOutput) {
    self.t = t
    self.output = output
  }
  /// The output rendered as a trace record.
  public var record: TraceRecord { TraceRecord(output, at: t) }
}
