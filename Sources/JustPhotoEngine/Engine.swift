import CanonicalJSON
import EngineIO
import JustPhotoIO
import PoseSpec

/// Everything the engine is constructed with. Nothing else reaches it but events and timers.
public struct EngineConfiguration: Sendable {
  /// A PoseSpec that passed validation (ENGINE §2.3).
  public var spec: PoseSpecDocument
  public var options: EngineOptions
  /// The header's `initial` object (ENGINE §1.4); `scene` defaults to "cafe".
  public var initial: JSONObject
  /// Unix epoch ms at t = 0 (anchors A.13 `ts_ms`).
  public var wallStartMs: Int64
  /// Emit per-evaluation `cue_eval` lines (`replay --trace metrics`); off for goldens.
  public var traceMetrics: Bool
  /// Deliberate bugs for measuring the rules (``PlantedFault``); empty in every real run.
  /// Only code sets this: no header, option or `--set` reaches it.
  public var plantedFaults = PlantedFaults()
  public init(
    spec: PoseSpecDocument, options: EngineOptions = EngineOptions(), initial: JSONObject = JSONObject(),
    wallStartMs: Int64 = 0, traceMetrics: Bool = false
  ) {
    self.spec = spec
    self.options = options
    self.initial = initial
    self.wallStartMs = wallStartMs
    self.traceMetrics = traceMetrics
  }
}

/// The Just Photo coaching engine: a synchronous, clock-free state machine (DESIGN §1).
///
/// Time enters only with events (`event.t`) and timer firings; timers leave as requests in
/// `Effects.timers`. The same calls in the same order always give the same effects.
///
/// It covers cue guidance (ENGINE §2–3: every cue evaluated from its compiled formula, T0 per
/// accepted frame and T1 on the tier scheduler's ticks, noRef and withRef with Match, praise,
/// the director card; `Engine+T0/T1/WithRef.swift`) and the app around it (§4–6: prompts,
/// session, capture, camera, ODR, A.13; `Engine+App.swift` and `Session/`, `Prompts/`).
public struct Engine: Sendable {
  /// `spec` changes on a valid `posespec_reload` (ENGINE §3.13d); the rest never changes.
  var configuration: EngineConfiguration
  /// One plan per cue, in spec order.
  var plans: [CuePlan]
  /// Cue id → index in `plans` (the first cue with that id). Lookups only.
  var planIndex: [String: Int]
  /// The options parsed once (§1.8): nothing reads the option map after `init`.
  let settings: EngineSettings
  var metricOptions: MetricOptions { settings.metric }
  var useStabilityLayer: Bool { settings.useStabilityLayer }
  /// Buffers reused by every T0 evaluation (`Engine+T0.swift`).
  var t0 = T0Scratch()
  /// Formula registers lent to each evaluation's metric context (`uniqueRegisters()`).
  var registers: RegisterFile
  /// The noRef T0 context, rewritten for the next evaluation while no engine copy shares it.
  var t0Context: MetricContext?
  var roiCoefficients: ROICoefficients
  /// False after a `posespec_reload` whose spec fails §2.3: no evaluation runs (§3.15 paused).
  var specValid = true

