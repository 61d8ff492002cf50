import CanonicalJSON
import EngineIO
import PoseSpec

// Which machine an app event or an app timer goes to. `Engine.handle` / `Engine.fire` have
// already asked `SessionLifecycle.admits` (the one killed-app guard).

extension Engine {
  /// App-side events (everything that is not a frame, a T1 input or a card input).
  mutating func handleApp(_ g: GenericEvent, at t: Millis, restoring stored: StoreSnapshot? = nil) -> Effects {
    var out: Effects
    switch g.kind {
    case .app_launch:
      out = appLaunch(g, at: t, restoring: stored)
    case .app_lifecycle:
      let state = g.fields["state"]?.stringValue ?? "active"
      out = appLifecycle(state, at: t)
      // A kill: nothing more is flushed.
      if state == "terminated" { return out }
    case .camera_auth, .camera_permission_result, .camera_ready, .camera_start_failed, .camera_interrupted,
      .camera_interruption_ended:
      out = handleCameraEvent(g, at: t)
    case .inspiration_open, .inspiration_close, .odr_tap, .odr_retry_tap, .odr_result, .network:
      out = handleOdrEvent(g, at: t)
    case .wrap_open, .wrap_export, .down_reason_select:
      out = handleWrap(g, at: t)
    case .photo_data, .photo_capture_error, .photokit_write_result, .asset_fetch_result, .album_add_result,
      .thumb_result, .pending_write_failed, .favorite_sync_result, .like_toggle, .rebuild_thumb_tap:
      out = captureEvent(g, at: t)
    default:
      guard let handled = handleShellEvent(g, at: t) else { return Effects() }
      out = handled
    }
    finishApp(&out, at: t)
    return out
  }

  /// Device state, the shutter, prompts, the Viewer and purchases; nil for events the app
  /// side does not handle.
  mutating func handleShellEvent(_ g: GenericEvent, at t: Millis) -> Effects? {
    let f = g.fields
    switch g.kind {
    case .rotation: return perform(app.shutter.handle(.rotation, at: t), at: t)
    case .system_dialog:
      return app.prompts.systemDialog(open: f["open"]?.boolValue ?? false, at: t, context: promptContext)
    case .voiceover: app.voiceOver = f["enabled"]?.boolValue ?? false
    case .free_space: app.freeMB = f["mb"]?.int64Value.map { Int($0) }
    case .photo_auth: app.photoAuth = f["status"]?.stringValue ?? "authorized"
    case .shutter_tap:
      // §3.12: an accepted tap unfreezes praise before capture starts; a refused one creates
      // no item and leaves praise alone (§5.3 [D]).
      var out = shutterReason(at: t) == nil ? unfreezePraise(reason: "shutter_tap", at: t) : Effects()
      out.append(shutterTap(at: t))
      return out
    case .prompt_action: return promptAction(g, at: t)
    case .prompt_close: return app.prompts.close(key: f["key"]?.stringValue ?? "", at: t, context: promptContext)
    case .reset_session_tap: return emitPrompt("reset_session_confirm", at: t)
    case .purchase_result, .restore_result:
      // §4.6, §5.15: a failed purchase / restore → its L3.
      guard f["ok"]?.boolValue == false else { return Effects() }
      return emitPrompt(g.kind == .purchase_result ? "purchase_failed" : "restore_failed", at: t)
    case .viewer_open, .viewer_page, .viewer_close:
      let open = g.kind != .viewer_close
      var out = capture(.viewer(item: open ? f["item"]?.int64Value.map { Int($0) } : nil, open: open), at: t)
      if g.kind == .viewer_open {
        let outputs = app.capture.handle(g, &app.session, captureContext(at: t))
        out.append(capture(.capture(outputs, before: nil), at: t))
      }
      return out
    default: return nil
    }
    return Effects()
  }

  mutating func handleCameraEvent(_ g: GenericEvent, at t: Millis) -> Effects {
    let f = g.fields
    switch g.kind {
    case .camera_auth: return camera(.authorization(CameraAuthorization(status: f["status"]?.stringValue ?? "denied")), at: t)
    case .camera_permission_result:
      return camera(.authorization(f["granted"]?.boolValue == true ? .authorized : .denied), at: t)
    case .camera_ready: return camera(.ready, at: t)
    case .camera_start_failed: return camera(.startFailed(reason: f["reason"]?.stringValue ?? "unknown"), at: t)
    case .camera_interrupted:
      cameraInterrupted = true
      guard f["reason"]?.stringValue != "video_device_not_available_in_background" else { return Effects() }
      return emitPrompt("camera_occupied", at: t)
    case .camera_interruption_ended:
      cameraInterrupted = false
      var out = app.prompts.conditionEnded("camera_occupied", at: t, context: promptContext)
      out.append(camera(.start, at: t))
      return out
    default: return Effects()
    }
  }

  mutating func handleOdrEvent(_ g: GenericEvent, at t: Millis) -> Effects {
    switch g.kind {
    case .inspiration_open: odr(.open, at: t)
    case .inspiration_close: odr(.close, at: t)
    case .odr_tap: odr(.tap(tag: g.fields["tag"]?.stringValue), at: t)
    case .odr_retry_tap: odr(.retryTap, at: t)
    case .odr_result: odr(.result(ok: g.fields["ok"]?.boolValue ?? false), at: t)
    case .network: odr(.network(satisfied: (g.fields["status"]?.stringValue ?? "satisfied") == "satisfied"), at: t)
    default: Effects()
    }
  }

  /// App-side timers (the engine's own ones are routed in `fire`).
  mutating func fireApp(_ timer: EngineTimer, at t: Millis) -> Effects {
    var out: Effects
    switch timer {
    case .cameraWarmupUpgrade, .cameraWarmupFail:
      out = camera(.timer(timer), at: t)
    case .shutterRotation:
      out = Effects()
    case .odrRetry:
      out = odr(.retryDue, at: t)
    case .promptAutoDismiss(let slot):
      out = app.prompts.autoDismissDue(slot, at: t, context: promptContext)
    case .capture(let kind, let item):
      let before = (app.session.worksetCount, app.session.writeFailedCount)
      let outputs = app.capture.fire(kind, item: item, &app.session, captureContext(at: t))
      out = capture(.capture(outputs, before: before), at: t)
    case .t1Tick, .t1Recovery, .praiseTimeout:
      return Effects()
    }
    finishApp(&out, at: t)
    return out
  }
}
