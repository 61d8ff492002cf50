import EngineIO

/// Summed-area tables of one luma plane: the §2.11 pixel metrics of any set of pixel rects in
/// O(rects) instead of O(pixels).
///
/// Built once per plane (at the first T1 tick that reads it) and reused by every later tick
/// while the plane stays the latest one, so a long span without new `luma` events costs a few
/// table look-ups per tick, not a pass over the ROI pixels. The results are exactly those of
/// ``PixelMetrics``: the same integer sums and counts divided the same way (pixel sums and
/// counts are exact in integers, so pooling by table look-up cannot change a bit).
///
/// Only for well-formed planes of at most `LumaFrame.pixelsMax` pixels: then every table entry
/// (≤ 255 · 2²¹) fits in a `UInt32`.
struct LumaTables: Sendable {
  let w: Int
  let h: Int
  /// Row-major `(h + 1) × (w + 1)`: entry (x, y) sums the pixels of `[0, x) × [0, y)`.
  private let sum: [UInt32]
  private let highlights: [UInt32]
  private let shadows: [UInt32]
  /// Interior pixels (a whole 3×3 neighbourhood in the plane) whose Sobel magnitude ≥ 0.25.
  private let edges: [UInt32]

  init?(_ frame: LumaFrame) {
    guard PixelMetrics.isWellFormed(frame), frame.w * frame.h <= LumaFrame.pixelsMax else { return nil }
    let w = frame.w
    let h = frame.h
    let stride = w + 1
    let count = stride * (h + 1)
    var sum = [UInt32](repeating: 0, count: count)
    var highlights = [UInt32](repeating: 0, count: count)
    var shadows = [UInt32](repeating: 0, count: count)
    var edges = [UInt32](repeating: 0, count: count)
    let minSquared = (255 * PixelMetrics.sobelEdgeMin) * (255 * PixelMetrics.sobelEdgeMin)
    // gx² + gy² is an exact integer, so `Double(n) >= minSquared` ⇔ `n >= ⌈minSquared⌉`: the
    // same edges without a conversion per pixel.
    let minSquaredInt = Int(minSquared.rounded(.up))
    frame.data.withUnsafeBufferPointer { p in
      sum.withUnsafeMutableBufferPointer { sum in
        highlights.withUnsafeMutableBufferPointer { highlights in
          shadows.withUnsafeMutableBufferPointer { shadows in
            edges.withUnsafeMutableBufferPointer { edges in
              Self.fill(
                p, w: w, h: h, edgeMin: minSquaredInt, sum: sum, highlights: highlights, shadows: shadows,
                edges: edges)
            }
          }
        }
      }
    }
    self.w = w
    self.h = h
    self.sum = sum
    self.highlights = highlights
    self.shadows = shadows
    self.edges = edges
  }

  /// One pass over the plane: the four tables (each `(h + 1) × (w + 1)`, zeroed) through
  /// buffer pointers, so the inner loop has no array bounds or uniqueness checks.
  private static func fill(
    _ p: UnsafeBufferPointer<UInt8>, w: Int, h: Int, edgeMin: Int, sum: UnsafeMutableBufferPointer<UInt32>,
    highlights: UnsafeMutableBufferPointer<UInt32>, shadows: UnsafeMutableBufferPointer<UInt32>,
    edges: UnsafeMutableBufferPointer<UInt32>
  ) {
    let stride = w + 1
    for y in 0..<h {
      var rowSum: UInt32 = 0
      var rowHigh: UInt32 = 0
      var rowShadow: UInt32 = 0
      var rowEdge: UInt32 = 0
      let interiorRow = y > 0 && y < h - 1
      let up = (y - 1) * w
      let mid = y * w
      let down = (y + 1) * w
      for x in 0..<w {
        let v = p[mid + x]
        rowSum += UInt32(v)
        if v >= PixelMetrics.highlightMin { rowHigh += 1 }
        if v <= PixelMetrics.shadowMax { rowShadow += 1 }
        if interiorRow, x > 0, x < w - 1 {
          if PixelMetrics.sobelSquared(p, up: up, mid: mid, down: down, x: x) >= edgeMin { rowEdge += 1 }
        }
        let at = (y + 1) * stride + x + 1
        let above = y * stride + x + 1
        sum[at] = sum[above] + rowSum
        highlights[at] = highlights[above] + rowHigh
        shadows[at] = shadows[above] + rowShadow
        edges[at] = edges[above] + rowEdge
      }
    }
  }

  /// The table total over `[x, xEnd) × [y, yEnd)`.
  private func total(_ t: [UInt32], _ x: Int, _ y: Int, _ xEnd: Int, _ yEnd: Int) -> Int {
    let s = w + 1
    return Int(t[yEnd * s + xEnd]) - Int(t[y * s + xEnd]) - Int(t[yEnd * s + x]) + Int(t[y * s + x])
  }

  private func rects(_ rois: [Rect]) -> [PixelRect] {
    rois.compactMap { PixelMetrics.pixelRect($0, width: w, height: h) }
  }

  /// ``PixelMetrics/meanLuma(_:_:)``.
  func meanLuma(_ rois: [Rect]) -> Double? {
    var s = 0
    var n = 0
    for r in rects(rois) {
      s += total(sum, r.x, r.y, r.xEnd, r.yEnd)
      n += r.count
    }
    return n > 0 ? Double(s) / (Double(n) * 255) : nil
  }

  /// ``PixelMetrics/highlightClipPct(_:_:)``.
  func highlightClipPct(_ rois: [Rect]) -> Double? { share(highlights, rois) }

  /// ``PixelMetrics/shadowClipPct(_:_:)``.
  func shadowClipPct(_ rois: [Rect]) -> Double? { share(shadows, rois) }

  /// ``PixelMetrics/sobelEdgeDensity(_:_:)``: over each rect's interior pixels.
  func sobelEdgeDensity(_ rois: [Rect]) -> Double? {
    var hits = 0
    var n = 0
    for r in rects(rois) where r.w > 2 && r.h > 2 {
      hits += total(edges, r.x + 1, r.y + 1, r.xEnd - 1, r.yEnd - 1)
      n += (r.w - 2) * (r.h - 2)
    }
    return n > 0 ? Double(hits) / Double(n) : nil
  }

  private func share(_ t: [UInt32], _ rois: [Rect]) -> Double? {
    var hits = 0
    var n = 0
    for r in rects(rois) {
      hits += total(t, r.x, r.y, r.xEnd, r.yEnd)
      n += r.count
    }
    return n > 0 ? Double(hits) / Double(n) : nil
  }
}