  /// The current UI scene (`cafe` / `outdoor`).
  public internal(set) var scene: String
  /// Indices into `plans` evaluated in `scene` (base ∪ scene), in spec order.
  var scenePlans: [Int] {
    didSet { partitionScenePlans() }
  }
  /// `scenePlans` split by tier, for the T0 loop's fast path (`observeCues`): the cues a T0
  /// result evaluates (not T1, not the system fallback), and the T1 cues.
  var sceneT0Plans: [Int] = []
  var sceneT1Plans: [Int] = []
  var acceptance = FrameAcceptance()
  /// `landmarkFilter=oneEuro`: the filter state of every landmark coordinate (nil when off).
  var landmarkFilter: LandmarkFilter?
  var tracking = TrackingMonitor()
  /// Per cue, indexed like `plans`.
  var hysteresis: [CueHysteresis]
  /// `noiseGate` (§3.4.7): each T0 cue's recent frame-to-frame changes; off by default.
  var noiseGate: NoiseGate
  /// The display slot: stability layer and anti-jitter gate (§3.8–3.9; `Cues/CueDisplay.swift`).
  var display: CueDisplayMachine
  /// Praise and the director card (§3.10, §3.12; `Cues/CueCard.swift`).
  var cueCard: CueCardMachine
  /// Subject lock and identity switches (§3.4.4c, §3.4.6).
  var subject = SubjectTracker()
  /// The subject's index in `latestFrame.faces`.
  var latestSubjectIndex: Int?
  /// Whether the last accepted T0 result had a subject (a face or a kept joint): feeds the
  /// subject-lost rule (§4.6, G-20).
  var subjectTracked = true
  /// Paused engine (§3.15 [D]): app not active, camera interrupted. No evaluation; counters
  /// frozen; the display stays.
  var cameraInterrupted = false
  var paused: Bool { app.lifecycle.appInactive || cameraInterrupted || !specValid }
  /// Session, capture, camera, prompts, ODR (ENGINE §4–6): the state machines of `App/`,
  /// routed by Engine+App*.swift.
  var app: AppState
  /// Per evaluation: the observation of each shared evaluation slot (see `plans(for:)`).
  /// An entry is this evaluation's when its `observationStamp` equals `evaluationCount` (so
  /// nothing is cleared per frame).
  var observationCache: [CueObservation] = []
  var observationStamp: [Int] = []
  /// Observations of an earlier replay of the same events (``ObservationTape``); off when none.
  var tape: TapeCursor
  /// Steps 3–5's decisions of such a replay, read or recorded (``DecisionTape``); nil: none.
  let decisions: DecisionRun?
  /// Accepted T0 evaluations so far (numbers `cue_eval` lines).
  var evaluationCount = 0
  var tierScheduler = TierScheduler()
  /// Index of the last T1 tick (k ≥ 1 at k·500 ms).
  var t1Tick = 0
  /// The last accepted T0 result, canonical: what T1 ticks evaluate against (§3.11). Held by
  /// the T0 context that evaluated it (`t0Context.holdsLatestFrame`), else kept here.
  var latestFrame: CanonicalFrame? {
    if let parkedFrame { return parkedFrame }
    if let c = t0Context, c.holdsLatestFrame { return c.frame }
    return nil
  }
  /// ``latestFrame`` while no T0 context holds it (never both: one holder, so the next result
  /// is canonicalized into its arrays in place, and the context takes it without a copy).
  var parkedFrame: CanonicalFrame?
  /// The latest `luma` plane (t ≤ now, no back-fill, §2.11).
  /// A new plane equal to the last (a still scene) keeps the tables and the count of ticks that
  /// read it (they depend on nothing else): one comparison, not a rebuild.
  var latestLuma: LumaFrame? {
    didSet {
      if latestLuma?.w != oldValue?.w || latestLuma?.h != oldValue?.h || latestLuma?.data != oldValue?.data {
        latestLumaTables = nil
        lumaReadTicks = 0
        lumaDirectWork = 0
      }
    }
  }
  /// `latestLuma`'s summed-area tables once direct reads have cost as much (`prepareLumaTables`).
  var latestLumaTables: LumaTables?
  var lumaReadTicks = 0  // T1 ticks that read a pixel metric of `latestLuma`
  var lumaDirectWork = 0  // weighted pixels they summed without tables (`PixelMetrics.directWork`)
  var lumaTablesWorkFactor = 32  // tables once `lumaDirectWork` ≥ this × the plane's pixels
  /// The storage the next plane's tables are written into (`LumaTables.build(_:reusing:)`):
  /// a replay's planes share one size, so after the first plane no table is allocated.
  var lumaScratch: LumaTables.Storage?
  var lumaTableAllocations = 0  // table storage allocations (1 when the planes share a size)
  /// Planes whose tables this engine built (not from `lumaTableCache`); pixel metrics read
  /// from the plane itself, without tables.
  var lumaTableBuilds = 0
  var lumaDirectReads = 0
  /// Tables of planes known before the replay, and pixel reads remembered across replays (`init`).
  let lumaTableCache: LumaTableCache?
  let lumaMemo: LumaReadMemo?
  /// The latest `frame_scalars` values; they override computed T1 values (§2.11).
  var frameScalars: [String: Double] = [:]
  /// Latest sensor scalars by catalogue name (white balance, motion, registration).
  var sensorScalars: [String: Double] = [:]
  /// Per cue (indexed like `plans`): the error of the last T1 evaluation, for selection.
  var t1Errors: [Double?]
  /// Per cue: whether its last T1 evaluation used withRef rules.
  var t1WithRef: [Bool]
  /// References, targets and the MatchDecider (§3.13).
  var withRef: WithRefState
  /// Fallback requests and exit crossings of T1 ticks, consumed by the next T0 evaluation.
  var pendingT1Fallbacks: [(fallbackId: String, by: String)] = []
  var pendingT1Exits: [String] = []

