import EngineIO
import PoseSpec

/// One accepted T0 result through the pipeline of ENGINE §3.15 (noRef, or withRef when a
/// reference with targets is selected), one function per step:
///
/// 1–2. ``beginT0(_:at:)`` — canonicalize (and the optional landmark filter), tracking-lost, subject, metric contexts;
/// 3. ``observeCues(_:_:_:)`` — per cue: availability → mode → error → level → hysteresis;
/// 4. ``addFallbackCandidates(_:_:_:)`` and ``applyMultiPersonFilter(_:)``;
/// 5. ``selectAndGate(withRef:at:)`` — selector, then the display machine (``CueDisplayMachine``:
///    optional stability layer → anti-jitter gate);
/// 8. ``matchStep(_:noCueShown:at:)`` — computed before the outputs, which step 9 orders;
/// 6–7. praise and the card: the card machine (``CueCardMachine``) steps on the evaluation.
///
/// Tracing (`--trace metrics`) is a ``CueEvalCollector`` the steps fill through optional
/// chaining: nil when not tracing, so a normal replay builds nothing for it. The candidates
/// live in ``T0Scratch``, reused from one evaluation to the next (no per-frame array).
extension Engine {
  mutating func evaluateT0(_ event: LandmarkFrame, at t: Millis) -> Effects {
    evaluationCount += 1
    // A replay that left the decisions it read computes nothing more (``DecisionRun``).
    if decisions?.isDead == true { return Effects() }
    var collector: CueEvalCollector? = configuration.traceMetrics ? CueEvalCollector() : nil
    let input = beginT0(event, at: t)
    if tape.on { tape.begin(event, subject: latestSubjectIndex, withRef: input.withRefSession, targets: input.targets) }
    // Requests and exits of T1 ticks since the last evaluation (§3.11).
    // Into the arrays of the last evaluation (kept in `t0`): no allocation per frame.
    var requests = t0.takeRequests()
    // Room for every cue's exit and fallback request (and the two general ones), reserved at
    // the first evaluation: a later first exit does not grow the array mid-replay.
    if requests.exited.capacity < plans.count { requests.exited.reserveCapacity(plans.count) }
    if requests.fallbacks.capacity < plans.count + 2 { requests.fallbacks.reserveCapacity(plans.count + 2) }
    if !pendingT1Fallbacks.isEmpty {
      requests.fallbacks += pendingT1Fallbacks
      pendingT1Fallbacks.removeAll(keepingCapacity: true)
    }
    if !pendingT1Exits.isEmpty {
      requests.exited += pendingT1Exits
      pendingT1Exits.removeAll(keepingCapacity: true)
    }
    defer { t0.putBack(&requests) }
    let shown: [MachineAction]
    if let decisions, collector == nil {
      // nil: the replay just left its decisions.
      guard let decided = decidedOrSelected(decisions, input, &requests, at: t) else { return Effects() }
      shown = decided
    } else {
      decisions?.breakOff()  // a traced evaluation (`cue_eval`) observes every cue
      observeCues(input, &requests, &collector)
      addFallbackCandidates(input, &requests, &collector)
      applyMultiPersonFilter(input.ctx)
      shown = selectAndGate(withRef: input.withRefSession, at: t)
    }
    // The display step's result is read in place (`self.display.last`), and copied only for the
    // trace and the card: a copy retained the cue ids of its four gate signals.
    let wasFrozen = cueCard.praise.isFrozen
    let match = matchStep(input, noCueShown: self.display.last.result.output.isNone, at: t)

    var effects = Effects(diagnostics: match.diagnostics)
    if settings.traceEvaluations { effects.outputs.append(Self.evalRecord(frame: event.frame, at: t)) }
    if let collector {
      effects.outputs.append(cueEvalRecord(collector, frame: event.frame, input, self.display.last, at: t))
    }
    perform(shown, into: &effects, at: t)
    // The card machine hears of an evaluation that has something for it (most frames have not).
    if self.display.last.result.changed || !requests.exited.isEmpty || match.praised {
      let evaluation = CueCardMachine.Evaluation(
        display: self.display.last, withRef: input.withRefSession, exited: requests.exited,
        matchBecameTrue: match.praised, wasFrozen: wasFrozen)
      perform(cueCard.step(.evaluated(evaluation), at: t), into: &effects, at: t)
    }
    effects.append(outputs: match.outputs)
    return effects
  }

