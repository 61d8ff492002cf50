import CanonicalJSON
import EngineIO
import JustPhotoIO
import PoseSpec

// The app side of the engine (ENGINE §4–6) as a router: each app event goes to the state
// machine that owns it (`App/`: SessionLifecycle, CameraWarmup, ShutterGate, OdrSheet,
// CaptureBridge; `Prompts/PromptCenter`; `Session/CapturePipeline`), and the actions the machines
// return are performed here, in order. Cue guidance (Engine+T0/T1/WithRef) never calls into here
// except through prompts.

extension Engine {
  var promptContext: PromptContext {
    var c = PromptContext(
      wallStartMs: configuration.wallStartMs, sessionId: app.session.sessionId, scene: scene,
      voiceOver: app.voiceOver)
    c.faults = faults
    return c
  }

  func wall(_ t: Millis) -> Int64 { configuration.wallStartMs + t }

  func diagnostic(_ event: String, _ payload: [(key: String, value: String)], at t: Millis) -> DiagnosticLine {
    DiagnosticLine(
      tsMs: wall(t), sessionId: app.session.sessionId, event: event, scene: scene,
      payload: faults.contains(.a13PayloadFieldDropped) ? Array(payload.dropLast()) : payload)
  }

  // MARK: Performing machine actions

  /// Performs a machine's actions in order.
  mutating func perform(_ actions: [AppAction], at t: Millis) -> Effects {
    var out = Effects()
    for action in actions {
      switch action {
      case .output(let o): out.outputs.append(o)
      case .timer(let r): out.timers.append(r)
      case .prompt(let key, let payload): out.append(emitPrompt(key, payload: payload, at: t))
      case .promptDefinition(let def, let payload): out.append(emitPrompt(def, payload: payload, at: t))
      case .conditionEnded(let key): out.append(app.prompts.conditionEnded(key, at: t, context: promptContext))
      case .withdraw(let key): out.append(app.prompts.withdraw(key, at: t, context: promptContext))
      case .diagnostic(let event, let payload): out.diagnostics.append(diagnostic(event, payload, at: t))
      case .markDirty: app.dirty = true
      }
    }
    return out
  }

  mutating func camera(_ input: CameraWarmup.Input, at t: Millis) -> Effects {
    perform(app.camera.handle(input, at: t), at: t)
  }

  mutating func odr(_ input: OdrSheet.Input, at t: Millis) -> Effects {
    perform(app.odr.handle(input, at: t), at: t)
  }

  mutating func capture(_ input: CaptureBridge.Input, at t: Millis) -> Effects {
    let context = CaptureBridge.Context(
      captureFailedCode: settings.captureFailedText == .code,
      permissionCause: app.photoAuth == "denied" || app.camera.auth != .authorized)
    return perform(app.bridge.handle(input, session: app.session, context, at: t), at: t)
  }

  /// The capture pipeline's handling of an event, counted from the counters before it.
  mutating func captureEvent(_ e: CaptureEvent, at t: Millis) -> Effects {
    let before = (app.session.worksetCount, app.session.writeFailedCount)
    let outputs = app.capture.handle(e, &app.session, captureContext(at: t))
    return capture(.capture(outputs, before: before), at: t)
  }

  func captureContext(at t: Millis) -> CaptureContext {
    var c = CaptureContext(
      now: t, wallMs: wall(t), photoAuth: app.photoAuth, freeMB: app.freeMB,
      writeFailStringsC41: settings.writeFailStringsC41)
    c.faults = faults
    return c
  }

  // MARK: Prompts

  mutating func emitPrompt(
    _ key: PromptKey, payload: [(key: String, value: PromptPayloadValue)] = [], at t: Millis
  ) -> Effects {
    guard let def = PromptCatalogue.definition(key) else { return Effects() }
    return emitPrompt(def, payload: payload, at: t)
  }

  mutating func emitPrompt(
    _ def: PromptDefinition, payload: [(key: String, value: PromptPayloadValue)] = [], at t: Millis
  ) -> Effects {
    let context = promptContext
    let effects = app.prompts.emit(def, payload: payload, at: t, context: context)
    if def.gate == .sessionOnce || def.gate == .installOnce { app.dirty = true }
    return effects
  }

  /// The modal of a PoseSpec that fails validation (§2.3): L3, priority 99, stateOnly.
  static func poseSpecPromptDefinition(_ p: PoseSpecPrompt) -> PromptDefinition {
    PromptDefinition(
      key: PromptKey(poseSpec: p), level: .L3, surface: .cameraModalCenter, priority: PoseSpecPrompt.priority,
      blocksShutter: PoseSpecPrompt.blocksShutter, gate: .stateOnly, titleZh: p.titleZh, titleEn: p.titleEn,
      messageZh: p.messageZh, messageEn: p.messageEn,
      actions: [PromptButton(PoseSpecPrompt.primaryActionId, PoseSpecPrompt.primaryTitleZh, PoseSpecPrompt.primaryTitleEn)],
      origin: "C")
  }

