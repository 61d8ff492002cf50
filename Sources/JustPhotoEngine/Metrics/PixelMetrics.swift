import EngineIO
import PoseSpec

/// A half-open pixel rectangle `[x, xEnd) × [y, yEnd)` of a luma plane (ENGINE §2.11).
struct PixelRect: Equatable, Sendable {
  var x: Int
  var y: Int
  var xEnd: Int
  var yEnd: Int
  var w: Int { xEnd - x }
  var h: Int { yEnd - y }
  var count: Int { w * h }
}

/// The T1 pixel metrics of ENGINE §2.11 over a recorded luma plane.
///
/// A ROI is a set of normalized rects. Each rect is mapped to pixels by `pixelRect` (exactly
/// [C] `FrameMetricComputer.pixelRect`); a rect that maps to no pixels is skipped, and the
/// pixels of the remaining rects are pooled by count (area weighting). Rects are not
/// de-duplicated: a pixel inside two rects counts twice. The ROIs of `ROIGeometry` only touch
/// along edges, but because the mapping rounds outwards (floor/ceil), a pixel row or column
/// that a boundary cuts through belongs to both sides (e.g. to faceROI and to bgROI).
/// Every metric is nil (unavailable) when no rect yields pixels or the plane is malformed
/// (w or h < 2, or fewer than w·h bytes).
enum PixelMetrics {
  /// highlightClipPct counts pixels with v ≥ this (§2.11 [D]).
  static let highlightMin: UInt8 = 250
  /// shadowClipPct counts pixels with v ≤ this (§2.11 [D]).
  static let shadowMax: UInt8 = 20
  /// sobelEdgeDensity counts interior pixels whose Sobel magnitude on v/255 is ≥ this (§2.11 [D]).
  static let sobelEdgeMin = 0.25

  /// §2.11 steps 1–4: `roi` ∩ [0,1]² (empty ⇒ nil); x0 = ⌊minX·W⌋, y0 = ⌊minY·H⌋,
  /// x1 = ⌈maxX·W⌉, y1 = ⌈maxY·H⌉; x = clamp(x0, 0, W−1), y = clamp(y0, 0, H−1),
  /// xEnd = max(x+1, min(W, x1)), yEnd = max(y+1, min(H, y1)); nil unless both sides > 1 pixel.
  static func pixelRect(_ roi: Rect, width: Int, height: Int) -> PixelRect? {
    guard width > 0, height > 0, let r = ROIGeometry.clampToUnit(roi) else { return nil }
    let wF = Double(width)
    let hF = Double(height)
    let x0 = Int((r.x * wF).rounded(.down))
    let y0 = Int((r.y * hF).rounded(.down))
    let x1 = Int((r.maxX * wF).rounded(.up))
    let y1 = Int((r.maxY * hF).rounded(.up))
    let x = max(0, min(width - 1, x0))
    let y = max(0, min(height - 1, y0))
    let xEnd = max(x + 1, min(width, x1))
    let yEnd = max(y + 1, min(height, y1))
    guard xEnd - x > 1, yEnd - y > 1 else { return nil }
    return PixelRect(x: x, y: y, xEnd: xEnd, yEnd: yEnd)
  }

  /// The pixel rects of `rois` in `frame`, in the given order, unmappable ones skipped; empty
  /// when the plane is malformed. Mapped as they are iterated: no array is allocated per read.
  static func pixelRects(_ rois: [Rect], in frame: LumaFrame) -> PixelRects {
    PixelRects(rois: isWellFormed(frame) ? rois : [], width: frame.w, height: frame.h)
  }

  /// ``pixelRects(_:in:)``'s sequence.
  struct PixelRects: Sequence, IteratorProtocol {
    let rois: [Rect]
    let width: Int
    let height: Int
    var index = 0

    mutating func next() -> PixelRect? {
      while index < rois.count {
        let roi = rois[index]
        index += 1
        if let r = pixelRect(roi, width: width, height: height) { return r }
      }
      return nil
    }
  }

  /// meanLuma(R) = Σv / (N·255) over the pooled pixels.
  static func meanLuma(_ frame: LumaFrame, _ rois: [Rect]) -> Double? {
    var sum = 0
    var n = 0
    forEachRow(frame, rois) { row, x, xEnd in
      sum += rowTotal(row + x, count: xEnd - x) { UInt16($0) }
      n += xEnd - x
    }
    return n > 0 ? Double(sum) / (Double(n) * 255) : nil
  }

  /// highlightClipPct(R): the share of pooled pixels with v ≥ 250.
  static func highlightClipPct(_ frame: LumaFrame, _ rois: [Rect]) -> Double? {
    var hits = 0
    var n = 0
    forEachRow(frame, rois) { row, x, xEnd in
      hits += rowTotal(row + x, count: xEnd - x) { $0 >= highlightMin ? 1 : 0 }
      n += xEnd - x
    }
    return n > 0 ? Double(hits) / Double(n) : nil
  }

