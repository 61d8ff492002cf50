import CanonicalJSON

/// Milliseconds since the recording start (ENGINE §1.3). Used for every time in the engine.
public typealias Millis = Int64

/// One recorded input of ENGINE §1.5–1.6, stamped with its virtual time.
public struct InputEvent: Equatable, Sendable {
  /// When the event happened, in ms since the recording start. The readers hand out only
  /// `t ≥ 0`, in non-decreasing order, and at most `RecordingLimits.durationMsMax`.
  public var t: Millis
  /// What happened; its case decides ``kind``.
  public var payload: InputPayload
  /// An event at `t` carrying `payload`.
  @inlinable public init(t: Millis, payload: InputPayload) {
    self.t = t
    self.payload = payload
  }
  /// The kind as files spell it, for every engine: a typed event's or a named event's kind
  /// name (`landmarks` and `luma` for the hot payloads).
  public var kindName: String {
    switch payload {
    case .landmarks: InputPayload.landmarksKind
    case .luma: InputPayload.lumaKind
    case .typed(let g): g.kind
    case .named(let n): n.kind
    }
  }

  /// The bytes of the event's bulk data (a luma plane's pixels; 0 for every other payload),
  /// for readers that bound the memory of the events they hold ahead of the replay.
  public var bulkBytes: Int {
    if case .luma(let l) = payload { return l.data.count }
    return 0
  }

  /// The fields of a JSON-carried event (typed or named) without `t` and `kind`; nil for the
  /// hot `landmarks` and `luma` payloads.
  public var jsonFields: JSONObject? {
    switch payload {
    case .landmarks, .luma: nil
    case .typed(let g): g.fields
    case .named(let n): n.fields
    }
  }
}

/// The payload of an input event. The hot kinds are typed; every other kind keeps its fields
/// as an ordered JSON object, beside the typed value its engine's vocabulary decoded them into.
public enum InputPayload: Equatable, Sendable {
  /// The kind name of a ``landmarks(_:)`` event as files spell it (its kind-table entry).
  public static let landmarksKind = "landmarks"
  /// The kind name of a ``luma(_:)`` event as files spell it (its kind-table entry).
  public static let lumaKind = "luma"

  /// One Vision result (T0 input).
  case landmarks(LandmarkFrame)
  /// One luma thumbnail (T1 input).
  case luma(LumaFrame)
  /// An event its engine's vocabulary decoded when it was made: the kind name, the fields as
  /// recorded and the engine's typed value (Just Photo's non-hot kinds).
  case typed(TypedEvent)
  /// An event of another engine (the recording header's `engine` names it): an open kind name
  /// and its fields, which that engine's vocabulary checks and its plug-in decodes.
  case named(NamedEvent)
}

/// An input event of an engine whose recordings hold named events: its kind is a name the
/// engine's vocabulary declares (not a typed kind of the definitions a reader was handed), its
/// fields an ordered JSON object.
public struct NamedEvent: Equatable, Sendable {
  /// The kind name as the JSONL `kind` field spells it.
  public var kind: String
  /// The event's fields without `t` and `kind`, in the order they were given.
  public var fields: JSONObject
  /// An event of kind `kind` with `fields` in the order they are to be written.
  public init(kind: String, fields: JSONObject = JSONObject()) {
    self.kind = kind
    self.fields = fields
  }
}

/// How an engine's vocabulary turns an event's recorded fields into its typed value, once, when
/// the event is made (a reader, a scenario generator, a test): the typed value travels with the
/// event in a ``TypedEvent`` and the engine handles it without reading JSON.
///
/// Example: Just Photo's `JustPhotoEvents` decodes `{"state": "serious"}` of kind `thermal` into
/// its `CoachEvent.thermal`.
public protocol EventDecoding {
  /// The engine's typed event.
  associatedtype Decoded: Sendable
  /// The typed form of an event of `kind` with `fields`.
  ///
  /// - Parameters:
  ///   - kind: the kind name as files spell it.
  ///   - fields: the event's fields without `t` and `kind`.
  /// - Returns: the typed value; throws why the fields do not match the kind's definition.
  static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> Decoded
}

/// An input event of a kind its engine's vocabulary decodes (every kind but the hot typed
/// payloads), decoded once when it is made: its kind name and fields as recorded (what the
/// writers write back, in their order, so a file round-trips byte for byte) and the typed value
/// the engine handles, boxed so the event stays a few words wide as it travels through queues
/// (these events are rare; one allocation each).
public struct TypedEvent: Equatable, Sendable {
  /// The kind name as files spell it.
  public let kind: String
  /// The event's fields without `t` and `kind`, in the order they were given.
  public let fields: JSONObject
  private let box: DecodedBox

