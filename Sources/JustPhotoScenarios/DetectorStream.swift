import CanonicalJSON
import EngineIO
import ScenarioYAML

/// A `DetectorProfile` walked forward detector frame by detector frame (`DetectorModel`): the
/// AR(1) jitter and confidence states, this frame's outliers and swap, and the luma noise.
/// Flat memory (72 states). Each concern draws from its own SplitMix64 seeded from the
/// scenario's seed (`NuisanceStream.seed` with its own salt) and draws the same amount every
/// detector frame whatever the subject shows, so the bytes depend only on the seed, the
/// profile and the frame number.
struct DetectorStream {
  let profile: DetectorProfile
  var jitterRNG: SplitMix64
  var confRNG: SplitMix64
  var outlierRNG: SplitMix64
  var swapRNG: SplitMix64
  var lumaRNG: SplitMix64
  /// Body jitter (x, y per joint, `Joint.rawValue` order), then the face's: left_eye,
  /// right_eye, nose_tip, chin, mouth (x, y each), bbox (x, y, w, h).
  var jitter: [Double]
  let jitterSigma: [Double]
  /// Body confidence deviations per joint, then the face's.
  var conf: [Double]
  /// This frame's outlier displacement per joint (0 when none).
  var outlier: [(dx: Double, dy: Double)]
  /// This frame's swapped pairs (none, arms, legs, all).
  var swapped: [(Joint, Joint)] = []
  /// The detector frame the states are at.
  var frame = 0

  static let facePoints = ["left_eye", "right_eye", "nose_tip", "chin", "mouth"]
  static let arms: [(Joint, Joint)] = [(.leftElbow, .rightElbow), (.leftWrist, .rightWrist)]
  static let legs: [(Joint, Joint)] = [(.leftKnee, .rightKnee), (.leftAnkle, .rightAnkle)]
  static let allPairs: [(Joint, Joint)] =
    [(.leftShoulder, .rightShoulder), (.leftHip, .rightHip), (.leftEye, .rightEye), (.leftEar, .rightEar)] + arms + legs

  init(_ p: DetectorProfile, seed: UInt64) {
    profile = p
    jitterRNG = SplitMix64(seed: NuisanceStream.seed(seed, 0xDE7E_C701))
    confRNG = SplitMix64(seed: NuisanceStream.seed(seed, 0xDE7E_C702))
    outlierRNG = SplitMix64(seed: NuisanceStream.seed(seed, 0xDE7E_C703))
    swapRNG = SplitMix64(seed: NuisanceStream.seed(seed, 0xDE7E_C704))
    lumaRNG = SplitMix64(seed: NuisanceStream.seed(seed, 0xDE7E_C705))
    var sigmas: [Double] = []
    for j in Joint.allCases {
      let s = p.sigma(DetectorProfile.group(j))
      sigmas += [s, s]
    }
    sigmas += Array(repeating: p.faceSigma, count: 2 * Self.facePoints.count + 4)
    jitterSigma = sigmas
    // e_0 from the stationary distribution.
    var rng = jitterRNG
    jitter = sigmas.map { $0 * rng.gaussian(sigma: 1) }
    jitterRNG = rng
    var crng = confRNG
    conf = (0...Joint.allCases.count).map { _ in p.confSigma * crng.gaussian(sigma: 1) }
    confRNG = crng
    outlier = Array(repeating: (0, 0), count: Joint.allCases.count)
    drawEvents()
  }

  /// Steps the states to detector frame `k` (not before the current one).
  mutating func advance(to k: Int) {
    while frame < k {
      frame += 1
      step()
    }
  }

  /// One detector frame: AR(1) jitter and confidence, then this frame's outliers and swap.
  mutating func step() {
    let a = profile.rho, b = (1 - profile.rho * profile.rho).squareRoot()
    for i in jitter.indices { jitter[i] = a * jitter[i] + b * jitterSigma[i] * jitterRNG.gaussian(sigma: 1) }
    let ca = profile.confRho, cb = (1 - profile.confRho * profile.confRho).squareRoot() * profile.confSigma
    for i in conf.indices { conf[i] = ca * conf[i] + cb * confRNG.gaussian(sigma: 1) }
    drawEvents()
  }

