import ScenarioYAML
import EngineIO

/// The numeric parameters of the parametric subject (the model of scripts/corpus_jsonl.py).
/// They can be keyframed, ramped and oscillated. Coordinates are normalized canonical image
/// coordinates (y down); the subject faces the camera, so its left side is at image right.
public enum SubjectParam: String, CaseIterable, Sendable {
  /// centre line x (the Python's `px`)
  case x
  /// shoulder line y
  case top
  /// hip line y
  case hip
  /// ankle y
  case ankle
  /// nose y
  case nose
  /// half the shoulder width
  case half
  /// body joint confidence
  case conf
  /// eye line tilt in degrees (image y-down: the right eye lower)
  case eye_tilt
  /// the subject's left shoulder (image right) this much lower
  case shoulder_tilt
  /// face box width and height
  case face_w, face_h
  /// face observation confidence
  case face_conf
  /// luma plane values in [0, 1]: the face ROI, the background, and the left/right half difference
  case face_luma, bg_luma, face_half_diff
  /// chin y minus nose y
  case chin_gap
  /// recorded eye confidence (0 = not recorded)
  case eye_conf
  /// the subject's left hip (image right) this much lower (like shoulder_tilt)
  case hip_tilt
  /// torso lean: the upper body (body nose, neck, shoulders, elbows, wrists, body eyes/ears)
  /// shifted this much in x against the hips (the face stays at x)
  case lean
  /// hip half-width as a fraction of `half` (0.7: hips narrower than the shoulders)
  case hip_ratio
  /// recorded face `eye_ar` (eye aspect ratio, OUT_03; 0 = not recorded)
  case eye_ar
  /// recorded face `landmark_conf_avg` (OUT_15; 0 = not recorded)
  case landmark_conf

  public var defaultValue: Double {
    switch self {
    case .x: 0.5
    case .top: 0.30
    case .hip: 0.66
    case .ankle: 0.90
    case .nose: 0.22
    case .half: 0.075
    case .conf: 0.9
    case .eye_tilt, .shoulder_tilt, .eye_conf, .hip_tilt, .lean, .eye_ar, .landmark_conf: 0
    case .hip_ratio: 0.7
    case .face_w: 0.1
    case .face_h: 0.13
    case .face_conf: 0.95
    case .face_luma, .bg_luma: 0.5
    case .face_half_diff: 0.08
    case .chin_gap: 0.06
    }
  }
}

/// The discrete parameters: only keyframes (step changes) set them.
enum DiscreteParam: String, CaseIterable {
  case people, absent, no_face, drop, left_prec, joints
}

/// The full subject state at one instant.
public struct SubjectState: Equatable, Sendable {
  public var values: [Double] = SubjectParam.allCases.map(\.defaultValue)
  /// number of people detected
  public var people = 1
  /// Vision found nobody: no body, no face, people 0
  public var absent = false
  /// no face observation
  public var noFace = false
  /// body joints left out (Vision did not report them)
  public var drop: [Joint] = []
  /// the left eye's precision estimate (`prec_max`), if recorded
  public var leftPrec: Double?
  /// body joints placed at fixed canonical positions, replacing the model's point (noise and
  /// confidence as for any joint): hands near the face, a folded arm, …
  public var joints: [(Joint, Double, Double)] = []

  public init() {}

  public static func == (a: SubjectState, b: SubjectState) -> Bool {
    a.values == b.values && a.people == b.people && a.absent == b.absent && a.noFace == b.noFace
      && a.drop == b.drop && a.leftPrec == b.leftPrec
      && a.joints.map { "\($0.0.name) \($0.1) \($0.2)" } == b.joints.map { "\($0.0.name) \($0.1) \($0.2)" }
  }

  public subscript(_ p: SubjectParam) -> Double {
    get { values[SubjectParam.allCases.firstIndex(of: p)!] }
    set { values[SubjectParam.allCases.firstIndex(of: p)!] = newValue }
  }

  mutating func apply(_ patch: SubjectPatch) {
    for (p, v) in patch.numbers { self[p] = v }
    if let v = patch.people { people = v }
    if let v = patch.absent { absent = v }
    if let v = patch.noFace { noFace = v }
    if let v = patch.drop { drop = v }
    if let v = patch.leftPrec { leftPrec = v }
    if let v = patch.joints { joints = v }
  }
}

