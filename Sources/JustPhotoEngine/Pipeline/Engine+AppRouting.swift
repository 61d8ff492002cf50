import CanonicalJSON
import EngineIO
import PoseSpec

// Which machine an app event or an app timer goes to. `Engine.handle` / `Engine.fire` have
// already asked `SessionLifecycle.admits` (the one killed-app guard).

extension Engine {
  /// An app-side event's handling (`body`), then the shutter recompute, the A.13 rotation
  /// plan and the flush (`finishApp`). `Engine.handle(_:at:)` routes every kind by name.
  mutating func appEvent(at t: Millis, _ body: (inout Engine) -> Effects) -> Effects {
    var out = body(&self)
    finishApp(&out, at: t)
    return out
  }

  /// App-side timers (the engine's own ones are routed in `fire`).
  mutating func fireApp(_ timer: EngineTimer, at t: Millis) -> Effects {
    var out: Effects
    switch timer {
    case .cameraWarmupUpgrade, .cameraWarmupFail:
      out = camera(.timer(timer), at: t)
    case .shutterRotation:
      out = Effects()
    case .odrRetry:
      out = odr(.retryDue, at: t)
    case .promptAutoDismiss(let slot):
      out = app.prompts.autoDismissDue(slot, at: t, context: promptContext)
    case .capture(let kind, let item):
      let before = (app.session.worksetCount, app.session.writeFailedCount)
      let outputs = app.capture.fire(kind, item: item, &app.session, captureContext(at: t))
      out = capture(.capture(outputs, before: before), at: t)
    case .t1Tick, .t1Recovery, .praiseTimeout:
      return Effects()
    }
    finishApp(&out, at: t)
    return out
  }
}
