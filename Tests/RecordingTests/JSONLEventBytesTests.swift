import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoIO
@testable import Recording
import Testing

/// `JSONLEventEncoder.append` writes a landmarks event straight as text (the bulk of `cat` and
/// of `export --mcap`): the bytes its JSON object (`object(_:)`, docs/FORMAT.md's key order)
/// writes, for every event of the corpus and for a frame with every optional field.
@Suite("JSONL event bytes")
struct JSONLEventBytesTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func reference(_ e: InputEvent) -> String {
    JSONWriter.write(.object(JSONLEventEncoder.object(e)), sortKeys: false, numbers: .shortest)
  }

  @Test("every event of the Just Photo corpus: the text equals its object's")
  func corpus() throws {
    let dir = Self.repoRoot.appendingPathComponent("Recordings")
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".jprec") }.sorted()
    #expect(names.count > 10)
    var landmarks = 0
    for name in names {
      let reader = try RecordingFiles.open(dir.appendingPathComponent(name).path, definitions: JustPhotoEvents.self)
      while let e = try reader.nextEvent() {
        let line = JSONLEventEncoder.line(e)
        #expect(line == Self.reference(e), "\(name) t=\(e.t)")
        if case .landmarks = e.payload { landmarks += 1 }
      }
    }
    #expect(landmarks > 1000)
  }

  @Test("a frame with every optional field, one with none, and odd numbers")
  func everyField() {
    let eye = EyePoint(x: 0.41, y: 0.6, conf: 0.9, precMax: 0.02, ear: 0.31)
    let face = FaceObservation(
      bbox: Rect(x: 0.3, y: 0.55, w: 0.2, h: 0.15), conf: 0.99, leftEye: eye, rightEye: EyePoint(x: 0.5, y: 0.6),
      nose: Point2(x: 0.45, y: 0.58), noseTip: Point2(x: 0.451, y: 0.57), chin: Point2(x: 0.45, y: 0.5),
      mouth: Point2(x: 0.45, y: 0.53), eyeAR: 0.28, landmarkConfAvg: 0.875)
    var body = BodyPose()
    body[.neck] = JointPoint(x: 0.5, y: 1e-7, conf: 1)
    body[.rightEar] = JointPoint(x: -0.0, y: 0.1 + 0.2, conf: 0.5)
    let frames = [
      LandmarkFrame(
        frame: 7, srcT: 190, imageW: 1080, imageH: 1920, coords: .vision, body: body, faces: [face, face], people: 2,
        visionMs: 12.5),
      LandmarkFrame(frame: 0),
      LandmarkFrame(frame: 9_007_199_254_740_993, imageH: 640, body: BodyPose(), faces: [face]),
    ]
    for (i, f) in frames.enumerated() {
      let e = InputEvent(t: Int64(i) * 67, payload: .landmarks(f))
      #expect(JSONLEventEncoder.line(e) == Self.reference(e))
      var out = JSONBytes()
      out.raw("prefix")
      JSONLEventEncoder.append(e, to: &out)
      #expect(out.text == "prefix" + Self.reference(e))
    }
  }
}
