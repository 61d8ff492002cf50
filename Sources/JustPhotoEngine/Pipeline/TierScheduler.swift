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

  init() {}
  /// A scheduler in a state no input reaches (test-only: shows the invariants firing).
  init(testOnlyT0Hz hz: Int, t1Enabled: Bool) {
    t0Hz = hz
    self.t1Enabled = t1Enabled
  }

  /// Thermal state names as the device reports them (nominal 0, fair 1, serious 2, critical 3).
  static func thermalRaw(_ state: String) -> Int {
    switch state {
    case "fair": 1
    case "serious": 2
    case "critical": 3
    default: 0
    }
  }

  /// The scheduler's inputs.
  enum Action: Sendable {
    /// `thermal {state}`.
    case thermal(String)
    /// `preview_stats {dropped_frames, avg_fps}`.
    case previewStats(dropped: Int, averageFps: Double?)
    /// The recovery timer fired.
    case recoveryDue
  }

  /// The transition function: a `tier` line on each change, the recovery timer.
  mutating func step(_ action: Action, at t: Millis) -> [MachineAction] {
    let out: [MachineAction]
    switch action {
    case .thermal(let state):
      let was = thermalTrigger
      thermalTrigger = Self.thermalRaw(state) >= 2
      out = was == thermalTrigger ? [] : reconsider(cause: "thermal", at: t)
    case .previewStats(let dropped, let averageFps):
      let was = frameDropTrigger
      frameDropTrigger = dropped >= Self.droppedFramesLimit || (averageFps.map { $0 < Self.minAverageFps } ?? false)
      out = was == frameDropTrigger ? [] : reconsider(cause: "frame_drop", at: t)
    case .recoveryDue:
      // T1 back on if nothing degrades any more.
      if !degraded, t0Hz == Self.normalHz, !t1Enabled {
        t1Enabled = true
        out = [.output(record(cause: "recovered", at: t))]
      } else {
        out = []
      }
    }
    // Two tiers only; a degraded scheduler runs T0 at 8 Hz without T1; T1 runs only at 15 Hz.
    EngineInvariant.check(t0Hz == Self.normalHz || t0Hz == Self.degradedHz, "tier: t0 at \(t0Hz) Hz")
    EngineInvariant.check(!degraded || (t0Hz == Self.degradedHz && !t1Enabled), "tier: degraded at \(t0Hz) Hz, T1 \(t1Enabled)")
    EngineInvariant.check(!t1Enabled || t0Hz == Self.normalHz, "tier: T1 on at \(t0Hz) Hz")
    return out
  }

  private mutating func reconsider(cause: String, at t: Millis) -> [MachineAction] {
    if degraded {
      guard t0Hz != Self.degradedHz || t1Enabled else { return [] }
      let recovering = t0Hz == Self.normalHz && !t1Enabled
      t0Hz = Self.degradedHz
      t1Enabled = false
      return [.output(record(cause: cause, at: t))] + (recovering ? [.timer(.cancel(Self.recoveryTimer))] : [])
    }
    guard t0Hz == Self.degradedHz else { return [] }
    t0Hz = Self.normalHz
    return [
      .output(record(cause: "recovered", at: t)), .timer(.schedule(Self.recoveryTimer, at: t + Self.recoveryDelayMs)),
    ]
  }

  func record(cause: String, at t: Millis) -> EngineOutput {
    .tier(TierLine(t0Hz: t0Hz, t1Enabled: t1Enabled, cause: cause))
  }
}
