import CanonicalJSON
import EngineIO
import PoseSpec

// The app side of the engine (ENGINE §4–6): session lifecycle and recovery, camera
// authorization and warm-up, the shutter gate, the prompt system, the capture pipeline's
// outputs, ODR, and A.13 lines. Cue guidance (Engine+T0/T1/WithRef) never calls into here
// except through prompts.

extension Engine {
  static let warmupUpgradeTimer = TimerID("camera.warmup.upgrade")
  static let warmupFailTimer = TimerID("camera.warmup.fail")
  static let rotationTimer = TimerID("shutter.rotation")
  static let odrRetryTimer = TimerID("odr.retry")
  /// ENGINE §5.12.
  static let warmupUpgradeMs: Millis = 3000
  static let warmupFailMs: Millis = 8000
  /// PRD §B.4.3.
  static let rotationBlockMs: Millis = 300
  /// ENGINE §5.14.
  static let odrDebounceMs: Millis = 500

  var promptContext: PromptContext {
    PromptContext(
      wallStartMs: configuration.wallStartMs, sessionId: app.session.sessionId, scene: scene,
      voiceOver: app.voiceOver)
  }

  func wall(_ t: Millis) -> Int64 { configuration.wallStartMs + t }

  func diagnostic(_ event: String, _ payload: [(key: String, value: String)], at t: Millis) -> DiagnosticLine {
    DiagnosticLine(tsMs: wall(t), sessionId: app.session.sessionId, event: event, scene: scene, payload: payload)
  }

  // MARK: Prompts

