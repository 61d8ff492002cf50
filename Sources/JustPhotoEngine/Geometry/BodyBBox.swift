import EngineIO

/// An axis-aligned box given by its extremes, in canonical coordinates.
struct BBox: Equatable, Sendable {
  var minX: Double
  var minY: Double
  var maxX: Double
  var maxY: Double
  var width: Double { maxX - minX }
  var height: Double { maxY - minY }
  var center: Point2 { Point2(x: minX + width / 2, y: minY + height / 2) }

  init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
    self.minX = minX
    self.minY = minY
    self.maxX = maxX
    self.maxY = maxY
  }

  /// The min/max box of `points` (nil when empty).
  init?(points: [Point2]) {
    guard let first = points.first else { return nil }
    var b = (first.x, first.y, first.x, first.y)
    for p in points.dropFirst() {
      b = (min(b.0, p.x), min(b.1, p.y), max(b.2, p.x), max(b.3, p.y))
    }
    (minX, minY, maxX, maxY) = b
  }
}

/// `bbox(bodyPoints)` of ENGINE §2.10, under the two `bodyPointsScope` options.
enum BodyBBox {
  /// The 14 joints the app extracts (`LandmarkBindings.orderedBodyJoints`: no nose, eyes, ears);
  /// `allJoints` boxes these.
  static let extractedJoints: [Joint] = [
    .neck, .root, .leftShoulder, .rightShoulder, .leftElbow, .rightElbow, .leftWrist, .rightWrist,
    .leftHip, .rightHip, .leftKnee, .rightKnee, .leftAnkle, .rightAnkle,
  ]

  enum Failure: String, Error {
    case insufficientPoints, degenerateBBox
  }

  /// perCue [D]: the box of the cue's kept `body.*` joints. Valid iff at least `minPoints`
  /// points and, when `minPoints ≥ 2`, `maxY > minY` (ENGINE §2.10: ≥ 2 points with a
  /// height; `bottomMargin` alone needs 1 point).
  static func perCue(_ joints: [Joint], in frame: CanonicalFrame, minPoints: Int) -> Result<BBox, Failure> {
    perCue(joints, minPoints: minPoints) { frame[$0] }
  }

  /// ``perCue(_:in:minPoints:)`` with the kept points read through `point`: the formula
  /// evaluator reads them in place from its context's frame (passing the frame copied its four
  /// arrays, four retains and releases per box).
  @inline(__always)
  static func perCue<Joints: Sequence<Joint>>(
    _ joints: Joints, minPoints: Int, point: (Joint) -> Point2?
  ) -> Result<BBox, Failure> {
    // Accumulated in place: this runs for every bbox cue on every frame.
    var box = BBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
    var count = 0
    for j in joints {
      guard let p = point(j) else { continue }
      box.minX = min(box.minX, p.x)
      box.minY = min(box.minY, p.y)
      box.maxX = max(box.maxX, p.x)
      box.maxY = max(box.maxY, p.y)
      count += 1
    }
    guard count >= max(minPoints, 1) else { return .failure(.insufficientPoints) }
    if minPoints >= 2, !(box.maxY > box.minY) { return .failure(.degenerateBBox) }
    return .success(box)
  }

  /// allJoints [C] (`BodyBBoxBuilder`): every kept joint of the 14 extracted; ≥ 3 points,
  /// width > 0 and height > 0; clamped to [0,1]² (kept joints already are).
  static func allJoints(in frame: CanonicalFrame) -> Result<BBox, Failure> {
    let points = extractedJoints.compactMap { frame[$0] }
    guard points.count >= 3, var box = BBox(points: points) else { return .failure(.insufficientPoints) }
    guard box.width > 0, box.height > 0 else { return .failure(.degenerateBBox) }
    box.minX = max(box.minX, 0)
    box.minY = max(box.minY, 0)
    box.maxX = min(box.maxX, 1)
    box.maxY = min(box.maxY, 1)
    return .success(box)
  }
}
