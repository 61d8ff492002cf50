/// The size bound of a luma plane, shared by the recording decoders and the engine.
///
/// `pixelsMax` = 2²¹ = 2,097,152 pixels: a full-HD portrait preview frame (1080 × 1920 =
/// 2,073,600) fits, 57× the largest thumbnail ENGINE §1.5 recommends (144 × 256). One such
/// plane is 2 MiB raw, 2.8 MB as base64 on a JSONL line, and a T1 tick reads each pooled
/// pixel a few times, so a tick stays in the low milliseconds however hostile the recording.
extension LumaFrame {
  /// The largest `w · h` a luma plane may have: 2²¹ pixels (see above).
  public static let pixelsMax = 1 << 21

  /// `w · h` when both sides are ≥ 1 and the product is ≤ ``pixelsMax``, else nil.
  /// Overflow-safe for any `Int64` sides (a hostile `w = h = 2³²` gives nil, never a trap).
  public static func pixelCount(w: Int64, h: Int64) -> Int? {
    guard w >= 1, h >= 1 else { return nil }
    let (n, overflow) = w.multipliedReportingOverflow(by: h)
    guard !overflow, n <= Int64(pixelsMax) else { return nil }
    return Int(n)
  }
}