  public init(configuration: EngineConfiguration) {
    self.init(configuration: configuration, compiled: nil)
  }

  /// An engine whose cue plans come from `compiled`, a `CompiledSpec` of `configuration.spec`
  /// shared by any number of engines (one trial's replays of a corpus): no formula is compiled
  /// again. A `compiled` made for another `errorSource` option or cue count is not used.
  /// `lumaTables` holds tables of the planes the replay will see; `lumaMemo`, pixel reads of
  /// earlier replays of the same events (a plane's reads then build no tables).
  /// `observationTape`: cue observations of such a replay, recorded or read (``ObservationTape``);
  /// `decisions`, what its T0 evaluations decided (``DecisionRun``: read only with the tape).
  public init(
    configuration: EngineConfiguration, compiled: CompiledSpec?, lumaTables: LumaTableCache? = nil,
    lumaMemo: LumaReadMemo? = nil, observationTape: ObservationTape? = nil, decisions: DecisionRun? = nil
  ) {
    (self.configuration, lumaTableCache, self.lumaMemo) = (configuration, lumaTables, lumaMemo)
    tape = TapeCursor(observationTape)
    self.decisions = decisions
    if observationTape == nil { decisions?.breakOff() }  // decisions are read and recorded on a tape
    let spec = configuration.spec
    var s = EngineSettings(configuration.options)
    s.metric.ignoreConfidenceGate = configuration.plantedFaults.contains(.confidenceGateIgnored)
    settings = s
    landmarkFilter = settings.landmarkFilter.map(LandmarkFilter.init)
    let formulaFirst = settings.errorSourceFormulaFirst
    let shared: CompiledSpec
    if let compiled, compiled.formulaFirst == formulaFirst, compiled.plans.count == spec.cues.count {
      shared = compiled
    } else {
      shared = CompiledSpec(spec: spec, errorSourceFormulaFirst: formulaFirst)
    }
    (plans, planIndex) = (shared.plans, shared.planIndex)
    registers = RegisterFile(for: shared.plans)
    roiCoefficients = shared.roiCoefficients
    hysteresis = Array(repeating: CueHysteresis(), count: plans.count)
    noiseGate = NoiseGate(s, cues: plans.count)
    t1Errors = Array(repeating: nil, count: plans.count)
    t1WithRef = Array(repeating: false, count: plans.count)
    display = CueDisplayMachine(
      table: .init(plans: shared.plans, planIndex: shared.planIndex, spec: spec, settings: s, faults: configuration.plantedFaults))
    cueCard = CueCardMachine(
      table: .init(plans: shared.plans, planIndex: shared.planIndex, settings: s, faults: configuration.plantedFaults),
      policy: spec.praisePolicy, entitlementExpired: configuration.initial["entitlement"]?.stringValue == "expired")
    scene = configuration.initial["scene"]?.stringValue ?? "cafe"
    withRef = WithRefState(decider: shared.deciders[scene] ?? MatchDecider(spec: spec, scene: scene))
    scenePlans = []
    app = AppState(initial: configuration.initial, wallStartMs: configuration.wallStartMs)
    app.prompts.options = settings.prompts
    scenePlans = plansInScene(scene)
    partitionScenePlans()
  }

