import EngineIO
import PoseSpec

/// The single display slot (ENGINE §3.7–3.9) as a machine: the selector's best candidate goes
/// through the optional stability layer (§3.8) and the anti-jitter gate (§3.9); a change of the
/// shown cue or level is a `cue_display` line.
///
/// It owns the gate, the stability layer and the plan index of the shown cue, and the table it
/// reads the gate parameters from (per plan: persistFrames, minHoldMs, cooldownMs), replaced
/// with the plans (`.replan`). The last step's decision (`last`) is what praise, the card and
/// Match read in the same evaluation.
struct CueDisplayMachine: Sendable {
  enum Action {
    /// The selector's best candidate of one T0 evaluation (`GateSignal.empty` when none) and
    /// its plan; `withRef` is the evaluation's mode (the `mode` of `cue_display`).
    /// `shownExited`: the shown cue has crossed its exit and its hold is over (the engine sets it
    /// only with `gateReleaseOnExit`, §3.9, G-58).
    case offer(GateSignal, plan: Int?, withRef: Bool, shownExited: Bool = false)
    /// New plans (a valid `posespec_reload`): the table is rebuilt, the shown cue stays.
    case replan(Table)
  }

  /// What the gate parameters are read from (§3.9), and the faults planted in them.
  struct Table: Sendable {
    /// Per plan index: the cue's id and anti-jitter parameters.
    var ids: [String]
    var antiJitter: [AntiJitterParameters]
    var planIndex: [String: Int]
    /// PoseSpec defaults, used when no cue is shown.
    var defaults: AntiJitterParameters
    var useStabilityLayer: Bool
    /// `gatePersistByCue` (§3.9, G-58). (`gateReleaseOnExit` comes with each offer.)
    var persistByCue: Bool
    var faults: PlantedFaults

    init(plans: [CuePlan], planIndex: [String: Int], spec: PoseSpecDocument, settings: EngineSettings, faults: PlantedFaults) {
      ids = plans.map(\.id)
      antiJitter = plans.map(\.antiJitter)
      self.planIndex = planIndex
      defaults = spec.defaults.antiJitter
      useStabilityLayer = settings.useStabilityLayer
      persistByCue = settings.gatePersistByCue
      self.faults = faults
    }
  }

  private(set) var table: Table
  private(set) var gate = AntiJitterGate()
  /// Only used with `useStabilityLayer=true` (§3.8).
  private(set) var stability = CueStabilityLayer()
  /// The plan of the cue the gate shows (`planIndex[gate.current.id]`, kept so the gate
  /// parameters need no id look-up per frame).
  private(set) var shownPlan: Int?
  /// The decision of the last `.offer`.
  private(set) var last = T0Display(
    input: .empty, before: .empty, parameters: GateParameters(persistFrames: 1, minHoldMs: 0, cooldownMs: 0),
    result: AntiJitterGate.Result(output: .empty, reason: .none, changed: false))

  init(table: Table) { self.table = table }

  /// The cue shown now and its level.
  var current: GateSignal { gate.current }

  /// The transition function.
  @inline(__always)
  mutating func step(_ action: Action, at t: Millis) -> [MachineAction] {
    switch action {
    case .offer(let best, let plan, let withRef, let shownExited):
      offer(best, plan: plan, shownExited: shownExited, at: t)
      guard last.result.changed else { return [] }
      return [.output(Self.cueDisplayRecord(last.result, withRef: withRef, hardAsWarn: table.faults.contains(.hardShownAsWarn)))]
    case .replan(let next):
      table = next
      shownPlan = gate.current.id.flatMap { next.planIndex[$0] }
      return []
    }
  }

  private mutating func offer(_ best: GateSignal, plan: Int?, shownExited: Bool, at t: Millis) {
    var input = best
    var inputPlan = plan
    // §3.8: the optional stability layer between the selector and the gate.
    if table.useStabilityLayer {
      input = stability.filter(input).output
      inputPlan = input.id.flatMap { table.planIndex[$0] }
    }
    let before = gate.current
    var parameters = gateParameters(current: shownPlan, incoming: inputPlan)
    parameters.currentExited = shownExited
    parameters.persistByCue = table.persistByCue
    let result = gate.filter(input, at: t, parameters)
    if result.changed {
      shownPlan = result.output.id == input.id ? inputPlan : result.output.id.flatMap { table.planIndex[$0] }
      // At most one cue is shown, and the plan kept for it is its own.
      EngineInvariant.check(
        shownPlan.map { $0 < table.ids.count && table.ids[$0] == result.output.id } ?? (result.output.id == nil),
        "display: shown plan \(String(describing: shownPlan)) for \(String(describing: result.output.id))")
    }
    last = T0Display(input: input, before: before, parameters: parameters, result: result)
  }

  /// Gate parameters (§3.9): persistFrames of the input cue, or of the current cue for a nil
  /// input; minHoldMs and cooldownMs of the current cue; PS defaults when there is none.
  func gateParameters(current: Int?, incoming: Int?) -> GateParameters {
    let faults = table.faults
    let current = current.map { table.antiJitter[$0] }
    let incoming = incoming.map { table.antiJitter[$0] }
    let persist = (incoming ?? current ?? table.defaults).persistFrames
    var p = GateParameters(
      persistFrames: faults.contains(.gatePersistOffByOne) ? max(1, persist - 1) : persist,
      minHoldMs: faults.contains(.gateMinHoldIgnored) ? 0 : (current ?? table.defaults).minHoldMs,
      cooldownMs: faults.contains(.gateCooldownIgnored) ? 0 : (current ?? table.defaults).cooldownMs)
    p.holdAfterClear = faults.contains(.gateHoldAfterClear)
    return p
  }

  static func cueDisplayRecord(_ result: AntiJitterGate.Result, withRef: Bool, hardAsWarn: Bool = false) -> EngineOutput {
    .cueDisplay(
      CueDisplay(
        cueId: result.output.id, level: hardAsWarn && result.output.level == .hard ? .warn : result.output.level,
        reason: result.reason, mode: withRef ? .withRef : .noRef))
  }
}
