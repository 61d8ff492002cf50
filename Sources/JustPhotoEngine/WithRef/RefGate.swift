import EngineIO

/// A reason a reference image is rejected (ENGINE §3.14, PRD §5.2.1), in check order.
public enum RefGateReason: String, Sendable, CaseIterable {
  case multiPerson = "multi_person"
  case faceTooSmall = "face_too_small"
  case eyesNotVisible = "eyes_not_visible"
  case upperBodyIncomplete = "upper_body_incomplete"

  /// The `{reason}` text of `ref_reject_not_suitable` (§3.14 table) [P].
  public var reasonZh: String {
    switch self {
    case .multiPerson: "画面里有多个人"
    case .faceTooSmall: "脸太小"
    case .eyesNotVisible: "看不到眼睛"
    case .upperBodyIncomplete: "上半身不全"
    }
  }

  public var reasonEn: String {
    switch self {
    case .multiPerson: "There are several people in the frame"
    case .faceTooSmall: "Face too small"
    case .eyesNotVisible: "Eyes not visible"
    case .upperBodyIncomplete: "Upper body incomplete"
    }
  }

  /// The next step appended to the reason. face_too_small is the §3.14 example; the other
  /// three are [D] (the spec only requires "reason + next step").
  public var nextStepZh: String {
    switch self {
    case .multiPerson: "请换一张只有一个人的参考图"
    case .faceTooSmall: "请靠近一些/让脸占画面更大"
    case .eyesNotVisible: "请换一张双眼清晰可见的参考图"
    case .upperBodyIncomplete: "请换一张双肩都在画面内的参考图"
    }
  }

  public var nextStepEn: String {
    switch self {
    case .multiPerson: "pick a reference with only one person"
    case .faceTooSmall: "move closer / make the face larger"
    case .eyesNotVisible: "pick a reference where both eyes are clearly visible"
    case .upperBodyIncomplete: "pick a reference with both shoulders in the frame"
    }
  }

  /// "脸太小：请靠近一些/让脸占画面更大".
  public var messageZh: String { "\(reasonZh)：\(nextStepZh)" }
  /// "Face too small: move closer / make the face larger".
  public var messageEn: String { "\(reasonEn): \(nextStepEn)" }
}

/// The limits of the reference gates (§3.14); the defaults are the spec's numbers.
public struct RefGateLimits: Equatable, Sendable {
  /// A face counts as a person for multi_person when its confidence is ≥ this.
  public var personFaceConfidence = 0.6
  /// face_too_small below this bbox area (share of the image).
  public var minFaceArea = 0.02
  /// face_too_small below this bbox width (share of the image width).
  public var minFaceWidth = 0.12
  /// An eye with a recorded confidence below this is not visible.
  public var minEyeConfidence = 0.5
  /// A shoulder with a confidence below this is missing.
  public var minShoulderConfidence = 0.5

  public init() {}
}

/// The reference gates of ENGINE §3.14, checked on a `ref_analysis` payload.
public enum RefGate {
  /// The prompt a failure shows (L3, `{reason}` = `RefGateReason.reasonZh/En`).
  public static let promptKey = PromptKey.ref_reject_not_suitable

  /// The first failing gate, or nil when the reference is suitable. Order [D]:
  /// 1. multi_person: ≥ 2 faces with confidence ≥ 0.6 (a face without confidence does not count);
  /// 2. face_too_small: the subject face (largest bbox area, tie → centre nearest (0.5, 0.5),
  ///    §3.4.6) has area < 0.02 or width < 0.12; no face at all also fails here (area 0);
  /// 3. eyes_not_visible: an eye of the subject face is absent or not confident — its recorded
  ///    confidence < 0.5, or, without one, it fails the §2.7 keep rule (precision/EAR);
  /// 4. upper_body_incomplete: no body, or a shoulder absent, with confidence < 0.5 (or not
  ///    finite), or outside [0,1]² (the §2.4 drop rule).
  /// `coords` does not matter: the y-flip changes neither sizes nor confidences.
  public static func check(_ frame: LandmarkFrame, limits: RefGateLimits = RefGateLimits()) -> RefGateReason? {
    let confidentFaces = frame.faces.filter { ($0.conf ?? -1) >= limits.personFaceConfidence }
    if confidentFaces.count >= 2 { return .multiPerson }

    guard let face = subjectFace(frame.faces) else { return .faceTooSmall }
    let w = face.bbox.w
    let area = w * face.bbox.h
    guard w.isFinite, area.isFinite, area >= limits.minFaceArea, w >= limits.minFaceWidth else { return .faceTooSmall }

    guard eyeVisible(face.leftEye, limits), eyeVisible(face.rightEye, limits) else { return .eyesNotVisible }

    guard let body = frame.body, shoulderKept(body[.leftShoulder], limits), shoulderKept(body[.rightShoulder], limits)
    else { return .upperBodyIncomplete }
    return nil
  }

  /// The largest face by bbox area; ties go to the centre nearest (0.5, 0.5), then the first.
  static func subjectFace(_ faces: [FaceObservation]) -> FaceObservation? {
    var best: (face: FaceObservation, area: Double, dist: Double)?
    for f in faces {
      let area = f.bbox.w * f.bbox.h
      let dx = f.bbox.x + f.bbox.w / 2 - 0.5
      let dy = f.bbox.y + f.bbox.h / 2 - 0.5
      let dist = dx * dx + dy * dy
      let a = area.isFinite ? area : -1
      if let b = best, !(a > b.area || (a == b.area && dist < b.dist)) { continue }
      best = (f, a, dist)
    }
    return best?.face
  }

  /// An eye is visible when its recorded confidence is ≥ the limit, or, without one, when it
  /// passes the §2.7 keep rule (`ROIGeometry.isConfident`).
  static func eyeVisible(_ eye: EyePoint?, _ limits: RefGateLimits) -> Bool {
    guard let eye else { return false }
    if let c = eye.conf { return c.isFinite && c >= limits.minEyeConfidence && eye.x.isFinite && eye.y.isFinite }
    return ROIGeometry.isConfident(eye, minLandmarkConfidence: limits.minEyeConfidence)
  }

  static func shoulderKept(_ p: JointPoint?, _ limits: RefGateLimits) -> Bool {
    guard let p, p.conf.isFinite, p.conf >= limits.minShoulderConfidence else { return false }
    return p.x >= 0 && p.x <= 1 && p.y >= 0 && p.y <= 1
  }
}
