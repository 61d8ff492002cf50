import PoseSpec

/// Everything the engine needs about one cue, resolved once from the PoseSpec at init: its
/// compiled formula (ENGINE §2.9, from `PoseSpecCompiler`) with inputs resolved to engine
/// types, its parsed landmark list and its thresholds. Immutable and shared (a class, so the
/// per-frame loop does not copy it).
final class CuePlan: Sendable {
  struct Assignment: Sendable {
    var name: String
    var node: MetricNode
    var overrideKeys: [String]
  }

  let index: Int
  let id: String
  let scene: String
  let priority: Int
  let mutexGroup: String
  let noRef: ThresholdSet?
  let withRef: ThresholdSet?
  /// `metric.computeTier`: T0, T1 or fallback.
  let tier: String
  let updateHz: Double
  let assignments: [Assignment]
  /// The noRef error (§3.2); nil without a noRef trigger.
  let noRefError: MetricNode?
  let noRefErrorText: String?
  let withRefError: MetricNode?
  /// Why the cue is not evaluated in noRef mode, or nil when it is.
  let notEvaluated: String?
  /// The cue's `body.*` landmarks that name a Vision joint, in spec order (`bodyPoints`).
  let bodyJoints: [Joint]
  /// `body.*` names that are not Vision joints (never kept).
  let unknownBodyNames: [String]
  /// Point landmarks for the confidence gate (§3.4.2), in `metric.landmarks` order.
  let gatePoints: [GatePoint]
  /// Whether `bbox(bodyPoints)` is used (for `bboxRequiresAllListed`).
  let usesBodyPoints: Bool
  let minConfidence: Double
  let fallbackCueId: String
  let antiJitter: AntiJitterParameters
  let script: CueScript
  /// FRAME_GENERAL: `computeTier == "fallback"`, a candidate only through §3.4.4.
  let isSystemFallback: Bool

  enum GatePoint: Sendable {
    case joint(Joint)
    case face(FacePoint)
  }

  /// `program` nil: the spec did not compile (a loaded spec always does; the loader reports
  /// the error), so the cue is never evaluated and says why in `cue_eval`.
  init(_ cue: PoseSpecCue, program: CueProgram?, compileError: String? = nil) {
    let program =
      program
      ?? CueProgram(
        cueId: cue.id, assignments: [], noRefError: nil, withRefError: nil, requiredJoints: [], requiredFacePoints: [],
        usesFaceBBox: false, usesBodyPoints: false, bodyBoxMinPoints: 2, catalogueInputs: [], rois: [], targets: [],
        needsPixels: false, isSystemFallback: cue.metric.computeTier == "fallback")
    index = cue.index
    id = cue.id
    scene = cue.scene
    priority = cue.priority
    mutexGroup = cue.mutexGroup
    noRef = cue.trigger.noRef
    withRef = cue.trigger.withRef
    tier = cue.metric.computeTier
    updateHz = cue.metric.updateHz
    isSystemFallback = program.isSystemFallback
    let minPoints = program.bodyBoxMinPoints
    assignments = program.assignments.map {
      Assignment(name: $0.name, node: MetricNode($0.expression, bodyBoxMinPoints: minPoints), overrideKeys: $0.overrideKeys)
    }
    noRefError = program.noRefError.map { MetricNode($0.expression, bodyBoxMinPoints: minPoints) }
    noRefErrorText = program.noRefError?.text
    withRefError = program.withRefError.map { MetricNode($0.expression, bodyBoxMinPoints: minPoints) }
    usesBodyPoints = program.usesBodyPoints
    if program.isSystemFallback {
      notEvaluated = "system fallback cue"
    } else if let compileError {
      notEvaluated = "formula does not compile: \(compileError)"
    } else if cue.trigger.noRef == nil {
      notEvaluated = "no noRef trigger"
    } else if cue.metric.computeTier != "T0" && cue.metric.computeTier != "T1" {
      notEvaluated = "unknown computeTier '\(cue.metric.computeTier)'"
    } else {
      notEvaluated = nil
    }
    var joints: [Joint] = []
    var unknown: [String] = []
    var gate: [GatePoint] = []
    for name in cue.metric.landmarks {
      if name.hasPrefix("body.") {
        let short = String(name.dropFirst(5))
        if let j = Joint(name: short) {
          joints.append(j)
          gate.append(.joint(j))
        } else {
          unknown.append(short)
        }
      } else if name.hasPrefix("face."), let p = FacePoint(rawValue: String(name.dropFirst(5))) {
        gate.append(.face(p))
      }
    }
    bodyJoints = joints
    unknownBodyNames = unknown
    gatePoints = gate
    minConfidence = cue.confidence.minConfidence
    fallbackCueId = cue.confidence.fallbackCueId
    antiJitter = cue.antiJitter
    script = cue.script
  }

