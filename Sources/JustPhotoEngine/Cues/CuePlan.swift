import EngineIO
import JustPhotoIO
import PoseSpec

/// Everything the engine needs about one cue, resolved once from the PoseSpec at init: its
/// compiled formula (ENGINE §2.9, from `PoseSpecCompiler`) with inputs resolved to engine
/// types, its parsed landmark list and its thresholds. Immutable and shared (a class, so the
/// per-frame loop does not copy it).
final class CuePlan: Sendable {
  struct Assignment: Sendable {
    var name: String
    var overrideKeys: [String]
    var isScalar: Bool
    var isAngle: Bool
  }

  let index: Int
  let id: String
  let scene: String
  let priority: Int
  let mutexGroup: String
  let noRef: ThresholdSet?
  let withRef: ThresholdSet?
  /// `noRef` / `withRef` resolved to plain values for the per-frame level and severity.
  let noRefRule: LevelRule
  let withRefRule: LevelRule
  /// `metric.computeTier`: T0, T1 or fallback.
  let tier: String
  let updateHz: Double
  let assignments: [Assignment]
  /// The compiled formula, flattened: the assignments' and both errors' nodes.
  let formula: MetricProgram
  /// `formula`'s buffers, read by every evaluation without touching (retaining) `formula`.
  let code: MetricProgram.Code
  /// The noRef error's root node in `formula` (§3.2); nil without a noRef trigger.
  let noRefError: Int?
  let noRefErrorText: String?
  /// `noRefError` for a context without `frame_scalars` overrides (T0): when the error is just
  /// an assignment's name (`error: centerXOffset`), that assignment's root, so the evaluation
  /// runs it without the `local` node's recursion and copy (same value, same first failure).
  let noRefErrorDirect: Int?
  /// The withRef error's root node in `formula`.
  let withRefError: Int?
  /// The index of the first cue whose observation equals this one's on every frame.
  let evaluationSlot: Int
  /// Another cue has the same `evaluationSlot`: the engine keeps this cue's observation for
  /// it (`Engine.observationCache`). A cue alone in its slot skips the cache (a copy of the
  /// observation and two array writes per cue and frame).
  let sharesSlot: Bool
  /// Dense rank of (mutexGroup, id) in byte order among the spec's cues (§3.7 tie-breakers);
  /// -1 when not computed.
  let tieRank: Int
  /// The assignment index of M when the withRef error is `M - target.M`.
  let withRefMetric: Int?
  /// `takesPart(withRefSession:)`, resolved once (comparing the optional ThresholdSets per
  /// frame copied them).
  let takesPartNoRef: Bool
  let takesPartWithRef: Bool
  /// Why the cue is not evaluated in noRef mode, or nil when it is.
  let notEvaluated: String?
  /// The cue's `body.*` landmarks that name a Vision joint, in spec order (`bodyPoints`).
  let bodyJoints: [Joint]
  /// `body.*` names that are not Vision joints (never kept).
  let unknownBodyNames: [String]
  /// Point landmarks for the confidence gate (§3.4.2), in `metric.landmarks` order.
  let gatePoints: [GatePoint]
  /// `gatePoints` as `Joint.rawValue`s when all of them are joints (`gateJointsOnly`).
  let gateJoints: [Int]
  let gateJointsOnly: Bool
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
    /// `face.landmarks` (OUT_15): the face's landmark set, whose confidence is its
    /// `landmark_conf_avg` (§3.4.2; with minConfidence 0.45 this makes OUT_15 hard unreachable,
    /// §8 G-52).
    case faceLandmarks
  }

  /// `program` nil: the spec did not compile (a loaded spec always does; the loader reports
  /// the error), so the cue is never evaluated and says why in `cue_eval`.
  init(
    _ cue: PoseSpecCue, program: CueProgram?, compileError: String? = nil, evaluationSlot: Int? = nil,
    sharesSlot: Bool = false, tieRank: Int = -1
  ) {
    self.evaluationSlot = evaluationSlot ?? cue.index
    self.sharesSlot = sharesSlot
    self.tieRank = tieRank
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
    noRefRule = LevelRule(cue.trigger.noRef)
    withRefRule = LevelRule(cue.trigger.withRef)
    tier = cue.metric.computeTier
    isT1 = cue.metric.computeTier == "T1"
    updateHz = cue.metric.updateHz
    isSystemFallback = program.isSystemFallback
    let minPoints = program.bodyBoxMinPoints
    assignments = program.assignments.map {
      Assignment(name: $0.name, overrideKeys: $0.overrideKeys, isScalar: $0.type == .scalar, isAngle: $0.isAngle)
    }
    let (joints, unknown, gate) = Self.landmarks(cue.metric.landmarks)
    let formula = MetricProgram(
      assignments: program.assignments.map(\.expression),
      expressions: [program.noRefError?.expression, program.withRefError?.expression], bodyBoxMinPoints: minPoints,
      bodyJoints: joints)
    self.formula = formula
    code = formula.code
    noRefError = program.noRefError == nil ? nil : formula.expressionRoots[0]
    noRefErrorText = program.noRefError?.text
    noRefErrorDirect = noRefError.map { n in
      if case .local(let i) = formula.ops[n], formula.subtreeStart[n] == n { return formula.roots[i] }
      return n
    }
    withRefError = program.withRefError == nil ? nil : formula.expressionRoots[1]
    // `M - target.M` (spaces removed) with M assigned by the formula: the form mirror
    // evaluation and the MatchDecider understand (§3.13c, f).
    var metric: Int? = nil
    if let text = cue.trigger.withRef?.error?.filter({ $0 != " " }), let dash = text.firstIndex(of: "-") {
      let m = String(text[..<dash])
      if text == "\(m)-target.\(m)" { metric = program.assignments.firstIndex { $0.name == m } }
    }
    withRefMetric = metric
    usesBodyPoints = program.usesBodyPoints
    if program.isSystemFallback {
      notEvaluated = "system fallback cue"
    } else if let compileError {
      notEvaluated = "formula does not compile: \(compileError)"
    } else if cue.trigger.noRef == nil && cue.trigger.withRef == nil {
      notEvaluated = "no trigger"
    } else if cue.metric.computeTier != "T0" && cue.metric.computeTier != "T1" {
      notEvaluated = "unknown computeTier '\(cue.metric.computeTier)'"
    } else {
      notEvaluated = nil
    }
    takesPartNoRef = notEvaluated == nil && cue.trigger.noRef != nil
    takesPartWithRef = notEvaluated == nil && (cue.trigger.noRef != nil || cue.trigger.withRef != nil)
    bodyJoints = joints
    unknownBodyNames = unknown
    gatePoints = gate
    gateJoints = gate.compactMap { if case .joint(let j) = $0 { j.rawValue } else { nil } }
    gateJointsOnly = gateJoints.count == gate.count
    minConfidence = cue.confidence.minConfidence
    fallbackCueId = cue.confidence.fallbackCueId
    antiJitter = cue.antiJitter
    script = cue.script
  }

  /// `metric.landmarks` parsed: the `body.*` joints (and names that are no joint), and the
  /// confidence gate's points, in order.
  static func landmarks(_ names: [String]) -> (joints: [Joint], unknown: [String], gate: [GatePoint]) {
    var joints: [Joint] = []
    var unknown: [String] = []
    var gate: [GatePoint] = []
    for name in names {
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
      } else if name == "face.landmarks" {
        gate.append(.faceLandmarks)
      }
    }
    return (joints, unknown, gate)
  }

  /// Whether the cue is evaluated in noRef mode (on T0 results, or T1 ticks for T1 cues).
  var isEvaluated: Bool { notEvaluated == nil }
  /// A T1 cue: evaluated on T1 ticks only (§3.11), a candidate on T0 results by its state.
  /// `tier == "T1"`, resolved once: every cue asks on every T0 result.
  let isT1: Bool

  /// Whether a T1 cue runs on T1 tick `k` (k ≥ 1): `updateHz` capped at `t1MaxHz`, every
  /// `ceil(t1MaxHz / updateHz)`-th tick (§3.11; u = 1 → every 2nd tick at 2 Hz).
  func runsOnT1Tick(_ k: Int, t1MaxHz: Int) -> Bool {
    guard updateHz > 0, updateHz.isFinite else { return true }
    let every = max(1, Int((Double(t1MaxHz) / updateHz).rounded(.up)))
    return k % every == 0
  }

  /// The level of `error` (§3.3) against the thresholds of the mode it was computed in.
  func level(of error: Double, withRef: Bool = false) -> CueLevel {
    // Branches, not `(c ? a : b).…`: that form copies the rule per call.
    if withRef {
      // Several thresholds on a level (PS has none): the set's own first-match rule.
      return withRefRule.single ? withRefRule.level(of: error) : self.withRef?.level(of: error) ?? .none
    }
    return noRefRule.single ? noRefRule.level(of: error) : noRef?.level(of: error) ?? .none
  }

  /// The noise gate's band in the mode an error was computed in (§3.4.7).
  func noiseBand(withRef: Bool) -> Double? {
    withRef ? withRefRule.noiseBand : noRefRule.noiseBand
  }

  /// How far `error` is past the activating threshold of its mode (§3.4.7).
  func pastActivating(_ error: Double, withRef: Bool) -> Double? {
    withRef ? withRefRule.pastActivating(error) : noRefRule.pastActivating(error)
  }

  /// The severity of `error` against the hard threshold of its mode (§3.7).
  func severity(of error: Double, withRef: Bool = false) -> Double? {
    withRef ? withRefRule.severity(of: error) : noRefRule.severity(of: error)
  }

  /// Whether the cue takes part in a session in this mode: withRef cues use `trigger.withRef`,
  /// every other cue its noRef rules (PS `withRefPolicy.fallbackRule`, §3.2); OUT_07…10
  /// have no noRef trigger and take part only with a reference.
  func takesPart(withRefSession: Bool) -> Bool {
    withRefSession ? takesPartWithRef : takesPartNoRef
  }

  /// Hysteresis and gate persistence (≥ 1, §3.9 clamp).
  var persistFrames: Int { max(1, antiJitter.persistFrames) }
}

