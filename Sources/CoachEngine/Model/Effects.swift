import PoseSpec

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

/// What one call into the engine produced, in generation order. Every output and A.13 line
/// belongs to the time of the call.
public struct Effects: Equatable, Sendable {
  public var outputs: [EngineOutput] = []
  public var diagnostics: [DiagnosticLine] = []
  public var timers: [TimerRequest] = []
  /// The persisted state after this call when it changed (a flush, ENGINE §5.1 Persistence);
  /// the replay adapter writes it to the SQLite store. nil = nothing to flush.
  public var persist: StoreSnapshot?
  public init(outputs: [EngineOutput] = [], diagnostics: [DiagnosticLine] = [], timers: [TimerRequest] = []) {
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
