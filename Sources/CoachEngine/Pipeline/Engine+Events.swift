import CanonicalJSON
import EngineIO
import PoseSpec

// The engine's event routing: every typed input event (`CoachEvent`, decoded once in
// `Engine.handle(_: InputEvent)`) goes to the state or machine that owns it, by name. There is
// no `default:`: a new event kind is a compile error here until it is routed.

extension Engine {
  /// Feeds one typed input event at time `t`. Every kind is routed here, by name: a new kind is
  /// a compile error until it is.
  public mutating func handle(_ event: CoachEvent, at t: Millis) -> Effects {
    let launch = if case .appLaunch = event { true } else { false }
    guard app.lifecycle.admits(relaunch: launch) else { return Effects() }
    switch event {
    // Frames (T0, T1)
    case .landmarks(let frame):
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
}
