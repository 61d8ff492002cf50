import CanonicalJSON
import EngineIO
import JustPhotoIO
import PoseSpec

/// Timer firings by typed id, and the inputs of the tier scheduler and the card machine
/// (§3.10–3.12), routed here from `Engine.fire(_:at:)` and `Engine.handle(_:at:)`.
extension Engine {
  /// Fires a recognised timer (`EngineTimer`) at its due time.
  mutating func fire(_ timer: EngineTimer, at now: Millis) -> Effects {
    // The T1 tick is the device's clock: it keeps its period while the app is dead.
    var effects = Effects()
    if timer == .t1Tick {
      t1Tick += 1
      let next = Millis(t1Tick + 1) * t1PeriodMs
      // The tick counter only grows, and the next tick is always ahead of this one.
      EngineInvariant.check(t1Tick >= 1 && next > now, "t1: tick \(t1Tick) at \(now), next at \(next)")
      effects.timers.append(.schedule(TierScheduler.t1Timer, at: next))
    }
    guard app.lifecycle.admits(relaunch: false) else { return effects }
    switch timer {
    case .praiseTimeout: return unfreezePraise(reason: "timeout", at: now)
    case .t1Tick:
      if tierScheduler.t1Enabled && !paused { effects.append(evaluateT1(tick: t1Tick, at: now)) }
      return effects
    case .t1Recovery: return tier(.recoveryDue, at: now)
    case .cameraWarmupUpgrade, .cameraWarmupFail, .odrRetry, .shutterRotation, .promptAutoDismiss, .capture:
      return fireApp(timer, at: now)
    }
  }

  /// A tier scheduler step (§3.11); frame acceptance follows its T0 rate.
  mutating func tier(_ action: TierScheduler.Action, at t: Millis) -> Effects {
    let effects = perform(tierScheduler.step(action, at: t), at: t)
    acceptance.hz = tierScheduler.t0Hz
    return effects
  }

  /// 👎 / 👍 (§3.10): the card machine's feedback input.
  mutating func praiseFeedback(_ e: CoachEvent.PraiseFeedback, at t: Millis) -> Effects {
    perform(cueCard.step(.feedback(down: e.vote == .down, shown: display.current.id), at: t), at: t)
  }

  /// Quiet mode (§3.12): the card machine's input.
  mutating func quietMode(_ e: CoachEvent.QuietMode, at t: Millis) -> Effects {
    perform(cueCard.step(.quietMode(e.on), at: t), at: t)
  }

  /// Entitlement (§3.12): expired → no card and no praise; back → the card of the cue shown now.
  mutating func entitlement(_ e: CoachEvent.Entitlement, at t: Millis) -> Effects {
    perform(cueCard.step(.entitlement(expired: e.state == .expired, shown: display.current.id), at: t), at: t)
  }

  /// Ends a praise freeze (§3.12): a `praise` off line, then the card of the displayed cue.
  mutating func unfreezePraise(reason: String, at t: Millis) -> Effects {
    perform(cueCard.step(.unfreeze(reason: reason, shown: display.current.id), at: t), at: t)
  }
}
