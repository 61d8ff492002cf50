import CanonicalJSON
import EngineIO
import EngineSeam

/// Which trace lines an in-memory replay keeps (`minimize`, `plot`): those in `window` (nil =
/// any time) whose `out` is in `kinds` (nil = any kind). Lines are rendered only once kept.
public struct TraceSelection: Sendable, Equatable {
  public var window: ClosedRange<Millis>?
  public var kinds: Set<String>?
  public init(window: ClosedRange<Millis>? = nil, kinds: Set<String>? = nil) {
    self.window = window
    self.kinds = kinds
  }
  /// Every line.
  public static let all = TraceSelection()
}

/// Keeps the outputs a ``TraceSelection`` selects as trace records, each rendered by the
/// engine's vocabulary `V` (the records a canonical trace of the same replay holds).
public struct RecordOutput<V: EngineVocabulary>: ReplayOutput {
  public var selection: TraceSelection
  public var records: [TraceRecord] = []

  public init(_ selection: TraceSelection = .all, vocabulary: V.Type = V.self) { self.selection = selection }

  public mutating func emit(_ output: V.Output, at t: Millis) {
    if let w = selection.window, !w.contains(t) { return }
    if let k = selection.kinds, !k.contains(V.outputKind(output)) { return }
    let r = V.traceRecord(output)
    records.append(TraceRecord(t: t, out: r.out, fields: r.fields))
  }

  public mutating func emit(_ line: DiagnosticLine) {}
}

extension ReplayDriver {
  /// Replays a recording held in memory (its header and events) and returns the trace
  /// records `selection` keeps. `recording` names it in error messages.
  public func records(
    header: JSONObject, events: [InputEvent], selection: TraceSelection = .all, recording: String
  ) throws(ReplayError) -> [TraceRecord] {
    var source = InMemoryEventSource(header: header, events: events)
    var out = RecordOutput(selection, vocabulary: E.Vocabulary.self)
    _ = try replay(source: &source, into: &out, recording: recording)
    return out.records
  }
}
