import EngineIO
import JustPhotoIO

/// The parameters of `landmarkFilter=oneEuro` (engine options `oneEuroMinCutoff`,
/// `oneEuroBeta`, `oneEuroDCutoff`). A PROPOSED app change, not app behaviour: the app feeds
/// Vision's landmarks to the metrics unfiltered (docs/TUNING.md, "A landmark filter").
struct OneEuroParameters: Equatable, Sendable {
  /// The cutoff at rest, Hz: the smoothing of a still landmark.
  var minCutoffHz: Double
  /// How fast the cutoff rises with speed: cutoff = minCutoff + beta·|ẋ|, ẋ in canonical
  /// units ([0,1] of the frame) per second — so useful values are far larger than the paper's
  /// 0.007, which is per pixel/s.
  var beta: Double
  /// The cutoff of the speed estimate, Hz.
  var dCutoffHz: Double

  /// The parameters when `landmarkFilter=oneEuro`; nil when the filter is off (the default).
  init?(_ options: EngineOptions) {
    guard options.landmarkFilterOneEuro else { return nil }
    minCutoffHz = options.number(.oneEuroMinCutoff)
    beta = options.number(.oneEuroBeta)
    dCutoffHz = options.number(.oneEuroDCutoff)
  }

  init(minCutoffHz: Double, beta: Double, dCutoffHz: Double) {
    self.minCutoffHz = minCutoffHz
    self.beta = beta
    self.dCutoffHz = dCutoffHz
  }
}

/// The causal One Euro filter of one scalar signal (Casiez, Roussel, Vogel, CHI 2012): an
/// exponential smoother whose cutoff rises with the signal's (smoothed) speed, so a still
/// landmark is steady and a moving one lags little.
///
/// Time is the event time of the samples (ms), never a clock. Rules of this implementation:
/// - the first sample, and the first after a gap of more than ``resetGapMs``, passes through
///   unchanged and restarts the state (speed 0);
/// - a sample at the time of the previous one or earlier (Te ≤ 0) is not filtered again: the
///   last output is returned and the state is unchanged (accepted T0 frames are ≥ 59 ms apart,
///   so the engine never meets this);
/// - a signal without a sample (a dropped joint) simply keeps its state.
struct OneEuroFilter: Equatable, Sendable {
  /// A signal absent for longer than this restarts from its next sample.
  static let resetGapMs: Millis = 1000

  /// Time of the last filtered sample; nil before the first.
  private(set) var lastT: Millis?
  /// x̂: the last output.
  private(set) var value: Double = 0
  /// The smoothed speed estimate ẋ̂, units per second.
  private(set) var speed: Double = 0

  /// The smoothing factor of an exponential filter with cutoff `fc` (Hz) at sampling interval
  /// `te` (s): α = 1 / (1 + τ/Te), τ = 1 / (2π·fc). Arithmetic only.
  static func alpha(cutoffHz fc: Double, te: Double) -> Double {
    let tau = 1 / (2 * Double.pi * fc)
    return 1 / (1 + tau / te)
  }

  /// Filters sample `x` taken at `t`.
  mutating func filter(_ x: Double, at t: Millis, _ p: OneEuroParameters) -> Double {
    guard let last = lastT, t - last <= Self.resetGapMs else {
      lastT = t
      value = x
      speed = 0
      return x
    }
    guard t > last else { return value }
    let te = Double(t - last) / 1000
    // The paper's algorithm: the speed from the previous *output*, smoothed at dCutoff; each
    // smoother x̂ = α·x + (1−α)·x̂ written as x̂ + α·(x − x̂), so a still coordinate stays
    // bit-exact.
    let rawSpeed = (x - value) / te
    speed += Self.alpha(cutoffHz: p.dCutoffHz, te: te) * (rawSpeed - speed)
    let cutoff = p.minCutoffHz + p.beta * abs(speed)
    value += Self.alpha(cutoffHz: cutoff, te: te) * (x - value)
    lastT = t
    return value
  }
}