/// A cue's `ThresholdSet` as plain values (no arrays, nothing to retain): the first threshold
/// of each level, and `hardAbs` (§3.7). `single` is false when a level lists several
/// thresholds; the set itself then decides the level (`CuePlan.level`).
struct LevelRule: Sendable {
  var hard: Threshold?
  var warn: Threshold?
  var enter: Threshold?
  var exit: Threshold?
  var hardMagnitude: Double?
  var single: Bool
  /// The hysteresis band the noise gate weighs a cue's changes against (§3.4.7): the distance
  /// from its activating threshold (warn, else enter, else hard) to the nearest bound of its
  /// exit threshold, in the error's units (HEAD_LEVEL noRef: abs> 7 to abs<= 4 is 3; CHIN_DOWN:
  /// < 0.34 to between [0.36, 0.42] is 0.02). nil without either threshold or for a zero band.
  var noiseBand: Double?
  /// The activating threshold the noise gate measures from (warn, else enter, else hard).
  var activating: Threshold?

  init(_ set: ThresholdSet?) {
    hard = set?.hard.first
    warn = set?.warn.first
    enter = set?.enter.first
    exit = set?.exit.first
    hardMagnitude = set?.hardMagnitude
    single = set.map { s in [s.hard, s.warn, s.enter, s.exit].allSatisfy { $0.count <= 1 } } ?? true
    activating = warn ?? enter ?? hard
    noiseBand = Self.band(activating: activating, exit: exit)
  }

