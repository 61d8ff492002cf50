import EngineIO
import PoseSpec

/// The ROI coefficients of ENGINE §2.7, read from PoseSpec `rois` and
/// `defaults.minLandmarkConfidence` the way [C] `PoseSpecROIRules.loadOrDefault` does.
///
/// Fallbacks (as [C]): a missing ROI section, a negative or non-finite padding, or a `sizeRule`
/// without a leading number keeps the default; `minLandmarkConfidence` that is non-finite or
/// ≤ 0 becomes 0.5, above 1 becomes 1.
struct ROICoefficients: Equatable, Sendable {
  /// `faceROI.paddingPctOfBBox.x`: padding on each side, as a share of the bbox width.
  var facePaddingX: Double
  /// `faceROI.paddingPctOfBBox.y`: padding on each side, as a share of the bbox height.
  var facePaddingY: Double
  /// eyeROI width in inter-ocular distances (`sizeRule.w`, "2.2 * interOcularDistance").
  var eyeWidthFactor: Double
  /// eyeROI height in inter-ocular distances (`sizeRule.h`, "1.2 * interOcularDistance").
  var eyeHeightFactor: Double
  /// An eye with a recorded confidence below this is not confident (§2.7).
  var minLandmarkConfidence: Double

  /// [C] `ROIComputer` eye precision gate: the worst per-point precision estimate must be ≤ this.
  static let eyePrecisionMax = 0.012
  /// [C] `ROIComputer` blink gate: the eye aspect ratio (height/width) must be ≥ this.
  static let eyeAspectRatioMin = 0.20

  /// The PS values, also the fallbacks: 0.15 / 0.15 / 2.2 / 1.2 / 0.5.
  static let standard = ROICoefficients(
    facePaddingX: 0.15, facePaddingY: 0.15, eyeWidthFactor: 2.2, eyeHeightFactor: 1.2,
    minLandmarkConfidence: 0.5)

  init(
    facePaddingX: Double, facePaddingY: Double, eyeWidthFactor: Double, eyeHeightFactor: Double,
    minLandmarkConfidence: Double
  ) {
    self.facePaddingX = facePaddingX
    self.facePaddingY = facePaddingY
    self.eyeWidthFactor = eyeWidthFactor
    self.eyeHeightFactor = eyeHeightFactor
    self.minLandmarkConfidence = minLandmarkConfidence
  }

  /// The coefficients of a decoded PoseSpec, with the [C] fallbacks above.
  init(rois: PoseSpecROIs, minLandmarkConfidence: Double) {
    let d = Self.standard
    func padding(_ v: Double?, _ fallback: Double) -> Double {
      guard let v, v.isFinite, v >= 0 else { return fallback }
      return v
    }
    facePaddingX = padding(rois.faceROI?.paddingX, d.facePaddingX)
    facePaddingY = padding(rois.faceROI?.paddingY, d.facePaddingY)
    eyeWidthFactor = rois.eyeROI.flatMap { Self.sizeFactor($0.sizeRuleW) } ?? d.eyeWidthFactor
    eyeHeightFactor = rois.eyeROI.flatMap { Self.sizeFactor($0.sizeRuleH) } ?? d.eyeHeightFactor
    if !minLandmarkConfidence.isFinite || minLandmarkConfidence <= 0 {
      self.minLandmarkConfidence = d.minLandmarkConfidence
    } else {
      self.minLandmarkConfidence = min(minLandmarkConfidence, 1)
    }
  }

  /// The coefficients of a loaded document (its `rois` and `defaults.minLandmarkConfidence`).
  init(_ spec: PoseSpecDocument) {
    self.init(rois: spec.rois, minLandmarkConfidence: spec.defaults.minLandmarkConfidence)
  }

  /// The leading number of a size rule: "2.2 * interOcularDistance" → 2.2. As [C] `parseCoeff`:
  /// whitespace is ignored and the text before the first `*` must be a whole number literal;
  /// nil (use the default) otherwise, or when the number is not finite.
  static func sizeFactor(_ rule: String) -> Double? {
    let compact = String(rule.unicodeScalars.filter { !$0.properties.isWhitespace })
    guard let star = compact.firstIndex(of: "*"), let v = Double(compact[..<star]), v.isFinite else {
      return nil
    }
    return v
  }
}

/// Why a named ROI has no rectangles (ENGINE §2.7); `reason` is a stable snake_case string.
struct ROIUnavailable: Error, Equatable, Sendable {
  var reason: String

  static let missingFaceROI = ROIUnavailable(reason: "missing_faceROI")
  static let missingEyeROI = ROIUnavailable(reason: "missing_eyeROI")
  /// The ROI's geometry is empty (e.g. bgROI when the face fills the frame).
  static func empty(_ name: ROIName) -> ROIUnavailable { ROIUnavailable(reason: "empty_\(name.rawValue)") }
}