  // MARK: - Steps 1–2: canonical frame, subject, metric contexts

  mutating func beginT0(_ event: LandmarkFrame, at t: Millis) -> T0Input {
    let minConfidence = configuration.spec.defaults.minLandmarkConfidence - (faults.contains(.dropRuleLowered) ? 0.1 : 0)
    // A replay in step with its decisions reads neither a metric nor the Match's samples: the
    // kept context is not rewritten.
    let decided = readsDecisions
    // The kept context of the last evaluation holds the latest frame: it is moved out (when no
    // other engine copy shares the context), canonicalized in place and moved back in by
    // `reset`, never copied (a copy retained and released its arrays twice per evaluation).
    let unique = releaseT0Context(noneFrame: decided)
    // In step with its decisions: the frame facts are the next decision's (``DecisionRun``).
    if decided, let facts = decisions?.nextFacts(), let kept = t0Context {
      return decidedT0(facts, context: kept, at: t)
    }
    var frame: CanonicalFrame
    if var previous = parkedFrame.take() {
      Canonicalizer.canonicalize(event, minLandmarkConfidence: minConfidence, into: &previous)
      frame = consume previous
    } else {
      frame = Canonicalizer.canonicalize(event, minLandmarkConfidence: minConfidence)
    }
    // `landmarkFilter=oneEuro` (a proposed app change): one nil check when off.
    landmarkFilter?.apply(to: &frame, at: t)
    subjectTracked = frame.isTracked
    let trackingLost = tracking.observe(tracked: subjectTracked, at: t)
    if subjectTracked { app.subjectSeenAt = t }
    // §3.5: a switch between noRef and withRef makes every cue inactive.
    let withRefSession = withRef.store.isActive  // not `withRefActive`: a getter on the engine copied it
    if withRefSession != withRef.lastModeWithRef {
      resetCueStates()
      withRef.lastModeWithRef = withRefSession
    }
    let (subjectIndex, targetUnstable) = subject.subject(frame.faces, at: t)
    latestSubjectIndex = subjectIndex
    let ctx: MetricContext
    var mirrorCtx: MetricContext? = nil
    let registers = uniqueRegisters()
    // withRef reads the targets (§3.13); noRef has none.
    let targets = withRefSession ? withRef.store.targets : [:]
    if withRefSession && !decided { mirrorCtx = mirrorContext(frame, targets: targets) }
    if decided, let kept = t0Context {
      ctx = kept
      parkedFrame = consume frame
    } else if unique, let kept = t0Context {
      // The last evaluation's context, which nothing else holds: rewritten, not allocated; the
      // frame moves in and the context holds it as the latest.
      kept.reset(
        frame: consume frame, subject: subjectIndex, options: metricOptions, roiCoefficients: roiCoefficients,
        targets: targets, registers: registers)
      ctx = kept
    } else {
      ctx = MetricContext(
        frame: frame, subject: subjectIndex, options: metricOptions, roiCoefficients: roiCoefficients,
        targets: targets, registers: registers)
      t0Context = ctx
      parkedFrame = consume frame
    }
    return T0Input(
      withRefSession: withRefSession, trackingLost: trackingLost, targetUnstable: targetUnstable, ctx: ctx,
      mirrorCtx: mirrorCtx, targets: targets)
  }

  /// The x-mirrored context for `mirrorMode=points` (§3.13f [P]); nil for `scalar`.
  func mirrorContext(_ frame: CanonicalFrame, targets: [String: Double]) -> MetricContext? {
    guard settings.mirrorPoints else { return nil }
    let m = frame.mirroredX()
    return MetricContext(
      frame: m, face: SubjectChoice.face(m.faces), options: metricOptions, roiCoefficients: roiCoefficients,
      targets: targets)
  }

  // MARK: - Step 3: per cue availability → mode → error → level → hysteresis