  /// How far `value` is past the activating threshold, in the error's units (positive past it,
  /// negative short of it); nil without one, for a `between` threshold, or a non-finite value.
  func pastActivating(_ value: Double) -> Double? {
    guard let t = activating, value.isFinite else { return nil }
    switch t.op {
    case .less, .lessOrEqual: return t.a - value
    case .greater, .greaterOrEqual: return value - t.a
    case .absGreater, .absGreaterOrEqual: return abs(value) - t.a
    case .absLess, .absLessOrEqual: return t.a - abs(value)
    case .between: return nil
    }
  }

  /// ``noiseBand`` of an activating and an exit threshold.
  static func band(activating: Threshold?, exit: Threshold?) -> Double? {
    guard let activating, let exit else { return nil }
    let bounds = exit.op == .between ? [exit.a, exit.b ?? exit.a] : [exit.a]
    let band = bounds.map { abs(activating.a - $0) }.min() ?? 0
    return band > 0 && band.isFinite ? band : nil
  }

  /// ``ThresholdSet/level(of:)`` for a set with at most one threshold per level (none: `.none`).
  @inline(__always) func level(of value: Double) -> CueLevel {
    guard value.isFinite else { return .none }
    if let t = hard, t.matches(value) { return .hard }
    if let t = warn, t.matches(value) { return .warn }
    if let t = enter, t.matches(value) { return .enter }
    if let t = exit, t.matches(value) { return .exit }
    return .none
  }

