import EngineIO

/// Why a joint was not kept by the drop rule of ENGINE §2.4.
enum JointDropReason: String, Sendable {
  /// The event has no body, or the body does not report this joint.
  case missingInput = "missing_input"
  /// Confidence non-finite or below `minLandmarkConfidence`.
  case lowConf = "low_conf"
  /// The raw point lies outside [0,1]².
  case outOfRange = "out_of_range"
}

/// A `landmarks` event in canonical space (portrait, y down) with the joint drop rule applied.
struct CanonicalFrame: Sendable {
  var frame: Int64
  /// Whether Vision returned a body observation at all.
  var hasBody: Bool
  /// Kept joints in canonical coordinates, indexed by `Joint.rawValue`.
  var kept: [Point2?]
  /// For every joint: nil when kept, else why it was dropped.
  var dropReasons: [JointDropReason?]
  /// Raw confidence of every joint present in the event (dropped or not), nil when absent.
  /// The confidence gate (§3.4.2) averages these.
  var rawConfidence: [Double?]
  /// Faces in canonical coordinates, Vision order.
  var faces: [FaceObservation]
  var people: Int?

  subscript(joint: Joint) -> Point2? { kept[joint.rawValue] }

  /// Whether this result tracks anybody (a kept joint or a face), for `trackingLost` (§3.4.4).
  var isTracked: Bool { !faces.isEmpty || kept.contains { $0 != nil } }

  /// No result yet (frame −1, no body, every joint missing): what a T1 tick before the first
  /// accepted T0 result evaluates against. Built once.
  static let none = CanonicalFrame(
    frame: -1, hasBody: false, kept: Array(repeating: nil, count: Canonicalizer.jointCount),
    dropReasons: Array(repeating: .missingInput, count: Canonicalizer.jointCount),
    rawConfidence: Array(repeating: nil, count: Canonicalizer.jointCount), faces: [], people: nil)

  /// No joint slots at all (empty arrays, which cost no reference counting): what a metric
  /// context holds for the instant its frame is moved out (`MetricContext.takeFrame`); never
  /// read.
  static let empty = CanonicalFrame(frame: -1, hasBody: false, kept: [], dropReasons: [], rawConfidence: [], faces: [], people: nil)
}

/// Canonicalization of ENGINE §2.4: `coords:"vision"` input is y-flipped (points
/// `(x, 1−y)`, rects `y' = 1 − (y + h)`); a joint is kept iff its confidence is finite and
/// ≥ `minLandmarkConfidence` (clamped to [0,1]) and its raw point lies in [0,1]².
enum Canonicalizer {
  /// `Joint.allCases.count`, once (`allCases` builds its array on every call).
  static let jointCount = Joint.allCases.count

  static func canonicalize(_ event: LandmarkFrame, minLandmarkConfidence: Double) -> CanonicalFrame {
    let count = jointCount
    var frame = CanonicalFrame(
      frame: event.frame, hasBody: false, kept: [Point2?](repeating: nil, count: count),
      dropReasons: [JointDropReason?](repeating: .missingInput, count: count),
      rawConfidence: [Double?](repeating: nil, count: count), faces: [], people: nil)
    canonicalize(event, minLandmarkConfidence: minLandmarkConfidence, into: &frame)
    return frame
  }

  /// The same, written over `frame` (an earlier result): its arrays are reused in place when
  /// nothing else holds them, so the per-frame path allocates nothing.
  static func canonicalize(_ event: LandmarkFrame, minLandmarkConfidence: Double, into frame: inout CanonicalFrame) {
    let threshold = min(max(minLandmarkConfidence, 0), 1)
    let count = jointCount
    frame.frame = event.frame
    frame.hasBody = event.body != nil
    frame.people = event.people
    if frame.kept.count != count || frame.dropReasons.count != count || frame.rawConfidence.count != count {
      frame.kept = [Point2?](repeating: nil, count: count)
      frame.dropReasons = [JointDropReason?](repeating: .missingInput, count: count)
      frame.rawConfidence = [Double?](repeating: nil, count: count)
    }
    let points = event.body?.points ?? []
    let coords = event.coords
    // One pass over the three arrays through buffer pointers (one uniqueness check each, not
    // one per element written).
    frame.kept.withUnsafeMutableBufferPointer { kept in
      frame.dropReasons.withUnsafeMutableBufferPointer { drop in
        frame.rawConfidence.withUnsafeMutableBufferPointer { raw in
          for i in 0..<count {
            kept[i] = nil
            drop[i] = .missingInput
            raw[i] = nil
            guard i < points.count, let p = points[i] else { continue }
            raw[i] = p.conf
            if !p.conf.isFinite || p.conf < threshold {
              drop[i] = .lowConf
            } else if !Self.inUnitSquare(p.x, p.y) {
              drop[i] = .outOfRange
            } else {
              drop[i] = nil
              kept[i] = point(x: p.x, y: p.y, coords)
            }
          }
        }
      }
    }
    frame.faces.removeAll(keepingCapacity: true)
    for f in event.faces { frame.faces.append(face(f, event.coords)) }
  }