  mutating func observeCues(_ input: T0Input, _ requests: inout T0Requests, _ collector: inout CueEvalCollector?) {
    t0.candidates.removeAll(keepingCapacity: true)
    if observationCache.count != plans.count {
      observationCache = Array(repeating: CueObservation.none, count: plans.count)
      observationStamp = Array(repeating: -1, count: plans.count)
    }
    guard collector == nil else {
      // Tracing: every cue in spec order (the `cue_eval` line lists them so).
      for i in scenePlans { observeCue(i, input, &requests, &collector) }
      return
    }
    // The same work by tier: the T0 cues evaluated, then the T1 cues that are active (the
    // others add nothing: no candidate, no request). Candidates are ranked by a total order
    // (§3.7, `CueSelector.precedes`; ids are unique), so their insertion order never shows.
    // By index, not `for i in …`: iterating an array of `self` in a mutating loop retained and
    // released it (two atomic operations per list and evaluation).
    var k = 0
    while k < sceneT0Plans.count {
      observeCue(sceneT0Plans[k], input, &requests, &collector)
      k += 1
    }
    k = 0
    while k < sceneT1Plans.count {
      let i = sceneT1Plans[k]
      if hysteresis[i].isActive { observeCue(i, input, &requests, &collector) }
      k += 1
    }
  }

  /// Cue `i` of step 3, its plan borrowed, not retained: `plans` holds every plan for the whole
  /// evaluation, and a retain/release of the plan per cue and frame was ~4% of a replay.
  @inline(__always) mutating func observeCue(
    _ i: Int, _ input: T0Input, _ requests: inout T0Requests, _ collector: inout CueEvalCollector?
  ) {
    Unmanaged.passUnretained(plans[i])._withUnsafeGuaranteedRef { plan in
      observeCue(i, plan, input, &requests, &collector)
    }
  }

  /// One cue of step 3.
  mutating func observeCue(
    _ i: Int, _ plan: CuePlan, _ input: T0Input, _ requests: inout T0Requests, _ collector: inout CueEvalCollector?
  ) {
    if plan.isSystemFallback { return }
    guard plan.takesPart(withRefSession: input.withRefSession) else {
      collector?.unsupported.append((plan.id, plan.notEvaluated ?? "withRef only (no noRef trigger)"))
      return
    }
    if plan.isT1 {
      addT1Candidate(i, plan)
      return
    }
    let observed: CueObservation
    let slot = plan.evaluationSlot
    if plan.sharesSlot, observationStamp[slot] == evaluationCount {
      observed = observationCache[slot]
    } else {
      // From the tape of an earlier replay when there is one (`ObservationTape`); kept for the
      // other cues of a shared slot (a cue alone in its slot skips the cache).
      observed = tape.observation(slot) {
        plan.observe(input.ctx, withRefSession: input.withRefSession, mirrorCtx: input.mirrorCtx)
      }
      if plan.sharesSlot {
        observationCache[slot] = observed
        observationStamp[slot] = evaluationCount
      }
    }
    // The observation taken apart once: the value path moves plain values (copying the
    // observation, whose other case holds a string, was an outlined copy and destroy per cue).
    let mode = ObservedMode(withRef: observed.withRef, mirrored: observed.mirrored)
    let error: Double
    switch observed.observation {
    case .unavailable(let why):
      noiseGate.clear(i)
      cueUnavailable(i, plan, why: why, &requests, &collector)
      return
    case .value(let e): error = e
    }
    // `noiseGate` (§3.4.7): one `isOn` check when off (the default).
    guard noiseGate.isOn else {
      cueObserved(i, plan, error: error, mode, input, &requests, &collector)
      return
    }
    let active = hysteresis[i].isActive
    // The distance past the threshold only where the margin reads it: an inactive cue.
    let past = noiseGate.marginFactor > 0 && !active ? plan.pastActivating(error, withRef: mode.withRef) : nil
    switch noiseGate.judge(
      i, error: error, withRef: mode.withRef, band: plan.noiseBand(withRef: mode.withRef), pastThreshold: past,
      active: active)
    {
    case .noisy: cueUnavailable(i, plan, why: "noisy", &requests, &collector)
    case .demoted: cueObserved(i, plan, error: error, mode, input, demoted: true, &requests, &collector)
    case .pass: cueObserved(i, plan, error: error, mode, input, &requests, &collector)
    }
  }