  mutating func emitPrompt(
    _ key: String, payload: [(key: String, value: PromptPayloadValue)] = [], at t: Millis
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
      key: p.key, level: .L3, surface: .cameraModalCenter, priority: PoseSpecPrompt.priority,
      blocksShutter: PoseSpecPrompt.blocksShutter, gate: .stateOnly, titleZh: p.titleZh, titleEn: p.titleEn,
      messageZh: p.messageZh, messageEn: p.messageEn,
      actions: [PromptButton(PoseSpecPrompt.primaryActionId, PoseSpecPrompt.primaryTitleZh, PoseSpecPrompt.primaryTitleEn)],
      origin: "C")
  }

  // MARK: Shutter gate (§5.3)

  /// The first reason that disables the shutter at `t`, or nil when it is enabled.
  func shutterReason(at t: Millis) -> ShutterBlockReason? {
    if app.cameraAuth != "authorized" { return .camera_not_authorized }
    if app.warmup == .failed { return .warmup_failed }
    if app.warmup != .ready { return .warmup_not_ready }
    if app.session.writeFailedCount > 0 { return .blocked_by_write_failed }
    if app.session.inFlightCount >= 2 { return .in_flight_limit_reached }
    if app.session.worksetCount >= 20 { return .workset_full }
    if !specValid { return .posespec_invalid }
    if appInactive { return .app_inactive }
    if cameraInterrupted { return .interrupted }
    if let until = app.rotatingUntil, t < until { return .rotating }
    return nil
  }

  /// After every app-side call: a `shutter` line when enabled/reason changed, and the flush.
  mutating func finishApp(_ effects: inout Effects, at t: Millis) {
    guard !app.killed else { return }
    let reason = shutterReason(at: t)
    let enabled = reason == nil
    if app.shutter.map({ $0.enabled != enabled || $0.reason != reason }) ?? true {
      let first = app.shutter == nil
      app.shutter = (enabled, reason)
      // The first computation only speaks when the shutter starts disabled.
      if !(first && enabled) {
        effects.outputs.append(.shutter(enabled: enabled, reason: reason))
      }
    }
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

  // MARK: Session (§5.1)

  /// A new session (cold start without a restorable one, TTL expiry, reset): new id, empty
  /// workset, flags and references.
  mutating func newSession(at t: Millis, cause: String) -> Effects {
    let ordinal = app.session.ordinal + 1
    app.session = SessionSnapshot(
      sessionId: AppState.sessionId(ordinal: ordinal), createdAtMs: wall(t), lastActiveAtMs: wall(t),
      scene: scene, ordinal: ordinal)
    app.prompts.reset()
    app.capture = CapturePipeline()
    app.blockedEntered = false
    app.fullEpisodeShown = false
    app.dirty = true
    withRef = WithRefState(spec: configuration.spec, scene: scene)
    return Effects(outputs: [
      .session(.created(sessionId: app.session.sessionId, cause: cause))
    ])
  }

  /// Restores `stored` if it is within the TTL (§5.1, checked at cold start and on `active`),
  /// then runs the cold-start recovery of every item (§B.3.5); otherwise starts a new session.
  mutating func restoreSession(_ stored: SessionSnapshot, at t: Millis) -> Effects {
    let age = wall(t) - stored.lastActiveAtMs
    guard age <= AppState.sessionTTLms else {
      app.session.ordinal = stored.ordinal
      return newSession(at: t, cause: "ttl_expired")
    }
    app.session = stored
    if let s = stored.scene as String?, s == "cafe" || s == "outdoor" { switchScene(to: s) }
    app.prompts.reset(sessionFlags: stored.flags)
    app.capture = CapturePipeline()
    var out = Effects(outputs: [
      .session(.restored(sessionId: stored.sessionId, workset: stored.worksetCount))
    ])
    app.blockedEntered = false
    app.fullEpisodeShown = false
    let (outputs, removed) = app.capture.relaunch(&app.session, captureContext(at: t))
    // Counted from an empty workset: a restored session that is full, or holds write_failed
    // items, shows the 20-limit modal / the write_failed block at once (§5.4, §5.6).
    out.append(applyCapture(outputs, at: t, counted: (0, 0)))
    if removed > 0 {
      out.append(emitPrompt("session_recover_prune", payload: [("count", .int(removed))], at: t))
    }
    app.dirty = true
    return out
  }

  /// `app_lifecycle active`: an expired session is replaced (APP `ensureFreshSession`).
  mutating func ensureFreshSession(at t: Millis) -> Effects {
    guard wall(t) - app.session.lastActiveAtMs > AppState.sessionTTLms else { return Effects() }
    return newSession(at: t, cause: "ttl_expired")
  }

  /// `app_launch`: a cold start. After a kill every in-memory state is gone: the session comes
  /// from `store` (the replay adapter puts the SQLite store's content there).
  mutating func appLaunch(_ g: GenericEvent, at t: Millis) -> Effects {
    var out = Effects()
    let relaunch = app.killed
    if relaunch {
      var fresh = Engine(configuration: configurationAfterKill)
      fresh.app.session.ordinal = 0
      // The T1 tick is the device's clock, not app memory: its period carries on (§1.3 rule 2).
      fresh.t1Tick = t1Tick
      self = fresh
    }
    if let storeJSON = g.fields["store"], !storeJSON.isNull {
      let stored = StoreSnapshot(json: storeJSON)
      // Install flags live outside the session (UserDefaults): after a kill they come back from
      // the store; on a first launch the header's stay.
      if relaunch { app.prompts = PromptCenter(options: app.prompts.options, installFlags: stored.installFlags) }
      if let s = stored.session { out.append(restoreSession(s, at: t)) }
    }
    if app.session.ordinal == 0 { out.append(newSession(at: t, cause: "cold_start")) }
    app.launched = true
    out.append(cameraEntry(at: t))
    return out
  }

  /// The configuration a relaunched engine starts from: the header's session and launch spec
  /// belong to the first launch only.
  var configurationAfterKill: EngineConfiguration {
    var c = configuration
    var initial = JSONObject()
    for m in c.initial.members where !["session_restore", "session_id", "posespec"].contains(m.key) {
      initial[m.key] = m.value
    }
    initial["camera_ready"] = false
    c.initial = initial
    return c
  }

  /// `app_lifecycle`.
  mutating func appLifecycle(_ state: String, at t: Millis) -> Effects {
    var out = Effects()
    switch state {
    case "terminated":
      // A kill: nothing more is flushed; memory is dropped at the next `app_launch`.
      app.killed = true
      return Effects(outputs: [.session(.killed)])
    case "active":
      appInactive = false
      out.append(ensureFreshSession(at: t))
      out.append(app.prompts.appLifecycle(background: false, at: t))
      app.dirty = true
    case "background":
      appInactive = true
      out.append(app.prompts.appLifecycle(background: true, at: t))
      app.dirty = true
    default:
      appInactive = true
      app.dirty = true
    }
    return out
  }

  // MARK: Camera (§5.12)

  /// Entering the camera: permission pre-prompt, denied / restricted banners, or warm-up.
  mutating func cameraEntry(at t: Millis) -> Effects {
    switch app.cameraAuth {
    case "not_determined": return emitPrompt("camera_permission_preprompt", at: t)
    case "denied": return emitPrompt("camera_denied_banner", at: t)
    case "restricted": return emitPrompt("camera_restricted_banner", at: t)
    default: return startWarmup(at: t)
    }
  }

  mutating func startWarmup(at t: Millis) -> Effects {
    app.warmup = .warming
    return Effects(
      outputs: [
        .effect(.startCamera),
        Self.cameraRecord(.warming, at: t),
      ],
      timers: [
        .schedule(Self.warmupUpgradeTimer, at: t + Self.warmupUpgradeMs),
        .schedule(Self.warmupFailTimer, at: t + Self.warmupFailMs),
      ])
  }

  static func cameraRecord(_ phase: WarmupPhase, at t: Millis) -> EngineOutput {
    let text: (zh: String, en: String)? =
      switch phase {
      case .warming: ("相机准备中…", "Preparing camera…")
      case .upgraded: ("相机准备中…（可能需要几秒）", "Preparing camera… (may take a few seconds)")
      case .failed: ("相机初始化失败", "Camera initialization failed")
      default: nil
      }
    return .camera(CameraLine(warmup: phase, text: text))
  }

  /// [C] `CameraInitFailureReason.explanationText` (§4.8).
  static func initFailureExplanation(_ reason: String) -> (zh: String, en: String) {
    switch reason {
    case "permission_denied": ("未获得相机权限", "No camera permission")
    case "camera_in_use": ("相机可能被其他应用占用", "The camera may be in use by another app")
    case "hardware_unavailable": ("设备相机不可用", "Device camera unavailable")
    default: ("发生未知错误", "Unknown error")
    }
  }

  mutating func warmupTimer(_ timer: TimerID, at t: Millis) -> Effects {
    switch (timer, app.warmup) {
    case (Self.warmupUpgradeTimer, .warming):
      app.warmup = .upgraded
      return Effects(outputs: [Self.cameraRecord(.upgraded, at: t)])
    case (Self.warmupFailTimer, .warming), (Self.warmupFailTimer, .upgraded):
      app.warmup = .failed
      var def = PromptCatalogue.definition("camera_init_failed")!
      let reason = app.cameraAuth == "authorized" ? app.initFailureReason : "permission_denied"
      let (zh, en) = Self.initFailureExplanation(reason)
      def.messageZh = zh + "。相机准备超时（>8s）。"
      def.messageEn = en + ". Camera warm-up timed out (>8 s)."
      var out = Effects(outputs: [Self.cameraRecord(.failed, at: t)])
      out.append(emitPrompt(def, payload: [("reason", .string(reason))], at: t))
      return out
    default: return Effects()
    }
  }

  // MARK: Capture pipeline (§5.2–5.11)

  func captureContext(at t: Millis) -> CaptureContext {
    CaptureContext(
      now: t, wallMs: wall(t), photoAuth: app.photoAuth, freeMB: app.freeMB,
      writeFailStringsC41: settings.writeFailStringsC41)
  }

  /// The catalogue key (ENGINE §4.5) of a prompt the capture unit asks for.
  static func catalogueKey(_ key: String) -> String {
    switch key {
    case "capture_failed_abnormal_modal": "camera_abnormal"
    case "album_add_failed_banner": "album_add_failed"
    default: key
    }
  }

  /// Turns capture outputs into trace lines, effects, prompts and A.13 lines, then applies the
  /// workset rules that watch the counters: the 15 banner, the 20 limit and the write_failed block.
  mutating func applyCapture(_ outputs: [CaptureOutput], at t: Millis, counted before: (Int, Int)? = nil) -> Effects {
    var out = Effects()
    let beforeCount = before?.0 ?? app.session.worksetCount
    let beforeFailed = before?.1 ?? app.session.writeFailedCount
    for o in outputs {
      switch o {
      case .item(let item):
        app.dirty = true
        out.outputs.append(.item(ItemLine(item: item)))
      case .removed(let item, let reason):
        app.dirty = true
        out.outputs.append(.item(ItemLine(item: item, removedReason: reason)))
      case .effect(let request):
        out.outputs.append(.effect(request))
      case .timer(let request):
        out.timers.append(request)
      case .prompt(let key, var payload):
        let catalogueKey = Self.catalogueKey(key)
        // {count} of the [C] toasts (see PromptCatalogue): deleted / ok.
        if let n = payload.first(where: { $0.key == "deleted" || $0.key == "ok" })?.value {
          payload.append(("count", n))
        }
        if catalogueKey == "write_failed" {
          // The bar lives in the Viewer (§4.6): shown when a write_failed item is viewed.
          out.append(showWriteFailedBar(at: t))
        } else if catalogueKey == "capture_failed_toast" {
          out.append(
            emitPrompt(
              PromptCatalogue.captureFailedToast(code: settings.captureFailedText == .code),
              payload: payload, at: t))
        } else if catalogueKey == "camera_abnormal" {
          out.append(
            emitPrompt(
              PromptCatalogue.cameraAbnormal(permissionCause: app.photoAuth == "denied" || app.cameraAuth != "authorized"),
              payload: payload, at: t))
        } else {
          out.append(emitPrompt(catalogueKey, payload: payload, at: t))
        }
      case .withdraw(let key):
        out.append(app.prompts.conditionEnded(Self.catalogueKey(key), at: t, context: promptContext))
      case .diagnostic(let event, let payload):
        out.diagnostics.append(diagnostic(event, payload, at: t))
      }
    }
    let count = app.session.worksetCount
    if beforeCount == 14 && count == 15 {
      out.append(emitPrompt("session_count_15", payload: [("count", .int(15))], at: t))
    }
    if count >= 20 && beforeCount < 20 && !app.fullEpisodeShown {
      app.fullEpisodeShown = true
      out.append(emitPrompt("session_full_20", payload: [("count", .int(20))], at: t))
    } else if count < 20 && app.fullEpisodeShown {
      app.fullEpisodeShown = false
    }
    let failed = app.session.writeFailedCount
    if failed > 0 && beforeFailed == 0 && !app.blockedEntered {
      app.blockedEntered = true
      out.append(emitPrompt("write_failed_block", payload: [("count", .int(failed))], at: t))
      out.append(emitPrompt("blocked_by_write_failed", at: t))
    } else if failed == 0 && app.blockedEntered {
      app.blockedEntered = false
      let context = promptContext
      out.append(app.prompts.conditionEnded("blocked_by_write_failed", at: t, context: context))
      out.append(app.prompts.conditionEnded("write_failed_block", at: t, context: context))
      out.append(app.prompts.withdraw("write_failed", at: t, context: context))
    }
    return out
  }

  /// The Viewer blocking bar (`write_failed`, §4.1, §5.6) for the viewed item, if it is
  /// write_failed; {reason} per `writeFailReasonStrings` (§4.8).
  mutating func showWriteFailedBar(at t: Millis) -> Effects {
    guard let shot = app.viewerItem, let item = app.session.items.first(where: { $0.shotSeq == shot }),
      item.core == .write_failed
    else { return Effects() }
    return emitPrompt("write_failed", payload: [("reason", .string(item.writeFailReason ?? ""))], at: t)
  }

  /// `viewer_open` / `viewer_page` / `viewer_close` (§5.13): the Viewer shows one item.
  mutating func viewer(_ g: GenericEvent, at t: Millis) -> Effects {
    guard g.kind != .viewer_close else {
      app.viewerItem = nil
      return app.prompts.withdraw("write_failed", at: t, context: promptContext)
    }
    app.viewerItem = g.fields["item"]?.int64Value.map { Int($0) }
    var out = app.prompts.withdraw("write_failed", at: t, context: promptContext)
    out.append(showWriteFailedBar(at: t))
    return out
  }

  /// `shutter_tap` after the praise unfreeze (§3.12): capture when the gate allows it (§5.3);
  /// otherwise no item, and at the 20 limit `session_full_20` again (throttled, PRD §A.8).
  mutating func shutterTap(at t: Millis) -> Effects {
    guard let reason = shutterReason(at: t) else {
      let before = (app.session.worksetCount, app.session.writeFailedCount)
      var out = Effects()
      let outputs = app.capture.shutterTap(&app.session, captureContext(at: t))
      out.append(applyCapture(outputs, at: t, counted: before))
      return out
    }
    var out = Effects(outputs: [
      .shutterTapRefused(reason)
    ])
    if reason == .workset_full { out.append(emitPrompt("session_full_20", payload: [("count", .int(20))], at: t)) }
    return out
  }

  // MARK: Prompt actions (§4.7)

  mutating func promptAction(_ g: GenericEvent, at t: Millis) -> Effects {
    let key = g.fields["key"]?.stringValue ?? ""
    let actionId = g.fields["action_id"]?.stringValue ?? ""
    let (tapped, action) = app.prompts.action(key: key, actionId: actionId, at: t, context: promptContext)
    var out = tapped
    guard let action else { return out }
    if let effect = action.effect {
      out.outputs.append(.effect(effect))
    }
    switch action.actionId {
    case "retry_camera_init", "retry":
      if key == "camera_abnormal" { app.capture.resetCaptureFailures() }
      if key.hasPrefix("posespec_") { break }
      out.append(startWarmup(at: t))
    case "dismiss" where key == "camera_abnormal":
      app.capture.resetCaptureFailures()
    case "reset_session":
      out.append(resetSession(at: t))
    case "open_first_write_failed", "view":
      // The Viewer opens on the newest write_failed item (§4.7).
      if let item = app.session.items.first(where: { $0.core == .write_failed }) {
        app.viewerItem = item.shotSeq
        out.append(showWriteFailedBar(at: t))
      }
    case "clear_unliked", "retry_write", "abandon_item", "retry_album_add", "later":
      let before = (app.session.worksetCount, app.session.writeFailedCount)
      let item = g.fields["item"]?.int64Value.map { Int($0) } ?? (key == "write_failed" ? app.viewerItem : nil)
      let outputs = app.capture.action(actionId, item: item, &app.session, captureContext(at: t))
      out.append(applyCapture(outputs, at: t, counted: before))
    default:
      break
    }
    return out
  }

  /// `reset_session` confirmed (PRD §7.6): a new session; system Photos untouched.
  mutating func resetSession(at t: Millis) -> Effects {
    var out = newSession(at: t, cause: "reset")
    let context = promptContext
    for key in ["session_full_20", "blocked_by_write_failed", "write_failed_block", "write_failed", "in_flight_saving"] {
      out.append(app.prompts.withdraw(key, at: t, context: context))
    }
    return out
  }

  // MARK: ODR (§5.14)

  mutating func handleOdr(_ g: GenericEvent, at t: Millis) -> Effects {
    var out = Effects()
    switch g.kind {
    case .inspiration_open:
      app.odrSheetOpen = true
      if !app.networkSatisfied {
        app.odr = .offline_keywords_only
        out.append(emitPrompt("odr_unavailable", at: t))
      } else if app.odr == .idle || app.odr == .offline_keywords_only {
        out.append(odrRequest(tag: app.odrTag ?? "inspiration", at: t))
      }
    case .odr_tap:
      app.odrTag = g.fields["tag"]?.stringValue ?? app.odrTag
      if app.networkSatisfied {
        out.append(odrRequest(tag: app.odrTag ?? "inspiration", at: t))
      } else {
        // An image tap offline is a fetch that fails at once (§5.14: failed_retry on failure),
        // so the network's return on the sheet brings the one auto-retry.
        app.odr = .failed_retry
        out.outputs.append(.odr(app.odr))
        out.append(emitPrompt("odr_unavailable", at: t))
      }
    case .odr_retry_tap:
      out.append(odrRequest(tag: app.odrTag ?? "inspiration", at: t))
    case .inspiration_close:
      app.odrSheetOpen = false
      if app.odrRetryPending {
        app.odrRetryPending = false
        out.timers.append(.cancel(Self.odrRetryTimer))
        out.diagnostics.append(odrAutoRetryLine(result: "skipped_left_page", at: t))
      }
    case .odr_result:
      let ok = g.fields["ok"]?.boolValue ?? false
      let auto = app.odrAutoInFlight
      app.odr = ok ? .ready : .failed_retry
      if auto {
        app.odrAutoInFlight = false
        out.diagnostics.append(odrAutoRetryLine(result: ok ? "success" : "fail", at: t))
      }
      // §4.6 / PRD A.8: odr_unavailable when the sheet is opened offline *or a fetch fails*.
      if !ok { out.append(emitPrompt("odr_unavailable", at: t)) }
      out.outputs.append(.odr(app.odr))
    default: break
    }
    return out
  }

  mutating func odrRequest(tag: String, at t: Millis) -> Effects {
    app.odrTag = tag
    app.odrAttempt += 1
    app.odr = .downloading
    return Effects(outputs: [
      .odr(.downloading),
      .effect(.odrRequest(tag: tag, attempt: app.odrAttempt)),
    ])
  }

  func odrAutoRetryLine(result: String, at t: Millis) -> DiagnosticLine {
    diagnostic(
      "odr_auto_retry",
      [("state_before", "failed_retry"), ("debounce_ms", String(Self.odrDebounceMs)), ("result", result)], at: t)
  }

  /// `network`: unsatisfied → satisfied while the sheet shows failed_retry schedules one retry
  /// after the 500 ms debounce (at most one per recovery).
  mutating func network(_ status: String, at t: Millis) -> Effects {
    let was = app.networkSatisfied
    app.networkSatisfied = status == "satisfied"
    guard !was, app.networkSatisfied, app.odrSheetOpen, app.odr == .failed_retry, !app.odrRetryPending else {
      return Effects()
    }
    app.odrRetryPending = true
    return Effects(timers: [.schedule(Self.odrRetryTimer, at: t + Self.odrDebounceMs)])
  }

  mutating func odrRetryDue(at t: Millis) -> Effects {
    guard app.odrRetryPending else { return Effects() }
    app.odrRetryPending = false
    app.odrAutoInFlight = true
    return odrRequest(tag: app.odrTag ?? "inspiration", at: t)
  }

  // MARK: Wrap, down reasons (§5.13, §5.15)

  mutating func handleWrap(_ g: GenericEvent, at t: Millis) -> Effects {
    switch g.kind {
    case .wrap_open:
      if app.session.writeFailedCount > 0 { return emitPrompt("blocked_by_write_failed", at: t) }
      if app.session.worksetCount < 3 { return emitPrompt("wrap_not_enough_photos", at: t) }
      return Effects(outputs: [.wrap(.open)])
    case .wrap_export:
      if let free = app.freeMB, free < 200 { return emitPrompt("low_space_blocking", payload: [("mb", .int(200))], at: t) }
      return Effects(outputs: [.wrap(.export)])
    case .down_reason_select:
      let reason = g.fields["reason"]?.stringValue ?? ""
      return Effects(diagnostics: [diagnostic("down_reason_select", [("reason", reason)], at: t)])
    default: return Effects()
    }
  }

  // MARK: Subject lost (§4.6, G‑20)

  /// [D] G‑20: no subject for ≥ 2000 ms after having one → L2 `subject_lost` (stateOnly); the
  /// subject's return ends the condition (the banner goes, the gate re-arms).
  mutating func subjectLostCheck(at t: Millis) -> Effects {
    if subjectTracked {
      guard app.subjectLost else { return Effects() }
      app.subjectLost = false
      return app.prompts.conditionEnded("subject_lost", at: t, context: promptContext)
    }
    guard !app.subjectLost, let seen = app.subjectSeenAt, t - seen >= Self.subjectLostMs else { return Effects() }
    app.subjectLost = true
    return emitPrompt("subject_lost", at: t)
  }

  static let subjectLostMs: Millis = 2000

  // MARK: Routing

  /// App-side events (everything that is not a frame, a T1 input or a card input).
  mutating func handleApp(_ g: GenericEvent, at t: Millis) -> Effects {
    if app.killed && g.kind != .app_launch { return Effects() }
    var out = Effects()
    let f = g.fields
    switch g.kind {
    case .app_launch:
      out = appLaunch(g, at: t)
    case .app_lifecycle:
      out = appLifecycle(f["state"]?.stringValue ?? "active", at: t)
    case .rotation:
      app.rotatingUntil = t + Self.rotationBlockMs
      out.timers.append(.schedule(Self.rotationTimer, at: t + Self.rotationBlockMs))
    case .system_dialog:
      out = app.prompts.systemDialog(open: f["open"]?.boolValue ?? false, at: t, context: promptContext)
    case .camera_auth:
      app.cameraAuth = f["status"]?.stringValue ?? "denied"
      out = cameraEntry(at: t)
    case .camera_permission_result:
      app.cameraAuth = f["granted"]?.boolValue == true ? "authorized" : "denied"
      out = cameraEntry(at: t)
    case .camera_ready:
      if app.warmup != .ready {
        app.warmup = .ready
        out.timers += [.cancel(Self.warmupUpgradeTimer), .cancel(Self.warmupFailTimer)]
        out.outputs.append(Self.cameraRecord(.ready, at: t))
      }
    case .camera_start_failed:
      app.initFailureReason = f["reason"]?.stringValue ?? "unknown"
    case .camera_interrupted:
      cameraInterrupted = true
      if f["reason"]?.stringValue != "video_device_not_available_in_background" {
        out = emitPrompt("camera_occupied", at: t)
      }
    case .camera_interruption_ended:
      cameraInterrupted = false
      out = app.prompts.conditionEnded("camera_occupied", at: t, context: promptContext)
      out.append(startWarmup(at: t))
    case .voiceover:
      app.voiceOver = f["enabled"]?.boolValue ?? false
    case .network:
      out = network(f["status"]?.stringValue ?? "satisfied", at: t)
    case .free_space:
      app.freeMB = f["mb"]?.int64Value.map { Int($0) }
    case .photo_auth:
      app.photoAuth = f["status"]?.stringValue ?? "authorized"
    case .shutter_tap:
      // §3.12: an accepted tap unfreezes praise before capture starts; a refused one creates
      // no item and leaves praise alone (§5.3 [D]).
      if shutterReason(at: t) == nil { out = unfreezePraise(reason: "shutter_tap", at: t) }
      out.append(shutterTap(at: t))
    case .prompt_action:
      out = promptAction(g, at: t)
    case .prompt_close:
      out = app.prompts.close(key: f["key"]?.stringValue ?? "", at: t, context: promptContext)
    case .reset_session_tap:
      out = emitPrompt("reset_session_confirm", at: t)
    case .inspiration_open, .inspiration_close, .odr_tap, .odr_retry_tap, .odr_result:
      out = handleOdr(g, at: t)
    case .wrap_open, .wrap_export, .down_reason_select:
      out = handleWrap(g, at: t)
    case .purchase_result, .restore_result:
      // §4.6, §5.15: a failed purchase / restore → its L3.
      if f["ok"]?.boolValue == false {
        out = emitPrompt(g.kind == .purchase_result ? "purchase_failed" : "restore_failed", at: t)
      }
    case .viewer_open, .viewer_page, .viewer_close:
      out = viewer(g, at: t)
      if g.kind == .viewer_open {
        let outputs = app.capture.handle(g, &app.session, captureContext(at: t))
        out.append(applyCapture(outputs, at: t))
      }
    case .photo_data, .photo_capture_error, .photokit_write_result, .asset_fetch_result, .album_add_result,
      .thumb_result, .pending_write_failed, .favorite_sync_result, .like_toggle, .rebuild_thumb_tap:
      let before = (app.session.worksetCount, app.session.writeFailedCount)
      let outputs = app.capture.handle(g, &app.session, captureContext(at: t))
      out = applyCapture(outputs, at: t, counted: before)
    default:
      return Effects()
    }
    finishApp(&out, at: t)
    return out
  }

  /// App-side timers; nil when `timer` is not one of ours.
  mutating func fireApp(_ timer: TimerID, at t: Millis) -> Effects? {
    if app.killed { return Effects() }
    var out: Effects
    if timer == Self.warmupUpgradeTimer || timer == Self.warmupFailTimer {
      out = warmupTimer(timer, at: t)
    } else if timer == Self.rotationTimer {
      out = Effects()
    } else if timer == Self.odrRetryTimer {
      out = odrRetryDue(at: t)
    } else if timer.name.hasPrefix("prompt.") {
      out = app.prompts.timerFired(timer, at: t, context: promptContext)
    } else if timer.name.hasPrefix("capture.") {
      let before = (app.session.worksetCount, app.session.writeFailedCount)
      let outputs = app.capture.fire(timer, &app.session, captureContext(at: t))
      out = applyCapture(outputs, at: t, counted: before)
    } else {
      return nil
    }
    finishApp(&out, at: t)
    return out
  }
}
