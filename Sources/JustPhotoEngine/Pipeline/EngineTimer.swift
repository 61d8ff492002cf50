import EngineIO

/// Every timer the engine schedules, as a typed value (issue 25).
///
/// The replayer and the device shell only see `TimerID`, whose name is `id.name` below — the
/// same strings the traces and goldens have always carried. Inside the engine a fired id is
/// turned back into an `EngineTimer` by lookup (`EngineTimer.fixed`, or the capture pipeline's
/// table of the timers it scheduled), never by reading the name, and routed by `switch`: a timer
/// that is added here and not routed is a compile error, and so is a misspelt case.
public enum EngineTimer: Hashable, Sendable {
  /// ENGINE §3.11: the T1 tick every 500 ms of device time.
  case t1Tick
  /// ENGINE §3.11: T1 re-enabled 1000 ms after the last degrade trigger cleared.
  case t1Recovery
  /// ENGINE §3.12: the praise freeze ends.
  case praiseTimeout
  /// ENGINE §4.8: camera warm-up shows its longer text, then fails.
  case cameraWarmupUpgrade, cameraWarmupFail
  /// ENGINE §4.7: the debounced ODR auto-retry.
  case odrRetry
  /// ENGINE §5.3: the shutter stays blocked while the device turns.
  case shutterRotation
  /// ENGINE §4.3: the auto-dismiss of the prompt in `slot` (one prompt per slot).
  case promptAutoDismiss(PromptSlot)
  /// ENGINE §5.5–§5.10: a per-item capture timer.
  case capture(CapturePipeline.TimerKind, item: String)

  /// The id handed to the clock; its name is the one traces carry.
  public var id: TimerID { TimerID(name) }

  /// The rendered name: `tier.t1_tick`, `prompt.auto_dismiss.slotToast`,
  /// `capture.album_retry.<itemId>`, …
  public var name: String {
    switch self {
    case .t1Tick: "tier.t1_tick"
    case .t1Recovery: "tier.t1_recovery"
    case .praiseTimeout: "praise.timeout"
    case .cameraWarmupUpgrade: "camera.warmup.upgrade"
    case .cameraWarmupFail: "camera.warmup.fail"
    case .odrRetry: "odr.retry"
    case .shutterRotation: "shutter.rotation"
    case .promptAutoDismiss(let slot): "prompt.auto_dismiss.\(slot.rawValue)"
    case .capture(let kind, let item): "capture.\(kind.rawValue).\(item)"
    }
  }

  /// The timers that take no item, by id: how a fired id of one of them is recognised.
  public static let fixed: [TimerID: EngineTimer] = {
    let all: [EngineTimer] =
      [.t1Tick, .t1Recovery, .praiseTimeout, .cameraWarmupUpgrade, .cameraWarmupFail, .odrRetry, .shutterRotation]
      + PromptSlot.allCases.map { .promptAutoDismiss($0) }
    var table: [TimerID: EngineTimer] = [:]
    for t in all { table[t.id] = t }
    return table
  }()
}