  /// A T1 cue is evaluated on T1 ticks; on a T0 result it is a candidate by its state unless
  /// T1 is paused (§3.15 step 4).
  mutating func addT1Candidate(_ i: Int, _ plan: CuePlan) {
    guard tierScheduler.t1Enabled, let sticky = hysteresis[i].stickyLevel, let error = t1Errors[i] else { return }
    t0.candidates.append(
      CueCandidate(plan, index: i, level: sticky, error: error, severity: plan.severity(of: error, withRef: t1WithRef[i])))
  }

  /// Inputs unavailable (§3.4.1–2): the cue clears; an active one requests its fallback.
  mutating func cueUnavailable(
    _ i: Int, _ plan: CuePlan, why: String, _ requests: inout T0Requests, _ collector: inout CueEvalCollector?
  ) {
    let event = hysteresis[i].step(.unavailable)
    if event == .deactivated { requests.fallbacks.append((plan.fallbackCueId, plan.id)) }
    collector?.entries.append(
      CueEvalEntry(
        id: plan.id, level: .none, error: nil, severity: nil, state: "unavailable",
        reason: event == .deactivated ? "deactivated:\(why)" : why))
  }

  /// §3.5's reset of every cue (a mode switch, a scene change): each hysteresis back to
  /// inactive, silently, and the noise gate (§3.4.7) forgets the changes it held.
  mutating func resetCueStates() {
    decisions?.resets += 1
    for i in hysteresis.indices { _ = hysteresis[i].step(.reset) }
    noiseGate.clearAll()
  }

  /// An error: its level (§3.3) moves the hysteresis (§3.5); an active cue is a candidate.
  @inline(__always) mutating func cueObserved(
    _ i: Int, _ plan: CuePlan, error: Double, _ observed: ObservedMode, _ input: T0Input, demoted: Bool = false,
    _ requests: inout T0Requests, _ collector: inout CueEvalCollector?
  ) {
    let modeWithRef = observed.withRef
    let faults = configuration.plantedFaults
    var level = Self.faultedLevel(plan.level(of: error, withRef: modeWithRef), faults)
    // `noiseGateMargin` (§3.4.7): an inactive cue's crossing within the noise is no activation.
    if demoted && (level == .warn || level == .hard || level == .enter) { level = .none }
    let event = hysteresis[i].step(.observe(level, persistFrames: Self.exitPersist(plan, faults), activateFrames: settings.activateFrames))
    if event == .exitCrossed { requests.exited.append(plan.id) }
    // Severity only where it is read: a candidate's ranking, or the trace.
    if let sticky = hysteresis[i].stickyLevel {
      t0.candidates.append(
        CueCandidate(plan, index: i, level: sticky, error: error, severity: plan.severity(of: error, withRef: modeWithRef)))
    }
    collector?.entries.append(
      CueEvalEntry(
        id: plan.id, level: level, error: error, severity: plan.severity(of: error, withRef: modeWithRef),
        state: hysteresis[i].stickyLevel.map { "active:\($0.rawValue)" } ?? "inactive",
        reason: event?.rawValue,
        mode: input.withRefSession
          ? (modeWithRef ? (observed.mirrored ? "withRef:mirrored" : "withRef") : "noRef:missing_target") : nil,
        thresholds: modeWithRef ? plan.withRef : plan.noRef))
  }

  // MARK: - Step 4: fallback candidates (§3.4.3–4) and the multi-person filter (§3.4.5)

  mutating func addFallbackCandidates(
    _ input: T0Input, _ requests: inout T0Requests, _ collector: inout CueEvalCollector?
  ) {
    let generalFallback = configuration.spec.defaults.fallbackCueId
    if input.trackingLost { requests.fallbacks.append((generalFallback, "tracking_lost")) }
    if input.targetUnstable { requests.fallbacks.append((generalFallback, "multi_person_target_unstable")) }
    // Nothing requested and nothing to record: no cue can change.
    guard !requests.fallbacks.isEmpty || collector != nil else { return }
    for i in scenePlans {
      let plan = plans[i]
      let requested = requests.fallbacks.contains { $0.fallbackId == plan.id }
      guard plan.isSystemFallback || requested else { continue }
      let isCandidate = requested && !t0.candidates.contains { $0.id == plan.id }
      if isCandidate {
        t0.candidates.append(CueCandidate(plan, index: i, level: .warn, error: nil, severity: nil))
      }
      guard plan.isSystemFallback, collector != nil else { continue }
      let requesters = requests.fallbacks.filter { $0.fallbackId == plan.id }.map(\.by)
      collector?.entries.append(
        CueEvalEntry(
          id: plan.id, level: isCandidate ? .warn : .none, error: nil, severity: nil,
          state: isCandidate ? "candidate" : "inactive",
          reason: requesters.isEmpty ? nil : "fallback:" + requesters.joined(separator: ",")))
    }
  }

