import EngineIO
import PoseSpec

/// What steps 3–5 of each T0 evaluation decided in one replay of a recording — the cue the
/// selector offered the display gate, which cues had crossed their exit, the exit crossings
/// the card hears of — kept for later replays of the same recording under a configuration
/// that differs only in what the display gate reads (issue 38 item 2). The built-in tune space
/// moves each cue's `minHoldMs` and `cooldownMs` (read by the gate alone) and `persistFrames`
/// (read by the hysteresis too, so part of the key): with its observations on an
/// ``ObservationTape``, a trial's T0 evaluation still ran every cue's level, hysteresis and
/// candidate and ranked them, to the same result as every earlier trial with that key.
///
/// Which configurations may share decisions is the caller's to decide (the lab keys them by
/// the spec and options less the gate's fields, `DecisionKey`); the engine checks the rest at
/// every evaluation. A decision is used only while the replay reads its observation tape in
/// step, and only when the evaluation's signature is the recorded one: the tape entry (event,
/// subject, mode, targets), the cue resets so far, the scene, whether T1 is enabled, tracking
/// lost and multi-person target unstable. Those and the configuration are everything steps
/// 3–5 read up to the gate, but for the T1 cues' states and the fallbacks and exits T1 ticks
/// carry in: those follow from the T1 ticks' tape entries (their luma plane and scalars), which
/// the replay matched too, so a replay reading decisions skips its T1 ticks' cues as well.
///
/// With its decisions a replay also takes each withRef evaluation's Match result (the decider
/// reads the same live metrics, targets and options; only what the engine does with it
/// depends on the display), and reads no metric at all: the kept T0 context is not rewritten.
///
/// A replay that reads decisions does not step its cues' hysteresis or its decider, so it
/// cannot take over at a difference as an observation tape's replay does: at the first one it
/// marks the run ``DecisionRun/broken``, evaluates nothing more (T0 evaluations and T1 ticks
/// do nothing, rather than run on states that are behind) and its outputs are not to be used
/// — the caller replays again without tapes (the lab does; `DecisionTapeTests` holds a replay
/// read from another recording's decisions to exactly that).
public final class DecisionTape: Sendable {
  /// One evaluation: its signature, then what it decided.
  struct Decision {
    /// The observation tape's entry of the evaluation.
    var entry: Int32
    /// Cue resets (a mode switch, a scene change) before it.
    var resets: Int32
    /// The scene, an index into `strings`.
    var scene: Int32
    /// 1: T1 enabled; 2: tracking lost; 4: multi-person target unstable; 8: subject tracked.
    var flags: UInt8
    /// The subject face (-1: none).
    var subject: Int32
    /// The gate's input: its level, its cue id (into `strings`; -1: none) and plan (-1: none).
    var level: CueLevel
    var inputId: Int32
    var inputPlan: Int32
    /// Plans whose hysteresis had crossed its exit (bit i: plan i; at most 64 plans).
    var exitedMask: UInt64
    /// The evaluation's exit crossings (T1 ticks' carried in included), `items[listStart...]`.
    var listStart: Int32
    var exited: UInt16
    /// The Match's result, into `matches` (-1: no Match ran).
    var match: Int32 = -1
  }

  let decisions: [Decision]
  /// Indices into `strings`, the exit lists of every decision.
  let items: [Int32]
  let strings: [String]
  /// The observation tape the replay read, whose entries the decisions name: a replay reads
  /// the decisions only with that tape.
  let observations: ObservationTape.Frozen?
  /// The Match results, each kept once in a row of equal ones.
  let matches: [MatchResult]

  init(
    decisions: [Decision], items: [Int32], strings: [String], observations: ObservationTape.Frozen?,
    matches: [MatchResult]
  ) {
    self.decisions = decisions.withUnsafeBufferPointer { Array($0) }
    self.items = items.withUnsafeBufferPointer { Array($0) }
    self.strings = strings
    self.observations = observations
    self.matches = matches
  }

  /// Evaluations kept (tests and bench: work done).
  public var count: Int { decisions.count }

  /// Plans a decision can name in its exit mask.
  static let plansMax = 64
}

/// One replay's use of decisions: reading a ``DecisionTape``, or recording one. Held by the
/// engine that replays (and the engines that replace it after a kill, which read and record
/// nothing), so whether the run broke outlives them.
public final class DecisionRun: @unchecked Sendable {
  /// The tape read; nil: this run records.
  public let reading: DecisionTape?
  /// Reading: an evaluation differed from its decision (the outputs are not to be used).
  /// Recording: the run cannot be a tape (an evaluation off its observation tape, too many
  /// plans, the bound reached).
  public private(set) var broken = false
  /// Evaluations decided from the tape.
  public private(set) var hits = 0
  /// Cue resets so far (the engine counts them).
  var resets: Int32 = 0
  private var next = 0
  private let decisionsMax: Int
  private let reserve: (@Sendable (Int) -> Bool)?
  private var granted = 0
  private var recorded: [DecisionTape.Decision] = []
  private var items: [Int32] = []
  private var strings: [String] = []
  private var stringIndex: [String: Int32] = [:]
  /// Recording: the observation tape the replay reads, and the Match results kept.
  private var observations: ObservationTape.Frozen?
  private var matches: [MatchResult] = []
  /// Reading: the decision of the current evaluation (-1: none yet).
  private var current = -1

