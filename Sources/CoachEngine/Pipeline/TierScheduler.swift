import EngineIO

/// The tier scheduler of ENGINE §3.11 on virtual time.
///
/// - T0 runs at 15 Hz, 8 Hz while degraded; T1 ticks every 500 ms from engine start and is
///   paused while degraded.
/// - Degrade triggers: `thermal` ≥ serious [C,P]; `preview_stats` with ≥ 5 dropped frames in
///   its window or an average below 24 fps [P].
/// - Degrade: T1 off and T0 → 8 Hz at once ([C] applies both together; the [P] order "first
///   T1, then T0" has no time between the steps to observe).
/// - Recovery [D]: T0 back to 15 Hz as soon as no trigger holds; T1 re-enabled 1000 ms later
///   if still clear (the `recoveryTimer`). A new trigger in between cancels it.
///
/// Each change is a `tier` output `{t0_hz, t1_enabled, cause: thermal|frame_drop|recovered}`.
struct TierScheduler: Equatable, Sendable {
  static let recoveryTimer = EngineTimer.t1Recovery.id
  static let t1Timer = EngineTimer.t1Tick.id
  static let normalHz = 15
  static let degradedHz = 8
  static let t1PeriodMs: Millis = 500
  static let recoveryDelayMs: Millis = 1000
  static let droppedFramesLimit = 5
  static let minAverageFps = 24.0

  private(set) var thermalTrigger = false
  private(set) var frameDropTrigger = false
  private(set) var t0Hz = normalHz
  private(set) var t1Enabled = true

  var degraded: Bool { thermalTrigger || frameDropTrigger }

  /// Thermal state names as the device reports them (nominal 0, fair 1, serious 2, critical 3).
  static func thermalRaw(_ state: String) -> Int {
    switch state {
    case "fair": 1
    case "serious": 2
    case "critical": 3
    default: 0
    }
  }

  mutating func thermal(_ state: String, at t: Millis) -> Effects {
    let was = thermalTrigger
    thermalTrigger = Self.thermalRaw(state) >= 2
    return was == thermalTrigger ? Effects() : reconsider(cause: "thermal", at: t)
  }

  mutating func previewStats(dropped: Int, averageFps: Double?, at t: Millis) -> Effects {
    let was = frameDropTrigger
    frameDropTrigger = dropped >= Self.droppedFramesLimit || (averageFps.map { $0 < Self.minAverageFps } ?? false)
    return was == frameDropTrigger ? Effects() : reconsider(cause: "frame_drop", at: t)
  }

  /// The recovery timer fired: T1 back on if nothing degrades any more.
  mutating func recoveryDue(at t: Millis) -> Effects {
    guard !degraded, t0Hz == Self.normalHz, !t1Enabled else { return Effects() }
    t1Enabled = true
    return Effects(outputs: [record(cause: "recovered", at: t)])
  }

  mutating func reconsider(cause: String, at t: Millis) -> Effects {
    if degraded {
      guard t0Hz != Self.degradedHz || t1Enabled else { return Effects() }
      let recovering = t0Hz == Self.normalHz && !t1Enabled
      t0Hz = Self.degradedHz
      t1Enabled = false
      return Effects(
        outputs: [record(cause: cause, at: t)], timers: recovering ? [.cancel(Self.recoveryTimer)] : [])
    }
    guard t0Hz == Self.degradedHz else { return Effects() }
    t0Hz = Self.normalHz
    return Effects(
      outputs: [record(cause: "recovered", at: t)],
      timers: [.schedule(Self.recoveryTimer, at: t + Self.recoveryDelayMs)])
  }

  func record(cause: String, at t: Millis) -> EngineOutput {
    .tier(TierLine(t0Hz: t0Hz, t1Enabled: t1Enabled, cause: cause))
  }
}