  /// This frame's outliers (one uniform per joint, two more for a hit) and swap (one uniform,
  /// one more for a hit).
  mutating func drawEvents() {
    for i in outlier.indices {
      outlier[i] = (0, 0)
      guard outlierRNG.unit() < profile.outlierRate else { continue }
      let r = profile.outlierMin + (profile.outlierMax - profile.outlierMin) * outlierRNG.unit()
      let angle = 2 * Double.pi * outlierRNG.unit()
      outlier[i] = (r * _cos(angle), r * _sin(angle))
    }
    swapped = []
    if swapRNG.unit() < profile.swapRate {
      swapped = [Self.arms, Self.legs, Self.allPairs][Int(swapRNG.next() % 3)]
    }
  }

  /// The body as this detector frame reports it: jitter, outliers, group confidence, swaps.
  /// `subjectConf` is the subject's `conf` parameter (the group means shift by it − 0.9).
  func body(_ b: JSONObject, subjectConf: Double) -> JSONObject {
    var pts: [[Double]?] = Array(repeating: nil, count: Joint.allCases.count)
    for m in b.members {
      guard let j = Joint(name: m.key), case .array(let a) = m.value else { continue }
      let x = a[0].doubleValue ?? 0, y = a[1].doubleValue ?? 0
      let i = j.rawValue
      let mean = profile.confMean(DetectorProfile.group(j)) + subjectConf - SubjectParam.conf.defaultValue
      pts[i] = [
        x + jitter[2 * i] + outlier[i].dx, y + jitter[2 * i + 1] + outlier[i].dy, min(1, max(0, mean + conf[i])),
      ]
    }
    for (l, r) in swapped { pts.swapAt(l.rawValue, r.rawValue) }
    var out = JSONObject()
    for j in Joint.allCases {
      guard let p = pts[j.rawValue] else { continue }
      out.members.append(JSONMember(j.name, .array(p.map { .number(SubjectModel.r6($0)) })))
    }
    return out
  }

  /// The face as this detector frame reports it: each point and the bbox jittered on its
  /// own, `conf` around conf_face + (face_conf − 0.95).
  func face(_ f: JSONObject, faceConf: Double) -> JSONObject {
    var out = f
    let base = 2 * Joint.allCases.count
    for (n, name) in Self.facePoints.enumerated() {
      guard case .object(var p)? = out[name] else { continue }
      p["x"] = p["x"]?.doubleValue.map { .number(SubjectModel.r6($0 + jitter[base + 2 * n])) }
      p["y"] = p["y"]?.doubleValue.map { .number(SubjectModel.r6($0 + jitter[base + 2 * n + 1])) }
      out[name] = .object(p)
    }
    if case .array(let box)? = out["bbox"], box.count == 4 {
      let b0 = base + 2 * Self.facePoints.count
      out["bbox"] = .array(box.enumerated().map { i, v in
        let moved = (v.doubleValue ?? 0) + jitter[b0 + i]
        return .number(SubjectModel.r6(i >= 2 ? max(0, moved) : moved))
      })
    }
    let mean = profile.confFace + faceConf - SubjectParam.face_conf.defaultValue
    out["conf"] = .number(SubjectModel.r6(min(1, max(0, mean + conf[Joint.allCases.count]))))
    return out
  }

  /// `plane` with Gaussian sensor noise of `luma_sigma` levels per pixel.
  mutating func noisy(_ plane: [UInt8]) -> [UInt8] {
    let s = profile.lumaSigma
    guard s > 0 else { return plane }
    return plane.map { v in
      let x = (Double(v) + s * lumaRNG.gaussian(sigma: 1)).rounded(.toNearestOrEven)
      return UInt8(max(0, min(255, x)))
    }
  }
}
