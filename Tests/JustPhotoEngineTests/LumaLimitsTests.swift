import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import Testing


/// Hostile luma planes in the engine (issue 12, C1/C2): sides whose product overflows must be
/// "malformed" (§2.11: metrics unavailable), never an arithmetic-overflow trap.
@Suite("Luma plane limits (ENGINE §2.11)")
struct LumaLimitsTests {
  typealias F = Fixture

  @Test("pixelCount: overflow-safe, 1 ≤ w, h and w·h ≤ pixelsMax")
  func pixelCount() {
    #expect(LumaFrame.pixelCount(w: 90, h: 160) == 14_400)
    #expect(LumaFrame.pixelCount(w: 1080, h: 1920) == 2_073_600)
    #expect(LumaFrame.pixelCount(w: 1, h: Int64(LumaFrame.pixelsMax)) == LumaFrame.pixelsMax)
    #expect(LumaFrame.pixelCount(w: 1, h: Int64(LumaFrame.pixelsMax) + 1) == nil)
    #expect(LumaFrame.pixelCount(w: 1 << 32, h: 1 << 32) == nil)
    #expect(LumaFrame.pixelCount(w: .max, h: .max) == nil)
    #expect(LumaFrame.pixelCount(w: 0, h: 5) == nil)
    #expect(LumaFrame.pixelCount(w: -4, h: -4) == nil)
  }

  @Test("C2: w = h = 2³² (or Int.max) with 4 bytes is malformed: every pixel metric is nil")
  func overflowingPlaneIsMalformed() {
    let rois = [Rect(x: 0, y: 0, w: 1, h: 1)]
    for (w, h) in [(1 << 32, 1 << 32), (Int.max, 2), (Int.max, Int.max)] {
      let plane = LumaFrame(frame: 1, w: w, h: h, data: [9, 9, 9, 9])
      #expect(!PixelMetrics.isWellFormed(plane))
      #expect(PixelMetrics.meanLuma(plane, rois) == nil)
      #expect(PixelMetrics.highlightClipPct(plane, rois) == nil)
      #expect(PixelMetrics.shadowClipPct(plane, rois) == nil)
      #expect(PixelMetrics.sobelEdgeDensity(plane, rois) == nil)
    }
    let ok = LumaFrame(frame: 1, w: 2, h: 2, data: [0, 255, 0, 255])
    #expect(PixelMetrics.meanLuma(ok, rois) == 0.5)
  }

  @Test("ref_analysis.luma: hostile sides, wrong byte counts and fractions give no plane")
  func referencePlane() {
    func plane(_ w: JSONValue, _ h: JSONValue, _ data: String) -> LumaFrame? {
      LumaFrame(referenceJSON: .object(["w": w, "h": h, "enc": "u8-b64", "data": .string(data)]))
    }
    #expect(plane(2, 3, "AAECAwQF") == LumaFrame(frame: -1, w: 2, h: 3, data: [0, 1, 2, 3, 4, 5]))
    #expect(plane(4_294_967_296, 4_294_967_296, "AAAA") == nil)
    #expect(plane(1e300, 1e300, "AAAA") == nil)
    #expect(plane(1.5, 4, "AAECAwQF") == nil)
    #expect(plane(2, 3, "AAECAwQ=") == nil)  // 5 bytes
    #expect(plane(2, 3, "AAECAwQFBg==") == nil)  // 7 bytes
  }

  /// Every output, `cue_eval` metric traces included, of a cafe session whose frame 0 has `luma` (the
  /// repository's own PoseSpec.json: nothing outside the repository is read).
  static func t1Outputs(luma: LumaFrame) -> [String] {
    let face = EngineWithRefTests.liveFace()
    var events = [InputEvent(t: 0, payload: .luma(luma))]
    for k in 0..<8 {
      events.append(
        InputEvent(
          t: F.t15(k),
          payload: .landmarks(LandmarkFrame(frame: Int64(k), body: F.subject(dx: 0, feetY: 0.9), faces: [face], people: 1))))
    }
    let records = F.runWithTimers(F.engine(F.project, scene: "cafe", traceMetrics: true), events, until: 1000)
    return records.map { "\($0.t) \($0.out) \(JSONWriter.write(.object($0.fields)))" }
  }

  @Test("C2 through the engine: an overflowing plane replays like any malformed plane")
  func engineTreatsOverflowAsMalformed() {
    let hostile = Self.t1Outputs(luma: LumaFrame(frame: 0, w: 1 << 32, h: 1 << 32, data: [1, 2, 3, 4]))
    let short = Self.t1Outputs(luma: LumaFrame(frame: 0, w: 90, h: 160, data: [1]))
    let good = Self.t1Outputs(luma: LumaFrame(frame: 0, w: 90, h: 160, data: [UInt8](repeating: 40, count: 14_400)))
    #expect(hostile == short)
    #expect(good != short)  // the plane does reach the T1 metrics
  }
}
