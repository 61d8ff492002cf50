import CanonicalJSON
import EngineIO
import JustPhotoIO

/// Camera warm-up phase (ENGINE §5.12 `WarmupTracker`).
public enum WarmupPhase: String, Sendable, Equatable {
  case idle, warming, upgraded, ready, failed
}

/// Everything besides cue guidance that the app decides from time and events (ENGINE §4–6):
/// the session, the capture pipeline, the camera, the prompt system and the device state.
/// Owned by `Engine`; all of it is rebuilt from the store after a kill.
struct AppState: Sendable {
  var session: SessionSnapshot
  var prompts: PromptCenter
  var capture = CapturePipeline()
  /// Camera authorization and warm-up (§5.12).
  var camera: CameraWarmup
  /// The shutter gate (§5.3).
  var shutter = ShutterGate()
  /// The Inspiration sheet's ODR (§5.14).
  var odr: OdrSheet
  /// Capture outputs → lines and prompts; the workset rules; the Viewer's item.
  var bridge = CaptureBridge()
  /// Killed / active; the session TTL (§5.1).
  var lifecycle = SessionLifecycle()
  var photoAuth: String
  var freeMB: Int?
  var voiceOver: Bool
  /// The last accepted frame with a subject, and whether `subject_lost` is up (§4.6, G-20).
  var subjectSeenAt: Millis?
  var subjectLost = false
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
    // Recordings of cue guidance start with a camera that is already running; a recording
    // that scripts the warm-up says `camera_ready: false` or starts with `app_launch`.
    camera = CameraWarmup(
      auth: CameraAuthorization(status: initial["camera_auth"]?.stringValue ?? "authorized"),
      phase: initial["camera_ready"]?.boolValue == false ? .idle : .ready)
    if let o = initial["photo_auth"]?.objectValue {
      photoAuth = o["status"]?.stringValue ?? "authorized"
    } else {
      photoAuth = initial["photo_auth"]?.stringValue ?? "authorized"
    }
    freeMB = initial["free_mb"]?.int64Value.map { Int($0) }
    voiceOver = initial["voiceover"]?.boolValue ?? false
    odr = OdrSheet(networkSatisfied: (initial["network"]?.stringValue ?? "satisfied") == "satisfied")
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

  /// What a flush writes: the session with the prompt system's sessionOnce flags, and the
  /// install flags.
  var store: StoreSnapshot {
    var s = session
    s.flags = Array(Set(session.flags).union(prompts.sessionFlags)).sorted()
    return StoreSnapshot(session: s, installFlags: prompts.installFlags)
  }
}
