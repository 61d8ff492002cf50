import CanonicalJSON
import EngineIO
import PoseSpec

/// The shutter gate (ENGINE §5.3): the first reason that disables the shutter, a `shutter` line
/// whenever enabled/reason changes, and the 300 ms block after a rotation (PRD §B.4.3).
struct ShutterGate: Sendable {
  /// What the gate looks at, gathered by the engine at each call.
  struct Conditions: Sendable {
    var auth: CameraAuthorization
    var warmup: WarmupPhase
    var writeFailed: Int
    var inFlight: Int
    var workset: Int
    var specValid: Bool
    var appInactive: Bool
    var interrupted: Bool
  }

  enum Input: Sendable {
    /// `rotation`: disabled for `rotationBlockMs`.
    case rotation
    /// After every app-side call: compare with the last line.
    case recompute(Conditions)
  }

  static let rotationTimer = EngineTimer.shutterRotation.id
  static let rotationBlockMs: Millis = 300

  /// The last `shutter` line (enabled, reason); nil before the first computation.
  private(set) var last: (enabled: Bool, reason: ShutterBlockReason?)?
  private(set) var rotatingUntil: Millis?

  /// The first reason that disables the shutter at `t`, or nil when it is enabled (§5.3 order).
  func reason(_ c: Conditions, at t: Millis) -> ShutterBlockReason? {
    if c.auth != .authorized { return .camera_not_authorized }
    if c.warmup == .failed { return .warmup_failed }
    if c.warmup != .ready { return .warmup_not_ready }
    if c.writeFailed > 0 { return .blocked_by_write_failed }
    if c.inFlight >= 2 { return .in_flight_limit_reached }
    if c.workset >= 20 { return .workset_full }
    if !c.specValid { return .posespec_invalid }
    if c.appInactive { return .app_inactive }
    if c.interrupted { return .interrupted }
    if let until = rotatingUntil, t < until { return .rotating }
    return nil
  }

  mutating func handle(_ input: Input, at t: Millis) -> [MachineAction] {
    switch input {
    case .rotation:
      rotatingUntil = t + Self.rotationBlockMs
      return [.timer(.schedule(Self.rotationTimer, at: t + Self.rotationBlockMs))]
    case .recompute(let c):
      let reason = reason(c, at: t)
      let enabled = reason == nil
      guard last.map({ $0.enabled != enabled || $0.reason != reason }) ?? true else { return [] }
      let first = last == nil
      last = (enabled, reason)
      // The first computation only speaks when the shutter starts disabled.
      return first && enabled ? [] : [.output(.shutter(enabled: enabled, reason: reason))]
    }
  }
}