  /// shadowClipPct(R): the share of pooled pixels with v ≤ 20.
  static func shadowClipPct(_ frame: LumaFrame, _ rois: [Rect]) -> Double? {
    var hits = 0
    var n = 0
    forEachRow(frame, rois) { row, x, xEnd in
      hits += rowTotal(row + x, count: xEnd - x) { $0 <= shadowMax ? 1 : 0 }
      n += xEnd - x
    }
    return n > 0 ? Double(hits) / Double(n) : nil
  }

  /// sobelEdgeDensity(R): the share of interior pixels (those whose whole 3×3 neighbourhood
  /// lies inside their own pixel rect) with Sobel magnitude √(gx² + gy²) on v/255 ≥ 0.25.
  /// A rect narrower or shorter than 3 pixels has no interior pixels; nil when no rect has any.
  static func sobelEdgeDensity(_ frame: LumaFrame, _ rois: [Rect]) -> Double? {
    // On raw values: √(gx² + gy²)/255 ≥ t  ⇔  gx² + gy² ≥ (255·t)² (both sides exact here),
    // and gx² + gy² is an exact integer, so that is gx² + gy² ≥ ⌈(255·t)²⌉ (as `LumaTables`).
    var edges = 0
    var n = 0
    let w = frame.w
    frame.data.withUnsafeBufferPointer { p in
      guard let base = p.baseAddress else { return }
      for r in pixelRects(rois, in: frame) where r.w > 2 && r.h > 2 {
        for y in (r.y + 1)..<(r.yEnd - 1) {
          let at = y * w + r.x + 1
          edges += Int(sobelEdges(base + at - w, base + at, base + at + w, count: r.w - 2))
          n += r.w - 2
        }
      }
    }
    return n > 0 ? Double(edges) / Double(n) : nil
  }

  /// ⌈(255·sobelEdgeMin)²⌉: an edge has gx² + gy² at least this.
  static let sobelMinSquared = Int(((255 * sobelEdgeMin) * (255 * sobelEdgeMin)).rounded(.up))
  /// The smallest c with c² ≥ `sobelMinSquared`: a |gx| or |gy| of c or more is an edge, so
  /// both can be clamped to c, and then gx² + gy² ≤ 2c² fits an Int16 (c = 64 for 0.25).
  static let sobelClamp: Int = {
    var c = 0
    while c * c < sobelMinSquared { c += 1 }
    return c
  }()

  /// The edges among the `count` pixels starting at `mid` (whose rows above and below start at
  /// `up` and `down`; each pixel has its left and right neighbour). In Int16 with |gx|, |gy|
  /// clamped to `sobelClamp` (the same edges: a clamped side alone reaches the bound), by
  /// ``sobelEdgeRun(_:_:_:_:_:_:_:_:count:clamp:minSquared:)``.
  static func sobelEdges(
    _ up: UnsafePointer<UInt8>, _ mid: UnsafePointer<UInt8>, _ down: UnsafePointer<UInt8>, count: Int
  ) -> Int {
    guard sobelClamp <= 127 else {  // 2c² would not fit an Int16: count exactly in Int
      var edges = 0
      for x in 0..<count where sobelSquared(up + x, mid + x, down + x) >= sobelMinSquared { edges += 1 }
      return edges
    }
    return sobelEdgeRun(
      up - 1, up, up + 1, mid - 1, mid + 1, down - 1, down, down + 1, count: count, clamp: Int16(sobelClamp),
      minSquared: Int16(sobelMinSquared))
  }

  /// The edge count of `sobelEdges` over the eight neighbour streams of a run of pixels (pixel
  /// k's neighbours are `a[k]` … `i[k]`: above left, above, above right, left, right, below
  /// left, below, below right), in a plain loop with wrapping Int16 arithmetic that the compiler
  /// vectorizes. Not inlined, on purpose: given the three rows and their ±1 offsets, the
  /// optimizer carries the loaded pixels from one step to the next and vectorizes that chain
  /// with shuffles (~62 instructions per 8 pixels, x86-64); eight unrelated streams load
  /// straight (~47).
  @inline(never)
  static func sobelEdgeRun(
    _ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ c: UnsafePointer<UInt8>, _ l: UnsafePointer<UInt8>,
    _ r: UnsafePointer<UInt8>, _ g: UnsafePointer<UInt8>, _ h: UnsafePointer<UInt8>, _ i: UnsafePointer<UInt8>,
    count: Int, clamp: Int16, minSquared: Int16
  ) -> Int {
    var edges = 0
    var x = 0
    while x < count {
      // A run's count fits an Int16 per block of 16,384 pixels.
      let end = x + Swift.min(count - x, 16_384)
      var hits: Int16 = 0
      var k = x
      while k < end {
        let (a, b, c) = (Int16(a[k]), Int16(b[k]), Int16(c[k]))
        let (l, r) = (Int16(l[k]), Int16(r[k]))
        let (g, h, i) = (Int16(g[k]), Int16(h[k]), Int16(i[k]))
        let gx = (c &- a) &+ 2 &* (r &- l) &+ (i &- g)
        let gy = (g &- a) &+ 2 &* (h &- b) &+ (i &- c)
        let ax = Swift.min(gx < 0 ? 0 &- gx : gx, clamp)
        let ay = Swift.min(gy < 0 ? 0 &- gy : gy, clamp)
        hits &+= ax &* ax &+ ay &* ay >= minSquared ? 1 : 0
        k &+= 1
      }
      edges += Int(hits)
      x = end
    }
    return edges
  }

