import EngineIO

/// The named bounds on everything a recording file can claim (TigerBeetle style: units last).
///
/// Each is checked before anything is allocated for it, with overflow-safe arithmetic, and a
/// file over a bound is bad input (exit 2) naming the file, the place and the bound. The
/// replayer checks the span and event bounds again for every `EventSource`, so no reader can
/// let an unbounded replay through.
public enum RecordingLimits {
  /// Pixels of one `luma` plane (`w · h`), also for `ref_analysis.luma`; see
  /// `LumaFrame.pixelsMax` (2²¹: a 1080 × 1920 preview frame fits).
  public static let lumaPixelsMax = LumaFrame.pixelsMax

  /// Bytes of one JSONL line, newline excluded (plain and `.jsonl.zst`). The longest legal
  /// lines are a `luma` / `ref_analysis` with a full plane (base64 of 2 MiB = 2.8 MB) and a
  /// header or `posespec_reload` inlining a PoseSpec (the reference spec is 121 KB); 8 MiB
  /// leaves room for both, and bounds the reader's buffer.
  public static let lineBytesMax = 8 << 20

  /// Events in one recording (`label` events included): 2²⁰ = 1,048,576, a `durationMsMax`
  /// session at 48 events/s (the camera delivers ≤ 10 frames/s, ENGINE §1.5: landmarks + luma
  /// ≤ 20/s, plus sensors and UI; the corpus averages 19/s). Import and replay cost is linear
  /// in it (~40 µs per event imported in a debug build).
  public static let eventsMax = 1 << 20

  /// The recording's virtual-time span in ms: `duration_ms` and every event's `t`. The engine
  /// ticks T1 every 500 ms of virtual time whether or not events arrive, so replay cost grows
  /// with the span: 6 h = 43,200 ticks. Real sessions last minutes (the session TTL of ENGINE
  /// §5.1 is 12 h of wall time between launches, which a recording does not need to span).
  public static let durationMsMax: Millis = 6 * 3_600_000

  /// `wall_start_ms` (Unix epoch ms): up to the end of year 9999, so that
  /// `wall_start_ms + t` can never overflow.
  public static let wallStartMsMax: Int64 = 253_402_300_799_999

  /// The zstd window (log₂ bytes) a `.jsonl.zst` may ask the decoder to allocate: 2²⁵ = 32 MiB
  /// (what `zstd -20` uses; level 3, the writer's, uses 2 MiB at most).
  public static let zstdWindowLogMax: Int32 = 25
}
