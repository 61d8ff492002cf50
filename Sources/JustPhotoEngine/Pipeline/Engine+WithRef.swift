import CanonicalJSON
import EngineIO
import JustPhotoIO
import PoseSpec

/// withRef in the engine (ENGINE §3.13–3.14): references, targets, the MatchDecider and its
/// outputs (`match`, praise on Match false → true, `withref_match_state`, `withref_fallback`).
struct WithRefState: Sendable {
  var store = RefTargetStore()
  /// Rebuilt when the scene (cache key) changes (§3.13d).
  var decider: MatchDecider
  /// The last emitted (match, blocked_by, mirror_applied) tuple of this session.
  var lastTuple: MatchTuple?
  var lastFallback: MatchMissingInfo?
  var lastMatch = false
  /// Whether the UI was quiet (nothing shown, no praise) at the last evaluation.
  var wasQuiet = false
  /// Whether the last T0 evaluation ran in withRef mode (a switch resets hysteresis, §3.5).
  var lastModeWithRef = false

  init(spec: PoseSpecDocument, scene: String) {
    decider = MatchDecider(spec: spec, scene: scene)
  }

  /// Starting from `decider` (a fresh one for the scene).
  init(decider: MatchDecider) {
    self.decider = decider
  }
}

extension Engine {
  var withRefActive: Bool { withRef.store.isActive }

  /// `ref_analysis` (§1.5, §3.13b, §3.14): the reference gates, then its targets.
  mutating func refAnalysis(_ e: CoachEvent.RefAnalysis, at t: Millis) -> Effects {
    let refId = e.refId
    let raw = e.reference
    if let reason = RefGate.check(raw) {
      // Rejected: not copied, the current reference unchanged (PLAN M7.9).
      var effects = emitPrompt(RefGate.promptKey, payload: [("reason", .string(reason.rawValue))], at: t)
      effects.outputs.append(
        .reference(["ref_id": .string(refId), "result": "rejected", "reason": .string(reason.rawValue)]))
      return effects
    }
    // §5.15: the copy into the album needs 200 MB; below that it is not performed.
    if let free = app.freeMB, free < 200 {
      return emitPrompt(.low_space_blocking, payload: [("mb", .int(200))], at: t)
    }
    if case .limitReached = withRef.store.recordReferenceCopy() {
      return emitPrompt(.ref_limit_reached, at: t)
    }
    // §4.6: before the first reference copy ever (installOnce).
    var effects = emitPrompt(.ref_first_save_notice, at: t)
    let targets = extractTargets(raw, scalars: e.scalars, luma: e.luma)
    let outcome = withRef.store.store(refId: refId, metrics: targets)
    var fields: JSONObject = ["ref_id": .string(refId)]
    switch outcome {
    case .stored(_, let count, let replaced):
      fields["result"] = "stored"
      fields["targets"] = .number(Double(count))
      fields["replaced"] = replaced.map { .string($0) } ?? .null
    case .skipped(let reason, let newCount, let existing):
      fields["result"] = "skipped"
      fields["reason"] = .string(reason.rawValue)
      fields["targets"] = .number(Double(newCount))
      fields["existing"] = .number(Double(existing))
    }
    effects.outputs.append(.reference(fields))
    return effects
  }

  /// `ref_switch` (§3.14): the next or previous stored reference.
  mutating func refSwitch(_ e: CoachEvent.RefSwitch) -> Effects {
    let order = withRef.store.refOrder
    guard !order.isEmpty else { return Effects() }
    let current = withRef.store.selectedRefId.flatMap { order.firstIndex(of: $0) } ?? 0
    let step = e.dir == .prev ? order.count - 1 : 1
    let next = order[(current + step) % order.count]
    guard withRef.store.select(refId: next) else { return Effects() }
    return Effects(outputs: [.reference(["ref_id": .string(next), "result": "selected"])])
  }

  /// Target extraction (§3.13b): the reference through the same chain — canonicalize, subject
  /// face, every metric the spec's formulas assign (first definition, with its cue's landmark
  /// set) — keeping finite values. Pixel metrics come from the reference's `luma` plane, and
  /// its `frame_scalars` override them (§2.11).
  func extractTargets(_ raw: LandmarkFrame, scalars: [String: Double], luma: LumaFrame? = nil) -> [String: Double] {
    let frame = Canonicalizer.canonicalize(raw, minLandmarkConfidence: configuration.spec.defaults.minLandmarkConfidence)
    let ctx = MetricContext(
      frame: frame, face: SubjectChoice.face(frame.faces), options: metricOptions, scalars: scalars, luma: luma,
      roiCoefficients: roiCoefficients, overrides: true)
    var targets: [String: Double] = [:]
    var seen: Set<String> = []
    for plan in plans where !plan.isSystemFallback {
      for (i, a) in plan.assignments.enumerated() where a.isScalar && a.name != "error" && !seen.contains(a.name) {
        seen.insert(a.name)
        if case .value(let v) = plan.observeAssignment(i, ctx), v.isFinite { targets[a.name] = v }
      }
    }
    return targets
  }

