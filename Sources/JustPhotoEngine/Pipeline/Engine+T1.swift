import EngineIO

/// One T1 tick (ENGINE §3.11, §3.15 steps 1–3 for T1 cues).
///
/// Each T1 cue of the scene whose cadence hits this tick is evaluated against the latest
/// accepted landmarks (its face and ROIs), the latest `luma` plane and the latest scalars
/// (`frame_scalars` override computed values, §2.11), and its hysteresis moves. The tick does
/// not select or gate: T1 cues take part in the next T0 evaluation's selection with their
/// sticky level and this error; fallback requests and exit crossings of the tick are carried
/// to that evaluation ([D]: §3.15 selects once per accepted T0 result).
extension Engine {
  /// The subject face of the last accepted T0 result (what T1 ticks use), read from that
  /// result's frame in place (reading it through `latestFrame` copied the whole frame: four
  /// arrays retained and released per tick).
  func latestSubjectFace(in frame: CanonicalFrame) -> FaceObservation? {
    guard let i = latestSubjectIndex, i < frame.faces.count else { return nil }
    return frame.faces[i]
  }

  /// The kept T0 context, when no other engine copy shares it, lets go of the registers and of
  /// its frame: the latest frame it held moves to `parkedFrame`. An empty frame is left in its
  /// place for the T0 evaluation's `reset` that follows; `.none` otherwise, and with
  /// `noneFrame` (a T1 tick, a context used without a rewrite). Returns whether it was unshared.
  /// (The context is borrowed, not bound: `let kept = t0Context` retained and released it,
  /// two atomic operations per evaluation and tick.)
  @discardableResult mutating func releaseT0Context(noneFrame: Bool) -> Bool {
    guard isKnownUniquelyReferenced(&t0Context), t0Context != nil else { return false }
    Unmanaged.passUnretained(t0Context.unsafelyUnwrapped)._withUnsafeGuaranteedRef { kept in
      let holds = kept.holdsLatestFrame
      if holds { parkedFrame = kept.takeFrame() }
      if !holds || noneFrame { kept.releaseFrame() }
    }
    return true
  }

  mutating func evaluateT1(tick k: Int, at t: Millis) -> Effects {
    if decisions?.isDead == true { return Effects() }  // left its decisions (``DecisionRun``)
    let frame = latestFrame ?? CanonicalFrame.none
    let (scalars, withRefSession, targets) = t1Inputs()
    let decided = readsDecisions
    if tape.on { tape.beginT1(tick: k, at: t, luma: latestLuma, scalars: scalars, withRef: withRefSession, targets: targets) }
    // In step with decisions, the tick's inputs are matched with its tape entry (above) and its
    // cues' part is in the decisions.
    if decided { return Effects() }
    prepareLumaTables()
    // The kept T0 context lets go of the engine's registers (as at the next T0 evaluation):
    // holding them, it made every tick allocate a register file of its own.
    releaseT0Context(noneFrame: true)
    let ctx = MetricContext(
      frame: frame, face: latestSubjectFace(in: frame), options: metricOptions, scalars: scalars,
      luma: latestLuma, roiCoefficients: roiCoefficients, targets: targets, overrides: true,
      lumaTables: latestLumaTables, lumaSlot: latestLuma.flatMap { lumaMemo?.slot(for: $0) }, registers: uniqueRegisters())
    let tracing = configuration.traceMetrics
    var entries: [CueEvalEntry] = []
    var evaluatedCount = 0
    let t1MaxHz = settings.t1MaxHz
    for i in scenePlans {
      let plan = plans[i]
      guard plan.isT1, plan.takesPart(withRefSession: withRefSession), plan.runsOnT1Tick(k, t1MaxHz: t1MaxHz) else {
        continue
      }
      // Mirror for T1 withRef errors: `scalar` mode only (no x-mirrored luma plane).
      let observed = tape.observation(plan.evaluationSlot) { plan.observe(ctx, withRefSession: withRefSession, mirrorCtx: nil) }
      evaluatedCount += 1
      t1WithRef[i] = observed.withRef
      switch observed.observation {
      case .unavailable(let why):
        t1Errors[i] = nil
        let event = hysteresis[i].step(.unavailable)
        if event == .deactivated { pendingT1Fallbacks.append((plan.fallbackCueId, plan.id)) }
        if tracing {
          entries.append(
            CueEvalEntry(
              id: plan.id, level: .none, error: nil, severity: nil, state: "unavailable",
              reason: event == .deactivated ? "deactivated:\(why)" : why))
        }
      case .value(let error):
        t1Errors[i] = error
        let faults = configuration.plantedFaults
        let level = Self.faultedLevel(plan.level(of: error, withRef: observed.withRef), faults)
        let event = hysteresis[i].step(.observe(level, persistFrames: Self.exitPersist(plan, faults), activateFrames: settings.activateFrames))
        if event == .exitCrossed { pendingT1Exits.append(plan.id) }
        if tracing {
          entries.append(
            CueEvalEntry(
              id: plan.id, level: level, error: error, severity: plan.severity(of: error, withRef: observed.withRef),
              state: hysteresis[i].stickyLevel.map { "active:\($0.rawValue)" } ?? "inactive",
              reason: event?.rawValue, thresholds: observed.withRef ? plan.withRef : plan.noRef))
        }
      }
    }
    var effects = Effects()
    if settings.traceEvaluations {
      effects.outputs.append(
        .eval(.t1(tick: k, cues: evaluatedCount)))
    }
    if tracing { effects.outputs.append(CueEvalEntry.t1Record(t: t, tick: k, scene: scene, entries: entries)) }
    // matchEvalCadence=t1 ([C] `TierScheduler.handleT1Tick`, G-13): Match on T1 ticks, from
    // the latest accepted landmarks.
    if withRefSession, settings.matchEvalCadence == .t1 {
      let wasFrozen = cueCard.praise.isFrozen
      let quiet = display.current.isNone && !wasFrozen
      let match = evaluateMatch(ctx, mirrorCtx: mirrorContext(frame, targets: targets), quiet: quiet, at: t)
      if match.praised { perform(cueCard.step(.tickMatch(wasFrozen: wasFrozen), at: t), into: &effects, at: t) }
      effects.append(outputs: match.outputs, diagnostics: match.diagnostics)
    }
    if ctx.pixelReads > 0 {
      lumaReadTicks += 1
      if ctx.lumaTables == nil { lumaDirectReads += ctx.pixelReads }
      lumaDirectWork += ctx.pixelWork
    }
    return effects
  }