/// The landmark filter of one engine: a ``OneEuroFilter`` per (landmark, coordinate) — x and y
/// of every body joint; x and y of each face's eyes, nose, nose tip, chin and mouth, and its
/// bbox origin and size. Applied to each accepted T0 frame after canonicalization (ENGINE
/// §2.4), before anything reads it: metrics, subject choice, tracking, T1 ticks.
///
/// Faces are keyed by their index in Vision order (the engine does not track face identity
/// across frames), so two people swapping order mix their states — a limitation of the
/// proposal, harmless for the one-subject scenes it is meant for. Part of the engine value:
/// a copy of the engine has its own state, and a relaunch after a kill starts empty.
struct LandmarkFilter: Equatable, Sendable {
  let parameters: OneEuroParameters
  /// Joint j's x at 2j, y at 2j + 1.
  private(set) var joints: [OneEuroFilter]
  /// Face slot f's coordinates at `f·faceStride + k` (``FaceSlot``); grows with the most
  /// faces seen in one frame.
  private(set) var faces: [OneEuroFilter] = []

  /// Filter slots of one face, in this order.
  enum FaceSlot: Int, CaseIterable {
    case leftEye = 0, rightEye = 2, nose = 4, noseTip = 6, chin = 8, mouth = 10, bboxX = 12, bboxY, bboxW, bboxH
  }
  static let faceStride = 16

  init(_ parameters: OneEuroParameters) {
    self.parameters = parameters
    joints = Array(repeating: OneEuroFilter(), count: 2 * Joint.allCases.count)
  }

  /// Filters the kept joints and the faces of `frame`, taken at `t`, in place.
  mutating func apply(to frame: inout CanonicalFrame, at t: Millis) {
    let p = parameters
    for j in frame.kept.indices where 2 * j + 1 < joints.count {
      guard let q = frame.kept[j] else { continue }
      frame.kept[j] = Self.point(q, 2 * j, &joints, at: t, p)
    }
    let needed = frame.faces.count * Self.faceStride
    if faces.count < needed { faces += Array(repeating: OneEuroFilter(), count: needed - faces.count) }
    for f in frame.faces.indices {
      let base = f * Self.faceStride
      var face = frame.faces[f]
      func slot(_ s: FaceSlot) -> Int { base + s.rawValue }
      if let e = face.leftEye {
        let q = Self.point(Point2(x: e.x, y: e.y), slot(.leftEye), &faces, at: t, p)
        (face.leftEye!.x, face.leftEye!.y) = (q.x, q.y)
      }
      if let e = face.rightEye {
        let q = Self.point(Point2(x: e.x, y: e.y), slot(.rightEye), &faces, at: t, p)
        (face.rightEye!.x, face.rightEye!.y) = (q.x, q.y)
      }
      face.nose = face.nose.map { Self.point($0, slot(.nose), &faces, at: t, p) }
      face.noseTip = face.noseTip.map { Self.point($0, slot(.noseTip), &faces, at: t, p) }
      face.chin = face.chin.map { Self.point($0, slot(.chin), &faces, at: t, p) }
      face.mouth = face.mouth.map { Self.point($0, slot(.mouth), &faces, at: t, p) }
      face.bbox.x = faces[slot(.bboxX)].filter(face.bbox.x, at: t, p)
      face.bbox.y = faces[slot(.bboxY)].filter(face.bbox.y, at: t, p)
      face.bbox.w = faces[slot(.bboxW)].filter(face.bbox.w, at: t, p)
      face.bbox.h = faces[slot(.bboxH)].filter(face.bbox.h, at: t, p)
      frame.faces[f] = face
    }
  }

  /// A point through the filters at `i` (x) and `i + 1` (y) of `filters`.
  static func point(_ q: Point2, _ i: Int, _ filters: inout [OneEuroFilter], at t: Millis, _ p: OneEuroParameters)
    -> Point2
  {
    Point2(x: filters[i].filter(q.x, at: t, p), y: filters[i + 1].filter(q.y, at: t, p))
  }
}
