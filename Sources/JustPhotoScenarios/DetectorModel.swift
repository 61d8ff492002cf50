import ScenarioYAML
import CanonicalJSON
import EngineIO

/// How a phone's pose and face detectors report the scenario's subject (issue 22 item 2): the
/// top-level `detector:` key. The detector runs at `rate_fps`; the app hands the engine every
/// (rate_fps / delivered_fps)-th of its frames (the 100 ms throttle: 10 of 30 fps by default).
///
/// ```yaml
/// detector:
///   profile: daylight        # required: daylight | poor_light | noisy (`DetectorProfile.named`)
///   randomise: true          # optional: figures drawn from the seed (`DetectorRandomisation`)
///   rate_fps: 30             # the detector's frame rate, default 30
///   delivered_fps: 10        # frames handed to the engine, default 10; must divide rate_fps
///   extremity_sigma: 0.008   # any figure of the profile, by its name (`DetectorProfile.Figure`)
/// ```
///
/// Frames exist at t = round(k · 1000 / rate_fps); frame k is emitted when k is a multiple of
/// rate_fps / delivered_fps, and its `frame` field is k (the detector's frame number, so the
/// emitted ids go 0, 3, 6, … at 10 of 30 fps). `luma: {every: N}` counts emitted frames. The
/// header's `fps` is delivered_fps; a scenario's `fps:` must then equal delivered_fps (it may
/// be left out), and `frames:` is refused (the detector sets the frame times).
///
/// The profile replaces `noise.landmark_sigma` and `noise.conf_sigma` (both together are
/// refused); miss_rate, dropouts, occlusions, passers-by, drift and sway still apply, as before
/// at the emitted frames' times. What the profile adds (`DetectorStream`), each from its own
/// SplitMix64 seeded from `seed` (so a scenario without `detector` keeps its bytes, and the
/// detector never moves the other noise):
/// - jitter per coordinate, AR(1) at the detector rate (stepped on every detector frame,
///   emitted or not): e_k = ρ·e_{k−1} + √(1−ρ²)·σ·N(0,1), e_0 = σ·N(0,1), so σ is exactly the
///   stationary spread. σ by group: `face_sigma` for the face observation's points (eyes,
///   nose_tip, chin, mouth, each on its own, and the bbox's x, y, w, h), `core_sigma` for neck,
///   root, shoulders and hips, `middle_sigma` for elbows, knees and the body's nose, eyes and
///   ears, `extremity_sigma` for wrists and ankles;
/// - outliers: each body joint, each detector frame, with probability `outlier_rate`, is
///   displaced by a distance uniform in [`outlier_min`, `outlier_max`] in a uniform direction;
/// - left/right swaps: each detector frame, with probability `swap_rate`, the arms' pairs
///   (elbows, wrists), the legs' (knees, ankles) or all eight L/R pairs swap labels (one of
///   the three uniformly); a joint whose pair is missing takes the other side's name;
/// - confidence: each joint's `conf` is its group's mean (`conf_core`, `conf_middle`,
///   `conf_extremity`, shifted by the subject's `conf` − 0.9) plus an AR(1) with `conf_sigma`
///   and `conf_rho`, clamped to [0, 1]; the face's `conf` likewise around `conf_face` +
///   (face_conf − 0.95). Extremities so cross the engine's 0.5 drop rule now and then;
/// - luma: Gaussian sensor noise of `luma_sigma` 8-bit levels on every pixel of every plane
///   (rounded half to even, clamped to 0…255).
///
/// Bounds (`ScenarioLimits`): `detectorRateFpsMax`, the ranges of each figure
/// (`DetectorProfile.Figure.range`, named in errors).
public struct DetectorModel: Sendable {
  /// The detector's frame rate.
  public var rateFps = 30
  /// The frames a second the engine gets (divides `rateFps`).
  public var deliveredFps = 10
  /// The named profile the figures start from.
  public var profileName: String
  /// The figures (the named profile with the file's overrides); nil: frame rates only, no detector error (the ground truth's subject).
  public var profile: DetectorProfile?
  /// `randomise: true`: the figures are drawn per session from the scenario's seed within
  /// `DetectorRandomisation`'s ranges around `profile` (issue 35 item 6); false: `profile` as it is.
  public var randomise = false
  /// The figures the file sets by name: kept as written when `randomise` draws the others.
  public var fixed: Set<DetectorProfile.Figure> = []

  /// The figures a session with this seed is generated with: `profile`, or with `randomise`
  /// its draw (`DetectorRandomisation.draw`, a pure function of the seed); nil without a profile.
  public func profile(seed: UInt64) -> DetectorProfile? {
    guard let p = profile else { return nil }
    guard randomise else { return p }
    return DetectorRandomisation.draw(p, seed: seed, fixed: fixed)
  }

