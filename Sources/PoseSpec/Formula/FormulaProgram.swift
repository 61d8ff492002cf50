/// The compiled, typed form of PoseSpec formulas (ENGINE §2.9–2.11).
///
/// The compiler resolves every name at load time — formula variables, binding aliases,
/// the [D] bindings of §2.5, catalogue inputs, ROIs, `target.*` — and type-checks the result,
/// so the engine evaluates a closed tree: no name lookups and no string work per frame.
/// What each input means on a frame is the engine's business (`JustPhotoEngine`); this module
/// only names them.

/// The static type of a compiled expression.
public enum FormulaType: String, Equatable, Sendable {
  case scalar, point, rect
  /// A set of landmarks (`bodyPoints`, `faceLandmarks`): only an argument of `bbox` and
  /// `avgConfidence`.
  case points
  /// A region of the frame: only an argument of the pixel functions.
  case roi
}

/// Face inputs that are points (ENGINE §2.6).
public enum FacePoint: String, Equatable, Sendable, CaseIterable {
  case leftEyeCenter, rightEyeCenter, noseTip, chinCenter, mouthCenter
}

/// Scalars the engine reads from recorded events rather than computing from landmarks
/// (ENGINE §2.10 "source of value").
public enum CatalogueScalar: String, Equatable, Sendable, CaseIterable {
  /// `face.eyeAR` (recorded `eye_ar`), OUT_03.
  case eyeAR
  /// `white_balance.temp_k` / `left_k` / `right_k`, CAFE_05/06.
  case colorTempK, colorTempLeftK, colorTempRightK
  /// `device_motion.rms`, CAFE_10.
  case motionRms
  /// `frame_scalars` only, OUT_05/06.
  case horizonAngleDeg, verticalConvergeDeg
  /// `ref_registration`, OUT_07…10.
  case registrationOffsetX, registrationOffsetY, registrationRotationDeg, registrationScale
  /// `landmarks.people − 1` (or `frame_scalars`), OUT_11.
  case extraPersonCount

  /// Whether the value comes with T0 landmarks (else from T1-side events).
  public var isLandmarkBased: Bool { self == .eyeAR || self == .extraPersonCount }
}

/// Functions of the formula language.
public enum FormulaFunction: String, Equatable, Sendable, CaseIterable {
  case mid, center, bbox, dist, angle, deg, atan2, min, max, abs, log, sqrt, acos, avgConfidence
  case meanLuma, highlightClipPct, shadowClipPct, sobelEdgeDensity

  /// The pixel metrics of ENGINE §2.11 (argument: one ROI).
  public var isPixel: Bool {
    switch self {
    case .meanLuma, .highlightClipPct, .shadowClipPct, .sobelEdgeDensity: true
    default: false
    }
  }
}

/// Field access on points and rects.
public enum FormulaField: String, Equatable, Sendable, CaseIterable {
  case x, y, w, h, minX, minY, maxX, maxY
}

/// A compiled expression.
///
/// Three wrapper nodes mark the places where the PoseSpec's formulas assume another
/// convention than the canonical y-down space (ENGINE §8 G-5…G-7). They evaluate to their
/// operand unless the engine option `angleFix=on` asks for the documented fix:
/// - `verticalDifference`: `a.y − b.y` of two vertical positions, written y-up (G-7;
///   also the `dy` of every `atan2`): negated under angleFix;
/// - `directionAngle`: `deg(atan2(Δy, Δx))`, the inclination of a line through two points
///   (G-5): folded into (−90°, 90°] under angleFix. A lean `deg(atan2(Δx, Δy))`
///   (torsoLeanAngleDeg) is a direction and is never folded (G-6): an inverted torso reads
///   ±180°, not 0°;
/// - `angleDifference`: the difference of two angles (a withRef error): wrapped into
///   (−180°, 180°] under angleFix.
public indirect enum FormulaExpr: Equatable, Sendable {
  case constant(Double)
  /// A body joint by Vision/PoseSpec name (`leftShoulder`): a point, unavailable if dropped.
  case joint(String)
  case facePoint(FacePoint)
  case faceBBox
  /// The cue's `body.*` landmarks that survive the drop rule (`binding.sets.bodyPoints`).
  case bodyPoints
  /// `face.landmarks`: only inside `avgConfidence` (recorded `landmark_conf_avg`, else 1.0).
  case faceLandmarks
  case catalogue(CatalogueScalar)
  /// A ROI by name; only as the argument of a pixel function.
  case roi(String)
  /// `target.<metric>` of the current reference (withRef).
  case target(String)
  /// The value of the formula's n-th assignment (0-based).
  case local(Int)
  case negate(FormulaExpr)
  case binary(FormulaOperator, FormulaExpr, FormulaExpr)
  case call(FormulaFunction, [FormulaExpr])
  case field(FormulaExpr, FormulaField)
  case verticalDifference(FormulaExpr)
  case directionAngle(FormulaExpr)
  case angleDifference(FormulaExpr)
}