  /// A reading run that broke: its engine evaluates nothing more.
  var isDead: Bool { broken && reading != nil }

  /// Reading: the Match result of the current evaluation's decision; nil when recording or
  /// broken. A decision without one (no Match ran then) breaks the run.
  func currentMatch() -> MatchResult? {
    guard !broken, let tape = reading, current >= 0 else { return nil }
    let m = tape.decisions.withUnsafeBufferPointer { Int($0[current].match) }
    guard m >= 0 else {
      broken = true
      return nil
    }
    return tape.matches[m]
  }

  /// Recording: keeps `result` as the last decision's Match result — what the engine reads of
  /// it past the decider (the tuple and the fallback), not every requirement's state, so equal
  /// results in a row are kept once. A new one takes ``matchWeight`` decisions of the budget.
  func keepMatch(_ result: MatchResult) {
    guard reading == nil, !broken, !recorded.isEmpty else { return }
    var kept = result
    kept.cues = []
    kept.excluded = []
    if matches.last != kept {
      if let reserve, !reserve(Self.matchWeight) {
        broken = true
        return
      }
      matches.append(kept)
    }
    recorded[recorded.count - 1].match = Int32(matches.count - 1)
  }

  /// Decisions of the budget a kept Match result weighs (its arrays of cue ids: ~128 bytes).
  static let matchWeight = 3

  /// A run reading `tape`.
  public init(reading tape: DecisionTape) {
    reading = tape
    decisionsMax = 0
    reserve = nil
  }

  /// A run recording at most `decisionsMax` evaluations; with `reserve`, only as many as it
  /// grants, asked for ``ObservationTape/reserveStep`` decisions at a time before they are
  /// kept (and ``matchWeight`` for each new Match result).
  public init(recordingAtMost decisionsMax: Int, reserve: (@Sendable (Int) -> Bool)? = nil) {
    reading = nil
    self.decisionsMax = max(0, decisionsMax)
    self.reserve = reserve
  }

  /// The recorded tape: nil while reading, or when the run broke.
  public func finished() -> DecisionTape? {
    guard reading == nil, !broken else { return nil }
    return DecisionTape(
      decisions: recorded, items: items, strings: strings, observations: observations, matches: matches)
  }

  /// Marks the run broken (an evaluation the engine could not match or record).
  func breakOff() { broken = true }

  /// An evaluation's signature.
  struct Signature {
    /// The observation tape read and its entry.
    var tape: ObservationTape.Frozen
    var entry: Int
    var scene: String
    var flags: UInt8
  }

  /// What an evaluation's frame gave steps 1–2, as its decision kept it.
  struct Facts {
    var tracked: Bool
    var trackingLost: Bool
    var targetUnstable: Bool
    var subject: Int?
  }

  /// Reading, in step: the frame facts of the next evaluation's decision (nil past the last).
  func nextFacts() -> Facts? {
    guard !broken, let tape = reading, next < tape.decisions.count else { return nil }
    return tape.decisions.withUnsafeBufferPointer { d in
      let f = d[next].flags
      return Facts(
        tracked: f & 8 != 0, trackingLost: f & 2 != 0, targetUnstable: f & 4 != 0,
        subject: d[next].subject < 0 ? nil : Int(d[next].subject))
    }
  }

  /// Reading: the index of this evaluation's decision when its signature matches (counted as
  /// a hit); else nil, and the run is broken.
  func read(_ s: Signature) -> Int? {
    guard !broken, let tape = reading else { return nil }
    let k = next
    next += 1
    let ok = tape.observations === s.tape && tape.decisions.withUnsafeBufferPointer { d -> Bool in
      k < d.count && Int(d[k].entry) == s.entry && d[k].resets == resets && d[k].flags == s.flags
        && tape.strings[Int(d[k].scene)] == s.scene
    }
    guard ok else {
      broken = true
      return nil
    }
    hits += 1
    current = k
    return k
  }

  /// Decision `k`'s gate input (its cue id and level), plan and exit mask.
  func decided(_ k: Int) -> (id: String?, level: CueLevel, plan: Int?, exitedMask: UInt64) {
    let tape = reading!
    return tape.decisions.withUnsafeBufferPointer { d in
      let id = d[k].inputId < 0 ? nil : tape.strings[Int(d[k].inputId)]
      return (id, d[k].level, d[k].inputPlan < 0 ? nil : Int(d[k].inputPlan), d[k].exitedMask)
    }
  }

  /// Decision `k`'s exit crossings, appended to `exited` (emptied first).
  func exited(_ k: Int, into exited: inout [String]) {
    let tape = reading!
    exited.removeAll(keepingCapacity: true)
    tape.decisions.withUnsafeBufferPointer { d in
      let start = Int(d[k].listStart)
      for i in start..<(start + Int(d[k].exited)) { exited.append(tape.strings[Int(tape.items[i])]) }
    }
  }

