import EngineIO
import PoseSpec

/// A subject face as the metrics read it (ENGINE §2.6, §3.4.2): its points, with eyes below
/// `minLandmarkConfidence` absent, and the values the gate and the catalogue use. Without a
/// face, `present` is false and nothing else is set.
struct FacePoints {
  var present: Bool
  var bbox: Rect
  var leftEyeCenter: Point2?
  var rightEyeCenter: Point2?
  var noseTip: Point2?
  /// [C] chinCenter := (faceBBox.midX, faceBBox.maxY) when no chin is recorded.
  var chinCenter: Point2
  var mouthCenter: Point2?
  var eyeAR: Double?
  var leftEAR: Double?
  var rightEAR: Double?
  var landmarkConfAvg: Double?
  /// The eyes' confidences for the gate (1.0 when not recorded); nil without the eye.
  var leftEyeConf: Double?
  var rightEyeConf: Double?

  init(_ face: FaceObservation?, minLandmarkConfidence minConf: Double) {
    guard let face else {
      present = false
      bbox = Rect(x: 0, y: 0, w: 0, h: 0)
      chinCenter = Point2(x: 0, y: 0)
      return
    }
    present = true
    func eye(_ e: EyePoint?) -> Point2? {
      guard let e, (e.conf ?? 1) >= minConf else { return nil }
      return Point2(x: e.x, y: e.y)
    }
    bbox = face.bbox
    leftEyeCenter = eye(face.leftEye)
    rightEyeCenter = eye(face.rightEye)
    noseTip = face.noseTip ?? face.nose
    chinCenter = face.chin ?? Point2(x: face.bbox.x + face.bbox.w / 2, y: face.bbox.maxY)
    mouthCenter = face.mouth
    eyeAR = face.eyeAR
    leftEAR = face.leftEye?.ear
    rightEAR = face.rightEye?.ear
    landmarkConfAvg = face.landmarkConfAvg
    leftEyeConf = face.leftEye.map { $0.conf ?? 1 }
    rightEyeConf = face.rightEye.map { $0.conf ?? 1 }
  }

  @inline(__always) subscript(point: FacePoint) -> Point2? {
    switch point {
    case .leftEyeCenter: leftEyeCenter
    case .rightEyeCenter: rightEyeCenter
    case .noseTip: noseTip
    case .chinCenter: chinCenter
    case .mouthCenter: mouthCenter
    }
  }
}