/// Some subject parameters, as written in a `subject:` mapping.
public struct SubjectPatch: Sendable {
  public var numbers: [(SubjectParam, Double)] = []
  public var people: Int?
  public var absent: Bool?
  public var noFace: Bool?
  public var drop: [Joint]?
  public var leftPrec: Double??
  public var joints: [(Joint, Double, Double)]?

  var hasDiscrete: Bool {
    people != nil || absent != nil || noFace != nil || drop != nil || leftPrec != nil || joints != nil
  }

  static let keys = SubjectParam.allCases.map(\.rawValue) + DiscreteParam.allCases.map(\.rawValue)

  static func parse(_ y: YNode) throws(ScenarioError) -> SubjectPatch {
    var p = SubjectPatch()
    for m in try y.mapping(allowed: keys, what: "subject parameter") {
      if let num = SubjectParam(rawValue: m.key) {
        let v = try bounded(m.value)
        try check(num, v, m.value)
        p.numbers.append((num, v))
        continue
      }
      switch DiscreteParam(rawValue: m.key)! {
      case .people:
        let v = try m.value.int()
        let most = ScenarioLimits.peopleMax
        guard v >= 0, v <= most else { throw m.value.error("expected a person count 0…\(most) (ScenarioLimits.peopleMax), found \(v)") }
        p.people = Int(v)
      case .absent: p.absent = try m.value.bool()
      case .no_face: p.noFace = try m.value.bool()
      case .drop: p.drop = try parseJoints(m.value)
      case .left_prec:
        if case .null = try m.value.scalar() { p.leftPrec = .some(nil) } else { p.leftPrec = .some(try m.value.double()) }
      case .joints:
        // {leftWrist: [x, y], …}; `joints: {}` restores the model's points.
        var out: [(Joint, Double, Double)] = []
        for j in try m.value.mapping(allowed: ScenarioSchema.jointKeys, what: "joint") {
          let xy = try j.value.sequence()
          guard xy.count == 2 else { throw j.value.error("expected [x, y], found \(xy.count) values") }
          out.append((Joint(name: j.key)!, try bounded(xy[0]), try bounded(xy[1])))
        }
        p.joints = out
      }
    }
    return p
  }

  /// A number of magnitude at most `ScenarioLimits.subjectValueMagnitudeMax` (every
  /// coordinate the model computes from it stays finite).
  static func bounded(_ y: YNode) throws(ScenarioError) -> Double {
    let v = try y.double()
    let most = ScenarioLimits.subjectValueMagnitudeMax
    guard abs(v) <= most else {
      throw y.error("expected a value within ±\(Int(most)) (ScenarioLimits.subjectValueMagnitudeMax), found \(v)")
    }
    return v
  }

  static func check(_ p: SubjectParam, _ v: Double, _ y: YNode) throws(ScenarioError) {
    switch p {
    case .conf, .face_conf, .eye_conf, .face_luma, .bg_luma:
      guard v >= 0, v <= 1 else { throw y.error("expected a value in [0, 1], found \(v)") }
    case .face_w, .face_h:
      guard v > 0 else { throw y.error("expected a positive size, found \(v)") }
    case .eye_ar, .landmark_conf:
      guard v >= 0, v <= 1 else { throw y.error("expected a value in [0, 1] (0 = not recorded), found \(v)") }
    case .hip_ratio:
      guard v > 0 else { throw y.error("expected a positive fraction of half, found \(v)") }
    case .eye_tilt:
      guard abs(v) < 90 else { throw y.error("expected degrees in (-90, 90), found \(v)") }
    default: break
    }
  }
}

func parseJoints(_ y: YNode) throws(ScenarioError) -> [Joint] {
  var out: [Joint] = []
  for j in try y.sequence() {
    let name = try j.string()
    guard let joint = Joint(name: name) else {
      var msg = "unknown joint \"\(name)\""
      if let s = closest(name, in: Joint.allCases.map(\.name)) { msg += " (did you mean \"\(s)\"?)" }
      throw j.error(msg + "; expected one of: \(Joint.allCases.map(\.name).joined(separator: ", "))")
    }
    if !out.contains(joint) { out.append(joint) }
  }
  return out
}
