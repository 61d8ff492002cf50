import EngineIO
import PoseSpec

/// Why the gate kept its output this frame (`reason` of `cue_display`).
public enum GateReason: String, Sendable {
  case none, hold, frames, cooldown
}

/// The gate parameters for one call (ENGINE §3.9): persistFrames of the input cue (of the
/// current cue for a nil input); minHoldMs and cooldownMs of the current cue.
struct GateParameters: Equatable, Sendable {
  var persistFrames: Int
  var minHoldMs: Int
  var cooldownMs: Int
  /// Planted fault `gate-hold-after-clear`: an empty display is held for minHoldMs too.
  var holdAfterClear = false
  /// `gateReleaseOnExit` (G-58): the current cue has crossed its exit, so its hold is over.
  var currentExited = false
  /// `gatePersistByCue` (G-58): a switch to another cue counts the frames of that cue at any
  /// level; a level change of the shown cue still counts frames at the new level.
  var persistByCue = false
}

/// AntiJitterGate of ENGINE §3.9, exactly (`INF/PoseSpec/AntiJitterGate.swift`).
struct AntiJitterGate: Equatable, Sendable {
  private(set) var current = GateSignal.empty
  private(set) var stableFrameCount = 0
  private(set) var candidateSinceMs: Millis = 0
  private(set) var lastOutputChangeMs: Millis = 0
  /// Cue id → time before which it may not be shown again. Looked up only, never iterated.
  private(set) var cooldownUntil: [String: Millis] = [:]
  private(set) var lastInput = GateSignal.empty
  /// Consecutive inputs naming the same cue (or nothing), whatever their level (`gatePersistByCue`).
  private(set) var stableCueCount = 0

  struct Result: Equatable, Sendable {
    var output: GateSignal
    var reason: GateReason
    /// Whether the output differs from the previous call's.
    var changed: Bool
  }

  /// Filters one selection result at time `t`.
  @inline(__always)
  mutating func filter(_ input: GateSignal, at t: Millis, _ p: GateParameters) -> Result {
    // The gate's clock never goes back (calls come in event-time order).
    EngineInvariant.check(
      t >= lastOutputChangeMs && t >= candidateSinceMs,
      "gate: t=\(t) before its last change \(lastOutputChangeMs) / candidate \(candidateSinceMs)")
    let before = current
    let result = decide(input, at: t, p)
    EngineInvariant.check(stableFrameCount >= 1 && lastInput == input, "gate: input count \(stableFrameCount)")
    EngineInvariant.check(result.output == current, "gate: result \(result.output) is not the shown \(current)")
    EngineInvariant.check(
      result.changed == (current != before) && (!result.changed || (lastOutputChangeMs == t && result.reason == .none)),
      "gate: changed=\(result.changed) from \(before) to \(current) at \(t)")
    return result
  }

  private mutating func decide(_ input: GateSignal, at t: Millis, _ p: GateParameters) -> Result {
    let persist = max(1, p.persistFrames)
    let minHold = Millis(max(0, p.minHoldMs))
    let cooldown = Millis(max(0, p.cooldownMs))

    // 1. Count consecutive identical inputs.
    if input == lastInput {
      stableFrameCount += 1
    } else {
      stableFrameCount = 1
      candidateSinceMs = t
    }
    stableCueCount = input.sameCue(as: lastInput) ? stableCueCount + 1 : 1
    lastInput = input

    // 2. Already shown.
    if input == current { return Result(output: current, reason: .none, changed: false) }
    // 3. Minimum hold of the current cue.
    let holdOK = (current.isNone && !p.holdAfterClear) || t - lastOutputChangeMs >= minHold || p.currentExited
    if !holdOK { return Result(output: current, reason: .hold, changed: false) }
    // 4. Clearing to nothing.
    guard let id = input.id else {
      if stableFrameCount < persist { return Result(output: current, reason: .frames, changed: false) }
      switchOutput(to: input, at: t, cooldownMs: cooldown)
      return Result(output: current, reason: .none, changed: true)
    }
    // 5. Cooldown of a cue shown before (exclusive boundary: allowed when t == until).
    let otherCue = !input.sameCue(as: current)
    if let until = cooldownUntil[id], until > t, otherCue {
      return Result(output: current, reason: .cooldown, changed: false)
    }
    // 6. Persistence (with persistByCue, a different cue's frames at any level).
    let stable = p.persistByCue && otherCue ? stableCueCount : stableFrameCount
    if stable < persist { return Result(output: current, reason: .frames, changed: false) }
    switchOutput(to: input, at: t, cooldownMs: cooldown)
    return Result(output: current, reason: .none, changed: true)
  }

  private mutating func switchOutput(to next: GateSignal, at t: Millis, cooldownMs: Millis) {
    EngineInvariant.check(cooldownMs >= 0, "gate: cooldown window \(cooldownMs)")
    let otherCue = !next.sameCue(as: current)
    if otherCue, let previous = current.id { cooldownUntil[previous] = t + cooldownMs }
    // A cue comes back only once its cooldown is over (or it was the shown cue: a level change).
    if otherCue, let id = next.id {
      EngineInvariant.check((cooldownUntil[id] ?? t) <= t, "gate: \(id) shown at \(t) in its cooldown")
    }
    current = next
    lastOutputChangeMs = t
  }

  /// A gate in a state no input sequence reaches (test-only: shows the invariants firing).
  init(testOnlyLastChange t: Millis) { lastOutputChangeMs = t }
  init() {}
}