  /// `posespec_reload` with an inline spec (DebugTools "Reload PoseSpec & Rebuild Deciders",
  /// MEMO m6.19; ENGINE §3.13d): validated as at launch (§2.3). A valid spec replaces the
  /// cue plans, resets every cue's hysteresis (§3.5) and rebuilds the MatchDecider for the new
  /// fingerprint (exit counters start over); an invalid one shows its L3 modal and pauses
  /// evaluation. Output: `{"out":"posespec", result, fingerprint, required, …}`.
  mutating func reloadSpec(_ e: CoachEvent.PoseSpecReload, at t: Millis) -> Effects {
    var effects = reloadSpec(inline: e.spec.map { .object($0) }, sha256: .string(e.sha256), at: t)
    finishApp(&effects, at: t)
    return effects
  }

  /// Validates and installs an inline spec (a `posespec_reload`, or the header's launch spec).
  mutating func reloadSpec(inline: JSONValue?, sha256: JSONValue, at t: Millis) -> Effects {
    var fields = JSONObject()
    if !sha256.isNull { fields["sha256"] = sha256 }
    guard let inline else {
      fields["result"] = "skipped"
      fields["reason"] = "no inline spec (a path is resolved by the device shell, not the engine)"
      return Effects(outputs: [.posespec(fields)])
    }
    let bytes = Array(JSONWriter.write(inline).utf8)
    let doc: PoseSpecDocument
    do { doc = try PoseSpecLoader.load(bytes: bytes, fileName: "posespec_reload") } catch {
      specValid = false
      let p = error.prompt
      fields["result"] = "invalid"
      fields["error"] = .string(error.kind.rawValue)
      var effects = Effects(outputs: [.posespec(fields)])
      effects.append(
        emitPrompt(
          Self.poseSpecPromptDefinition(p), payload: p.payload.map { ($0.key, .string($0.value)) }, at: t))
      return effects
    }
    var effects = Effects()
    if !specValid {
      // The condition behind the stateOnly PoseSpec modal ended.
      for key: PromptKey in [
        .posespec_invalid_modal, .posespec_version_mismatch_modal, .posespec_binding_missing_modal,
        .posespec_rois_missing_modal,
      ] {
        effects.append(app.prompts.conditionEnded(key, at: t, context: promptContext))
      }
    }
    specValid = true
    configuration.spec = doc
    tape.stop()  // new plans: observations the tape's spec did not make
    t0.candidates.removeAll()  // they refer to the plans being replaced (`CueCandidate.source`)
    (plans, planIndex) = Self.plans(for: doc, formulaFirst: settings.errorSourceFormulaFirst)
    registers = RegisterFile(for: plans)
    _ = display.step(.replan(.init(plans: plans, planIndex: planIndex, spec: doc, settings: settings, faults: faults)), at: t)
    _ = cueCard.step(.replan(.init(plans: plans, planIndex: planIndex, settings: settings, faults: faults)), at: t)
    roiCoefficients = ROICoefficients(doc)
    hysteresis = Array(repeating: CueHysteresis(), count: plans.count)
    noiseGate = NoiseGate(settings, cues: plans.count)
    t1Errors = Array(repeating: nil, count: plans.count)
    t1WithRef = Array(repeating: false, count: plans.count)
    scenePlans = plansInScene(scene)
    withRef.decider = MatchDecider(spec: doc, scene: scene)
    withRef.lastTuple = nil
    withRef.lastMatch = false
    fields["result"] = "loaded"
    fields["fingerprint"] = .string(doc.fingerprint)
    fields["cues"] = .number(Double(doc.cues.count))
    fields["required"] = .array(withRef.decider.requirements.map { .string($0.cueId) })
    effects.outputs.insert(.posespec(fields), at: 0)
    return effects
  }

  /// The cue the anti-jitter gate currently shows and its level ("none" when nothing).
  public var displayedCue: (id: String?, level: String) { (display.current.id, display.current.level.rawValue) }

