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
  /// The four tables one after another (sum, highlights, shadows, edges), each row-major
  /// `(h + 1) × (w + 1)`: entry (x, y) counts over the pixels of `[0, x) × [0, y)`. The edge
  /// table counts interior pixels (a whole 3×3 neighbourhood in the plane) whose Sobel
  /// magnitude ≥ 0.25.
  private let storage: Storage
  /// Cells of one table: `(w + 1) · (h + 1)`.
  private let cells: Int

  /// The tables' memory. Written only by ``build(_:reusing:)`` while no `LumaTables` value but
  /// the engine's own scratch reference holds it (`isKnownUniquelyReferenced`), read-only once
  /// a `LumaTables` shares it: that is what makes the unchecked `Sendable` true.
  final class Storage: @unchecked Sendable {
    var table: [UInt32]
    init(count: Int) { table = [UInt32](repeating: 0, count: count) }
  }

  private init(w: Int, h: Int, storage: Storage) {
    self.w = w
    self.h = h
    self.storage = storage
    cells = (w + 1) * (h + 1)
  }

  /// The tables of `frame` in storage of their own (for a cache, or a one-off).
  init?(_ frame: LumaFrame) {
    var scratch: Storage? = nil
    guard let built = Self.build(frame, reusing: &scratch).tables else { return nil }
    self = built
  }

  /// The tables of `frame`, written into `scratch` when it holds storage of the same size that
  /// nothing else references (a replay's planes share one size: no allocation and no zeroing
  /// per plane, issue 38 item 1), else into new storage left in `scratch` for the next plane.
  /// `allocated` says which. The tables are the same either way: every cell is written.
  static func build(_ frame: LumaFrame, reusing scratch: inout Storage?) -> (tables: LumaTables?, allocated: Bool) {
    guard PixelMetrics.isWellFormed(frame), frame.w * frame.h <= LumaFrame.pixelsMax else { return (nil, false) }
    let w = frame.w
    let h = frame.h
    let cells = (w + 1) * (h + 1)
    var allocated = false
    if scratch?.table.count != 4 * cells || !isKnownUniquelyReferenced(&scratch) {
      scratch = Storage(count: 4 * cells)
      allocated = true
    }
    let storage = scratch!
    let minSquared = (255 * PixelMetrics.sobelEdgeMin) * (255 * PixelMetrics.sobelEdgeMin)
    // gx² + gy² is an exact integer, so `Double(n) >= minSquared` ⇔ `n >= ⌈minSquared⌉`: the
    // same edges without a conversion per pixel.
    let minSquaredInt = Int(minSquared.rounded(.up))
    frame.data.withUnsafeBufferPointer { p in
      storage.table.withUnsafeMutableBufferPointer { t in
        let base = t.baseAddress!
        Self.fill(
          p, w: w, h: h, edgeMin: minSquaredInt,
          sum: UnsafeMutableBufferPointer(start: base, count: cells),
          highlights: UnsafeMutableBufferPointer(start: base + cells, count: cells),
          shadows: UnsafeMutableBufferPointer(start: base + 2 * cells, count: cells),
          edges: UnsafeMutableBufferPointer(start: base + 3 * cells, count: cells))
      }
    }
    return (LumaTables(w: w, h: h, storage: storage), allocated)
  }

  /// One pass over the plane: the four tables (each `(h + 1) × (w + 1)`) through buffer
  /// pointers, so the inner loop has no array bounds or uniqueness checks. Every cell is
  /// written (row 0 and column 0 as zeros), so reused storage needs no clearing.
  private static func fill(
    _ p: UnsafeBufferPointer<UInt8>, w: Int, h: Int, edgeMin: Int, sum: UnsafeMutableBufferPointer<UInt32>,
    highlights: UnsafeMutableBufferPointer<UInt32>, shadows: UnsafeMutableBufferPointer<UInt32>,
    edges: UnsafeMutableBufferPointer<UInt32>
  ) {
    let stride = w + 1
    for x in 0..<stride {
      sum[x] = 0
      highlights[x] = 0
      shadows[x] = 0
      edges[x] = 0
    }
    for y in 0..<h {
      var rowSum: UInt32 = 0
      var rowHigh: UInt32 = 0
      var rowShadow: UInt32 = 0
      var rowEdge: UInt32 = 0
      let interiorRow = y > 0 && y < h - 1
      let up = (y - 1) * w
      let mid = y * w
      let down = (y + 1) * w
      let first = (y + 1) * stride
      sum[first] = 0
      highlights[first] = 0
      shadows[first] = 0
      edges[first] = 0
      for x in 0..<w {
        let v = p[mid + x]
        rowSum += UInt32(v)
        if v >= PixelMetrics.highlightMin { rowHigh += 1 }
        if v <= PixelMetrics.shadowMax { rowShadow += 1 }
        if interiorRow, x > 0, x < w - 1 {
          if PixelMetrics.sobelSquared(p, up: up, mid: mid, down: down, x: x) >= edgeMin { rowEdge += 1 }
        }
        let at = first + x + 1
        let above = y * stride + x + 1
        sum[at] = sum[above] + rowSum
        highlights[at] = highlights[above] + rowHigh
        shadows[at] = shadows[above] + rowShadow
        edges[at] = edges[above] + rowEdge
      }
    }
  }

  /// Which of the four tables ``total(_:_:_:_:_:)`` reads.
  private enum Table: Int {
    case sum = 0, highlights, shadows, edges
  }

  /// The table total over `[x, xEnd) × [y, yEnd)`.
  private func total(_ table: Table, _ x: Int, _ y: Int, _ xEnd: Int, _ yEnd: Int) -> Int {
    let s = w + 1
    let o = table.rawValue * cells
    let t = storage.table
    return Int(t[o + yEnd * s + xEnd]) - Int(t[o + y * s + xEnd]) - Int(t[o + yEnd * s + x]) + Int(t[o + y * s + x])
  }

  private func rects(_ rois: [Rect]) -> [PixelRect] {
    rois.compactMap { PixelMetrics.pixelRect($0, width: w, height: h) }
  }

  /// ``PixelMetrics/meanLuma(_:_:)``.
  func meanLuma(_ rois: [Rect]) -> Double? {
    var s = 0
    var n = 0
    for r in rects(rois) {
      s += total(.sum, r.x, r.y, r.xEnd, r.yEnd)
      n += r.count
    }
    return n > 0 ? Double(s) / (Double(n) * 255) : nil
  }

  /// ``PixelMetrics/highlightClipPct(_:_:)``.
  func highlightClipPct(_ rois: [Rect]) -> Double? { share(.highlights, rois) }

  /// ``PixelMetrics/shadowClipPct(_:_:)``.
  func shadowClipPct(_ rois: [Rect]) -> Double? { share(.shadows, rois) }

  /// ``PixelMetrics/sobelEdgeDensity(_:_:)``: over each rect's interior pixels.
  func sobelEdgeDensity(_ rois: [Rect]) -> Double? {
    var hits = 0
    var n = 0
    for r in rects(rois) where r.w > 2 && r.h > 2 {
      hits += total(.edges, r.x + 1, r.y + 1, r.xEnd - 1, r.yEnd - 1)
      n += (r.w - 2) * (r.h - 2)
    }
    return n > 0 ? Double(hits) / Double(n) : nil
  }

  private func share(_ t: Table, _ rois: [Rect]) -> Double? {
    var hits = 0
    var n = 0
    for r in rects(rois) {
      hits += total(t, r.x, r.y, r.xEnd, r.yEnd)
      n += r.count
    }
    return n > 0 ? Double(hits) / Double(n) : nil
  }
}