  /// An event of `kind` with `fields`, decoded by `decoding` (see ``decodingError``).
  ///
  /// - Parameters:
  ///   - decoding: the engine's decoder.
  ///   - kind: the kind name.
  ///   - fields: the fields in the order they are to be written.
  public init<D: EventDecoding>(_ decoding: D.Type, kind: String, fields: JSONObject = JSONObject()) {
    self.kind = kind
    self.fields = fields
    let definitions = D.self as? any EventDefinitions.Type
    do { box = DecodedBox(.success(try D.decode(kind: kind, fields: fields)), definitions) } catch {
      box = DecodedBox(.failure(error), definitions)
    }
  }

  /// The vocabulary that decoded this event, when it states its kinds' fields and channels
  /// (what the JSONL writer orders the fields by); nil for a bare ``EventDecoding``.
  public var definitions: (any EventDefinitions.Type)? { box.definitions }

  /// The typed value as `T` (the decoder's `Decoded`), or why the fields do not match the kind's
  /// definition. A value another engine's decoder made is refused like bad fields.
  public func decoded<T: Sendable>(as _: T.Type) -> Result<T, EventDecodingError> {
    switch box.value {
    case .success(let v):
      if let typed = v as? T { return .success(typed) }
      return .failure(EventDecodingError(kindName: kind, field: nil, "decoded by another engine's vocabulary"))
    case .failure(let e): return .failure(e)
    }
  }

  /// Why the fields do not match the kind's definition; nil when they do.
  public var decodingError: EventDecodingError? {
    if case .failure(let e) = box.value { e } else { nil }
  }

  /// Equal kinds and fields (the typed value follows from them).
  public static func == (a: TypedEvent, b: TypedEvent) -> Bool { a.kind == b.kind && a.fields == b.fields }
}

/// The decoded form of a ``TypedEvent``, boxed once per event.
final class DecodedBox: Sendable {
  let value: Result<any Sendable, EventDecodingError>
  let definitions: (any EventDefinitions.Type)?
  init(_ value: Result<any Sendable, EventDecodingError>, _ definitions: (any EventDefinitions.Type)?) {
    self.value = value
    self.definitions = definitions
  }
}

/// Why an event's fields do not match its kind's definition: `<kind>: missing field "f" (…)`,
/// `<kind>: field "f": expected …, found …`, or `<kind>: unknown field "f" (expected …)`.
public struct EventDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The event's kind name as recorded.
  public var kindName: String
  /// The top-level field at fault, when there is one.
  public var field: String?
  /// What was wrong and what was expected, after the kind.
  public var problem: String

  /// A refusal of an event of kind `kindName`.
  ///
  /// - Parameters:
  ///   - kindName: the kind as recorded.
  ///   - field: the top-level field at fault, if one is.
  ///   - problem: what was wrong and what was expected.
  public init(kindName: String, field: String?, _ problem: String) {
    self.kindName = kindName
    self.field = field
    self.problem = problem
  }

  /// `<kind>: <problem>`.
  public var description: String { "\(kindName): \(problem)" }
}

/// `coords` of a landmarks event (ENGINE §2.4): canonical is y-down, vision is y-up.
public enum CoordinateConvention: String, Sendable, Equatable {
  /// y grows down from the top-left corner (the default).
  case canonical
  /// y grows up from the bottom-left corner, as Apple Vision reports; the engine flips it
  /// (y' = 1 − y).
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
  /// The joint with PoseSpec name `name` (`leftShoulder`, …); nil for any other name.
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
  /// Normalized image x in [0, 1], growing to the right.
  public var x: Double
  /// Normalized image y in [0, 1], in the frame's `coords` convention.
  public var y: Double
  /// Vision's confidence in [0, 1], unfiltered: the engine drops points below 0.5 itself.
  public var conf: Double
  /// A point at (`x`, `y`) with Vision's confidence `conf`.
  @inlinable public init(x: Double, y: Double, conf: Double) {
    self.x = x
    self.y = y
    self.conf = conf
  }
}

/// One Vision body observation: 19 slots indexed by `Joint.rawValue`, nil = joint not reported.
public struct BodyPose: Equatable, Sendable {
  /// Exactly 19 slots, one per ``Joint`` in raw-value order; nil where Vision reported no point.
  public var points: [JointPoint?]
  /// A pose from 19 slots (all empty by default); any other count is a programming error and traps.
  public init(points: [JointPoint?] = Array(repeating: nil, count: Joint.allCases.count)) {
    precondition(points.count == Joint.allCases.count)
    self.points = points
  }
  /// For decoders that already produce exactly one slot per joint (no precondition check).
  @inlinable public init(unchecked points: [JointPoint?]) {
    self.points = points
  }
  /// The point of `joint`, nil when not reported; setting nil removes it.
  @inlinable public subscript(joint: Joint) -> JointPoint? {
    get { points[joint.rawValue] }
    set { points[joint.rawValue] = newValue }
  }
}