  /// Called once at t = 0 before any event: the first T1 tick is requested, and a device
  /// that starts hot starts degraded (§3.11).
  public mutating func start() -> Effects {
    var effects = Effects(timers: [.schedule(TierScheduler.t1Timer, at: t1PeriodMs)])
    if let thermal = configuration.initial["thermal"]?.stringValue {
      effects.append(tier(.thermal(thermal), at: 0))
    }
    // The header's launch spec (ENGINE §2.3, S01–S03): validated as the app does at launch.
    if let inline = configuration.initial["posespec"] {
      effects.append(reloadSpec(inline: inline, sha256: .null, at: 0))
    }
    // A persisted session from the header (§5.1 TTL and recovery, S39).
    if let stored = configuration.initial["session_restore"].flatMap(SessionSnapshot.init(json:)) {
      effects.append(restoreSession(stored, at: 0))
    }
    finishApp(&effects, at: 0)
    return effects
  }

  /// Feeds one recorded input event at its time `event.t`. The event is decoded once into its
  /// typed form (``CoachEvent``); one whose fields do not match its kind's definition is not
  /// handled: the effects carry the refusal (``Effects/refused``) and nothing else.
  public mutating func handle(_ event: consuming InputEvent) -> Effects {
    let t = event.t
    let typed: CoachEvent
    do { typed = try CoachEvent(decoding: event) } catch { return Effects(refused: error) }
    return handle(typed, at: t)
  }