  /// Recording: keeps an evaluation (its signature and what it decided).
  func record(_ s: Signature, subject: Int?, input: GateSignal, plan: Int?, exitedMask: UInt64, exited: [String]) {
    guard reading == nil, !broken else { return }
    if observations == nil { observations = s.tape }
    guard observations === s.tape, recorded.count < decisionsMax, exited.count <= Int(UInt16.max),
      items.count < Int(Int32.max) - exited.count
    else {
      broken = true
      return
    }
    if let reserve, recorded.count >= granted {
      guard reserve(ObservationTape.reserveStep) else {
        broken = true
        return
      }
      granted += ObservationTape.reserveStep
    }
    let start = Int32(items.count)
    for e in exited { items.append(intern(e)) }
    recorded.append(
      DecisionTape.Decision(
        entry: Int32(clamping: s.entry), resets: resets, scene: intern(s.scene), flags: s.flags,
        subject: subject.map { Int32(clamping: $0) } ?? -1, level: input.level,
        inputId: input.id.map(intern) ?? -1, inputPlan: plan.map { Int32(clamping: $0) } ?? -1, exitedMask: exitedMask,
        listStart: start, exited: UInt16(exited.count)))
  }

  private func intern(_ s: String) -> Int32 {
    if let i = stringIndex[s] { return i }
    let i = Int32(strings.count)
    strings.append(s)
    stringIndex[s] = i
    return i
  }
}

extension Engine {
  /// Whether this replay reads decisions and is in step with them: its T1 ticks then only
  /// match their tape entries (`evaluateT1`), since what their cues would carry to the next T0
  /// evaluation is in its decision.
  var readsDecisions: Bool {
    guard let decisions, decisions.reading != nil, !decisions.broken, tape.on else { return false }
    return settings.matchEvalCadence != .t1 && !settings.traceEvaluations && !configuration.traceMetrics
  }

  /// Steps 1–2 of a T0 evaluation in step with its decisions: the frame facts from the next
  /// decision (whether the subject is tracked, tracking lost, the subject face and whether the
  /// target is unstable), so the frame is not canonicalized, filtered or tracked, and the kept
  /// context is not rewritten. The event is still matched with its tape entry after this.
  mutating func decidedT0(_ facts: DecisionRun.Facts, context kept: MetricContext, at t: Millis) -> T0Input {
    subjectTracked = facts.tracked
    if subjectTracked { app.subjectSeenAt = t }
    // §3.5: a switch between noRef and withRef makes every cue inactive (as `beginT0`).
    let withRefSession = withRef.store.isActive
    if withRefSession != withRef.lastModeWithRef {
      resetCueStates()
      withRef.lastModeWithRef = withRefSession
    }
    latestSubjectIndex = facts.subject
    return T0Input(
      withRefSession: withRefSession, trackingLost: facts.trackingLost, targetUnstable: facts.targetUnstable,
      ctx: kept, mirrorCtx: nil, targets: withRefSession ? withRef.store.targets : [:])
  }

  /// Steps 3–5 of a T0 evaluation with `run`: read from its tape when the evaluation matches
  /// its decision, else computed — and recorded when the run records. Either way the display
  /// machine steps on the result; nil when a reading run breaks here (nothing more is done).
  mutating func decidedOrSelected(_ run: DecisionRun, _ input: T0Input, _ requests: inout T0Requests, at t: Millis)
    -> [MachineAction]?
  {
    // Decisions go with observations read from a tape, entry for entry.
    let frozen = tape.on && tape.current >= 0 ? tape.frozen : nil
    let flags: UInt8 =
      (tierScheduler.t1Enabled ? 1 : 0) | (input.trackingLost ? 2 : 0) | (input.targetUnstable ? 4 : 0)
      | (subjectTracked ? 8 : 0)
    let signature = frozen.map { DecisionRun.Signature(tape: $0, entry: tape.current, scene: scene, flags: flags) }
    if run.reading != nil {
      if let signature, let k = run.read(signature) {
        let d = run.decided(k)
        run.exited(k, into: &requests.exited)
        let signal = display.table.signal(id: d.id, plan: d.plan, level: d.level)
        return gate(signal, plan: d.plan, withRef: input.withRefSession, exitedMask: d.exitedMask, at: t)
      }
      // The cues' states are behind from here: the caller replays again without decisions.
      run.breakOff()
      return nil
    } else if signature == nil {
      run.breakOff()
    }
    var collector: CueEvalCollector? = nil
    observeCues(input, &requests, &collector)
    addFallbackCandidates(input, &requests, &collector)
    applyMultiPersonFilter(input.ctx)
    let (signal, plan) = selectCandidate()
    if !run.broken, let signature {
      if plans.count > DecisionTape.plansMax {
        run.breakOff()
      } else {
        var mask: UInt64 = 0
        for i in hysteresis.indices where hysteresis[i].exited { mask |= 1 << UInt64(i) }
        run.record(
          signature, subject: latestSubjectIndex, input: signal, plan: plan, exitedMask: mask, exited: requests.exited)
      }
    }
    return gate(signal, plan: plan, withRef: input.withRefSession, exitedMask: nil, at: t)
  }
}
