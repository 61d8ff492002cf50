import CanonicalJSON

/// The telemetry events the engine emits, by their exact names.
public enum CCTelemetry: String, CaseIterable, Sendable {
  case sessionStart = "session_start"
  case sessionStop = "session_stop"
  case hintShown = "hint_shown"
  case hintAdopted = "hint_adopted"
  case shutter
  case photoKept = "photo_kept"
  case fpsSample = "fps_sample"
  case thermalSample = "thermal_sample"
  case consentChanged = "consent_changed"
}

/// One piece of guidance: the rule it comes from, which way to go and the measured value
/// that triggered it. A value, never UI: the app decides how to show it.
public struct GuidanceAdvice: Equatable, Sendable {
  public var advice: CCAdvice
  /// `more`/`less` (headroom, lead space), `left`/`right`/`up`/`down` (where the subject
  /// should go: template, thirds), `clockwise`/`counterclockwise` (horizon).
  public var direction: String
  /// The measurement (share of the frame, or degrees for the horizon).
  public var value: Double

  public init(advice: CCAdvice, direction: String, value: Double) {
    self.advice = advice
    self.direction = direction
    self.value = value
  }
}

/// Camera Coach's trace line kinds (`out`).
public enum CCOutputKind: String, CaseIterable, Sendable {
  case state, hint, levelLines = "level_lines", haptic, telemetry
  case oneShot = "one_shot"
  case limits, ignored

  /// The fields a line of this kind writes (besides `out` and `t`).
  public var fields: [String] {
    switch self {
    case .state: ["state"]
    case .hint: ["advice", "direction", "value"]
    case .levelLines: ["visible"]
    case .haptic: ["reason"]
    case .telemetry: ["event", "advice", "camera", "fps", "state", "granted"]
    case .oneShot: ["advice", "hint_t", "kept_t"]
    case .limits: ["stride", "per_minute", "faces_max"]
    case .ignored: ["input", "reason"]
    }
  }
}

/// One trace line.
public enum CCOutput: Equatable, Sendable {
  case state(CCState)
  case hint(GuidanceAdvice)
  case levelLines(visible: Bool)
  case haptic
  /// A telemetry event with its fields (only while consent is granted, `consent_changed` always).
  case telemetry(CCTelemetry, JSONObject)
  case oneShot(advice: CCAdvice, hintT: Int64, keptT: Int64)
  case limits(stride: Int, perMinute: Int, facesMax: Int)
  case ignored(input: String, reason: String)

  /// Its kind.
  public var kind: CCOutputKind {
    switch self {
    case .state: .state
    case .hint: .hint
    case .levelLines: .levelLines
    case .haptic: .haptic
    case .telemetry: .telemetry
    case .oneShot: .oneShot
    case .limits: .limits
    case .ignored: .ignored
    }
  }

  /// The line's fields after `out` (the harness adds `t`), values rounded to 1e-6.
  public func fields() -> JSONObject {
    var o = JSONObject()
    switch self {
    case .state(let s): o["state"] = .string(s.rawValue)
    case .hint(let a):
      o["advice"] = .string(a.advice.rawValue)
      o["direction"] = .string(a.direction)
      o["value"] = .number(Self.round6(a.value))
    case .levelLines(let v): o["visible"] = .bool(v)
    case .haptic: o["reason"] = "level"
    case .telemetry(let e, let f):
      o["event"] = .string(e.rawValue)
      for m in f.members { o.members.append(m) }
    case .oneShot(let a, let h, let k):
      o["advice"] = .string(a.rawValue)
      o["hint_t"] = .number(Double(h))
      o["kept_t"] = .number(Double(k))
    case .limits(let s, let p, let f):
      o["stride"] = .number(Double(s))
      o["per_minute"] = .number(Double(p))
      o["faces_max"] = .number(Double(f))
    case .ignored(let i, let r):
      o["input"] = .string(i)
      o["reason"] = .string(r)
    }
    return o
  }

  static func round6(_ d: Double) -> Double { (d * 1_000_000).rounded() / 1_000_000 + 0.0 }
}

/// What one engine call produced.
public struct CCStep: Equatable, Sendable {
  public var outputs: [CCOutput] = []
  public init() {}
}