  /// Detector frames per emitted frame.
  public var stride: Int { rateFps / deliveredFps }
}

/// The figures of a detector profile (issue 22 item 2); where each comes from: docs/CORPUS.md,
/// "Detector profiles". Coordinates are canonical (normalized x over the 1080-px width, y over
/// the 1920-px height).
public struct DetectorProfile: Sendable, Equatable {
  /// Jitter σ of the face observation's points and bbox.
  public var faceSigma: Double
  /// Jitter σ of neck, root, shoulders, hips.
  public var coreSigma: Double
  /// Jitter σ of elbows, knees and the body's nose, eyes, ears.
  public var middleSigma: Double
  /// Jitter σ of wrists and ankles.
  public var extremitySigma: Double
  /// Jitter AR(1) coefficient per detector frame.
  public var rho: Double
  /// Probability that a body joint is an outlier in one detector frame.
  public var outlierRate: Double
  /// An outlier's displacement range (canonical units).
  public var outlierMin: Double
  public var outlierMax: Double
  /// Probability of a left/right swap in one detector frame.
  public var swapRate: Double
  /// Mean confidence of the core, middle and extremity joints (at the subject's default conf 0.9).
  public var confCore: Double
  public var confMiddle: Double
  public var confExtremity: Double
  /// Mean face observation confidence (at the subject's default face_conf 0.95).
  public var confFace: Double
  /// Confidence AR(1): stationary σ and coefficient per detector frame.
  public var confSigma: Double
  public var confRho: Double
  /// Luma sensor noise σ, in 8-bit levels.
  public var lumaSigma: Double

  /// A still subject outdoors or in a lit room: the practitioner reports of MediaPipe jitter
  /// on a 1080-px frame (docs/CORPUS.md, "Detector profiles").
  public static let daylight = DetectorProfile(
    faceSigma: 0.0007,  // core × 0.32: COCO OKS σ eyes/nose 0.025–0.026 vs shoulders 0.079
    coreSigma: 0.002,  // ≈ 2 px: the low end of "3–5 px frame to frame" (torso: largest parts)
    middleSigma: 0.003,  // ≈ 3.2 px: "3–5 px frame to frame" (σ·√(2(1−ρ)) ≈ 3 px)
    extremitySigma: 0.005,  // ≈ 5.4 px: "a still hand (150,200) → (155,195)"
    rho: 0.6,  // assumption: the tracker crops from the previous frame's pose
    outlierRate: 0.002,  // assumption
    outlierMin: 0.03, outlierMax: 0.08,  // ≈ 30–90 px: "oscillate 10–30 px", ghost landmarks
    swapRate: 0.001,  // assumption (L/R confusion is reported under occlusion)
    confCore: 0.9, confMiddle: 0.85, confExtremity: 0.75, confFace: 0.95,  // assumption
    confSigma: 0.08, confRho: 0.8,  // assumption (bench 0.88 ± 0.05 widened)
    lumaSigma: 2  // assumption: read + photon noise of a lit scene after downsampling
  )

  /// A dim cafe or evening: jitter doubled (the "5–10 px" and "10–30 px" reports), lower and
  /// wider confidence, more outliers and swaps, a grainy luma plane.
  public static let poorLight = DetectorProfile(
    faceSigma: 0.0014, coreSigma: 0.004, middleSigma: 0.006, extremitySigma: 0.010,
    rho: 0.75,  // assumption: heavier temporal smoothing of a noisier input
    outlierRate: 0.01, outlierMin: 0.03, outlierMax: 0.08,
    swapRate: 0.005,
    confCore: 0.75, confMiddle: 0.68, confExtremity: 0.6, confFace: 0.85,
    confSigma: 0.12, confRho: 0.8,
    lumaSigma: 6  // assumption: high ISO gain in low light
  )

  /// The noisy end of published phone-detector jitter (issue 35 item 6): about 1 % of the frame
  /// between delivered frames for every body group and the face — "landmarks jump 5–10 pixels
  /// between frames" (theneuralbase.com), "oscillate 10–30 px" (diyoraharshit.com): σ 0.008 at
  /// ρ 0.6 is a delivered-frame difference of σ·√(2(1−ρ³)) ≈ 0.010, 10.8 px of the 1080-px
  /// width; wrists and ankles at the "10–30 px" end (1.5 %). A lit scene (daylight's light and
  /// confidences, a little lower), so it is the detector, not the light, that is noisy.
  public static let noisy = DetectorProfile(
    faceSigma: 0.008, coreSigma: 0.008, middleSigma: 0.008, extremitySigma: 0.012,
    rho: 0.6,
    outlierRate: 0.005, outlierMin: 0.03, outlierMax: 0.08,
    swapRate: 0.002,
    confCore: 0.85, confMiddle: 0.8, confExtremity: 0.7, confFace: 0.9,
    confSigma: 0.1, confRho: 0.8,
    lumaSigma: 3
  )

