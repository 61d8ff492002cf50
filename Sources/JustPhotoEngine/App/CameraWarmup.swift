import CanonicalJSON
import EngineIO
import PoseSpec

/// Camera authorization and warm-up (ENGINE §5.12 `WarmupTracker`): entering the camera asks
/// for permission or shows a banner, or starts the camera; `upgraded` after 3 s, `failed` with
/// `camera_init_failed` after 8 s unless `camera_ready` came first.
struct CameraWarmup: Sendable {
  enum Input: Sendable {
    /// Entering the camera (`app_launch`, an authorization change).
    case enter
    /// (Re)starting the camera: a retry, the end of an interruption.
    case start
    case authorization(CameraAuthorization)
    case ready
    /// `camera_start_failed {reason}`: the cause shown if warm-up fails (§4.8).
    case startFailed(reason: String)
    case timer(EngineTimer)
  }

  static let upgradeTimer = EngineTimer.cameraWarmupUpgrade.id
  static let failTimer = EngineTimer.cameraWarmupFail.id
  static let upgradeMs: Millis = 3000
  static let failMs: Millis = 8000

  var auth: CameraAuthorization
  var phase: WarmupPhase
  var initFailureReason = "unknown"

  mutating func handle(_ input: Input, at t: Millis) -> [MachineAction] {
    switch input {
    case .enter: return enter(at: t)
    case .start: return start(at: t)
    case .authorization(let a):
      auth = a
      return enter(at: t)
    case .ready:
      guard phase != .ready else { return [] }
      phase = .ready
      return [.timer(.cancel(Self.upgradeTimer)), .timer(.cancel(Self.failTimer)), .output(Self.line(.ready))]
    case .startFailed(let reason):
      initFailureReason = reason
      return []
    case .timer(let id): return timerFired(id)
    }
  }

  private mutating func enter(at t: Millis) -> [MachineAction] {
    switch auth {
    case .not_determined: [.prompt(.camera_permission_preprompt)]
    case .denied: [.prompt(.camera_denied_banner)]
    case .restricted: [.prompt(.camera_restricted_banner)]
    case .authorized, .unrecognized: start(at: t)
    }
  }

  private mutating func start(at t: Millis) -> [MachineAction] {
    phase = .warming
    return [
      .output(.effect(.startCamera)), .output(Self.line(.warming)),
      .timer(.schedule(Self.upgradeTimer, at: t + Self.upgradeMs)),
      .timer(.schedule(Self.failTimer, at: t + Self.failMs)),
    ]
  }

  private mutating func timerFired(_ timer: EngineTimer) -> [MachineAction] {
    switch (timer, phase) {
    case (.cameraWarmupUpgrade, .warming):
      phase = .upgraded
      return [.output(Self.line(.upgraded))]
    case (.cameraWarmupFail, .warming), (.cameraWarmupFail, .upgraded):
      phase = .failed
      var def = PromptCatalogue.definition(.camera_init_failed)!
      let reason = auth == .authorized ? initFailureReason : "permission_denied"
      let (zh, en) = Self.initFailureExplanation(reason)
      def.messageZh = zh + "。相机准备超时（>8s）。"
      def.messageEn = en + ". Camera warm-up timed out (>8 s)."
      return [.output(Self.line(.failed)), .promptDefinition(def, payload: [("reason", .string(reason))])]
    default: return []
    }
  }

  /// The `camera` line of `phase`, with the overlay text.
  static func line(_ phase: WarmupPhase) -> EngineOutput {
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
}
