@testable import CoachEngine
import EngineIO
import Testing


/// The summed-area tables that make idle T1 ticks cheap (issue 12, H1) give exactly the
/// §2.11 pixel metrics of `PixelMetrics`, bit for bit, on pseudo-random planes and ROIs.
@Suite("Luma summed-area tables = PixelMetrics (ENGINE §2.11)")
struct LumaTablesTests {
  /// A small deterministic generator (SplitMix64), so failures reproduce.
  struct Mix {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
  }

  @Test("every metric over 1–3 random rects equals PixelMetrics exactly", arguments: [(2, 2), (3, 3), (5, 4), (17, 31), (90, 160)])
  func tablesMatchDirectComputation(size: (Int, Int)) throws {
    let (w, h) = size
    var mix = Mix(state: UInt64(w * 1000 + h))
    // Values spread over the clip thresholds and with sharp steps (edges).
    let data = (0..<(w * h)).map { _ -> UInt8 in
      let r = mix.next() % 10
      return r < 2 ? 255 : r < 4 ? UInt8(mix.next() % 21) : UInt8(mix.next() % 256)
    }
    let plane = LumaFrame(frame: 1, w: w, h: h, data: data)
    let tables = try #require(LumaTables(plane))
    for _ in 0..<200 {
      let rois = (0..<(1 + Int(mix.next() % 3))).map { _ in
        Rect(x: mix.unit() * 1.2 - 0.1, y: mix.unit() * 1.2 - 0.1, w: mix.unit() * 0.9, h: mix.unit() * 0.9)
      }
      #expect(tables.meanLuma(rois) == PixelMetrics.meanLuma(plane, rois))
      #expect(tables.highlightClipPct(rois) == PixelMetrics.highlightClipPct(plane, rois))
      #expect(tables.shadowClipPct(rois) == PixelMetrics.shadowClipPct(plane, rois))
      #expect(tables.sobelEdgeDensity(rois) == PixelMetrics.sobelEdgeDensity(plane, rois))
    }
  }

  @Test("no tables for malformed planes or planes over pixelsMax (the direct path handles those)")
  func noTablesOutsideTheBound() {
    #expect(LumaTables(LumaFrame(frame: 1, w: 1 << 32, h: 1 << 32, data: [1, 2, 3, 4])) == nil)
    #expect(LumaTables(LumaFrame(frame: 1, w: 1, h: 4, data: [1, 2, 3, 4])) == nil)
    #expect(LumaTables(LumaFrame(frame: 1, w: 3, h: 3, data: [1])) == nil)
  }
}