  /// The named profiles, in the order errors list them.
  public static let named: [(name: String, profile: DetectorProfile)] = [
    ("daylight", .daylight), ("poor_light", .poorLight), ("noisy", .noisy),
  ]

  /// A figure by its YAML name, with its bound.
  public enum Figure: String, CaseIterable, Sendable {
    case face_sigma, core_sigma, middle_sigma, extremity_sigma, rho
    case outlier_rate, outlier_min, outlier_max, swap_rate
    case conf_core, conf_middle, conf_extremity, conf_face, conf_sigma, conf_rho, luma_sigma

    /// The allowed values and the `ScenarioLimits` name of the bound.
    var range: (ClosedRange<Double>, bound: String, what: String) {
      switch self {
      case .face_sigma, .core_sigma, .middle_sigma, .extremity_sigma:
        (0...ScenarioLimits.detectorSigmaMax, "ScenarioLimits.detectorSigmaMax", "a standard deviation")
      case .rho, .conf_rho: (0...ScenarioLimits.detectorRhoMax, "ScenarioLimits.detectorRhoMax", "an AR(1) coefficient")
      case .outlier_rate, .swap_rate: (0...1, "a probability", "a probability per detector frame")
      case .outlier_min, .outlier_max:
        (0...ScenarioLimits.detectorOutlierMax, "ScenarioLimits.detectorOutlierMax", "a displacement")
      case .conf_core, .conf_middle, .conf_extremity, .conf_face: (0...1, "a confidence", "a mean confidence")
      case .conf_sigma: (0...ScenarioLimits.detectorConfSigmaMax, "ScenarioLimits.detectorConfSigmaMax", "a standard deviation")
      case .luma_sigma: (0...ScenarioLimits.detectorLumaSigmaMax, "ScenarioLimits.detectorLumaSigmaMax", "a σ in 8-bit levels")
      }
    }
  }

  public subscript(_ f: Figure) -> Double {
    get {
      switch f {
      case .face_sigma: faceSigma
      case .core_sigma: coreSigma
      case .middle_sigma: middleSigma
      case .extremity_sigma: extremitySigma
      case .rho: rho
      case .outlier_rate: outlierRate
      case .outlier_min: outlierMin
      case .outlier_max: outlierMax
      case .swap_rate: swapRate
      case .conf_core: confCore
      case .conf_middle: confMiddle
      case .conf_extremity: confExtremity
      case .conf_face: confFace
      case .conf_sigma: confSigma
      case .conf_rho: confRho
      case .luma_sigma: lumaSigma
      }
    }
    set {
      switch f {
      case .face_sigma: faceSigma = newValue
      case .core_sigma: coreSigma = newValue
      case .middle_sigma: middleSigma = newValue
      case .extremity_sigma: extremitySigma = newValue
      case .rho: rho = newValue
      case .outlier_rate: outlierRate = newValue
      case .outlier_min: outlierMin = newValue
      case .outlier_max: outlierMax = newValue
      case .swap_rate: swapRate = newValue
      case .conf_core: confCore = newValue
      case .conf_middle: confMiddle = newValue
      case .conf_extremity: confExtremity = newValue
      case .conf_face: confFace = newValue
      case .conf_sigma: confSigma = newValue
      case .conf_rho: confRho = newValue
      case .luma_sigma: lumaSigma = newValue
      }
    }
  }

  /// A joint's noise group.
  enum Group { case core, middle, extremity }

  static func group(_ j: Joint) -> Group {
    switch j {
    case .neck, .root, .leftShoulder, .rightShoulder, .leftHip, .rightHip: .core
    case .leftWrist, .rightWrist, .leftAnkle, .rightAnkle: .extremity
    default: .middle
    }
  }

  func sigma(_ g: Group) -> Double {
    switch g {
    case .core: coreSigma
    case .middle: middleSigma
    case .extremity: extremitySigma
    }
  }

  func confMean(_ g: Group) -> Double {
    switch g {
    case .core: confCore
    case .middle: confMiddle
    case .extremity: confExtremity
    }
  }
}