/// A point in normalized image coordinates ([0, 1] on both axes of the portrait image), in
/// the `coords` convention of the event that carries it.
public struct Point2: Equatable, Sendable {
  /// x, growing to the right.
  public var x: Double
  /// y, down or up by the event's `coords`.
  public var y: Double
  /// The point (`x`, `y`).
  @inlinable public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }
}

/// Axis-aligned rectangle in normalized image coordinates (origin at x, y; size w, h).
public struct Rect: Equatable, Sendable {
  /// Left edge, normalized.
  public var x: Double
  /// The corner's y: the top edge in canonical coordinates, the bottom edge in vision coordinates.
  public var y: Double
  /// Width, normalized (≥ 0 in a valid observation).
  public var w: Double
  /// Height, normalized (≥ 0 in a valid observation).
  public var h: Double
  /// A rectangle with its corner at (`x`, `y`) and size `w` × `h`.
  @inlinable public init(x: Double, y: Double, w: Double, h: Double) {
    self.x = x
    self.y = y
    self.w = w
    self.h = h
  }
  /// The right edge, `x + w`.
  public var maxX: Double { x + w }
  /// The far y edge, `y + h` (the bottom edge in canonical coordinates).
  public var maxY: Double { y + h }
}

/// An eye centre with the optional quality fields of ENGINE §1.5 / §2.7.
public struct EyePoint: Equatable, Sendable {
  /// Eye centre x, normalized image coordinates.
  public var x: Double
  /// Eye centre y, in the event's `coords` convention.
  public var y: Double
  /// The eye's confidence in [0, 1] when recorded; Vision gives none for face landmarks,
  /// and the engine treats a missing value as 1.
  public var conf: Double?
  /// The worst (largest) of Vision's per-point precision estimates of the eye region,
  /// normalized; the engine drops an eye whose value is above 0.012.
  public var precMax: Double?
  /// This eye's aspect ratio (minor over major axis of its contour); the engine drops an eye
  /// below 0.20 (closed or squinting) and averages both eyes for `eyeAR` when the face has none.
  public var ear: Double?
  /// An eye centre with whichever quality fields were recorded.
  @inlinable public init(x: Double, y: Double, conf: Double? = nil, precMax: Double? = nil, ear: Double? = nil) {
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
  /// The face box, normalized, in the event's `coords` convention.
  public var bbox: Rect
  /// Vision's confidence in the face observation, [0, 1], when recorded.
  public var conf: Double?
  /// The subject's left eye centre, when reported.
  public var leftEye: EyePoint?
  /// The subject's right eye centre, when reported.
  public var rightEye: EyePoint?
  /// Centre of Vision's nose region; stands in for ``noseTip`` when that is absent.
  public var nose: Point2?
  /// The nose tip, when the recording has it.
  public var noseTip: Point2?
  /// The chin point; without it the engine takes the middle of the box's bottom edge.
  public var chin: Point2?
  /// The mouth centre, when reported.
  public var mouth: Point2?
  /// The face's eye aspect ratio (mean of both eyes, minor over major axis) as the device
  /// computed it; nil lets the engine average the eyes' ``EyePoint/ear`` values.
  public var eyeAR: Double?
  /// Average confidence of the face landmarks, when the device has one; Vision reports none,
  /// so a missing value counts as 1 (full confidence).
  public var landmarkConfAvg: Double?
  /// A face with its box and whichever landmarks were recorded.
  @inlinable public init(
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
  /// Camera frame number; a `luma` event of the same frame carries the same number.
  public var frame: Int64
  /// Capture time of the camera frame, ms since the recording start (`t` is when the result arrived).
  public var srcT: Millis?
  /// Pixel width of the image Vision analysed, when recorded.
  public var imageW: Int?
  /// Pixel height of the image Vision analysed, when recorded.
  public var imageH: Int?
  /// The y convention of every point and box in this event.
  public var coords: CoordinateConvention
  /// nil when Vision returned no body observation.
  public var body: BodyPose?
  /// Face observations in Vision's order; the first is the primary face.
  public var faces: [FaceObservation]
  /// Number of people Vision detected; nil means the engine counts the faces instead.
  public var people: Int?
  /// How long Vision took on this frame, in ms; kept with the recording, unused by the engine.
  public var visionMs: Double?
  /// A Vision result for camera frame `frame`; every other field has the JSONL default.
  @inlinable public init(
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
  /// Camera frame number, shared with the `landmarks` event of the same frame.
  public var frame: Int64
  /// Width in pixels, ≥ 1.
  public var w: Int
  /// Height in pixels, ≥ 1; `w · h` is at most ``pixelsMax``.
  public var h: Int
  /// Exactly `w · h` luma bytes, 0 = black, 255 = white, row by row from the top.
  public var data: [UInt8]
  /// A plane of `w × h` pixels; the decoders check that `data` holds exactly `w · h` bytes.
  public init(frame: Int64, w: Int, h: Int, data: [UInt8]) {
    self.frame = frame
    self.w = w
    self.h = h
    self.data = data
  }
}