/// A named ROI as a set of normalized rects, pooled by pixel count by `PixelMetrics`.
typealias ROIRects = Result<[Rect], ROIUnavailable>

/// The ROI names the engine knows: the three PS `rois` and the [D] ones of §2.7 / §8 G-9.
enum ROIName: String, CaseIterable, Sendable {
  case faceROI, eyeROI, bgROI
  case faceLeftHalf, faceRightHalf
  case bgRingROI = "BG_Ring_ROI"
  case upperBGROI, skyROI, top10pctFrame
}

/// The ROIs of one canonical (y-down) face: ENGINE §2.7 geometry per [P], eye gating per [C].
///
/// `faceROI` and `eyeROI` are nil when unavailable; every other ROI derives from them on
/// demand through `rects(named:)`.
struct ROISet: Equatable, Sendable {
  /// The padded face bbox intersected with [0,1]²; nil without a face or when that is empty.
  var faceROI: Rect?
  /// One rect at eyeMid, `eyeWidthFactor·d × eyeHeightFactor·d`, clamped; nil unless both
  /// eyes are confident and the clamped rect is non-empty.
  var eyeROI: Rect?

  /// The rects of the ROI called `name`, or nil for a name the engine does not know.
  func rects(named name: String) -> ROIRects? {
    ROIName(rawValue: name).map { rects($0) }
  }

  /// The rects of `name`. Multiple rects never overlap except along shared edges.
  func rects(_ name: ROIName) -> ROIRects {
    switch name {
    case .faceROI:
      guard let faceROI else { return .failure(.missingFaceROI) }
      return .success([faceROI])
    case .eyeROI:
      guard let eyeROI else { return .failure(.missingEyeROI) }
      return .success([eyeROI])
    case .bgROI, .bgRingROI:
      let ring = ROIGeometry.ring(ROIGeometry.unit, minus: faceROI)
      return ring.isEmpty ? .failure(.empty(.bgROI)) : .success(ring)
    case .faceLeftHalf, .faceRightHalf:
      guard let f = faceROI else { return .failure(.missingFaceROI) }
      let leftW = f.w / 2
      return .success([
        name == .faceLeftHalf
          ? Rect(x: f.x, y: f.y, w: leftW, h: f.h) : Rect(x: f.x + leftW, y: f.y, w: f.w - leftW, h: f.h)
      ])
    case .upperBGROI:
      guard let f = faceROI else { return .failure(.missingFaceROI) }
      let band = Rect(x: 0, y: 0, w: 1, h: f.y)
      return ROIGeometry.isKept(band) ? .success([band]) : .failure(.empty(.upperBGROI))
    case .skyROI:
      let sky = ROIGeometry.ring(Rect(x: 0, y: 0, w: 1, h: 1.0 / 3.0), minus: faceROI)
      return sky.isEmpty ? .failure(.empty(.skyROI)) : .success(sky)
    case .top10pctFrame:
      return .success([Rect(x: 0, y: 0, w: 1, h: 0.10)])
    }
  }
}

/// ROI geometry of ENGINE §2.7 in canonical normalized space (x right, y down, [0,1]²).
enum ROIGeometry {
  static let unit = Rect(x: 0, y: 0, w: 1, h: 1)
  /// [C] drops ring rects with a side ≤ this.
  static let minRingSide = 0.0001

  /// The ROIs of `face` (nil = no face in the frame: faceROI and eyeROI unavailable).
  static func rois(_ face: FaceObservation?, _ k: ROICoefficients = .standard) -> ROISet {
    guard let face else { return ROISet(faceROI: nil, eyeROI: nil) }
    return ROISet(faceROI: faceROI(bbox: face.bbox, k), eyeROI: eyeROI(face, k))
  }

  /// The rects of the ROI called `name` for `face`; nil for an unknown name.
  static func rects(named name: String, face: FaceObservation?, _ k: ROICoefficients = .standard) -> ROIRects? {
    rois(face, k).rects(named: name)
  }

  /// `(x − px·w, y − py·h, (1 + 2px)·w, (1 + 2py)·h)` ∩ [0,1]²; nil when that is empty.
  static func faceROI(bbox b: Rect, _ k: ROICoefficients) -> Rect? {
    let dx = b.w * k.facePaddingX
    let dy = b.h * k.facePaddingY
    return clampToUnit(Rect(x: b.x - dx, y: b.y - dy, w: b.w + 2 * dx, h: b.h + 2 * dy))
  }