  /// ``ThresholdSet/severity(of:)``.
  @inline(__always) func severity(of value: Double) -> Double? {
    guard value.isFinite, let h = hardMagnitude else { return nil }
    return abs(value) / h
  }
}

/// The engine options that shape metrics (§1.8), resolved once.
struct MetricOptions: Equatable, Sendable {
  /// `bodyPointsScope=perCue` (default) vs `allJoints`.
  var perCue: Bool
  /// `bboxRequiresAllListed`.
  var requiresAllListed: Bool
  /// `angleFix=on`: the y-down fixes of §8 G-5…G-7.
  var angleFix: Bool
  /// Planted fault `confidence-gate-ignored` (set by the engine from its configuration).
  var ignoreConfidenceGate = false
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

/// The mode an observed error was computed in (``CueObservation`` without the value).
struct ObservedMode {
  var withRef: Bool
  var mirrored: Bool
}

/// One cue's observation on one evaluation, with the mode it was evaluated in.
struct CueObservation {
  var observation: MetricObservation
  /// Evaluated with `trigger.withRef` (else noRef rules).
  var withRef: Bool
  /// The mirrored error was chosen (§3.13f).
  var mirrored: Bool
  /// withRef was wanted but the target is missing: evaluated with noRef rules (§3.2 [D]).
  var targetMissing: Bool

  /// A placeholder (an empty cache entry).
  static let none = CueObservation(observation: .value(0), withRef: false, mirrored: false, targetMissing: false)
}

extension CuePlan {
  /// The cue on this evaluation (§3.2): with a reference, a cue with a withRef trigger uses
  /// its withRef error (mirror-chosen, §3.13f) and thresholds; a missing target falls back to
  /// the noRef rules; every other cue uses noRef.
  func observe(_ ctx: MetricContext, withRefSession: Bool, mirrorCtx: MetricContext?) -> CueObservation {
    guard withRefSession, let node = withRefError else {
      return CueObservation(observation: observe(ctx), withRef: false, mirrored: false, targetMissing: false)
    }
    var evaluation = FormulaEvaluation(plan: self)
    guard let normal = evaluation.scalar(node, ctx) else {
      let why = ctx.failure ?? "unavailable"
      if why.hasPrefix("missing_target:") && noRef != nil {
        return CueObservation(observation: observe(ctx), withRef: false, mirrored: false, targetMissing: true)
      }
      return CueObservation(observation: .unavailable(why), withRef: true, mirrored: false, targetMissing: false)
    }
    guard passesConfidenceGate(ctx) else {
      return CueObservation(observation: .unavailable("low_confidence"), withRef: true, mirrored: false, targetMissing: false)
    }
    let chosen = MatchMirror.chooseError(normal: normal, mirrored: mirroredError(ctx, mirrorCtx: mirrorCtx))
    return CueObservation(observation: .value(chosen.error), withRef: true, mirrored: chosen.mirrored, targetMissing: false)
  }

