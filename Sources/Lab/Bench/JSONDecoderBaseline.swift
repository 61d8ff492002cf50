import EngineIO
import Foundation
import JustPhotoIO

/// The bench baseline: landmark frames decoded from JSONL with Foundation's `JSONDecoder`
/// into `Decodable` structs and converted to engine inputs — what a straightforward tool would
/// do without a binary format. Non-landmark lines are skipped (the bench session has none).
enum JSONDecoderBaseline {
  struct Line: Decodable {
    var t: Int64
    var kind: String
    var frame: Int64?
    var src_t: Int64?
    var image: Size?
    var coords: String?
    var body: [String: [Double]]?
    var faces: [Face]?
    var people: Int?
  }
  struct Size: Decodable {
    var w: Int
    var h: Int
  }
  struct XY: Decodable {
    var x: Double
    var y: Double
    var conf: Double?
    var prec_max: Double?
    var ear: Double?
  }
  struct Face: Decodable {
    var bbox: [Double]
    var conf: Double?
    var left_eye: XY?
    var right_eye: XY?
    var nose: XY?
    var nose_tip: XY?
    var chin: XY?
    var mouth: XY?
    var eye_ar: Double?
    var landmark_conf_avg: Double?
  }

  /// Decodes every line of `jsonl` (header first) and calls `body` with each landmarks event.
  static func forEachEvent(jsonl: Data, _ body: (InputEvent) -> Void) throws -> Int {
    let decoder = JSONDecoder()
    var count = 0
    var first = true
    var start = jsonl.startIndex
    let newline = UInt8(ascii: "\n")
    while start < jsonl.endIndex {
      let end = jsonl[start...].firstIndex(of: newline) ?? jsonl.endIndex
      defer { start = end < jsonl.endIndex ? jsonl.index(after: end) : end }
      if end == start { continue }
      if first {
        first = false
        continue
      }
      let line = try decoder.decode(Line.self, from: jsonl[start..<end])
      guard EventKind(rawValue: line.kind) == .landmarks else { continue }
      body(InputEvent(t: line.t, payload: .landmarks(convert(line))))
      count += 1
    }
    return count
  }

  static func convert(_ l: Line) -> LandmarkFrame {
    var pose: BodyPose? = nil
    if let b = l.body {
      var p = BodyPose()
      for joint in Joint.allCases {
        if let v = b[joint.name], v.count == 3 { p[joint] = JointPoint(x: v[0], y: v[1], conf: v[2]) }
      }
      pose = p
    }
    let faces = (l.faces ?? []).map { f in
      FaceObservation(
        bbox: Rect(x: f.bbox[0], y: f.bbox[1], w: f.bbox[2], h: f.bbox[3]), conf: f.conf,
        leftEye: f.left_eye.map { EyePoint(x: $0.x, y: $0.y, conf: $0.conf, precMax: $0.prec_max, ear: $0.ear) },
        rightEye: f.right_eye.map { EyePoint(x: $0.x, y: $0.y, conf: $0.conf, precMax: $0.prec_max, ear: $0.ear) },
        nose: f.nose.map { Point2(x: $0.x, y: $0.y) }, noseTip: f.nose_tip.map { Point2(x: $0.x, y: $0.y) },
        chin: f.chin.map { Point2(x: $0.x, y: $0.y) }, mouth: f.mouth.map { Point2(x: $0.x, y: $0.y) },
        eyeAR: f.eye_ar, landmarkConfAvg: f.landmark_conf_avg)
    }
    return LandmarkFrame(
      frame: l.frame ?? 0, srcT: l.src_t, imageW: l.image?.w, imageH: l.image?.h,
      coords: l.coords == "vision" ? .vision : .canonical, body: pose, faces: faces, people: l.people)
  }
}
