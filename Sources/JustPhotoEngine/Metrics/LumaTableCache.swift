import EngineIO

/// Summed-area tables of a recording's distinct luma planes, built once and shared by every
/// engine that replays the same events (all trials of a `tune` study: the tables depend on
/// the plane alone, and rebuilding them per trial was a third of a trial's CPU, issue 15.8).
///
/// Immutable after `init`. A look-up matches by content (size and pixels), never by where
/// the plane lives, so an engine given a cache replays byte-identically to one without: the
/// tables it returns are the ones ``LumaTables/init(_:)`` would build.
public final class LumaTableCache: Sendable {
  struct Entry: Sendable {
    let plane: LumaFrame
    let tables: LumaTables
  }

  /// Entries by fingerprint (size and sampled pixels), each list in first-seen order.
  private let entries: [UInt64: [Entry]]
  /// Distinct planes held.
  public let count: Int
  /// Bytes of table storage held (four `(w + 1) × (h + 1)` tables of `UInt32` per plane).
  public let tableBytes: Int

  /// Builds tables for every distinct well-formed plane in `planes` while their storage stays
  /// within `bytesMax` (planes past it are left to the engine to build per replay).
  public init(planes: some Sequence<LumaFrame>, bytesMax: Int) {
    var byPrint: [UInt64: [Entry]] = [:]
    var count = 0
    var bytes = 0
    for plane in planes {
      let key = Self.fingerprint(plane)
      if byPrint[key]?.contains(where: { Self.same($0.plane, plane) }) == true { continue }
      // Well-formed planes have at most `LumaFrame.pixelsMax` pixels: no overflow here.
      let size = Self.tableBytes(plane)
      guard size <= bytesMax - bytes, let tables = LumaTables(plane) else { continue }
      var stored = plane
      stored.frame = 0  // the frame number is not part of the plane's content
      byPrint[key, default: []].append(Entry(plane: stored, tables: tables))
      count += 1
      bytes += size
    }
    entries = byPrint
    self.count = count
    tableBytes = bytes
  }

  /// The storage of `plane`'s four tables, or `Int.max` for a plane too large for tables.
  static func tableBytes(_ plane: LumaFrame) -> Int {
    guard plane.w > 0, plane.h > 0, plane.w <= LumaFrame.pixelsMax, plane.h <= LumaFrame.pixelsMax else { return .max }
    let (cells, o) = (plane.w + 1).multipliedReportingOverflow(by: plane.h + 1)
    guard !o, cells <= 2 * LumaFrame.pixelsMax + 2 else { return .max }
    return 4 * MemoryLayout<UInt32>.size * cells
  }

  /// The tables of `plane`, or nil when the cache does not hold it.
  func tables(for plane: LumaFrame) -> LumaTables? {
    entries[Self.fingerprint(plane)]?.first { Self.same($0.plane, plane) }?.tables
  }

  static func same(_ a: LumaFrame, _ b: LumaFrame) -> Bool {
    // `==` on arrays sharing storage (the usual case: the same decoded event) is O(1).
    a.w == b.w && a.h == b.h && a.data == b.data
  }

  /// FNV-1a over the size and 64 pixels sampled at a fixed stride: cheap, content-only.
  static func fingerprint(_ plane: LumaFrame) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ v: UInt64) {
      h ^= v
      h = h &* 0x100_0000_01b3
    }
    mix(UInt64(truncatingIfNeeded: plane.w))
    mix(UInt64(truncatingIfNeeded: plane.h))
    let n = plane.data.count
    mix(UInt64(n))
    guard n > 0 else { return h }
    let step = max(1, n / 64)
    var i = 0
    while i < n {
      mix(UInt64(plane.data[i]))
      i += step
    }
    return h
  }
}
