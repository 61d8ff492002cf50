import EngineIO
import ScenarioYAML

/// A generated one-person session: a camera-facing subject that wanders around the frame with
/// landmark noise, at a fixed frame rate. Used by `jpreplay bench` as its default recording.
///
/// The subject's centre follows a slow deterministic path (sums of sines) that crosses the
/// FRAME_MOVE_* and DIST_* thresholds now and then, so the engine does real work.
public struct SyntheticSession: Sequence, Sendable {
  public var durationMs: Int64
  public var fps: Int
  public var seed: UInt64
  public var noiseSigma: Double
  public var withFace: Bool

  public init(durationMs: Int64 = 600_000, fps: Int = 30, seed: UInt64 = 1, noiseSigma: Double = 0.004, withFace: Bool = true) {
    self.durationMs = durationMs
    self.fps = fps
    self.seed = seed
    self.noiseSigma = noiseSigma
    self.withFace = withFace
  }

  /// Number of frames the session yields.
  public var frameCount: Int { Int(durationMs * Int64(fps) / 1000) + 1 }

  /// The recording header (JSONL form) describing this session.
  public var headerFields: [(String, String)] {
    [("generator", "SyntheticSession"), ("seed", String(seed)), ("fps", String(fps))]
  }

  public func makeIterator() -> Iterator { Iterator(session: self) }

  public struct Iterator: IteratorProtocol, Sendable {
    let session: SyntheticSession
    var k: Int64 = 0
    var rng: SplitMix64
    init(session: SyntheticSession) {
      self.session = session
      rng = SplitMix64(seed: session.seed)
    }

    public mutating func next() -> InputEvent? {
      let t = (k * 1000 + Int64(session.fps) / 2) / Int64(session.fps)
      guard t <= session.durationMs else { return nil }
      defer { k += 1 }
      let s = Double(t) / 1000
      // Slow wander: centre x in ~[0.32, 0.68], scale (distance) in ~[0.75, 1.25].
      let px = 0.5 + 0.12 * _sin(s * 0.21) + 0.06 * _sin(s * 0.047 + 1.3)
      let scale = 1.0 + 0.18 * _sin(s * 0.13 + 0.4) + 0.07 * _sin(s * 0.031)
      let midY = 0.52 + 0.05 * _sin(s * 0.09 + 2.0)
      let top = midY - 0.22 * scale
      let hip = midY + 0.14 * scale
      let ankle = Swift.min(0.995, midY + 0.38 * scale)
      let half = 0.075 * scale
      let base: [(Double, Double)] = [
        (px, top - 0.08 * scale), (px, top - 0.01), (px + half, top), (px - half, top),
        (px + half + 0.02, top + 0.16 * scale), (px - half - 0.02, top + 0.16 * scale),
        (px + half + 0.01, hip - 0.05), (px - half - 0.01, hip - 0.05),
        (px, hip), (px + half * 0.7, hip), (px - half * 0.7, hip),
        (px + half * 0.6, (hip + ankle) / 2), (px - half * 0.6, (hip + ankle) / 2),
        (px + half * 0.55, ankle), (px - half * 0.55, ankle),
        (px + 0.015, top - 0.095 * scale), (px - 0.015, top - 0.095 * scale),
        (px + 0.03, top - 0.09 * scale), (px - 0.03, top - 0.09 * scale),
      ]
      var body = BodyPose()
      for (i, p) in base.enumerated() {
        let conf = Swift.min(1, Swift.max(0, 0.88 + rng.gaussian(sigma: 0.05)))
        body.points[i] = JointPoint(
          x: p.0 + rng.gaussian(sigma: session.noiseSigma),
          y: p.1 + rng.gaussian(sigma: session.noiseSigma), conf: conf)
      }
      var faces: [FaceObservation] = []
      if session.withFace {
        let ny = top - 0.08 * scale
        faces.append(
          FaceObservation(
            bbox: Rect(x: px - 0.05 * scale, y: ny - 0.06 * scale, w: 0.1 * scale, h: 0.13 * scale),
            conf: 0.95,
            leftEye: EyePoint(x: px - 0.02 * scale, y: ny - 0.015 * scale),
            rightEye: EyePoint(x: px + 0.02 * scale, y: ny - 0.015 * scale),
            noseTip: Point2(x: px, y: ny + 0.01 * scale),
            chin: Point2(x: px, y: ny + 0.07 * scale),
            mouth: Point2(x: px, y: ny + 0.035 * scale)))
      }
      let frame = LandmarkFrame(
        frame: k, srcT: t, imageW: 1080, imageH: 1920, coords: .canonical, body: body, faces: faces, people: 1)
      return InputEvent(t: t, payload: .landmarks(frame))
    }
  }
}

@inline(__always) func _sin(_ x: Double) -> Double { _cos(x - Double.pi / 2) }