  /// The [P] eyeROI: centred on mid(leftEye, rightEye), `eyeWidthFactor·d × eyeHeightFactor·d`
  /// with d the inter-ocular distance, clamped to [0,1]². nil unless both eyes are present and
  /// confident (§8 G-11), or when the clamped rect is empty (coincident eyes: d = 0).
  static func eyeROI(_ face: FaceObservation, _ k: ROICoefficients) -> Rect? {
    guard let l = face.leftEye, let r = face.rightEye,
      isConfident(l, minLandmarkConfidence: k.minLandmarkConfidence),
      isConfident(r, minLandmarkConfidence: k.minLandmarkConfidence)
    else { return nil }
    let dx = r.x - l.x
    let dy = r.y - l.y
    let d = (dx * dx + dy * dy).squareRoot()
    let w = max(0, k.eyeWidthFactor * d)
    let h = max(0, k.eyeHeightFactor * d)
    let cx = (l.x + r.x) / 2
    let cy = (l.y + r.y) / 2
    return clampToUnit(Rect(x: cx - w / 2, y: cy - h / 2, w: w, h: h))
  }

  /// The [C] eye keep rule (`ROIComputer.shouldKeepEyeLandmark`), our reading of "eye
  /// confidence ≥ minLandmarkConfidence" (§2.7, §8 G-11):
  /// (conf nil or ≥ min) ∧ (precMax nil or ≤ 0.012) ∧ (ear nil or ≥ 0.20) ∧ (precMax or conf
  /// present). An eye with neither signal is not confident. Unlike [C] (where NaN compares
  /// false and slips through), a non-finite conf, precMax or ear also fails the rule.
  static func isConfident(_ eye: EyePoint, minLandmarkConfidence: Double) -> Bool {
    guard eye.x.isFinite, eye.y.isFinite else { return false }
    if let c = eye.conf, !(c.isFinite && c >= minLandmarkConfidence) { return false }
    if let p = eye.precMax, !(p.isFinite && p <= ROICoefficients.eyePrecisionMax) { return false }
    if let e = eye.ear, !(e.isFinite && e >= ROICoefficients.eyeAspectRatioMin) { return false }
    return eye.precMax != nil || eye.conf != nil
  }

  /// `frame` minus `hole` as up to 4 rects, in this order: above the hole (full frame width),
  /// below it (full width), left and right of it (the hole's height within `frame`). Rects with
  /// a side ≤ 0.0001 are dropped. No hole, or a hole that misses `frame`, gives `[frame]`.
  static func ring(_ frame: Rect, minus hole: Rect?) -> [Rect] {
    guard let hole, let m = intersection(frame, hole) else { return isKept(frame) ? [frame] : [] }
    let pieces = [
      Rect(x: frame.x, y: frame.y, w: frame.w, h: m.y - frame.y),
      Rect(x: frame.x, y: m.maxY, w: frame.w, h: frame.maxY - m.maxY),
      Rect(x: frame.x, y: m.y, w: m.x - frame.x, h: m.h),
      Rect(x: m.maxX, y: m.y, w: frame.maxX - m.maxX, h: m.h),
    ]
    return pieces.filter(isKept)
  }

  /// Whether a ring piece survives the [C] size filter (both sides > 0.0001).
  static func isKept(_ r: Rect) -> Bool { r.w > minRingSide && r.h > minRingSide }

  /// `r` (standardized: negative sizes flipped) ∩ [0,1]²; nil when non-finite or empty.
  static func clampToUnit(_ r: Rect) -> Rect? { intersection(unit, r) }

  /// The intersection of two rects; nil when a coordinate is not finite or the result has a
  /// zero (or negative) width or height, as `CGRect.isEmpty`.
  static func intersection(_ a: Rect, _ b: Rect) -> Rect? {
    let a = standardized(a)
    let b = standardized(b)
    guard a.x.isFinite, a.y.isFinite, a.w.isFinite, a.h.isFinite,
      b.x.isFinite, b.y.isFinite, b.w.isFinite, b.h.isFinite
    else { return nil }
    let x0 = max(a.x, b.x)
    let y0 = max(a.y, b.y)
    let x1 = min(a.maxX, b.maxX)
    let y1 = min(a.maxY, b.maxY)
    guard x1 > x0, y1 > y0 else { return nil }
    return Rect(x: x0, y: y0, w: x1 - x0, h: y1 - y0)
  }

  /// `r` with a negative width or height turned into a positive one over the same area.
  static func standardized(_ r: Rect) -> Rect {
    var s = r
    if s.w < 0 {
      s.x += s.w
      s.w = -s.w
    }
    if s.h < 0 {
      s.y += s.h
      s.h = -s.h
    }
    return s
  }
}
