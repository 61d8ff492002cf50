import CanonicalJSON
import EngineIO

/// One line of the trace (ENGINE §1.7): `{"t":…, "out":"cue_display", …fields}`.
public struct TraceRecord: Equatable, Sendable {
  public var t: Millis
  /// The `out` discriminator; every kind the engine emits is listed in `TraceKinds.all`
  /// (Replay), and a test keeps that list equal to the kinds emitted here.
  public var out: String
  /// Every field besides `t` and `out`. Serialized with sorted keys by the trace writer.
  public var fields: JSONObject
  public init(t: Millis, out: String, fields: JSONObject) {
    self.t = t
    self.out = out
    self.fields = fields
  }
}

/// What one call into the engine produced, in generation order.
public struct Effects: Equatable, Sendable {
  public var outputs: [TraceRecord] = []
  public var diagnostics: [DiagnosticLine] = []
  public var timers: [TimerRequest] = []
  /// The persisted state after this call when it changed (a flush, ENGINE §5.1 Persistence);
  /// the replay adapter writes it to the SQLite store. nil = nothing to flush.
  public var persist: StoreSnapshot?
  public init(outputs: [TraceRecord] = [], diagnostics: [DiagnosticLine] = [], timers: [TimerRequest] = []) {
    self.outputs = outputs
    self.diagnostics = diagnostics
    self.timers = timers
  }
  public var isEmpty: Bool { outputs.isEmpty && diagnostics.isEmpty && timers.isEmpty && persist == nil }
  public mutating func append(_ other: Effects) {
    outputs += other.outputs
    diagnostics += other.diagnostics
    timers += other.timers
    if let p = other.persist { persist = p }
  }
}
