/// Camera Coach's values: the cameras, the thermal and memory states with what each allows,
/// the advice types and the guidance machine's states (docs/CAMERACOACH.md).

/// Which camera the session uses; the back camera's face landmarks arrive mirrored in x.
public enum CCCamera: String, CaseIterable, Sendable {
  case back, front
}

/// The device's thermal state. From `fair` up the engine analyses fewer frames and allows
/// fewer hints per minute (docs/CAMERACOACH.md "Thermal").
public enum CCThermal: String, CaseIterable, Sendable {
  case nominal, fair, serious, critical

  /// Every `stride`-th frame is analysed: 1, 2, 3, 4.
  public var stride: Int {
    switch self {
    case .nominal: 1
    case .fair: 2
    case .serious: 3
    case .critical: 4
    }
  }

  /// The most hints in any 60 s: 8, 6, 4, 2.
  public var hintsPerMinute: Int {
    switch self {
    case .nominal: 8
    case .fair: 6
    case .serious: 4
    case .critical: 2
    }
  }
}

/// Memory pressure, which bounds the faces analysed per frame: 10, 5, 3, 1.
public enum CCMemory: String, CaseIterable, Sendable {
  case normal, warning, urgent, critical

  /// The most faces (the largest first) analysed per frame.
  public var facesMax: Int {
    switch self {
    case .normal: 10
    case .warning: 5
    case .urgent: 3
    case .critical: 1
    }
  }
}

/// The rule a hint comes from. `CCPriority` orders them.
public enum CCAdvice: String, CaseIterable, Sendable {
  case template, headroom, horizon
  case leadSpace = "lead_space"
  case thirds
}

/// The order in which rules are asked for a hint (the first eligible one speaks).
public enum CCPriority: String, CaseIterable, Sendable {
  /// [D] The current build: template > headroom > lead space > thirds; horizon after them.
  case standard
  /// The older build's order: headroom > horizon > thirds, then template and lead space.
  case legacy

  /// The advice types, most important first.
  public var order: [CCAdvice] {
    switch self {
    case .standard: [.template, .headroom, .leadSpace, .thirds, .horizon]
    case .legacy: [.headroom, .horizon, .thirds, .template, .leadSpace]
    }
  }
}

/// The guidance machine: `idle` (no session, or no face on the last analysed frame),
/// `analyzing` (faces in view, rules watched), `hint_cooldown` (600 ms after a hint).
public enum CCState: String, CaseIterable, Sendable {
  case idle, analyzing
  case hintCooldown = "hint_cooldown"
}

/// The engine's numbers, all pinned in docs/CAMERACOACH.md.
public enum CCRules {
  /// A condition must hold this long before its hint (ms).
  public static let holdMs: Int64 = 300
  /// After a hint, no hint for this long (ms): the `hint_cooldown` state.
  public static let cooldownMs: Int64 = 600
  /// At most `perSecond` hints in any window of `secondMs`.
  public static let perSecond = 2
  public static let secondMs: Int64 = 1_000
  /// The same advice type at most `sameTypeMax` times in any window of `sameTypeWindowMs`.
  public static let sameTypeMax = 3
  public static let sameTypeWindowMs: Int64 = 10_000
  /// At most `CCThermal.hintsPerMinute` (8 when nominal) hints in any window of `minuteMs`.
  public static let minuteMs: Int64 = 60_000
  /// Headroom target: 7–12% of the visible frame height.
  public static let headroomMin = 0.07
  public static let headroomMax = 0.12
  /// Horizon: hint beyond 3° of roll; level lines within ±20° while rotating at most 30°/s;
  /// level is within 1°, and a haptic marks reaching it from beyond 5°.
  public static let horizonHintDeg = 3.0
  public static let levelLinesDeg = 20.0
  public static let levelLinesRateMax = 30.0
  public static let levelDeg = 1.0
  public static let hapticFromDeg = 5.0
  /// Lead space: ahead − behind, as a share of the frame width, 20–40%, for a face turned at
  /// least 15° (yaw).
  public static let leadMin = 0.20
  public static let leadMax = 0.40
  public static let leadYawDeg = 15.0
  /// Thirds: the nose within 5% of the frame width of a vertical third line.
  public static let thirdsTolerance = 0.05
  /// Template: the primary face's centre within 8% of the template point on both axes.
  public static let templateTolerance = 0.08
  /// A hint is adopted when its condition stops holding within this long (ms).
  public static let adoptionMs: Int64 = 3_000
  /// One-shot success: a kept photo within this long after a hint (ms).
  public static let oneShotMs: Int64 = 6_000
}