  /// The MatchDecider on one T0 evaluation (§3.13e, step 8 of §3.15): live metrics of the
  /// required cues, `match` output on a tuple change, praise on false → true, A.13 lines.
  /// `decided`: the decider's result as a ``DecisionTape`` kept it (the decider does not run).
  mutating func evaluateMatch(
    _ ctx: MetricContext, mirrorCtx: MetricContext?, quiet: Bool, at t: Millis, decided: MatchResult? = nil
  ) -> (outputs: [EngineOutput], diagnostics: [DiagnosticLine], praised: Bool, result: MatchResult) {
    let result = decided ?? matchResult(ctx, mirrorCtx: mirrorCtx)
    var outputs: [EngineOutput] = []
    var diagnostics: [DiagnosticLine] = []
    let tuple = result.tuple
    let changed = tuple != withRef.lastTuple
    if changed {
      outputs.append(
        .match(
          MatchLine(
            match: result.match, required: result.required, blockedBy: result.blockedBy,
            mirrorApplied: result.mirrorApplied)))
    }
    // §3.13g: on every change of the tuple, and when the UI becomes quiet while match=false.
    let becameQuiet = quiet && !withRef.wasQuiet && !result.match
    if changed || becameQuiet {
      diagnostics.append(
        diagnostic(
          "withref_match_state", at: t,
          [
            ("match", result.match ? "true" : "false"), ("required_dimensions", result.required.joined(separator: ",")),
            ("blocked_by", result.blockedBy.joined(separator: ",")),
            ("mirror_applied", result.mirrorApplied ? "true" : "false"),
          ]))
    }
    if let fb = result.fallback, fb != withRef.lastFallback {
      diagnostics.append(diagnostic("withref_fallback", at: t, [("reason", fb.reason), ("missing", fb.missingJoined)]))
    }
    withRef.lastFallback = result.fallback
    // §3.12: Match false → true; the card machine decides the praise (`CueCardMachine`).
    let praised = result.match && !withRef.lastMatch
    withRef.lastMatch = result.match
    withRef.lastTuple = tuple
    withRef.wasQuiet = quiet
    return (outputs, diagnostics, praised, result)
  }

  /// The decider's result on `ctx`'s live metrics (and `mirrorCtx`'s, `mirrorMode=points`).
  mutating func matchResult(_ ctx: MetricContext, mirrorCtx: MetricContext?) -> MatchResult {
    // Where each requirement's metric comes from (its cue's plan and assignment), found once
    // per decider; the samples go by slot (`MatchDecider.metricSlots`), the first requirement
    // of a metric computing it, as the maps by metric name did.
    if withRef.decider.planInputs == nil {
      withRef.decider.planInputs = withRef.decider.requirements.map { r in
        guard let p = planIndex[r.cueId], let i = plans[p].assignments.firstIndex(where: { $0.name == r.metric }) else {
          return nil
        }
        return (p, i)
      }
    }
    let inputs = withRef.decider.planInputs!
    let slots = withRef.decider.metricSlots
    var live = [MetricSample?](repeating: nil, count: inputs.count)
    var mirrored: [MetricSample?]? = mirrorCtx == nil ? nil : [MetricSample?](repeating: nil, count: inputs.count)
    for (k, input) in inputs.enumerated() {
      guard let input else { continue }
      let (p, i) = input
      let slot = slots[k]
      func sample(_ o: MetricObservation) -> MetricSample {
        switch o {
        case .value(let v): .value(v)
        case .unavailable(let why):
          .unavailable(
            detail: why, metric: withRef.decider.requirements[k].metric,
            landmarks: configuration.spec.cues[p].metric.landmarks)
        }
      }
      if live[slot] == nil { live[slot] = sample(plans[p].observeAssignment(i, ctx)) }
      if let mirrorCtx, mirrored?[slot] == nil {
        mirrored?[slot] = sample(plans[p].observeAssignment(i, mirrorCtx))
      }
    }
    return withRef.decider.evaluate(
      samples: live, mirroredSamples: mirrored, targets: withRef.store.targets, options: settings.match)
  }

  /// An A.13 line of this engine (§6.1): wall time, session, UI scene, string payload.
  func diagnostic(_ event: String, at t: Millis, _ payload: [(key: String, value: String)]) -> DiagnosticLine {
    DiagnosticLine(
      tsMs: configuration.wallStartMs + t, sessionId: sessionId, event: event, scene: scene, payload: payload)
  }

  /// The current session's id (§1.3.4: the header's, else generated `S-0001`, …).
  var sessionId: String { app.session.sessionId }
}