  /// Feeds one typed input event at time `t`. Every kind is routed here, by name: a new kind is
  /// a compile error until it is.
  package mutating func handle(_ event: CoachEvent, at t: Millis) -> Effects {
    let launch = if case .appLaunch = event { true } else { false }
    guard app.lifecycle.admits(relaunch: launch) else { return Effects() }
    switch event {
    // Frames (T0, T1)
    case .landmarks(let frame):
      tape.landmarks += 1
      guard !paused, acceptance.accept(frame: frame.frame, at: t) else { return Effects() }
      var effects = evaluateT0(frame, at: t)
      if app.subjectLost || !subjectTracked { effects.append(subjectLostCheck(at: t)) }
      return effects
    case .luma(let plane):
      latestLuma = plane
      return Effects()
    // Cue guidance inputs
    case .uiScene(let e):
      switchScene(to: e.scene.rawValue)
      return Effects()
    case .praiseFeedback(let e): return praiseFeedback(e, at: t)
    case .quietMode(let e): return quietMode(e, at: t)
    case .entitlement(let e): return entitlement(e, at: t)
    case .subjectTap(let e):
      subject.tap(faceIndex: Int(e.faceIndex))
      return Effects()
    case .cameraFlipped:
      subject.resetLock()  // PRD §7.1.3
      tracking.reset()
      return Effects()
    case .posespecReload(let e): return reloadSpec(e, at: t)
    case .refAnalysis(let e): return refAnalysis(e, at: t)
    case .refSwitch(let e): return refSwitch(e)
    // Device state and T1-side inputs (§1.5): tier triggers, scalars for T1 metrics.
    case .thermal(let e): return tier(.thermal(e.state.rawValue), at: t)
    case .previewStats(let e):
      return tier(.previewStats(dropped: Int(e.droppedFrames), averageFps: e.avgFps), at: t)
    case .frameScalars(let e):
      frameScalars = [:]
      for (name, value) in e.values { frameScalars[name] = value }
      return Effects()
    case .whiteBalance(let e):
      sensorScalars["colorTempK"] = e.tempK
      sensorScalars["colorTempLeftK"] = e.leftK
      sensorScalars["colorTempRightK"] = e.rightK
      return Effects()
    case .deviceMotion(let e):
      sensorScalars["motionRms"] = e.rms
      return Effects()
    case .refRegistration(let e):
      sensorScalars["registrationOffsetX"] = e.offsetX
      sensorScalars["registrationOffsetY"] = e.offsetY
      sensorScalars["registrationRotationDeg"] = e.rotationDeg
      sensorScalars["registrationScale"] = e.scale
      return Effects()
    // Recorded for the record, no engine behaviour (ENGINE §1.5 lists them; the app handles
    // them in views the engine does not model). A label is ground truth: the replayer never
    // hands one over.
    case .memoryWarning, .praiseExpand, .refPick, .downReasonsOpen, .resumeEngine, .label:
      return Effects()
    // The app side (ENGINE §4–6), `Engine+AppRouting.swift`.
    case .appLaunch(let e): return appEvent(at: t) { $0.appLaunch(e, at: t, restoring: nil) }
    case .appLifecycle(let e):
      let out = appLifecycle(e.state.rawValue, at: t)
      // A kill: nothing more is flushed.
      if e.state == .terminated { return out }
      return appEvent(at: t) { _ in out }
    case .rotation: return appEvent(at: t) { $0.perform($0.app.shutter.handle(.rotation, at: t), at: t) }
    case .systemDialog(let e):
      return appEvent(at: t) { $0.app.prompts.systemDialog(open: e.open, at: t, context: $0.promptContext) }
    case .voiceover(let e):
      app.voiceOver = e.enabled
      return appEvent(at: t) { _ in Effects() }
    case .freeSpace(let e):
      app.freeMB = Int(e.mb)
      return appEvent(at: t) { _ in Effects() }
    case .photoAuth(let e):
      app.photoAuth = e.status.rawValue
      return appEvent(at: t) { _ in Effects() }
    case .cameraAuth(let e):
      return appEvent(at: t) { $0.camera(.authorization(CameraAuthorization(status: e.status.rawValue)), at: t) }
    case .cameraPermissionResult(let e):
      return appEvent(at: t) { $0.camera(.authorization(e.granted ? .authorized : .denied), at: t) }
    case .cameraReady: return appEvent(at: t) { $0.camera(.ready, at: t) }
    case .cameraStartFailed(let e): return appEvent(at: t) { $0.camera(.startFailed(reason: e.reason.rawValue), at: t) }
    case .cameraInterrupted(let e):
      cameraInterrupted = true
      guard e.reason != "video_device_not_available_in_background" else { return appEvent(at: t) { _ in Effects() } }
      return appEvent(at: t) { $0.emitPrompt(.camera_occupied, at: t) }
    case .cameraInterruptionEnded:
      cameraInterrupted = false
      return appEvent(at: t) { engine in
        var out = engine.app.prompts.conditionEnded(.camera_occupied, at: t, context: engine.promptContext)
        out.append(engine.camera(.start, at: t))
        return out
      }
    case .inspirationOpen: return appEvent(at: t) { $0.odr(.open, at: t) }
    case .inspirationClose: return appEvent(at: t) { $0.odr(.close, at: t) }
    case .odrTap(let e): return appEvent(at: t) { $0.odr(.tap(tag: e.tag), at: t) }
    case .odrRetryTap: return appEvent(at: t) { $0.odr(.retryTap, at: t) }
    case .odrResult(let e): return appEvent(at: t) { $0.odr(.result(ok: e.ok), at: t) }
    case .network(let e): return appEvent(at: t) { $0.odr(.network(satisfied: e.status == .satisfied), at: t) }
    case .wrapOpen: return appEvent(at: t) { $0.wrapOpen(at: t) }
    case .wrapExport: return appEvent(at: t) { $0.wrapExport(at: t) }
    case .downReasonSelect(let e):
      return appEvent(at: t) { $0.downReasonSelect(e, at: t) }
    case .photoData(let e): return appEvent(at: t) { $0.captureEvent(.photoData(e), at: t) }
    case .photoCaptureError(let e): return appEvent(at: t) { $0.captureEvent(.photoCaptureError(e), at: t) }
    case .photokitWriteResult(let e): return appEvent(at: t) { $0.captureEvent(.photokitWriteResult(e), at: t) }
    case .assetFetchResult(let e): return appEvent(at: t) { $0.captureEvent(.assetFetchResult(e), at: t) }
    case .albumAddResult(let e): return appEvent(at: t) { $0.captureEvent(.albumAddResult(e), at: t) }
    case .thumbResult(let e): return appEvent(at: t) { $0.captureEvent(.thumbResult(e), at: t) }
    case .pendingWriteFailed(let e): return appEvent(at: t) { $0.captureEvent(.pendingWriteFailed(e), at: t) }
    case .favoriteSyncResult(let e): return appEvent(at: t) { $0.captureEvent(.favoriteSyncResult(e), at: t) }
    case .likeToggle(let e): return appEvent(at: t) { $0.captureEvent(.likeToggle(e), at: t) }
    case .rebuildThumbTap(let e): return appEvent(at: t) { $0.captureEvent(.rebuildThumbTap(e), at: t) }
    case .shutterTap:
      // §3.12: an accepted tap unfreezes praise before capture starts; a refused one creates
      // no item and leaves praise alone (§5.3 [D]).
      return appEvent(at: t) { e in
        var out = e.shutterReason(at: t) == nil ? e.unfreezePraise(reason: "shutter_tap", at: t) : Effects()
        out.append(e.shutterTap(at: t))
        return out
      }
    case .promptAction(let e): return appEvent(at: t) { $0.promptAction(e, at: t) }
    case .promptClose(let e):
      // A key the engine never shows matches no visible prompt: nothing to close.
      return appEvent(at: t) { engine in
        guard let key = PromptKey(rawValue: e.key) else { return Effects() }
        return engine.app.prompts.close(key: key, at: t, context: engine.promptContext)
      }
    case .resetSessionTap: return appEvent(at: t) { $0.emitPrompt(.reset_session_confirm, at: t) }
    case .purchaseResult(let e):
      // §4.6, §5.15: a failed purchase / restore → its L3.
      return appEvent(at: t) { e.ok ? Effects() : $0.emitPrompt(.purchase_failed, at: t) }
    case .restoreResult(let e):
      return appEvent(at: t) { e.ok ? Effects() : $0.emitPrompt(.restore_failed, at: t) }
    case .viewerOpen(let e):
      return appEvent(at: t) { engine in
        var out = engine.capture(.viewer(item: Int(e.item), open: true), at: t)
        let outputs = engine.app.capture.handle(.viewerOpen(e), &engine.app.session, engine.captureContext(at: t))
        out.append(engine.capture(.capture(outputs, before: nil), at: t))
        return out
      }
    case .viewerPage(let e): return appEvent(at: t) { $0.capture(.viewer(item: Int(e.item), open: true), at: t) }
    case .viewerClose: return appEvent(at: t) { $0.capture(.viewer(item: nil, open: false), at: t) }
    }
  }

