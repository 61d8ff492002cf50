import EngineIO
import PoseSpec

/// Praise (ENGINE §3.12; `INF/PoseSpec/PraiseController.swift`): a noRef `exit_crossed` of the
/// displayed cue praises its dimension (the cue's mutexGroup) unless that dimension was praised
/// less than `cooldownMs` ago (strict), and freezes the script card on the praise text for
/// `timeoutMs`. A new praise during a freeze restarts the timeout. `shutter_tap` or the timeout
/// unfreeze. The controller only decides; the engine turns decisions into trace lines, a
/// timer request and the card.
struct PraiseController: Equatable, Sendable {
  static let timeoutTimer = EngineTimer.praiseTimeout.id

  let policy: PraisePolicy
  /// The dimension and trigger of the praise that froze the card; nil when not frozen.
  private(set) var frozen: (dimension: String, trigger: String)? = nil
  /// Dimension → time of its last accepted praise. Looked up only, never iterated.
  private(set) var lastPraised: [String: Millis] = [:]

  init(policy: PraisePolicy) { self.policy = policy }

  static func == (a: PraiseController, b: PraiseController) -> Bool {
    a.policy == b.policy && a.frozen?.dimension == b.frozen?.dimension && a.frozen?.trigger == b.frozen?.trigger
      && a.lastPraised == b.lastPraised
  }

  var isFrozen: Bool { frozen != nil }

  /// A praise trigger for `dimension` at `t`. Returns true when it is accepted (not disabled,
  /// not in the dimension's cooldown); the card is then frozen until `t + timeoutMs`.
  /// `globalCooldown` is the planted fault `praise-cooldown-global` (one key for all).
  mutating func trigger(dimension: String, kind: String, at t: Millis, globalCooldown: Bool = false) -> Bool {
    guard policy.enabled else { return false }
    let key = globalCooldown ? "*" : dimension
    if let last = lastPraised[key] {
      EngineInvariant.check(t >= last, "praise: \(key) praised at \(last), now \(t)")
      if t - last < Millis(policy.cooldownMs) { return false }
    }
    lastPraised[key] = t
    frozen = (dimension, kind)
    return true
  }

  /// Unfreezes when `reason` (`shutter_tap`, `timeout`) is one of the policy's `unfreezeOn`
  /// ([D] `reset` always); returns what was frozen.
  mutating func unfreeze(reason: String) -> (dimension: String, trigger: String)? {
    guard let f = frozen, reason == "reset" || policy.unfreezeOn.contains(reason) else { return nil }
    frozen = nil
    return f
  }

  /// The frozen card text (index 0 of `freezeAfterExit.script`).
  var freezeCard: ScriptCard {
    ScriptCard(cueId: nil, variant: 0, zh: policy.freezeZh.first, en: policy.freezeEn.first)
  }
}