extension ScenarioLimits {
  /// The highest detector frame rate (`detector.rate_fps`); with `durationMsMax` it bounds the
  /// detector frames stepped (≈ 21 M in 24 h).
  public static let detectorRateFpsMax: Int64 = 240
  /// The largest landmark jitter σ of a detector profile (canonical units).
  public static let detectorSigmaMax = 0.1
  /// The largest AR(1) coefficient (below 1: the innovations keep the spread stationary).
  public static let detectorRhoMax = 0.99
  /// The largest outlier displacement (canonical units).
  public static let detectorOutlierMax = 0.5
  /// The largest confidence σ.
  public static let detectorConfSigmaMax = 0.5
  /// The largest luma sensor noise σ, in 8-bit levels.
  public static let detectorLumaSigmaMax = 64.0
}

extension Scenario {
  /// The scenario without noise: `noise` reset and the detector's profile removed (its frame
  /// rates kept). The subject the ground-truth labels are computed on (GroundTruth).
  public var noiseFree: Scenario {
    var clean = self
    clean.noise = Noise()
    clean.detector?.profile = nil
    return clean
  }

  /// `detector:` (after `fps`, `frames` and `noise`): the profile, the rates, the overrides;
  /// refuses `frames`, an `fps` other than delivered_fps, and `noise.landmark_sigma`/`conf_sigma`.
  mutating func parseDetector(_ n: YNode, _ member: (String) -> YNode?) throws(ScenarioError) {
    let m = try n.mapping(allowed: ScenarioSchema.detectorKeys, what: "detector key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    guard let pn = v("profile") else {
      throw n.error("missing key \"profile\"; expected one of: \(DetectorProfile.named.map(\.name).joined(separator: ", "))")
    }
    let name = try pn.string()
    guard var profile = DetectorProfile.named.first(where: { $0.name == name })?.profile else {
      var msg = "unknown detector profile \"\(name)\""
      if let c = closest(name, in: DetectorProfile.named.map(\.name)) { msg += " (did you mean \"\(c)\"?)" }
      throw pn.error(msg + "; expected one of: \(DetectorProfile.named.map(\.name).joined(separator: ", "))")
    }
    var d = DetectorModel(profileName: name)
    if let r = v("rate_fps") {
      let rate = try r.int()
      guard rate >= 1, rate <= ScenarioLimits.detectorRateFpsMax else {
        throw r.error("expected a detector frame rate 1…\(ScenarioLimits.detectorRateFpsMax) (ScenarioLimits.detectorRateFpsMax), found \(rate)")
      }
      d.rateFps = Int(rate)
    }
    let dn = v("delivered_fps")
    if let dn { d.deliveredFps = Int(clamping: try dn.int()) }
    guard d.deliveredFps >= 1, d.deliveredFps <= d.rateFps, d.rateFps % d.deliveredFps == 0 else {
      let which = dn == nil ? "the default delivered_fps \(d.deliveredFps)" : "\(d.deliveredFps)"
      throw (dn ?? v("rate_fps") ?? n).error(
        "expected delivered_fps dividing rate_fps \(d.rateFps) (every (rate/delivered)-th detector frame is delivered), found \(which)")
    }
    for f in m {
      guard let figure = DetectorProfile.Figure(rawValue: f.key) else { continue }
      let (range, bound, what) = figure.range
      profile[figure] = try Nuisance.number(f.value, range.lowerBound, range.upperBound, bound, what)
      d.fixed.insert(figure)
    }
    if let r = v("randomise") { d.randomise = try r.bool() }
    if profile.outlierMin > profile.outlierMax {
      throw (v("outlier_min") ?? v("outlier_max") ?? n).error(
        "expected outlier_min ≤ outlier_max, found \(JSONWriter.shortest(profile.outlierMin)) > \(JSONWriter.shortest(profile.outlierMax))")
    }
    d.profile = profile
    try checkDetectorConflicts(n, member, d)
    fps = d.deliveredFps
    detector = d
  }

  /// `frames`, an `fps` other than delivered_fps, `noise.landmark_sigma`/`conf_sigma`: refused.
  func checkDetectorConflicts(_ n: YNode, _ member: (String) -> YNode?, _ d: DetectorModel) throws(ScenarioError) {
    let at = "detector (line \(n.line.map(String.init) ?? "?"))"
    if let f = member("fps"), fps != d.deliveredFps {
      throw f.error(
        "fps \(fps) conflicts with \(at): the engine gets delivered_fps = \(d.deliveredFps) frames a second; remove fps or set it to \(d.deliveredFps)")
    }
    if let f = member("frames") {
      throw f.error("frames and \(at) both set the frame times; remove frames (the detector's rates set them)")
    }
    if let noise = member("noise") {
      for k in try noise.mapping() where k.key == "landmark_sigma" || k.key == "conf_sigma" {
        throw k.value.error(
          "noise.\(k.key) and \(at) together: the detector profile sets the landmark and confidence noise; remove noise.\(k.key) (or override the profile's figures, e.g. core_sigma, conf_sigma)")
      }
    }
  }
}
