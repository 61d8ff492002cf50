import EngineIO
import PoseSpec

/// Praise and the director card (ENGINE §3.10, §3.12) as one machine: the card follows the
/// displayed cue unless praise froze it or the entitlement expired; praise comes from a noRef
/// exit of the displayed cue or from Match turning true, freezes the card and ends with a
/// shutter tap, its timeout or (`retractPraiseOnInstability`) a newly displayed cue.
///
/// It owns the praise controller, the card, the entitlement and quiet-mode flags and the time
/// of the last 👎 that advanced the card; per plan it keeps the script and dimension
/// (mutexGroup), replaced with the plans (`.replan`). Its outputs are `praise` and
/// `script_card` lines and the praise timeout timer.
struct CueCardMachine: Sendable {
  /// One T0 evaluation, after the display step.
  struct Evaluation {
    var display: T0Display
    var withRef: Bool
    /// Cues whose hysteresis crossed exit in this evaluation (T1 ticks' since the last one too).
    var exited: [String]
    /// Match turned false → true in this evaluation (withRef, `matchEvalCadence=t0`).
    var matchBecameTrue: Bool
    /// Whether praise was frozen before the evaluation.
    var wasFrozen: Bool
  }

  enum Action {
    /// A T0 evaluation that changed the display, crossed an exit or turned Match true (any
    /// other evaluation has nothing for praise or the card, so it is not sent).
    case evaluated(Evaluation)
    /// Match turned true on a T1 tick (`matchEvalCadence=t1`).
    case tickMatch(wasFrozen: Bool)
    /// `shutter_tap` (accepted), the timeout timer; `shown` is the displayed cue.
    case unfreeze(reason: String, shown: String?)
    /// `praise_feedback`; `down` for a 👎.
    case feedback(down: Bool, shown: String?)
    case quietMode(Bool)
    case entitlement(expired: Bool, shown: String?)
    case replan(Table)
  }

  /// Per plan: the card script and the praise dimension.
  struct Table: Sendable {
    var scripts: [CueScript]
    var dimensions: [String]
    var planIndex: [String: Int]
    var retractPraiseOnInstability: Bool
    var faults: PlantedFaults

    init(plans: [CuePlan], planIndex: [String: Int], settings: EngineSettings, faults: PlantedFaults) {
      scripts = plans.map(\.script)
      dimensions = plans.map(\.mutexGroup)
      self.planIndex = planIndex
      retractPraiseOnInstability = settings.retractPraiseOnInstability
      self.faults = faults
    }

    func script(_ cueId: String?) -> CueScript? { cueId.flatMap { planIndex[$0] }.map { scripts[$0] } }
  }

  private(set) var table: Table
  private(set) var praise: PraiseController
  private(set) var card = DirectorCard()
  /// Expired entitlement (PRD §8 Epic E4, §3.10): no card and no praise; evaluation goes on.
  private(set) var entitlementExpired: Bool
  /// Quiet mode (PRD §7.1.2; ENGINE §3.12): praise lines carry `quiet: true`.
  private(set) var quietMode = false
  /// Last 👎 that advanced the card (≤ 1 per 3000 ms, §3.10).
  private(set) var lastFeedbackAdvance: Millis?
  /// Time of the last step (the machine's clock never goes back).
  private(set) var lastStepAt: Millis = 0

  init(table: Table, policy: PraisePolicy, entitlementExpired: Bool) {
    self.table = table
    praise = PraiseController(policy: policy)
    self.entitlementExpired = entitlementExpired
  }

  /// The transition function.
  mutating func step(_ action: Action, at t: Millis) -> [MachineAction] {
    EngineInvariant.check(t >= lastStepAt, "card: t=\(t) before its last step \(lastStepAt)")
    lastStepAt = t
    var out: [MachineAction] = []
    switch action {
    case .evaluated(let e):
      praiseStep(e, into: &out, at: t)
      cardStep(e.display, into: &out)
    case .tickMatch(let wasFrozen):
      if !entitlementExpired, praise.trigger(dimension: "withref_match", kind: "match", at: t) {
        praiseOn(("withref_match", "match"), wasFrozen: wasFrozen, into: &out, at: t)
      }
    case .unfreeze(let reason, let shown): unfreeze(reason: reason, shown: shown, into: &out)
    case .feedback(let down, let shown):
      out.append(.prompt(.feedback_recorded))
      if down, !praise.isFrozen, !entitlementExpired, lastFeedbackAdvance.map({ t - $0 >= 3000 }) ?? true,
        let next = card.advance(script: table.script(shown))
      {
        lastFeedbackAdvance = t
        out.append(.output(Self.scriptCardRecord(next)))
      }
    case .quietMode(let on): quietMode = on
    case .entitlement(let expired, let shown):
      guard expired != entitlementExpired else { break }
      entitlementExpired = expired
      // Back from expiry: the card of the cue shown now (none was emitted meanwhile).
      out.append(.output(Self.scriptCardRecord(expired ? .empty : card.resume(shown, script: table.script(shown)))))
    case .replan(let next): table = next
    }
    if !out.isEmpty {
      // An entitlement change shows or clears the card whatever praise does (§3.10).
      let entitlement = if case .entitlement = action { true } else { false }
      checkOutputs(out, entitlementChange: entitlement)
    }
    return out
  }