  /// The withRef error with mirrored live metrics (§3.13f), for `M - target.M` errors:
  /// `mirrorMode=scalar` negates the x-dependent scalars [C]; `points` recomputes M on the
  /// x-mirrored frame (`mirrorCtx`) [P]. nil when the error has another form.
  func mirroredError(_ ctx: MetricContext, mirrorCtx: MetricContext?) -> Double? {
    guard let i = withRefMetric, let target = ctx.targets[assignments[i].name] else { return nil }
    let m: Double?
    if let mirrorCtx {
      var e = FormulaEvaluation(plan: self)
      m = e.assignment(i, mirrorCtx)
    } else {
      guard MatchMirror.negatedMetrics.contains(assignments[i].name) else { return nil }
      var e = FormulaEvaluation(plan: self)
      m = e.assignment(i, ctx).map { -$0 }
    }
    guard let m else { return nil }
    let d = m - target
    return assignments[i].isAngle && ctx.options.angleFix ? AngleMath.wrap(d) : d
  }

  /// The value of the formula's assignment `index` (a metric, for targets and Match), or why
  /// it is unavailable; the confidence gate applies.
  func observeAssignment(_ index: Int, _ ctx: MetricContext) -> MetricObservation {
    var evaluation = FormulaEvaluation(plan: self)
    guard let v = evaluation.assignment(index, ctx) else { return .unavailable(ctx.failure ?? "unavailable") }
    guard passesConfidenceGate(ctx) else { return .unavailable("low_confidence") }
    return .value(v)
  }

  /// The noRef error of this cue on `ctx.frame`, or why it is unavailable (§3.4.1–2).
  func observe(_ ctx: MetricContext) -> MetricObservation {
    guard let node = ctx.overrides ? noRefError : noRefErrorDirect else {
      return .unavailable(notEvaluated ?? "no noRef error")
    }
    if ctx.options.requiresAllListed, usesBodyPoints {
      guard ctx.frame.hasBody else { return .unavailable("missing_input:no_pose") }
      let dropped =
        bodyJoints.compactMap { j in ctx.frame.dropReasons[j.rawValue].map { "\(j.name)=\($0.rawValue)" } }
        + unknownBodyNames.map { "\($0)=missing_input" }
      if !dropped.isEmpty { return .unavailable("missing_input:" + dropped.joined(separator: "|")) }
    }
    var evaluation = FormulaEvaluation(plan: self)
    guard let value = evaluation.scalar(node, ctx) else { return .unavailable(ctx.failure ?? "unavailable") }
    guard passesConfidenceGate(ctx) else { return .unavailable("low_confidence") }
    return .value(value)
  }

  /// The confidence gate of §3.4.2: the mean confidence of the cue's point landmarks present
  /// in the event (dropped body joints included with their raw confidence, non-finite counted
  /// as 0; face points without a confidence count 1.0), in `metric.landmarks` order, must not
  /// be below `minConfidence`. No present point: passes (availability already decided).
  func passesConfidenceGate(_ ctx: MetricContext) -> Bool {
    if ctx.options.ignoreConfidenceGate { return true }
    var sum = 0.0
    var n = 0
    if gateJointsOnly {
      // The common case (body cues): the same sum in the same order, over raw indices.
      ctx.frame.rawConfidence.withUnsafeBufferPointer { raw in
        for j in gateJoints {
          guard let c = raw[j] else { continue }
          sum += c.isFinite ? c : 0
          n += 1
        }
      }
      return n == 0 || sum / Double(n) >= minConfidence
    }
    for p in gatePoints {
      switch p {
      case .joint(let j):
        guard let c = ctx.frame.rawConfidence[j.rawValue] else { continue }
        sum += c.isFinite ? c : 0
      case .faceLandmarks:
        guard ctx.facePoints.present else { continue }
        let c = ctx.facePoints.landmarkConfAvg ?? 1
        sum += c.isFinite ? c : 0
      case .face(let fp):
        guard ctx.facePoints.present else { continue }
        switch fp {
        case .leftEyeCenter:
          guard let c = ctx.facePoints.leftEyeConf else { continue }
          sum += c
        case .rightEyeCenter:
          guard let c = ctx.facePoints.rightEyeConf else { continue }
          sum += c
        case .noseTip:
          guard ctx.facePoints.noseTip != nil else { continue }
          sum += 1
        case .chinCenter:
          sum += 1  // always derivable from the face bbox
        case .mouthCenter:
          guard ctx.facePoints.mouthCenter != nil else { continue }
          sum += 1
        }
      }
      n += 1
    }
    return n == 0 || sum / Double(n) >= minConfidence
  }
}