  /// Whether the cue is evaluated in noRef mode (on T0 results, or T1 ticks for T1 cues).
  var isEvaluated: Bool { notEvaluated == nil }
  /// A T1 cue: evaluated on T1 ticks only (§3.11), a candidate on T0 results by its state.
  var isT1: Bool { tier == "T1" }

  /// Whether a T1 cue runs on T1 tick `k` (k ≥ 1): `updateHz` capped at `t1MaxHz`, every
  /// `ceil(t1MaxHz / updateHz)`-th tick (§3.11; u = 1 → every 2nd tick at 2 Hz).
  func runsOnT1Tick(_ k: Int, t1MaxHz: Int) -> Bool {
    guard updateHz > 0, updateHz.isFinite else { return true }
    let every = max(1, Int((Double(t1MaxHz) / updateHz).rounded(.up)))
    return k % every == 0
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
  /// `angleFix=on`: the y-down fixes of §8 G-5…G-7.
  var angleFix: Bool
  init(_ options: EngineOptions) {
    perCue = options.bodyPointsPerCue
    requiresAllListed = options.bboxRequiresAllListed
    angleFix = options.angleFix
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
  /// The noRef error of this cue on `ctx.frame`, or why it is unavailable (§3.4.1–2).
  func observe(_ ctx: MetricContext) -> MetricObservation {
    guard let node = noRefError else { return .unavailable(notEvaluated ?? "no noRef error") }
    if ctx.options.requiresAllListed, usesBodyPoints {
      guard ctx.frame.hasBody else { return .unavailable("missing_input:no_pose") }
      let dropped =
        bodyJoints.compactMap { j in ctx.frame.dropReasons[j.rawValue].map { "\(j.name)=\($0.rawValue)" } }
        + unknownBodyNames.map { "\($0)=missing_input" }
      if !dropped.isEmpty { return .unavailable("missing_input:" + dropped.joined(separator: "|")) }
    }
    var evaluation = FormulaEvaluation(plan: self, ctx: ctx)
    guard let value = evaluation.scalar(node) else { return .unavailable(evaluation.failure ?? "unavailable") }
    guard passesConfidenceGate(ctx) else { return .unavailable("low_confidence") }
    return .value(value)
  }

  /// The confidence gate of §3.4.2: the mean confidence of the cue's point landmarks present
  /// in the event (dropped body joints included with their raw confidence, non-finite counted
  /// as 0; face points without a confidence count 1.0), in `metric.landmarks` order, must not
  /// be below `minConfidence`. No present point: passes (availability already decided).
  func passesConfidenceGate(_ ctx: MetricContext) -> Bool {
    var sum = 0.0
    var n = 0
    for p in gatePoints {
      switch p {
      case .joint(let j):
        guard let c = ctx.frame.rawConfidence[j.rawValue] else { continue }
        sum += c.isFinite ? c : 0
      case .face(let fp):
        guard let face = ctx.face else { continue }
        switch fp {
        case .leftEyeCenter:
          guard let e = face.leftEye else { continue }
          sum += e.conf ?? 1
        case .rightEyeCenter:
          guard let e = face.rightEye else { continue }
          sum += e.conf ?? 1
        case .noseTip:
          guard face.noseTip ?? face.nose != nil else { continue }
          sum += 1
        case .chinCenter:
          sum += 1  // always derivable from the face bbox
        case .mouthCenter:
          guard face.mouth != nil else { continue }
          sum += 1
        }
      }
      n += 1
    }
    return n == 0 || sum / Double(n) >= minConfidence
  }
}
