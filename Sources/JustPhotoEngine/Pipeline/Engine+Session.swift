import CanonicalJSON
import EngineIO
import JustPhotoIO
import PoseSpec

// Session lifecycle and recovery (ENGINE §5.1) as performed on the engine: `SessionLifecycle`
// decides (killed / active, the TTL); these functions carry the decisions out, since a new or
// restored session resets prompts, capture and references too.

extension Engine {
  /// `app_launch`: a cold start. After a kill every in-memory state is gone: the session comes
  /// from `stored` (the typed relaunch entry, `Engine.relaunch(_:restoring:)`) or from a `store`
  /// recorded on the event.
  mutating func appLaunch(_ e: CoachEvent.AppLaunch, at t: Millis, restoring provided: StoreSnapshot?) -> Effects {
    var out = Effects()
    var relaunch = false
    for step in app.lifecycle.handle(.launch, at: t) {
      switch step {
      case .dropMemory:
        relaunch = true
        var fresh = Engine(configuration: configurationAfterKill, compiled: nil, lumaTables: lumaTableCache, lumaMemo: lumaMemo)
        fresh.app.session.ordinal = 0
        // The T1 tick is the device's clock, not app memory: its period carries on (§1.3 rule 2).
        fresh.t1Tick = t1Tick
        fresh.lumaTablesWorkFactor = lumaTablesWorkFactor  // how it reads planes, not app memory
        fresh.app.lifecycle = app.lifecycle
        self = fresh
      case .coldStart:
        if let stored = e.store ?? provided {
          // Install flags live outside the session (UserDefaults): after a kill they come back
          // from the store; on a first launch the header's stay.
          if relaunch { app.prompts = PromptCenter(options: app.prompts.options, installFlags: stored.installFlags) }
          if let s = stored.session { out.append(restoreSession(s, at: t)) }
        }
        if app.session.ordinal == 0 { out.append(newSession(at: t, cause: "cold_start")) }
      case .ensureFreshSession, .prompts, .action: break
      }
    }
    out.append(camera(.enter, at: t))
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

  /// `app_lifecycle`: terminated (a kill), active, background, inactive.
  mutating func appLifecycle(_ state: String, at t: Millis) -> Effects {
    var out = Effects()
    for step in app.lifecycle.handle(.lifecycle(state), at: t) {
      switch step {
      case .ensureFreshSession: out.append(ensureFreshSession(at: t))
      case .prompts(let background): out.append(app.prompts.appLifecycle(background: background, at: t))
      case .action(let action): out.append(perform([action], at: t))
      case .dropMemory, .coldStart: break
      }
    }
    return out
  }

  /// A new session (cold start without a restorable one, TTL expiry, reset): new id, empty
  /// workset, flags and references.
  mutating func newSession(at t: Millis, cause: String) -> Effects {
    let ordinal = app.session.ordinal + 1
    app.session = SessionSnapshot(
      sessionId: AppState.sessionId(ordinal: ordinal), createdAtMs: wall(t), lastActiveAtMs: wall(t),
      scene: scene, ordinal: ordinal)
    app.prompts.reset()
    app.capture = CapturePipeline()
    app.bridge.resetEpisodes()
    app.dirty = true
    withRef = WithRefState(spec: configuration.spec, scene: scene)
    return Effects(outputs: [.session(.created(sessionId: app.session.sessionId, cause: cause))])
  }

  /// Restores `stored` if it is within the TTL (§5.1, checked at cold start and on `active`),
  /// then runs the cold-start recovery of every item (PRD §B.3.5); otherwise starts a new session.
  mutating func restoreSession(_ stored: SessionSnapshot, at t: Millis) -> Effects {
    guard !SessionLifecycle.expired(lastActiveMs: stored.lastActiveAtMs, wallMs: wall(t)) else {
      app.session.ordinal = stored.ordinal
      return newSession(at: t, cause: "ttl_expired")
    }
    app.session = stored
    if stored.scene == "cafe" || stored.scene == "outdoor" { switchScene(to: stored.scene) }
    app.prompts.reset(sessionFlags: stored.flags)
    app.capture = CapturePipeline()
    var out = Effects(outputs: [.session(.restored(sessionId: stored.sessionId, workset: stored.worksetCount))])
    app.bridge.resetEpisodes()
    let (outputs, removed) = app.capture.relaunch(&app.session, captureContext(at: t))
    // Counted from an empty workset: a restored session that is full, or holds write_failed
    // items, shows the 20-limit modal / the write_failed block at once (§5.4, §5.6).
    out.append(capture(.capture(outputs, before: (0, 0)), at: t))
    if removed > 0 {
      out.append(emitPrompt(.session_recover_prune, payload: [("count", .int(removed))], at: t))
    }
    app.dirty = true
    return out
  }

  /// `app_lifecycle active`: an expired session is replaced (APP `ensureFreshSession`).
  mutating func ensureFreshSession(at t: Millis) -> Effects {
    guard SessionLifecycle.expired(lastActiveMs: app.session.lastActiveAtMs, wallMs: wall(t)) else { return Effects() }
    return newSession(at: t, cause: "ttl_expired")
  }

  /// `reset_session` confirmed (PRD §7.6): a new session; system Photos untouched.
  mutating func resetSession(at t: Millis) -> Effects {
    var out = newSession(at: t, cause: "reset")
    let context = promptContext
    for key: PromptKey in [.session_full_20, .blocked_by_write_failed, .write_failed_block, .write_failed, .in_flight_saving] {
      out.append(app.prompts.withdraw(key, at: t, context: context))
    }
    return out
  }

  // MARK: Prompt actions (§4.7)

  mutating func promptAction(_ e: CoachEvent.PromptAction, at t: Millis) -> Effects {
    // A key the engine never shows matches no visible prompt: nothing happens.
    guard let key = PromptKey(rawValue: e.key) else { return Effects() }
    let actionId = e.actionId
    let (tapped, action) = app.prompts.action(key: key, actionId: actionId, at: t, context: promptContext)
    var out = tapped
    guard let action else { return out }
    if let effect = action.effect { out.outputs.append(.effect(effect)) }
    switch action.actionId {
    case "retry_camera_init", "retry":
      if key == .camera_abnormal { app.capture.resetCaptureFailures() }
      if key.isPoseSpecModal { break }
      out.append(camera(.start, at: t))
    case "dismiss" where key == .camera_abnormal:
      app.capture.resetCaptureFailures()
    case "reset_session":
      out.append(resetSession(at: t))
    case "open_first_write_failed", "view":
      out.append(capture(.openFirstWriteFailed, at: t))
    case "clear_unliked", "retry_write", "abandon_item", "retry_album_add", "later":
      let before = (app.session.worksetCount, app.session.writeFailedCount)
      let item = e.item.map { Int($0) } ?? (key == .write_failed ? app.bridge.viewerItem : nil)
      let outputs = app.capture.action(actionId, item: item, &app.session, captureContext(at: t))
      out.append(capture(.capture(outputs, before: before), at: t))
    default:
      break
    }
    return out
  }
}
