import CanonicalJSON
import EngineIO

/// Camera warm-up phase (ENGINE §5.12 `WarmupTracker`).
public enum WarmupPhase: String, Sendable, Equatable {
  case idle, warming, upgraded, ready, failed
}

/// Inspiration / ODR sheet state (ENGINE §5.14).
public enum OdrState: String, Sendable, Equatable {
  case idle, ready, downloading, failed_retry, offline_keywords_only
}

/// Everything besides cue guidance that the app decides from time and events (ENGINE §4–6):
/// the session, the capture pipeline, the camera, the prompt system and the device state.
/// Owned by `Engine`; all of it is rebuilt from the store after a kill.
struct AppState: Sendable {
  var session: SessionSnapshot
  var prompts: PromptCenter
  var capture = CapturePipeline()
  /// `camera_auth` (§5.12); "authorized" unless the header says otherwise.
  var cameraAuth: String
  var warmup: WarmupPhase
  /// `camera_start_failed {reason}`: the cause shown when warm-up fails (§4.8).
  var initFailureReason = "unknown"
  var photoAuth: String
  var freeMB: Int?
  var voiceOver: Bool
  var networkSatisfied: Bool
  /// `rotation`: shutter disabled until this time (PRD §B.4.3, 300 ms).
  var rotatingUntil: Millis?
  /// The app was killed (`app_lifecycle terminated`): nothing is handled until `app_launch`.
  var killed = false
  /// Whether the app has entered the camera once (`app_launch` or the implicit start).
  var launched = false
  /// The last `shutter` line (enabled, reason); nil before the first computation.
  var shutter: (enabled: Bool, reason: ShutterBlockReason?)?
  /// The write_failed block was entered (ENGINE §4.6 blocked_by_write_failed: once per entry).
  var blockedEntered = false
  /// The 20-limit modal was shown for the current "full" episode ([C] re-show rule, §4.9).
  var fullEpisodeShown = false
  /// The last accepted frame with a subject, and whether `subject_lost` is up (§4.6, G‑20).
  var subjectSeenAt: Millis?
  var subjectLost = false
  /// The Viewer's item (shotSeq) while it is open: the write_failed bar shows there (§4.6).
  var viewerItem: Int?
  /// Inspiration sheet (§5.14).
  var odr = OdrState.idle
  var odrSheetOpen = false
  var odrTag: String?
  var odrAttempt = 0
  /// An auto-retry is scheduled (at most one per network recovery).
  var odrRetryPending = false
  /// The request in flight is the auto-retry (its result is logged as `odr_auto_retry`).
  var odrAutoInFlight = false
  /// The A.13 log directory (header `diagnostics_files`, ENGINE §6.5): the rotation plan runs
  /// after every append; nil when the recording does not describe it.
  var diagnosticsFiles: [DiagnosticsFile]?
  /// The persisted state changed during this call: flush it (ENGINE §5.1 Persistence).
  var dirty = false

  init(initial: JSONObject, wallStartMs: Int64) {
    let scene = initial["scene"]?.stringValue ?? "cafe"
    let sessionId = initial["session_id"]?.stringValue ?? AppState.sessionId(ordinal: 1)
    session = SessionSnapshot(
      sessionId: sessionId, createdAtMs: wallStartMs, lastActiveAtMs: wallStartMs, scene: scene)
    let installFlags = (initial["install_flags"]?.arrayValue ?? []).compactMap(\.stringValue)
    prompts = PromptCenter(installFlags: installFlags)
    cameraAuth = initial["camera_auth"]?.stringValue ?? "authorized"
    // Recordings of cue guidance start with a camera that is already running; a recording
    // that scripts the warm-up says `camera_ready: false` or starts with `app_launch`.
    warmup = initial["camera_ready"]?.boolValue == false ? .idle : .ready
    if let o = initial["photo_auth"]?.objectValue {
      photoAuth = o["status"]?.stringValue ?? "authorized"
    } else {
      photoAuth = initial["photo_auth"]?.stringValue ?? "authorized"
    }
    freeMB = initial["free_mb"]?.int64Value.map { Int($0) }
    voiceOver = initial["voiceover"]?.boolValue ?? false
    networkSatisfied = (initial["network"]?.stringValue ?? "satisfied") == "satisfied"
    diagnosticsFiles = initial["diagnostics_files"]?.arrayValue.map { files in
      files.compactMap { f in
        guard let name = f["name"]?.stringValue, let size = f["size_bytes"]?.int64Value,
          let mtime = f["mtime_ms"]?.int64Value
        else { return nil }
        return DiagnosticsFile(name: name, sizeBytes: size, mtimeMs: mtime)
      }
    }
  }

  /// `S-0001`, `S-0002`, … (ENGINE §1.3 rule 4).
  static func sessionId(ordinal: Int) -> String {
    let digits = String(ordinal)
    return "S-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// ENGINE §5.1 TTL: restore iff `now − lastActiveAt ≤ 12 h` ([C] `isExpired` uses `>`).
  static let sessionTTLms: Int64 = 43_200_000

  /// What a flush writes: the session with the prompt system's sessionOnce flags, and the
  /// install flags.
  var store: StoreSnapshot {
    var s = session
    s.flags = Array(Set(session.flags).union(prompts.sessionFlags)).sorted()
    return StoreSnapshot(session: s, installFlags: prompts.installFlags)
  }
}