  /// A tick's scalars (`frame_scalars` over sensor values), mode and withRef targets.
  func t1Inputs() -> (scalars: [String: Double], withRef: Bool, targets: [String: Double]) {
    var scalars = sensorScalars
    for (k, v) in frameScalars { scalars[k] = v }  // a map merge: order does not matter
    let withRefSession = withRef.store.isActive  // not `withRefActive`: a getter on the engine copied it
    return (scalars, withRefSession, withRefSession ? withRef.store.targets : [:])
  }

  /// Makes `latestLumaTables` for the latest `luma` plane once per plane: from the cache when
  /// it has them, else — once earlier ticks have summed `lumaTablesWorkFactor` times the
  /// plane's pixels directly (`lumaDirectWork`), and without a memo (`LumaReadMemo`) — built
  /// into the scratch storage (reused when the size matches). Before that the tick reads the
  /// pixels directly (`PixelMetrics`: the same bits), so a plane read at a few ticks (the usual
  /// case: planes at 1–2 Hz, ticks at 2 Hz) never gets tables (issue 38 item 1).
  ///
  /// Why 32: a build costs ~98 instructions per plane pixel (callgrind, release), a direct read
  /// ~2.6 per pooled pixel of a mean or clip share and about 4 × that per interior pixel of a
  /// Sobel density (`directWork` weighs it so); 32 buys the tables about when the direct reads
  /// have paid for them (the ski-rental rule: never much more than twice the cheaper choice).
  /// Factor 0 builds at the second tick that reads the plane (tests set it).
  mutating func prepareLumaTables() {
    guard latestLumaTables == nil, let plane = latestLuma else { return }
    if let cached = lumaTableCache?.tables(for: plane) {
      latestLumaTables = cached
      return
    }
    // With a memo, a plane's later reads come from it (or, past its bounds, from the pixels).
    guard lumaReadTicks > 0, lumaMemo == nil else { return }
    // Tables only for planes within `LumaFrame.pixelsMax` (`LumaTables.build`'s bound), so the
    // product below cannot overflow.
    guard let pixels = LumaFrame.pixelCount(w: Int64(plane.w), h: Int64(plane.h)),
      lumaDirectWork >= lumaTablesWorkFactor * pixels
    else { return }
    // `latestLumaTables` is nil here, so the scratch storage is free to be rewritten.
    let built = LumaTables.build(plane, reusing: &lumaScratch)
    latestLumaTables = built.tables
    if built.allocated { lumaTableAllocations += 1 }
    if built.tables != nil { lumaTableBuilds += 1 }
  }
}
