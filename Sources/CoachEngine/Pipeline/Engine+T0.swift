import EngineIO

/// One accepted T0 result through the pipeline of ENGINE §3.15 (noRef, or withRef when a
/// reference with targets is selected).
extension Engine {
  mutating func evaluateT0(_ event: LandmarkFrame, at t: Millis) -> Effects {
    let tracing = configuration.traceMetrics
    evaluationCount += 1

    // 1. Canonicalize; tracking-lost bookkeeping.
    let frame = Canonicalizer.canonicalize(
      event, minLandmarkConfidence: configuration.spec.defaults.minLandmarkConfidence)
    subjectTracked = frame.isTracked
    let trackingLost = tracking.observe(tracked: subjectTracked, at: t)
    if subjectTracked { app.subjectSeenAt = t }
    latestFrame = frame
    // §3.5: a switch between noRef and withRef makes every cue inactive.
    let withRefSession = withRefActive
    if withRefSession != withRef.lastModeWithRef {
      for i in hysteresis.indices { hysteresis[i].reset() }
      withRef.lastModeWithRef = withRefSession
    }
    let targets = withRefSession ? withRef.store.targets : [:]
    let (subjectFace, targetUnstable) = subject.subject(frame.faces, at: t)
    latestSubjectFace = subjectFace
    let ctx = MetricContext(
      frame: frame, face: subjectFace, options: metricOptions, roiCoefficients: roiCoefficients,
      targets: targets)
    let mirrorCtx = withRefSession ? self.mirrorContext(frame, targets: targets) : nil

    // 2–3. Per cue: metric → availability → level → hysteresis.
    var entries: [CueEvalEntry] = []
    var unsupported: [(id: String, why: String)] = []
    var candidates: [CueCandidate] = []
    // Requests and exits of T1 ticks since the last evaluation (§3.11).
    if observationCache.count != plans.count {
      observationCache = Array(repeating: nil, count: plans.count)
    } else {
      for i in observationCache.indices { observationCache[i] = nil }
    }
    var fallbackRequests = pendingT1Fallbacks
    var exited = pendingT1Exits
    pendingT1Fallbacks = []
    pendingT1Exits = []
    for i in scenePlans {
      let plan = plans[i]
      if plan.isSystemFallback { continue }
      guard plan.takesPart(withRefSession: withRefSession) else {
        if tracing { unsupported.append((plan.id, plan.notEvaluated ?? "withRef only (no noRef trigger)")) }
        continue
      }
      if plan.isT1 {
        // Evaluated on T1 ticks; a candidate by its state unless T1 is paused (§3.15 step 4).
        if tierScheduler.t1Enabled, let sticky = hysteresis[i].stickyLevel, let error = t1Errors[i] {
          candidates.append(
            CueCandidate(
              id: plan.id, level: sticky, error: error, severity: plan.severity(of: error, withRef: t1WithRef[i]),
              priority: plan.priority, mutexGroup: plan.mutexGroup))
        }
        continue
      }
      let observed: CueObservation
      if let cached = observationCache[plan.evaluationSlot] {
        observed = cached
      } else {
        observed = plan.observe(ctx, withRefSession: withRefSession, mirrorCtx: mirrorCtx)
        observationCache[plan.evaluationSlot] = observed
      }
      let modeWithRef = observed.withRef
      switch observed.observation {
      case .unavailable(let why):
        let event = hysteresis[i].markUnavailable()
        if event == .deactivated { fallbackRequests.append((plan.fallbackCueId, plan.id)) }
        guard tracing else { continue }
        entries.append(
          CueEvalEntry(
            id: plan.id, level: .none, error: nil, severity: nil, state: "unavailable",
            reason: event == .deactivated ? "deactivated:\(why)" : why))
      case .value(let error):
        let level = plan.level(of: error, withRef: modeWithRef)
        let event = hysteresis[i].observe(level, persistFrames: plan.persistFrames)
        if event == .exitCrossed { exited.append(plan.id) }
        let severity = plan.severity(of: error, withRef: modeWithRef)
        if let sticky = hysteresis[i].stickyLevel {
          candidates.append(
            CueCandidate(
              id: plan.id, level: sticky, error: error, severity: severity, priority: plan.priority,
              mutexGroup: plan.mutexGroup))
        }
        guard tracing else { continue }
        entries.append(
          CueEvalEntry(
            id: plan.id, level: level, error: error, severity: severity,
            state: hysteresis[i].stickyLevel.map { "active:\($0.rawValue)" } ?? "inactive",
            reason: event?.rawValue,
            mode: withRefSession ? (modeWithRef ? (observed.mirrored ? "withRef:mirrored" : "withRef") : "noRef:missing_target") : nil,
            thresholds: modeWithRef ? plan.withRef : plan.noRef))
      }
    }

    // 4. Fallback candidates (§3.4.3–4) and the multi-person filter (§3.4.5).
    if trackingLost { fallbackRequests.append((configuration.spec.defaults.fallbackCueId, "tracking_lost")) }
    if targetUnstable {
      fallbackRequests.append((configuration.spec.defaults.fallbackCueId, "multi_person_target_unstable"))
    }
    for i in scenePlans where tracing || !fallbackRequests.isEmpty {
      let plan = plans[i]
      let requesters = fallbackRequests.filter { $0.fallbackId == plan.id }.map(\.by)
      guard plan.isSystemFallback || !requesters.isEmpty else { continue }
      let isCandidate = !requesters.isEmpty && !candidates.contains { $0.id == plan.id }
      if isCandidate {
        candidates.append(
          CueCandidate(
            id: plan.id, level: .warn, error: nil, severity: nil, priority: plan.priority,
            mutexGroup: plan.mutexGroup))
      }
      if tracing, plan.isSystemFallback {
        entries.append(
          CueEvalEntry(
            id: plan.id, level: isCandidate ? .warn : .none, error: nil, severity: nil,
            state: isCandidate ? "candidate" : "inactive",
            reason: requesters.isEmpty ? nil : "fallback:" + requesters.joined(separator: ",")))
      }
    }
    let people = frame.people ?? frame.faces.filter { ($0.conf ?? 0) >= 0.6 }.count
    if people >= 2 {
      let allowed = configuration.spec.defaults.multiPersonDegradeTo
      candidates = candidates.filter { allowed.contains($0.id) }
    }

    // 5. Selection → anti-jitter gate.
    let ranked = CueSelector.rank(candidates, policy: configuration.spec.defaults.selection)
    var input = ranked.first.map { GateSignal(id: $0.id, level: $0.level) } ?? .empty
    // §3.8: the optional stability layer between the selector and the gate.
    if useStabilityLayer { input = stability.filter(input).output }
    let before = gate.current
    let gateParams = gateParameters(for: input)
    let result = gate.filter(input, at: t, gateParams)

    // 8 (computed before the outputs, which §3.15 step 9 orders): the MatchDecider, per T0
    // result with matchEvalCadence=t0 (default); with t1 it runs on T1 ticks ([C], G-13).
    let quiet = result.output.id == nil && !praise.isFrozen
    let wasFrozen = praise.isFrozen
    let match =
      withRefSession && settings.matchEvalCadence != .t1
      ? evaluateMatch(ctx, mirrorCtx: mirrorCtx, quiet: quiet, at: t) : (outputs: [], diagnostics: [], praised: false)

    var outputs: [EngineOutput] = []
    if settings.traceEvaluations {
      outputs.append(.eval(.t0(frame: event.frame)))
    }
    if tracing {
      outputs.append(
        CueEvalEntry.record(
          t: t, frame: event.frame, scene: scene, mode: withRefSession ? .withRef : .noRef, entries: entries,
          unsupported: unsupported, ranked: ranked, gate: result, gateState: gate, gateParameters: gateParams,
          input: input))
    }
    if result.changed {
      outputs.append(
        .cueDisplay(
          CueDisplay(
            cueId: result.output.id, level: result.output.level, reason: result.reason,
            mode: withRefSession ? .withRef : .noRef)))
    }
    // 6. Praise (§3.12): noRef, an exit_crossed of the cue the gate now displays; withRef,
    // Match false → true (step 8; single-cue exits do not praise, PRD §5.1.1.a).
    var timers: [TimerRequest] = []
    var praisedNow: (dimension: String, trigger: String)? = nil
    if entitlementExpired {
      // §3.10 / Epic E4: no praise while the entitlement is expired.
    } else if withRefSession {
      if match.praised { praisedNow = ("withref_match", "match") }
    } else if let shown = result.output.id, exited.contains(shown), let p = planIndex[shown],
      praise.trigger(dimension: plans[p].mutexGroup, kind: "exit_crossed", at: t)
    {
      praisedNow = (plans[p].mutexGroup, "exit_crossed")
    }
    // [D] retractPraiseOnInstability (PRD §4.3 "不稳定…收回夸夸", §1.8): a newly displayed cue
    // during the freeze takes the praise back.
    if praisedNow == nil, praise.isFrozen, result.changed, result.output.id != nil,
      settings.retractPraiseOnInstability, let was = praise.unfreeze(reason: "reset")
    {
      timers.append(.cancel(PraiseController.timeoutTimer))
      outputs.append(Self.praiseOffRecord(was, reason: "retracted", at: t))
    }
    if let praisedNow {
      let on = praiseOn(praisedNow, wasFrozen: wasFrozen, at: t)
      outputs += on.outputs
      timers += on.timers
    }
    // 7. Director card: only when the displayed cue (not just its level) changes, and not
    // while praise holds the card frozen (the card catches up when it unfreezes).
    if result.output.id != before.id && !praise.isFrozen && !entitlementExpired {
      let script = result.output.id.flatMap { planIndex[$0] }.map { plans[$0].script }
      if let next = card.display(result.output.id, script: script) {
        outputs.append(Self.scriptCardRecord(next, at: t))
      }
    }
    outputs += match.outputs
    return Effects(outputs: outputs, diagnostics: match.diagnostics, timers: timers)
  }