  /// With two or more people only `multiPersonDegradeTo` cues stay candidates (§3.4.5).
  /// (Reads the context's frame in place: passing the frame copied its four arrays.)
  mutating func applyMultiPersonFilter(_ ctx: MetricContext) {
    let people = ctx.frame.people ?? ctx.frame.faces.reduce(0) { $0 + (($1.conf ?? 0) >= 0.6 ? 1 : 0) }
    guard people >= 2 else { return }
    let allowed = configuration.spec.defaults.multiPersonDegradeTo
    t0.candidates.removeAll { !allowed.contains($0.id) }
  }

  // MARK: - Step 5: selection → (stability layer) → anti-jitter gate

  /// Ranks `t0.candidates` in place (best first, §3.7) and offers the best to the display
  /// machine (§3.8–3.9); returns its actions (the `cue_display` line of a change).
  mutating func selectAndGate(withRef: Bool, at t: Millis) -> [MachineAction] {
    let (input, inputPlan) = selectCandidate()
    return gate(input, plan: inputPlan, withRef: withRef, exitedMask: nil, at: t)
  }

  /// Ranks `t0.candidates` and returns the best as the gate's input, with its plan. Only the
  /// trace (`cue_eval`'s `ranked`) reads past the first place: without it only that is settled.
  mutating func selectCandidate() -> (GateSignal, Int?) {
    CueSelector.rank(
      &t0.candidates, policy: configuration.spec.defaults.selection,
      reverseTies: faults.contains(.tieBreakerReversed), boost: !faults.contains(.severityBoostIgnored),
      bestOnly: !configuration.traceMetrics)
    var input = GateSignal.empty
    var inputPlan: Int? = nil
    if let best = t0.candidates.first {
      // A candidate is an active cue at its sticky level or a fallback at warn (§3.7).
      EngineInvariant.check(
        best.level == .warn || best.level == .hard || best.level == .enter, "selector: \(best.id) at \(best.level)")
      inputPlan = best.plan >= 0 ? best.plan : planIndex[best.id]
      input = display.table.signal(for: best)
    }
    return (input, inputPlan)
  }

  /// Offers `input` to the display machine (§3.8–3.9). `exitedMask`: which plans had crossed
  /// their exit, as a decision recorded it (nil: the hysteresis says).
  mutating func gate(_ input: GateSignal, plan inputPlan: Int?, withRef: Bool, exitedMask: UInt64?, at t: Millis)
    -> [MachineAction]
  {
    // gateReleaseOnExit (§3.9, G-58): the shown cue's hold ends once it has crossed its exit.
    let shownExited =
      settings.gateReleaseOnExit
      && display.shownPlan.map { p in exitedMask.map { $0 >> UInt64(p) & 1 == 1 } ?? hysteresis[p].exited } == true
    return display.step(.offer(input, plan: inputPlan, withRef: withRef, shownExited: shownExited), at: t)
  }

  /// The level the hysteresis sees (`exit-threshold-ignored` turns exit into none).
  /// Static, and given the faults: a method on the engine called from the per-cue loop made a
  /// copy of the whole engine value per call (two per cue and frame).
  @inline(__always)
  static func faultedLevel(_ level: CueLevel, _ faults: PlantedFaults) -> CueLevel {
    level == .exit && faults.contains(.exitThresholdIgnored) ? .none : level
  }

  /// Exit observations that clear a cue (`exit-persist-ignored`: one).
  @inline(__always)
  static func exitPersist(_ plan: CuePlan, _ faults: PlantedFaults) -> Int {
    faults.contains(.exitPersistIgnored) ? 1 : plan.persistFrames
  }

  // MARK: - Step 8 (computed before the outputs, which step 9 orders)