  static func inUnitSquare(_ x: Double, _ y: Double) -> Bool {
    x.isFinite && y.isFinite && x >= 0 && x <= 1 && y >= 0 && y <= 1
  }

  /// A point in canonical space: vision (y-up) points are flipped, canonical ones kept.
  static func point(x: Double, y: Double, _ coords: CoordinateConvention) -> Point2 {
    coords == .vision ? Point2(x: x, y: 1 - y) : Point2(x: x, y: y)
  }

  /// A rect in canonical space: for vision input `y' = 1 − (y + h)`.
  static func rect(_ r: Rect, _ coords: CoordinateConvention) -> Rect {
    coords == .vision ? Rect(x: r.x, y: 1 - (r.y + r.h), w: r.w, h: r.h) : r
  }

  static func face(_ f: FaceObservation, _ coords: CoordinateConvention) -> FaceObservation {
    guard coords == .vision else { return f }
    return f.mapped(point: { Point2(x: $0.x, y: 1 - $0.y) }, rect: { rect($0, coords) })
  }
}

extension FaceObservation {
  /// The face with every point (eyes keep their quality fields) and its bbox transformed.
  func mapped(point: (Point2) -> Point2, rect: (Rect) -> Rect) -> FaceObservation {
    func eye(_ e: EyePoint?) -> EyePoint? {
      guard var e else { return nil }
      let q = point(Point2(x: e.x, y: e.y))
      (e.x, e.y) = (q.x, q.y)
      return e
    }
    var out = self
    out.bbox = rect(bbox)
    out.leftEye = eye(leftEye)
    out.rightEye = eye(rightEye)
    out.nose = nose.map(point)
    out.noseTip = noseTip.map(point)
    out.chin = chin.map(point)
    out.mouth = mouth.map(point)
    return out
  }
}

/// Subject choice of ENGINE §3.4.6 ([D] G-20): the face with the largest bbox area, ties to
/// the one nearest the frame centre, then Vision order. (`subject_tap` comes later.)
enum SubjectChoice {
  static func face(_ faces: [FaceObservation]) -> FaceObservation? { index(faces).map { faces[$0] } }

  /// The index of the subject face: largest bbox area, ties to the nearest centre, then the
  /// first in Vision order.
  static func index(_ faces: [FaceObservation]) -> Int? {
    guard !faces.isEmpty else { return nil }
    func area(_ f: FaceObservation) -> Double { f.bbox.w * f.bbox.h }
    func centreDistance(_ f: FaceObservation) -> Double {
      let dx = f.bbox.x + f.bbox.w / 2 - 0.5
      let dy = f.bbox.y + f.bbox.h / 2 - 0.5
      return dx * dx + dy * dy
    }
    var best = 0
    for i in faces.indices.dropFirst() {
      let f = faces[i]
      let b = faces[best]
      if area(f) > area(b) || (area(f) == area(b) && centreDistance(f) < centreDistance(b)) { best = i }
    }
    return best
  }
}

extension CanonicalFrame {
  /// The frame mirrored about x = 0.5 with labels kept (`mirrorMode=points`, §3.13f [P]):
  /// every point `x' = 1 − x`, every rect `x' = 1 − (x + w)`.
  func mirroredX() -> CanonicalFrame {
    var m = self
    m.kept = kept.map { $0.map { Point2(x: 1 - $0.x, y: $0.y) } }
    m.faces = faces.map {
      $0.mapped(
        point: { Point2(x: 1 - $0.x, y: $0.y) }, rect: { Rect(x: 1 - ($0.x + $0.w), y: $0.y, w: $0.w, h: $0.h) })
    }
    return m
  }
}
