import PoseSpec

/// Everything the engine is constructed with. Nothing else reaches it but events and timers.
public struct EngineConfiguration: Sendable {
  /// A PoseSpec that passed validation (ENGINE §2.3).
  public var spec: PoseSpecDocument
  public var options: EngineOptions
  /// The header's `initial` object (ENGINE §1.4); `scene` defaults to "cafe".
  public var initial: JSONObject
  /// Unix epoch ms at t = 0 (anchors A.13 `ts_ms`).
  public var wallStartMs: Int64
  /// Emit per-evaluation `cue_eval` lines (`replay --trace metrics`); off for goldens.
  public var traceMetrics: Bool
  public init(
    spec: PoseSpecDocument, options: EngineOptions = EngineOptions(), initial: JSONObject = JSONObject(),
    wallStartMs: Int64 = 0, traceMetrics: Bool = false
  ) {
    self.spec = spec
    self.options = options
    self.initial = initial
    self.wallStartMs = wallStartMs
    self.traceMetrics = traceMetrics
  }
}

/// The Just Photo coaching engine: a synchronous, clock-free state machine (DESIGN §1).
///
/// Time enters only with events (`event.t`) and timer firings; timers leave as requests in
/// `Effects.timers`. The same calls in the same order always give the same effects.
public struct Engine: Sendable {
  public init(configuration: EngineConfiguration) {
    fatalError("Engine: implementation pending")
  }
  /// Called once at t = 0 before any event.
  public mutating func start() -> Effects { fatalError("pending") }
  /// Feeds one recorded input event at its time `event.t`.
  public mutating func handle(_ event: InputEvent) -> Effects { fatalError("pending") }
  /// Fires a timer the engine scheduled earlier, at its due time.
  public mutating func fire(_ timer: TimerID, at now: Millis) -> Effects { fatalError("pending") }
}