  /// gx² + gy² at the pixel `mid` (rows above and below at `up`, `down`).
  static func sobelSquared(_ up: UnsafePointer<UInt8>, _ mid: UnsafePointer<UInt8>, _ down: UnsafePointer<UInt8>) -> Int {
    let a = Int(up[-1])
    let b = Int(up[0])
    let c = Int(up[1])
    let d = Int(mid[-1])
    let f = Int(mid[1])
    let g = Int(down[-1])
    let h = Int(down[0])
    let i = Int(down[1])
    let gx = (c + 2 * f + i) - (a + 2 * d + g)
    let gy = (g + 2 * h + i) - (a + 2 * b + c)
    return gx * gx + gy * gy
  }

  /// What reading `function` over `rois` directly costs, in weighted pixels: the pooled pixels
  /// of a mean or clip share, 4 per interior pixel of a Sobel density (its loop costs about
  /// four times as much per pixel; callgrind, release). The engine builds a plane's tables
  /// once its direct reads have cost enough (`Engine.lumaTablesWorkFactor`).
  static func directWork(_ function: FormulaFunction, _ frame: LumaFrame, _ rois: [Rect]) -> Int {
    var work = 0
    if function == .sobelEdgeDensity {
      for r in pixelRects(rois, in: frame) where r.w > 2 && r.h > 2 { work += 4 * (r.w - 2) * (r.h - 2) }
    } else {
      for r in pixelRects(rois, in: frame) { work += r.count }
    }
    return work
  }

  // MARK: Helpers

  /// A plane the metrics can read: at least 2×2 (as [C]) and at least w·h bytes. Overflow-safe:
  /// sides whose product overflows (a hostile `w = h = 2³²`) are malformed, never a trap, and
  /// once this holds every pixel index `y·w + x` is below `data.count`.
  /// gx² + gy² of the 3×3 Sobel operator at column `x` of the row starting at `mid` (the rows
  /// above and below start at `up` and `down`); `x` must have a neighbour on each side.
  @inline(__always)
  static func sobelSquared(_ p: UnsafeBufferPointer<UInt8>, up: Int, mid: Int, down: Int, x: Int) -> Int {
    let a = Int(p[up + x - 1])
    let b = Int(p[up + x])
    let c = Int(p[up + x + 1])
    let d = Int(p[mid + x - 1])
    let f = Int(p[mid + x + 1])
    let g = Int(p[down + x - 1])
    let h = Int(p[down + x])
    let i = Int(p[down + x + 1])
    let gx = (c + 2 * f + i) - (a + 2 * d + g)
    let gy = (g + 2 * h + i) - (a + 2 * b + c)
    return gx * gx + gy * gy
  }

  static func isWellFormed(_ frame: LumaFrame) -> Bool {
    guard frame.w > 1, frame.h > 1 else { return false }
    let (pixels, overflow) = frame.w.multipliedReportingOverflow(by: frame.h)
    return !overflow && frame.data.count >= pixels
  }

  /// Σ `value(v)` over the `count` pixels at `p`: in UInt16 blocks of 257 pixels (257·255 fits),
  /// a plain pointer loop with wrapping adds, which the compiler vectorizes; exact.
  @inline(__always)
  static func rowTotal(_ p: UnsafePointer<UInt8>, count: Int, _ value: (UInt8) -> UInt16) -> Int {
    var total = 0
    var q = p
    var left = count
    while left > 0 {
      var block = Swift.min(left, 257)
      left -= block
      var s: UInt16 = 0
      while block > 0 {
        s &+= value(q[0])
        q += 1
        block &-= 1
      }
      total += Int(s)
    }
    return total
  }

  /// Calls `body` with each row of each pooled rect: the row's first pixel and the column
  /// range `x ..< xEnd` in it, rect by rect, top to bottom: every pooled pixel once per rect
  /// holding it, a row at a time, so the per-row loops are plain loops the compiler vectorizes.
  static func forEachRow(
    _ frame: LumaFrame, _ rois: [Rect], _ body: (UnsafePointer<UInt8>, Int, Int) -> Void
  ) {
    let w = frame.w
    frame.data.withUnsafeBufferPointer { p in
      guard let base = p.baseAddress else { return }
      for r in pixelRects(rois, in: frame) {
        for y in r.y..<r.yEnd { body(base + y * w, r.x, r.xEnd) }
      }
    }
  }
}