  // MARK: Shutter gate (§5.3)

  var shutterConditions: ShutterGate.Conditions {
    ShutterGate.Conditions(
      auth: app.camera.auth, warmup: app.camera.phase, writeFailed: app.session.writeFailedCount,
      inFlight: app.session.inFlightCount, workset: app.session.worksetCount, specValid: specValid,
      appInactive: app.lifecycle.appInactive, interrupted: cameraInterrupted)
  }

  /// The first reason that disables the shutter at `t`, or nil when it is enabled.
  func shutterReason(at t: Millis) -> ShutterBlockReason? { app.shutter.reason(shutterConditions, at: t) }

  /// After every app-side call: a `shutter` line when enabled/reason changed, the A.13
  /// rotation plan, and the flush.
  mutating func finishApp(_ effects: inout Effects, at t: Millis) {
    effects.append(perform(app.shutter.handle(.recompute(shutterConditions), at: t), at: t))
    if !effects.diagnostics.isEmpty, let files = app.diagnosticsFiles {
      // §6.5 [D]: the rotation plan after an append (a pure function of the file list + now).
      for (file, rule) in DiagnosticsRotation.plan(files: files, nowMs: wall(t)) {
        app.diagnosticsFiles?.removeAll { $0.name == file }
        effects.outputs.append(.diagnosticsDeleted(file: file, rule: rule))
        if rule == "size" {
          effects.diagnostics.append(diagnostic("RotationBySizeTriggered", [("file", file)], at: t))
        }
      }
    }
    if app.dirty {
      app.dirty = false
      app.session.lastActiveAtMs = max(app.session.lastActiveAtMs, wall(t))
      effects.persist = app.store
    }
  }

  /// `shutter_tap` after the praise unfreeze (§3.12): capture when the gate allows it (§5.3);
  /// otherwise no item, and at the 20 limit `session_full_20` again (throttled, PRD §A.8).
  mutating func shutterTap(at t: Millis) -> Effects {
    guard let reason = shutterReason(at: t) else {
      let before = (app.session.worksetCount, app.session.writeFailedCount)
      let outputs = app.capture.shutterTap(&app.session, captureContext(at: t))
      return capture(.capture(outputs, before: before), at: t)
    }
    var out = Effects(outputs: [.shutterTapRefused(reason)])
    if reason == .workset_full { out.append(emitPrompt(.session_full_20, payload: [("count", .int(20))], at: t)) }
    return out
  }

  // MARK: Wrap, down reasons (§5.13, §5.15)

  /// `wrap_open`: blocked while an item is write_failed, or below 3 photos (§5.13).
  mutating func wrapOpen(at t: Millis) -> Effects {
    if app.session.writeFailedCount > 0 { return emitPrompt(.blocked_by_write_failed, at: t) }
    if app.session.worksetCount < 3 { return emitPrompt(.wrap_not_enough_photos, at: t) }
    return Effects(outputs: [.wrap(.open)])
  }

  /// `wrap_export`: blocked below 200 MB free (§5.15).
  mutating func wrapExport(at t: Millis) -> Effects {
    if let free = app.freeMB, free < 200 { return emitPrompt(.low_space_blocking, payload: [("mb", .int(200))], at: t) }
    return Effects(outputs: [.wrap(.export)])
  }

  /// `down_reason_select`: its A.13 line.
  func downReasonSelect(_ e: CoachEvent.DownReasonSelect, at t: Millis) -> Effects {
    Effects(diagnostics: [diagnostic("down_reason_select", [("reason", e.reason)], at: t)])
  }

  // MARK: Subject lost (§4.6, G-20)

  /// [D] G-20: no subject for ≥ 2000 ms after having one → L2 `subject_lost` (stateOnly); the
  /// subject's return ends the condition (the banner goes, the gate re-arms).
  mutating func subjectLostCheck(at t: Millis) -> Effects {
    if subjectTracked {
      guard app.subjectLost else { return Effects() }
      app.subjectLost = false
      return app.prompts.conditionEnded(.subject_lost, at: t, context: promptContext)
    }
    guard !app.subjectLost, let seen = app.subjectSeenAt, t - seen >= Self.subjectLostMs else { return Effects() }
    app.subjectLost = true
    return emitPrompt(.subject_lost, at: t)
  }

  static let subjectLostMs: Millis = 2000
}
