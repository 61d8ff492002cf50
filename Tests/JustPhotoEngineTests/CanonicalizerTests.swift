@testable import JustPhotoEngine
import EngineIO
import Testing


/// Canonicalization and the joint drop rule (ENGINE §2.4).
@Suite("Canonicalizer (ENGINE §2.4)")
struct CanonicalizerTests {
  func frame(_ joints: [(Joint, Double, Double, Double)], coords: CoordinateConvention, faces: [FaceObservation] = [])
    -> CanonicalFrame
  {
    Canonicalizer.canonicalize(
      LandmarkFrame(frame: 1, coords: coords, body: Fixture.body(joints), faces: faces), minLandmarkConfidence: 0.5)
  }

  @Test("§2.4: a vision (y-up) point (0.2, 0.3) becomes (0.2, 0.7); canonical input is unchanged")
  func yFlip() {
    #expect(frame([(.nose, 0.2, 0.3, 0.9)], coords: .vision)[.nose] == Point2(x: 0.2, y: 0.7))
    #expect(frame([(.nose, 0.2, 0.3, 0.9)], coords: .canonical)[.nose] == Point2(x: 0.2, y: 0.3))
  }

  @Test("§2.4: vision rects flip as y' = 1 − (y + h); face points flip like joints")
  func rectFlip() {
    let face = FaceObservation(
      bbox: Rect(x: 0.4, y: 0.6, w: 0.2, h: 0.25), leftEye: EyePoint(x: 0.45, y: 0.75, conf: 0.8),
      chin: Point2(x: 0.5, y: 0.62))
    let f = frame([], coords: .vision, faces: [face])
    #expect(abs(f.faces[0].bbox.y - 0.15) < 1e-12)
    #expect(f.faces[0].bbox.h == 0.25)
    #expect(abs(f.faces[0].leftEye!.y - 0.25) < 1e-12)
    #expect(f.faces[0].leftEye!.conf == 0.8)
    #expect(abs(f.faces[0].chin!.y - 0.38) < 1e-12)
  }

  @Test("§2.4: a joint is kept iff conf is finite and ≥ 0.5 and the raw point is in [0,1]²")
  func dropRule() {
    let f = frame(
      [
        (.nose, 0.5, 0.5, 0.5), (.neck, 0.5, 0.5, 0.4999), (.leftShoulder, 0.5, 0.5, .nan),
        (.rightShoulder, 1.01, 0.5, 0.9), (.leftHip, 0.5, -0.001, 0.9), (.rightHip, 0, 1, 0.9),
      ], coords: .vision)
    #expect(f[.nose] != nil)
    #expect(f.dropReasons[Joint.neck.rawValue] == .lowConf)
    #expect(f.dropReasons[Joint.leftShoulder.rawValue] == .lowConf)
    #expect(f.dropReasons[Joint.rightShoulder.rawValue] == .outOfRange)
    #expect(f.dropReasons[Joint.leftHip.rawValue] == .outOfRange)
    #expect(f[.rightHip] == Point2(x: 0, y: 0))  // (0,1) y-flipped: edges are inside
    #expect(f.dropReasons[Joint.leftAnkle.rawValue] == .missingInput)
    // Raw confidences stay available for the confidence gate, dropped joints included.
    #expect(f.rawConfidence[Joint.neck.rawValue] == 0.4999)
    #expect(f.rawConfidence[Joint.leftAnkle.rawValue] == nil)
  }

  @Test("§2.4: minLandmarkConfidence is clamped to [0,1]")
  func clampedThreshold() {
    let pose = Fixture.body([(.nose, 0.5, 0.5, 1.0), (.neck, 0.5, 0.5, 0.0)])
    let strict = Canonicalizer.canonicalize(LandmarkFrame(frame: 1, body: pose), minLandmarkConfidence: 1.7)
    #expect(strict[.nose] != nil)  // 1.0 ≥ min(1.7, 1)
    let lax = Canonicalizer.canonicalize(LandmarkFrame(frame: 1, body: pose), minLandmarkConfidence: -3)
    #expect(lax[.neck] != nil)  // 0.0 ≥ max(−3, 0)
  }

  @Test("§3.4.4: a result is tracked with a kept joint or a face, not with dropped joints only")
  func tracked() {
    #expect(frame([(.nose, 0.5, 0.5, 0.9)], coords: .canonical).isTracked)
    #expect(!frame([(.nose, 0.5, 0.5, 0.2)], coords: .canonical).isTracked)
    #expect(frame([], coords: .canonical, faces: [FaceObservation(bbox: Rect(x: 0, y: 0, w: 0.1, h: 0.1))]).isTracked)
  }
}