  /// `app_launch` after the app was killed, restoring `stored` — what the device's store holds
  /// (the replayer's SQLite session store): the typed relaunch entry. A `store` recorded on the
  /// event itself wins. Any other event is handled as by `handle(_:)`.
  public mutating func relaunch(_ event: InputEvent, restoring stored: StoreSnapshot) -> Effects {
    let typed: CoachEvent
    do { typed = try CoachEvent(decoding: event) } catch { return Effects(refused: error) }
    guard case .appLaunch(let launch) = typed else { return handle(typed, at: event.t) }
    return appEvent(at: event.t) { $0.appLaunch(launch, at: event.t, restoring: stored) }
  }

  /// Fires a timer the engine scheduled earlier, at its due time.
  /// An id the engine did not schedule (or no longer has pending) does nothing.
  public mutating func fire(_ timer: TimerID, at now: Millis) -> Effects {
    // Recognised by lookup, not by its name (`EngineTimer`).
    guard let typed = EngineTimer.fixed[timer] ?? app.capture.scheduled(timer).map({ .capture($0.kind, item: $0.item) })
    else { return Effects() }
    return fire(typed, at: now)
  }

  /// Performs the actions of a machine step when there are any (most frames have none).
  @inline(__always)
  mutating func perform(_ actions: [MachineAction], into effects: inout Effects, at t: Millis) {
    if !actions.isEmpty { effects.append(perform(actions, at: t)) }
  }

  /// The register file, this engine's own: a copy of an engine value that evaluates gets a
  /// file of its own first (engines are values; two copies may run on two threads).
  mutating func uniqueRegisters() -> RegisterFile {
    if !isKnownUniquelyReferenced(&registers) { registers = RegisterFile(for: plans) }
    return registers
  }

  /// The T1 period (500 ms; the planted fault `t1-cadence-400ms` shortens it).
  var t1PeriodMs: Millis { faults.contains(.t1CadenceWrong) ? 400 : TierScheduler.t1PeriodMs }
  var faults: PlantedFaults { configuration.plantedFaults }
}
