import PoseSpec

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

/// One A.13 diagnostics line (ENGINE §6.1); payload values are strings.
public struct DiagnosticLine: Equatable, Sendable {
  public var tsMs: Int64
  public var sessionId: String
  public var event: String
  public var scene: String
  public var payload: [(key: String, value: String)]
  public init(tsMs: Int64, sessionId: String, event: String, scene: String, payload: [(key: String, value: String)]) {
    self.tsMs = tsMs
    self.sessionId = sessionId
    self.event = event
    self.scene = scene
    self.payload = payload
  }
  public static func == (a: DiagnosticLine, b: DiagnosticLine) -> Bool {
    a.tsMs == b.tsMs && a.sessionId == b.sessionId && a.event == b.event && a.scene == b.scene
      && a.payload.map(\.key) == b.payload.map(\.key) && a.payload.map(\.value) == b.payload.map(\.value)
  }
}

/// Names a timer the engine asked for. Re-scheduling an id replaces its due time.
public struct TimerID: Hashable, Comparable, Sendable, CustomStringConvertible {
  public var name: String
  public init(_ name: String) { self.name = name }
  public static func < (a: TimerID, b: TimerID) -> Bool { a.name < b.name }
  public var description: String { name }
}

/// A request to the replayer's (or the device shell's) clock.
public enum TimerRequest: Equatable, Sendable {
  /// Fire `id` at absolute virtual time `at` (replaces an earlier schedule of the same id).
  case schedule(TimerID, at: Millis)
  case cancel(TimerID)
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
