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
  struct Table: @unchecked Sendable {  // `addresses` point at `names`, which it retains
    /// Per plan index: the cue's id and anti-jitter parameters.
    var ids: [String]
    /// Per plan index: the cue's id interned (the name the engine's ``GateSignal``s point at),
    /// and its address (read per evaluation without retaining the name).
    private(set) var names: [CueName]
    private var addresses: [UnsafeRawPointer]
    /// Every name interned by this table and the tables it replaced, by id (looked up only,
    /// never iterated): a signal whose cue a replan dropped still points at a live name.
    private(set) var interned: [String: CueName]
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
      names = ids.map(CueName.init)
      addresses = names.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }
      interned = [:]
      for n in names where interned[n.id] == nil { interned[n.id] = n }
      antiJitter = plans.map(\.antiJitter)
      self.planIndex = planIndex
      defaults = spec.defaults.antiJitter
      useStabilityLayer = settings.useStabilityLayer
      persistByCue = settings.gatePersistByCue
      self.faults = faults
    }

    /// This table's names taken from `previous` where it has the id (one name per id for the
    /// machine's whole life: ``GateSignal/sameCue(as:)`` relies on it), and its names kept.
    mutating func keepNames(of previous: Table) {
      var all = previous.interned
      names = ids.map { id in
        if let n = all[id] { return n }
        let n = CueName(id)
        all[id] = n
        return n
      }
      interned = all
      addresses = names.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }
    }

    /// The signal for plan `plan`'s cue (an index below `names.count`) at `level`.
    @inline(__always) func signal(plan: Int, level: CueLevel) -> GateSignal {
      GateSignal(interned: addresses[plan], level: level)
    }

    /// The signal for the selector's `candidate` at its level: the interned name of the plan it
    /// was made from (this table's names are the plans' ids, index for index), which retains
    /// nothing; a name of its own for a candidate made without a plan.
    func signal(for candidate: CueCandidate) -> GateSignal {
      candidate.fromPlan && candidate.plan < names.count
        ? signal(plan: candidate.plan, level: candidate.level) : GateSignal(id: candidate.id, level: candidate.level)
    }

    /// The signal for plan `plan`'s cue at `level`; `id` when it is no plan's (or another id
    /// than the plan's, which no engine path makes): a signal with a name of its own.
    func signal(id: String?, plan: Int?, level: CueLevel) -> GateSignal {
      guard let id else { return .empty }
      if let plan, plan >= 0, plan < names.count, names[plan].id == id { return signal(plan: plan, level: level) }
      return GateSignal(id: id, level: level)
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
    case .replan(var next):
      next.keepNames(of: table)
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
      shownPlan = result.output.sameCue(as: input) ? inputPlan : result.output.id.flatMap { table.planIndex[$0] }
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