  /// What a step's lines keep: at most one praise on, and only with praise frozen and the
  /// entitlement active; a card that is not the frozen one only while praise is not frozen
  /// (but for an entitlement change).
  func checkOutputs(_ out: [MachineAction], entitlementChange: Bool) {
    var praiseOn = 0
    for case .output(let o) in out {
      switch o {
      case .praise(let line) where line.state == .on:
        praiseOn += 1
        EngineInvariant.check(praise.isFrozen && !entitlementExpired, "card: praise on while not frozen or expired")
      case .scriptCard(let line) where !line.frozen && !entitlementChange:
        EngineInvariant.check(!praise.isFrozen, "card: \(line.cueId ?? "empty") card while praise is frozen")
      default: break
      }
    }
    EngineInvariant.check(praiseOn <= 1, "card: \(praiseOn) praise lines in one step")
  }

  /// noRef: an exit_crossed of the cue the gate now displays; withRef: Match false → true
  /// (single-cue exits do not praise, PRD §5.1.1.a). Then [D] retractPraiseOnInstability
  /// (PRD §4.3; ENGINE §1.8): a newly displayed cue during the freeze takes the praise back.
  private mutating func praiseStep(_ e: Evaluation, into out: inout [MachineAction], at t: Millis) {
    let result = e.display.result
    var praisedNow: (dimension: String, trigger: String)? = nil
    if entitlementExpired {
      // §3.10 / Epic E4: no praise while the entitlement is expired.
    } else if e.withRef {
      // §3.12: withRef praise on Match false → true, dimension "withref_match".
      if e.matchBecameTrue, praise.trigger(dimension: "withref_match", kind: "match", at: t) {
        praisedNow = ("withref_match", "match")
      }
    } else if let shown = result.output.id, e.exited.contains(shown), let p = table.planIndex[shown],
      praise.trigger(
        dimension: table.dimensions[p], kind: "exit_crossed", at: t,
        globalCooldown: table.faults.contains(.praiseCooldownGlobal))
    {
      praisedNow = (table.dimensions[p], "exit_crossed")
    }
    if praisedNow == nil, praise.isFrozen, result.changed, result.output.id != nil, table.retractPraiseOnInstability,
      let was = praise.unfreeze(reason: "reset")
    {
      out.append(.timer(.cancel(PraiseController.timeoutTimer)))
      out.append(.output(Self.praiseOffRecord(was, reason: "retracted")))
    }
    if let praisedNow { praiseOn(praisedNow, wasFrozen: e.wasFrozen, into: &out, at: t) }
  }

  /// Only when the displayed cue (not just its level) changes, and not while praise holds the
  /// card frozen (the card catches up when it unfreezes) or the entitlement is expired.
  private mutating func cardStep(_ display: T0Display, into out: inout [MachineAction]) {
    let shown = display.result.output.id
    guard shown != display.before.id, !praise.isFrozen, !entitlementExpired else { return }
    if let next = card.display(shown, script: table.script(shown)) { out.append(.output(Self.scriptCardRecord(next))) }
  }

  /// A praise that has just been granted (§3.12): the `praise on` line, the timeout timer
  /// (restarted by a new praise), and the frozen card unless the card was already frozen.
  private func praiseOn(
    _ praised: (dimension: String, trigger: String), wasFrozen: Bool, into out: inout [MachineAction], at t: Millis
  ) {
    let line = PraiseLine(state: .on, trigger: praised.trigger, dimension: praised.dimension, quiet: quietMode)
    let timeout = Millis(praise.policy.timeoutMs) * (table.faults.contains(.praiseTimeoutDoubled) ? 2 : 1)
    out.append(.output(.praise(line)))
    out.append(.timer(.schedule(PraiseController.timeoutTimer, at: t + timeout)))
    if !wasFrozen { out.append(.output(Self.scriptCardRecord(praise.freezeCard, frozen: true))) }
  }

  /// Ends a praise freeze (§3.12): a `praise` off line, then the card of the displayed cue.
  private mutating func unfreeze(reason: String, shown: String?, into out: inout [MachineAction]) {
    if reason == "shutter_tap" && table.faults.contains(.shutterKeepsPraiseFrozen) { return }
    guard let was = praise.unfreeze(reason: reason) else { return }
    if reason != "timeout" { out.append(.timer(.cancel(PraiseController.timeoutTimer))) }
    out.append(.output(Self.praiseOffRecord(was, reason: reason)))
    guard !entitlementExpired else { return }
    out.append(.output(Self.scriptCardRecord(card.showAfterFreeze(shown, script: table.script(shown)))))
  }

  static func praiseOffRecord(_ was: (dimension: String, trigger: String), reason: String) -> EngineOutput {
    .praise(PraiseLine(state: .off, trigger: was.trigger, dimension: was.dimension, offReason: reason))
  }

  static func scriptCardRecord(_ card: ScriptCard, frozen: Bool = false) -> EngineOutput {
    .scriptCard(ScriptCardLine(cueId: card.cueId, variant: card.variant, zh: card.zh, en: card.en, frozen: frozen))
  }
}
