import CanonicalJSON

/// Milliseconds since the recording start (ENGINE §1.3). Used for every time in the engine.
public typealias Millis = Int64

/// One recorded input of ENGINE §1.5–1.6, stamped with its virtual time.
public struct InputEvent: Equatable, Sendable {
  public var t: Millis
  public var payload: InputPayload
  public init(t: Millis, payload: InputPayload) {
    self.t = t
    self.payload = payload
  }
  public var kind: EventKind {
    switch payload {
    case .landmarks: .landmarks
    case .luma: .luma
    case .generic(let g): g.kind
    }
  }
}

/// The payload of an input event. The hot kinds are typed; every other kind keeps its fields
/// as an ordered JSON object that `EventKind.schema` has validated.
public enum InputPayload: Equatable, Sendable {
  case landmarks(LandmarkFrame)
  case luma(LumaFrame)
  case generic(GenericEvent)
}

/// An input event of any kind other than `landmarks` and `luma`.
public struct GenericEvent: Equatable, Sendable {
  public var kind: EventKind
  /// The event's fields without `t` and `kind`, in the order they were given.
  public var fields: JSONObject
  public init(kind: EventKind, fields: JSONObject = JSONObject()) {
    self.kind = kind
    self.fields = fields
  }
}

/// `coords` of a landmarks event (ENGINE §2.4): canonical is y-down, vision is y-up.
public enum CoordinateConvention: String, Sendable, Equatable {
  case canonical
  case vision
}

/// The 19 body joints of Vision, by PoseSpec name (ENGINE §2.6). Raw values are stable
/// (they index `BodyPose.points` and are part of the `.jprec` landmark encoding).
public enum Joint: Int, CaseIterable, Sendable {
  case nose, neck, leftShoulder, rightShoulder, leftElbow, rightElbow, leftWrist, rightWrist,
    root, leftHip, rightHip, leftKnee, rightKnee, leftAnkle, rightAnkle,
    leftEye, rightEye, leftEar, rightEar

  /// The PoseSpec name without the `body.` prefix, e.g. "leftShoulder".
  public var name: String { Joint.names[rawValue] }
  public init?(name: String) {
    guard let i = Joint.names.firstIndex(of: name) else { return nil }
    self.init(rawValue: i)
  }
  static let names = [
    "nose", "neck", "leftShoulder", "rightShoulder", "leftElbow", "rightElbow", "leftWrist",
    "rightWrist", "root", "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle",
    "rightAnkle", "leftEye", "rightEye", "leftEar", "rightEar",
  ]
}

/// A point with its raw confidence, as recorded (before the 0.5 drop rule).
public struct JointPoint: Equatable, Sendable {
  public var x: Double
  public var y: Double
  public var conf: Double
  public init(x: Double, y: Double, conf: Double) {
    self.x = x
    self.y = y
    self.conf = conf
  }
}

/// One Vision body observation: 19 slots indexed by `Joint.rawValue`, nil = joint not reported.
public struct BodyPose: Equatable, Sendable {
  public var points: [JointPoint?]
  public init(points: [JointPoint?] = Array(repeating: nil, count: Joint.allCases.count)) {
    precondition(points.count == Joint.allCases.count)
    self.points = points
  }
  /// For decoders that already produce exactly one slot per joint (no precondition check).
  @inlinable public init(unchecked points: [JointPoint?]) {
    self.points = points
  }
  @inlinable public subscript(joint: Joint) -> JointPoint? {
    get { points[joint.rawValue] }
    set { points[joint.rawValue] = newValue }
  }
}

public struct Point2: Equatable, Sendable {
  public var x: Double
  public var y: Double
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }
}

/// Axis-aligned rectangle in normalized image coordinates (origin at x, y; size w, h).
public struct Rect: Equatable, Sendable {
  public var x: Double
  public var y: Double
  public var w: Double
  public var h: Double
  public init(x: Double, y: Double, w: Double, h: Double) {
    self.x = x
    self.y = y
    self.w = w
    self.h = h
  }
  public var maxX: Double { x + w }
  public var maxY: Double { y + h }
}

/// An eye centre with the optional quality fields of ENGINE §1.5 / §2.7.
public struct EyePoint: Equatable, Sendable {
  public var x: Double
  public var y: Double
  public var conf: Double?
  public var precMax: Double?
  public var ear: Double?
  public init(x: Double, y: Double, conf: Double? = nil, precMax: Double? = nil, ear: Double? = nil) {
    self.x = x
    self.y = y
    self.conf = conf
    self.precMax = precMax
    self.ear = ear
  }
}

/// One face observation. Points are image-normalized in the frame's `coords` convention
/// (the device adapter maps Vision's bbox-local face points to image space before recording).
public struct FaceObservation: Equatable, Sendable {
  public var bbox: Rect
  public var conf: Double?
  public var leftEye: EyePoint?
  public var rightEye: EyePoint?
  public var nose: Point2?
  public var noseTip: Point2?
  public var chin: Point2?
  public var mouth: Point2?
  public var eyeAR: Double?
  public var landmarkConfAvg: Double?
  public init(
    bbox: Rect, conf: Double? = nil, leftEye: EyePoint? = nil, rightEye: EyePoint? = nil,
    nose: Point2? = nil, noseTip: Point2? = nil, chin: Point2? = nil, mouth: Point2? = nil,
    eyeAR: Double? = nil, landmarkConfAvg: Double? = nil
  ) {
    self.bbox = bbox
    self.conf = conf
    self.leftEye = leftEye
    self.rightEye = rightEye
    self.nose = nose
    self.noseTip = noseTip
    self.chin = chin
    self.mouth = mouth
    self.eyeAR = eyeAR
    self.landmarkConfAvg = landmarkConfAvg
  }
}

/// A `landmarks` event (ENGINE §1.5): one Vision result for one camera frame.
public struct LandmarkFrame: Equatable, Sendable {
  public var frame: Int64
  public var srcT: Millis?
  public var imageW: Int?
  public var imageH: Int?
  public var coords: CoordinateConvention
  /// nil when Vision returned no body observation.
  public var body: BodyPose?
  public var faces: [FaceObservation]
  public var people: Int?
  public var visionMs: Double?
  public init(
    frame: Int64, srcT: Millis? = nil, imageW: Int? = nil, imageH: Int? = nil,
    coords: CoordinateConvention = .canonical, body: BodyPose? = nil,
    faces: [FaceObservation] = [], people: Int? = nil, visionMs: Double? = nil
  ) {
    self.frame = frame
    self.srcT = srcT
    self.imageW = imageW
    self.imageH = imageH
    self.coords = coords
    self.body = body
    self.faces = faces
    self.people = people
    self.visionMs = visionMs
  }
}

/// A `luma` event: an 8-bit full-range luma plane, portrait, row-major, top row first.
public struct LumaFrame: Equatable, Sendable {
  public var frame: Int64
  public var w: Int
  public var h: Int
  public var data: [UInt8]
  public init(frame: Int64, w: Int, h: Int, data: [UInt8]) {
    self.frame = frame
    self.w = w
    self.h = h
    self.data = data
  }
}