  /// The MatchDecider, per T0 result with matchEvalCadence=t0 (default); with t1 it runs on
  /// T1 ticks ([C], G-13).
  mutating func matchStep(_ input: T0Input, noCueShown: Bool, at t: Millis) -> MatchOutcome {
    guard input.withRefSession, settings.matchEvalCadence != .t1 else { return MatchOutcome(outputs: [], diagnostics: [], praised: false) }
    let quiet = noCueShown && !cueCard.praise.isFrozen
    // With decisions: the Match's result read from the evaluation's decision, or kept with it.
    let decided = decisions?.currentMatch()
    if decisions?.isDead == true { return MatchOutcome(outputs: [], diagnostics: [], praised: false) }
    let m = evaluateMatch(input.ctx, mirrorCtx: input.mirrorCtx, quiet: quiet, at: t, decided: decided)
    if decided == nil { decisions?.keepMatch(m.result) }
    return MatchOutcome(outputs: m.outputs, diagnostics: m.diagnostics, praised: m.praised)
  }

  // MARK: - Output records (kept together; typed outputs will replace them)

  static func evalRecord(frame: Int64, at t: Millis) -> EngineOutput {
    .eval(.t0(frame: frame))
  }

  func cueEvalRecord(
    _ collector: CueEvalCollector, frame: Int64, _ input: T0Input, _ display: T0Display, at t: Millis
  ) -> EngineOutput {
    CueEvalEntry.record(
      t: t, frame: frame, scene: scene, mode: input.withRefSession ? .withRef : .noRef, entries: collector.entries,
      unsupported: collector.unsupported, ranked: t0.candidates, gate: display.result, gateState: self.display.gate,
      gateParameters: display.parameters, input: display.input)
  }
}

/// The `cue_eval` collector of one T0 evaluation (`--trace metrics`; never in goldens).
struct CueEvalCollector {
  var entries: [CueEvalEntry] = []
  var unsupported: [(id: String, why: String)] = []
}

/// One accepted T0 result after steps 1–2 (§3.15): what the later steps read.
struct T0Input {
  let withRefSession: Bool
  let trackingLost: Bool
  let targetUnstable: Bool
  let ctx: MetricContext
  let mirrorCtx: MetricContext?
  /// The withRef targets (empty in noRef).
  let targets: [String: Double]
}

/// Fallback requests (fallback cue id, requested by) and exit crossings of one evaluation,
/// T1 ticks' included (§3.11). Empty on most frames (no allocation then).
struct T0Requests {
  var fallbacks: [(fallbackId: String, by: String)]
  var exited: [String]
}

/// Step 5's result: the gate input, the shown cue before the call, the parameters and result.
struct T0Display {
  var input: GateSignal
  var before: GateSignal
  var parameters: GateParameters
  var result: AntiJitterGate.Result
}

/// Step 8's result.
struct MatchOutcome {
  var outputs: [EngineOutput]
  var diagnostics: [DiagnosticLine]
  var praised: Bool
}

/// Buffers reused from one T0 evaluation to the next: the candidates (§3.7), ranked in place,
/// and the requests' arrays.
struct T0Scratch: Sendable {
  var candidates: [CueCandidate] = []
  /// The last evaluation's `T0Requests` arrays, handed to the next one emptied.
  var fallbacks: [(fallbackId: String, by: String)] = []
  var exited: [String] = []

  /// The requests' arrays, emptied (their capacity kept), leaving empty ones in their place.
  /// (Swapped by name: a generic take through a key path built the path and went through the
  /// runtime on every evaluation, ~550 instructions.)
  mutating func takeRequests() -> T0Requests {
    var requests = T0Requests(fallbacks: [], exited: [])
    swap(&requests.fallbacks, &fallbacks)
    swap(&requests.exited, &exited)
    requests.fallbacks.removeAll(keepingCapacity: true)
    requests.exited.removeAll(keepingCapacity: true)
    return requests
  }

  /// Keeps `requests`' arrays for the next evaluation, moved in (assigned, each was retained
  /// here and released with `requests`: four atomic operations per evaluation).
  mutating func putBack(_ requests: inout T0Requests) {
    swap(&requests.fallbacks, &fallbacks)
    swap(&requests.exited, &exited)
  }
}
