import EngineIO

/// The fixed point in which a `.jprec` stores landmark numbers (docs/FORMAT-jprec.md §4):
/// `q = round(v · 65536)` (ties away from zero), stored as an integer; read back as `q / 65536`.
/// The error is at most 2^-17 ≈ 7.6e-6 per value. Every producer (recorder, JSONL import,
/// generators) rounds the same way, so identical inputs give identical recordings.
public enum Quantization {
  /// Steps per unit: 65536 = 2¹⁶, so one step is about 1.5 × 10⁻⁵ of the image width.
  public static let scale: Double = 65536
  /// Values whose magnitude would exceed this many steps are clamped (|v| ≤ 2^37 ≈ 1.4e11),
  /// so that every stored integer is exactly representable as a Double.
  static let limit: Int64 = 1 << 53

  /// `round(v · 65536)`; NaN → 0, out-of-range values clamp to ±2^53.
  @inline(__always)
  public static func quantize(_ v: Double) -> Int64 {
    let s = (v * scale).rounded(.toNearestOrAwayFromZero)
    if s.isNaN { return 0 }
    if s >= 9_007_199_254_740_992 { return limit }
    if s <= -9_007_199_254_740_992 { return -limit }
    return Int64(s)
  }

  /// `Double(q) / 65536` (exact: a power-of-two scale).
  @inline(__always)
  public static func value(_ q: Int64) -> Double { Double(q) * (1.0 / 65536.0) }

  /// `value(quantize(v))`: what a `.jprec` gives back for `v`.
  @inline(__always)
  public static func round(_ v: Double) -> Double { value(quantize(v)) }

  /// The frame with every coordinate / confidence / size number of body joints and faces,
  /// and `vision_ms`, rounded — exactly what a `.jprec` stores. Integers (`frame`, `src_t`,
  /// image size, `people`) and `coords` are unchanged.
  public static func rounded(_ f: LandmarkFrame) -> LandmarkFrame {
    var r = f
    if var body = r.body {
      for i in body.points.indices {
        if let p = body.points[i] {
          body.points[i] = JointPoint(x: round(p.x), y: round(p.y), conf: round(p.conf))
        }
      }
      r.body = body
    }
    for i in r.faces.indices { r.faces[i] = rounded(r.faces[i]) }
    if let v = r.visionMs { r.visionMs = round(v) }
    return r
  }

  static func rounded(_ f: FaceObservation) -> FaceObservation {
    func rp(_ p: Point2?) -> Point2? { p.map { Point2(x: round($0.x), y: round($0.y)) } }
    func ro(_ v: Double?) -> Double? { v.map(round) }
    func re(_ e: EyePoint?) -> EyePoint? {
      e.map { EyePoint(x: round($0.x), y: round($0.y), conf: ro($0.conf), precMax: ro($0.precMax), ear: ro($0.ear)) }
    }
    return FaceObservation(
      bbox: Rect(x: round(f.bbox.x), y: round(f.bbox.y), w: round(f.bbox.w), h: round(f.bbox.h)),
      conf: ro(f.conf), leftEye: re(f.leftEye), rightEye: re(f.rightEye), nose: rp(f.nose),
      noseTip: rp(f.noseTip), chin: rp(f.chin), mouth: rp(f.mouth), eyeAR: ro(f.eyeAR),
      landmarkConfAvg: ro(f.landmarkConfAvg))
  }
}