/// One assignment of a cue's formula, compiled.
public struct CompiledAssignment: Equatable, Sendable {
  public var name: String
  public var expression: FormulaExpr
  public var type: FormulaType
  /// Whether the value is an angle in degrees (a `deg(…)` result or a copy of one).
  public var isAngle: Bool
  /// `frame_scalars` names that override the computed value (ENGINE §2.11), most specific
  /// first: the name, and for a direct pixel call `<name>_<ROI>` (e.g. `clip_faceROI`).
  public var overrideKeys: [String]
}

/// A compiled error expression (noRef or withRef).
public struct CompiledError: Equatable, Sendable {
  /// The expression as written (or the variable name it came from).
  public var text: String
  public var source: ErrorSource
  public var expression: FormulaExpr
}

/// One cue, compiled.
public struct CueProgram: Equatable, Sendable {
  public var cueId: String
  /// The formula's assignments in order (`local(i)` refers to `assignments[i]`).
  public var assignments: [CompiledAssignment]
  /// nil when the cue has no noRef trigger (OUT_07…10) or is the system fallback.
  public var noRefError: CompiledError?
  /// nil when `trigger.withRef` is null. Without an explicit `error`, the noRef error
  /// expression (ENGINE §3.2: OUT_07…10 errors are already relative).
  public var withRefError: CompiledError?
  /// Body joints the evaluated expressions read directly (not through `bodyPoints`), in
  /// first-use order: each must be kept for the cue to be available (§3.4.1).
  public var requiredJoints: [String]
  /// Face points / bbox the expressions read; a face is then required.
  public var requiredFacePoints: [FacePoint]
  public var usesFaceBBox: Bool
  public var usesBodyPoints: Bool
  /// Fewest kept `bodyPoints` for `bbox(bodyPoints)`: 1 when the box is only used for its
  /// `maxY` (bottomMargin), else 2 with a height (ENGINE §2.10).
  public var bodyBoxMinPoints: Int
  public var catalogueInputs: [CatalogueScalar]
  /// ROIs read by pixel functions, first-use order.
  public var rois: [String]
  /// `target.*` metrics read (withRef error).
  public var targets: [String]
  /// Whether any expression needs pixels (a pixel function) or T1-side scalars.
  public var needsPixels: Bool
  /// FRAME_GENERAL (`computeTier == "fallback"`): its formula is a label, not compiled.
  public var isSystemFallback: Bool

  public init(
    cueId: String, assignments: [CompiledAssignment], noRefError: CompiledError?, withRefError: CompiledError?,
    requiredJoints: [String], requiredFacePoints: [FacePoint], usesFaceBBox: Bool, usesBodyPoints: Bool,
    bodyBoxMinPoints: Int, catalogueInputs: [CatalogueScalar], rois: [String], targets: [String],
    needsPixels: Bool, isSystemFallback: Bool
  ) {
    self.cueId = cueId
    self.assignments = assignments
    self.noRefError = noRefError
    self.withRefError = withRefError
    self.requiredJoints = requiredJoints
    self.requiredFacePoints = requiredFacePoints
    self.usesFaceBBox = usesFaceBBox
    self.usesBodyPoints = usesBodyPoints
    self.bodyBoxMinPoints = bodyBoxMinPoints
    self.catalogueInputs = catalogueInputs
    self.rois = rois
    self.targets = targets
    self.needsPixels = needsPixels
    self.isSystemFallback = isSystemFallback
  }
}

/// The compiled spec: one program per cue, in spec order.
public struct SpecProgram: Equatable, Sendable {
  public var cues: [CueProgram]
  public init(cues: [CueProgram]) { self.cues = cues }
}