  /// The x-mirrored context for `mirrorMode=points` (§3.13f [P]); nil for `scalar`.
  func mirrorContext(_ frame: CanonicalFrame, targets: [String: Double]) -> MetricContext? {
    guard settings.mirrorPoints else { return nil }
    let m = frame.mirroredX()
    return MetricContext(
      frame: m, face: SubjectChoice.face(m.faces), options: metricOptions, roiCoefficients: roiCoefficients,
      targets: targets)
  }

  /// Gate parameters (§3.9): persistFrames of the input cue, or of the current cue for a nil
  /// input; minHoldMs and cooldownMs of the current cue; PS defaults when there is none.
  func gateParameters(for input: GateSignal) -> GateParameters {
    let defaults = configuration.spec.defaults.antiJitter
    let current = gate.current.id.flatMap { planIndex[$0] }.map { plans[$0].antiJitter }
    let incoming = input.id.flatMap { planIndex[$0] }.map { plans[$0].antiJitter }
    return GateParameters(
      persistFrames: (incoming ?? current ?? defaults).persistFrames,
      minHoldMs: (current ?? defaults).minHoldMs,
      cooldownMs: (current ?? defaults).cooldownMs)
  }

  static func scriptCardRecord(_ card: ScriptCard, at t: Millis, frozen: Bool = false) -> EngineOutput {
    .scriptCard(ScriptCardLine(cueId: card.cueId, variant: card.variant, zh: card.zh, en: card.en, frozen: frozen))
  }
}
