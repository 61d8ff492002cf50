import PoseSpec

/// Everything the engine needs about one cue, resolved once from the PoseSpec at init: the
/// cue's compiled form (today a `MetricBinding`; the expression compiler will extend it),
/// its parsed landmark list and its thresholds. Immutable and shared (a class, so the
/// per-frame loop does not copy it).
final class CuePlan: Sendable {
  let index: Int
  let id: String
  let scene: String
  let priority: Int
  let mutexGroup: String
  let noRef: ThresholdSet?
  let metric: MetricBinding
  /// The cue's `body.*` landmarks that name a Vision joint, in spec order.
  let bodyJoints: [Joint]
  /// `body.*` names that are not Vision joints (never kept).
  let unknownBodyNames: [String]
  let minConfidence: Double
  let fallbackCueId: String
  let antiJitter: AntiJitterParameters
  let script: CueScript
  /// FRAME_GENERAL: `computeTier == "fallback"`, a candidate only through §3.4.4.
  let isSystemFallback: Bool

  init(_ cue: PoseSpecCue, options: EngineOptions) {
    index = cue.index
    id = cue.id
    scene = cue.scene
    priority = cue.priority
    mutexGroup = cue.mutexGroup
    noRef = cue.trigger.noRef
    isSystemFallback = cue.metric.computeTier == "fallback"
    metric =
      isSystemFallback
      ? .unsupported("system fallback cue") : MetricRegistry.bind(cue, formulaFirst: options.errorSourceFormulaFirst)
    var joints: [Joint] = []
    var unknown: [String] = []
    for name in cue.metric.landmarks where name.hasPrefix("body.") {
      let short = String(name.dropFirst(5))
      if let j = Joint(name: short) { joints.append(j) } else { unknown.append(short) }
    }
    bodyJoints = joints
    unknownBodyNames = unknown
    minConfidence = cue.confidence.minConfidence
    fallbackCueId = cue.confidence.fallbackCueId
    antiJitter = cue.antiJitter
    script = cue.script
  }

  /// Whether the cue is evaluated in noRef mode now: it has a noRef trigger and an
  /// implemented metric.
  var isEvaluated: Bool {
    guard noRef != nil, case .bbox = metric else { return false }
    return true
  }

  /// The noRef level of `error` (§3.3).
  func level(of error: Double) -> CueLevel { noRef?.level(of: error) ?? .none }

  /// The severity of `error` against the noRef hard threshold (§3.7).
  func severity(of error: Double) -> Double? { noRef?.severity(of: error) }

  /// Hysteresis and gate persistence (≥ 1, §3.9 clamp).
  var persistFrames: Int { max(1, antiJitter.persistFrames) }
}

/// The engine options that shape metrics (§1.8), resolved once.
struct MetricOptions: Equatable, Sendable {
  /// `bodyPointsScope=perCue` (default) vs `allJoints`.
  var perCue: Bool
  /// `bboxRequiresAllListed`.
  var requiresAllListed: Bool
  init(_ options: EngineOptions) {
    perCue = options.bodyPointsPerCue
    requiresAllListed = options.bboxRequiresAllListed
  }
}

/// The outcome of computing one cue's error on one frame.
enum MetricObservation: Equatable, Sendable {
  case value(Double)
  /// Inputs unavailable (§3.4.1) or the confidence gate failed (§3.4.2); the text is the
  /// reason, e.g. `missing_input:no_pose`, `bbox_invalid:insufficientPoints`, `low_confidence`.
  case unavailable(String)
}

extension CuePlan {
  /// The noRef error of this cue on `frame`, or why it is unavailable. Only meaningful when
  /// `metric` is not `.unsupported`.
  func observe(_ frame: CanonicalFrame, options: MetricOptions) -> MetricObservation {
    switch metric {
    case .unsupported(let why): return .unavailable(why)
    case .bbox(let m, let params):
      guard frame.hasBody else { return .unavailable("missing_input:no_pose") }
      if options.requiresAllListed {
        let dropped =
          bodyJoints.compactMap { j in frame.dropReasons[j.rawValue].map { "\(j.name)=\($0.rawValue)" } }
          + unknownBodyNames.map { "\($0)=missing_input" }
        if !dropped.isEmpty { return .unavailable("missing_input:" + dropped.joined(separator: "|")) }
      }
      let box =
        options.perCue
        ? BodyBBox.perCue(bodyJoints, in: frame, minPoints: m.minPoints) : BodyBBox.allJoints(in: frame)
      switch box {
      case .failure(let f): return .unavailable("bbox_invalid:\(f.rawValue)")
      case .success(let b):
        guard passesConfidenceGate(frame) else { return .unavailable("low_confidence") }
        return .value(m.value(b, params))
      }
    }
  }

  /// The confidence gate of §3.4.2: the mean raw confidence of the cue's body points present
  /// in the event (dropped ones included, summed in `metric.landmarks` order, non-finite
  /// confidence counted as 0) must not be below `minConfidence`. No present point: passes
  /// (availability already failed). Face points join when face metrics arrive.
  func passesConfidenceGate(_ frame: CanonicalFrame) -> Bool {
    var sum = 0.0
    var n = 0
    for j in bodyJoints {
      guard let c = frame.rawConfidence[j.rawValue] else { continue }
      sum += c.isFinite ? c : 0
      n += 1
    }
    return n == 0 || sum / Double(n) >= minConfidence
  }
}
