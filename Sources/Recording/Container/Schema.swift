import EngineIO
import Foundation
import GRDB

/// Constants and shared helpers of the `.jprec` container (docs/FORMAT-jprec.md).
enum JPRec {
  /// `PRAGMA application_id`: "JPRC".
  static let applicationID: Int32 = 0x4A50_5243
  /// `PRAGMA user_version`: the container format version this code reads and writes.
  /// Version 2 (issue 12): the chunk CRC covers the row's fields, meta carries a CRC.
  static let formatVersion = 2
  static let writerName = "justphoto-replay jprec/2"

  static let metaComplete = "jprec.complete"
  static let metaWriter = "jprec.writer"
  static let metaKinds = "jprec.kinds"
  static let metaEventCounts = "jprec.event_counts"
  /// Another engine's recording: the channel of each of its (named) kinds, `{"kind": "channel"}`.
  static let metaKindChannels = "jprec.kind_channels"
  /// CRC-32 of every other meta row (`metaCRC32`).
  static let metaCRC = "jprec.meta_crc32"
  /// `false` in a `recover` output that lost chunks (sequence numbers then have gaps).
  static let metaSeqContiguous = "jprec.seq_contiguous"
  static let internalPrefix = "jprec."

  static let schemaSQL = """
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE channels(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, encoding TEXT NOT NULL);
    CREATE TABLE chunks(
      id INTEGER PRIMARY KEY,
      channel_id INTEGER NOT NULL REFERENCES channels(id),
      start_ms INTEGER NOT NULL,
      end_ms INTEGER NOT NULL,
      count INTEGER NOT NULL,
      first_seq INTEGER NOT NULL,
      raw_size INTEGER NOT NULL,
      crc32 INTEGER NOT NULL,
      data BLOB NOT NULL);
    CREATE INDEX chunks_channel_start ON chunks(channel_id, start_ms);
    """

  /// The stable channel id of a channel: its position in `Channel.allCases`, plus one.
  static func channelID(_ c: Channel) -> Int64 { Int64(Channel.allCases.firstIndex(of: c)!) + 1 }

  /// The meta CRC: CRC-32 over every row but `jprec.meta_crc32`, in ascending byte order of the
  /// UTF-8 keys, each row as `u32le(len key) ‖ key ‖ u32le(len value) ‖ value` (the stored text).
  static func metaCRC32(_ rows: [(key: String, value: String)]) -> UInt32 {
    let sorted = rows.filter { $0.key != metaCRC }.map { (Array($0.key.utf8), Array($0.value.utf8)) }
      .sorted { $0.0.lexicographicallyPrecedes($1.0) }
    var bytes: [UInt8] = []
    func u32(_ n: Int) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: UInt32(truncatingIfNeeded: n) >> (8 * UInt32(i)))) } }
    for (k, v) in sorted {
      u32(k.count)
      bytes += k
      u32(v.count)
      bytes += v
    }
    return CRC32.checksum(bytes)
  }

  /// The chunk CRC: CRC-32 of the row's fields `channel_id, start_ms, end_ms, count, first_seq,
  /// raw_size` (each as 8 bytes little-endian) followed by `data` (the compressed bytes).
  static func chunkCRC32(
    channelID: Int64, startMs: Int64, endMs: Int64, count: Int64, firstSeq: Int64, rawSize: Int64,
    data: UnsafeRawBufferPointer
  ) -> UInt32 {
    var fields = [UInt8]()
    fields.reserveCapacity(48)
    for v in [channelID, startMs, endMs, count, firstSeq, rawSize] {
      for i in 0..<8 { fields.append(UInt8(truncatingIfNeeded: v >> (8 * Int64(i)))) }
    }
    return fields.withUnsafeBytes { CRC32.checksum(parts: [$0, data]) }
  }

  static func hex(_ v: UInt32) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
  }

  static func sqliteMessage(_ error: any Error) -> String {
    if let e = error as? DatabaseError {
      return "SQLite error \(e.resultCode.rawValue): \(e.message ?? "\(e.resultCode)")"
    }
    return "\(error)"
  }

  /// The size of the file `path` names, through a symbolic link (a link's own size is the
  /// length of its target's path: a recording read through a link was called truncated).
  static func fileSize(_ path: String) -> Int64? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return Int64(st.st_size)
  }

  /// Checks the raw SQLite header (first 100 bytes) before SQLite sees the file: magic,
  /// truncation, application_id and user_version. Throws a `RecordingError` naming `path`.
  /// With `allowTruncated` a truncated file is not an error: the message is returned instead
  /// (for `Doctor`, which salvages what is readable).
  @discardableResult
  static func checkHeader(_ path: String, allowTruncated: Bool = false) throws(RecordingError) -> String? {
    try InputFile.checkRegular(path, what: ".jprec recording")
    guard let h = FileHandle(forReadingAtPath: path) else { throw RecordingError(file: path, "cannot open for reading") }
    defer { try? h.close() }
    let head = [UInt8]((try? h.read(upToCount: 100)) ?? Data())
    let size = fileSize(path) ?? Int64(head.count)
    if head.isEmpty { throw RecordingError(file: path, "not a .jprec recording: empty file") }
    let magic = Array("SQLite format 3\u{0}".utf8)
    guard head.count >= 100, Array(head[0..<16]) == magic else {
      throw RecordingError(file: path, "not a .jprec recording: not an SQLite database")
    }
    func be32(_ o: Int) -> UInt32 {
      UInt32(head[o]) << 24 | UInt32(head[o + 1]) << 16 | UInt32(head[o + 2]) << 8 | UInt32(head[o + 3])
    }
    var pageSize = Int64(UInt16(head[16]) << 8 | UInt16(head[17]))
    if pageSize == 1 { pageSize = 65536 }
    let pageCount = Int64(be32(28))
    let validFor = be32(92), changeCounter = be32(24)
    // With a non-empty WAL (a writer that was killed) the WAL holds the newest pages; SQLite
    // checks consistency itself then.
    let walSize = fileSize(path + "-wal") ?? 0
    var truncation: String? = nil
    if walSize == 0, validFor == changeCounter, pageCount > 0, pageSize >= 512 {
      let expected = pageCount * pageSize
      if size < expected {
        truncation =
          "truncated: the file has \(size) bytes but its SQLite header declares \(pageCount) pages of \(pageSize) bytes (\(expected) bytes)"
      }
    }
    let appID = Int32(bitPattern: be32(68))
    let version = Int(Int32(bitPattern: be32(60)))
    try checkIDs(path, appID: appID, version: version)
    if let truncation, !allowTruncated { throw RecordingError(file: path, truncation) }
    return truncation
  }

  static func checkIDs(_ path: String, appID: Int32, version: Int) throws(RecordingError) {
    guard appID == applicationID else {
      throw RecordingError(
        file: path,
        "not a .jprec recording: SQLite application_id is \(hex(UInt32(bitPattern: appID))), expected \(hex(UInt32(bitPattern: applicationID))) (\"JPRC\")")
    }
    if version > formatVersion {
      throw RecordingError(
        file: path,
        "recording format version \(version) is newer than this jpreplay understands (version \(formatVersion))")
    }
    if version == 1 {
      throw RecordingError(
        file: path,
        "recording format version 1 is no longer read (its checksums do not cover the chunk index or the header; this jpreplay reads version \(formatVersion)): re-record it with `jpreplay record` or re-import its JSONL with `jpreplay import --force`")
    }
    guard version == formatVersion else {
      throw RecordingError(file: path, "not a .jprec recording: format version \(version) (expected \(formatVersion))")
    }
  }

  /// Opens an existing recording read-only after `checkHeader`, and checks pragmas and tables.
  static func openReadOnly(_ path: String, allowTruncated: Bool = false) throws(RecordingError) -> DatabaseQueue {
    let truncated = try checkHeader(path, allowTruncated: allowTruncated) != nil
    var config = Configuration()
    config.readonly = true
    config.label = "jprec-reader"
    if truncated {
      // SQLite refuses a file shorter than its header says unless writable_schema is on (it
      // then reads what is there; nothing is written: the connection is read-only).
      config.prepareDatabase { db in try db.execute(sql: "PRAGMA writable_schema = ON") }
    }
    let q: DatabaseQueue
    do { q = try DatabaseQueue(path: path, configuration: config) } catch {
      throw RecordingError(file: path, "cannot open: \(sqliteMessage(error))")
    }
    do {
      let (appID, version, tables) = try q.inDatabase { db in
        let a = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let v = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        let t = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        return (a, v, t)
      }
      try checkIDs(path, appID: appID, version: version)
      for t in ["meta", "channels", "chunks"] where !tables.contains(t) {
        throw RecordingError(file: path, "not a .jprec recording: table \(t) is missing")
      }
    } catch let e as RecordingError {
      try? q.close()
      throw e
    } catch {
      try? q.close()
      throw RecordingError(file: path, "cannot read: \(sqliteMessage(error))")
    }
    return q
  }
}

/// One row of `chunks`, without its data.
struct ChunkInfo: Sendable {
  var id: Int64
  var channelID: Int64
  var startMs: Int64
  var endMs: Int64
  var count: Int64
  var firstSeq: Int64
  var rawSize: Int64
  var crc32: UInt32

  static let columns = "id, channel_id, start_ms, end_ms, count, first_seq, raw_size, crc32"

  /// Throws (instead of trapping) on a NULL or mistyped column of a damaged file.
  init(row: Row) throws {
    id = try row.decode(atIndex: 0)
    channelID = try row.decode(atIndex: 1)
    startMs = try row.decode(atIndex: 2)
    endMs = try row.decode(atIndex: 3)
    count = try row.decode(atIndex: 4)
    firstSeq = try row.decode(atIndex: 5)
    rawSize = try row.decode(atIndex: 6)
    let c: Int64 = try row.decode(atIndex: 7)
    crc32 = UInt32(truncatingIfNeeded: c)
  }

  /// "chunk 7 (channel landmarks, 12000–15000 ms)"
  func place(_ channelName: String) -> String {
    "chunk \(id) (channel \(channelName), \(startMs)–\(endMs) ms)"
  }
  /// "chunk 7 (landmarks, 12000–15000 ms, 900 events)"
  func summary(_ channelName: String) -> String {
    "chunk \(id) (\(channelName), \(startMs)–\(endMs) ms, \(count) events)"
  }
}

/// Reads, verifies and decodes one chunk's bytes. Shared by the reader, `Doctor` and `recover`.
struct ChunkLoader {
  /// Fetches the chunk's data, checks its CRC and decompresses it. Errors are bare messages.
  static func load(_ db: Database, _ c: ChunkInfo) throws(CodecError) -> [UInt8] {
    let data: Data
    do {
      guard let d = try Data.fetchOne(db, sql: "SELECT data FROM chunks WHERE id = ?", arguments: [c.id]) else {
        throw CodecError("chunk row has no data")
      }
      data = d
    } catch let e as CodecError {
      throw e
    } catch {
      throw CodecError("cannot read: \(JPRec.sqliteMessage(error))")
    }
    return try verify(data, c)
  }

  static func verify(_ data: Data, _ c: ChunkInfo) throws(CodecError) -> [UInt8] {
    try check(data, c)
    let result: Result<[UInt8], Zstd.Failure> = data.withUnsafeBytes { b in
      do throws(Zstd.Failure) { return .success(try Zstd.decompress(b, expectedSize: Int(c.rawSize))) } catch { return .failure(error) }
    }
    switch result {
    case .success(let raw): return raw
    case .failure(let f): throw CodecError(f.description)
    }
  }

  /// As `load`, but decompresses into `buffer` (grown when too small) without copying the blob.
  static func load(_ db: Database, _ c: ChunkInfo, into buffer: ChunkBuffer) throws(CodecError) {
    do {
      let stmt = try db.cachedStatement(sql: "SELECT data FROM chunks WHERE id = ?")
      let rows = try Row.fetchCursor(stmt, arguments: [c.id])
      guard let row = try rows.next() else { throw CodecError("chunk row is missing") }
      // The blob is read in place (no copy): it is valid until the cursor moves on.
      try row.withUnsafeData(atIndex: 0) { (data: Data?) throws in
        guard let data else { throw CodecError("chunk row has no data") }
        try check(data, c)
        buffer.reserve(Int(c.rawSize))
        let result: Result<Void, Zstd.Failure> = data.withUnsafeBytes { b in
          do throws(Zstd.Failure) {
            return .success(
              try Zstd.decompress(b, into: buffer.storage, expectedSize: Int(c.rawSize), context: buffer.context))
          } catch {
            return .failure(error)
          }
        }
        if case .failure(let f) = result { throw CodecError(f.description) }
        buffer.count = Int(c.rawSize)
      }
    } catch let e as CodecError {
      throw e
    } catch {
      throw CodecError("cannot read: \(JPRec.sqliteMessage(error))")
    }
  }

  /// The checks done before decompressing: CRC, plausible raw size and event count.
  static func check(_ data: Data, _ c: ChunkInfo) throws(CodecError) {
    let crc = data.withUnsafeBytes {
      JPRec.chunkCRC32(
        channelID: c.channelID, startMs: c.startMs, endMs: c.endMs, count: c.count, firstSeq: c.firstSeq,
        rawSize: c.rawSize, data: $0)
    }
    guard crc == c.crc32 else {
      throw CodecError("CRC mismatch (stored \(JPRec.hex(c.crc32)), computed \(JPRec.hex(crc))): the chunk's data or its row (channel, times, count, first_seq, raw_size) is damaged")
    }
    try checkBounds(c)
  }

  /// The checks of a chunk row against `ContainerLimits`, done before anything is allocated.
  static func checkBounds(_ c: ChunkInfo) throws(CodecError) {
    let rawMax = Int64(c.count == 1 ? ContainerLimits.singleEventChunkRawBytesMax : ContainerLimits.chunkRawBytesMax)
    guard c.rawSize >= 0, c.rawSize <= rawMax else {
      throw CodecError("raw size \(c.rawSize) bytes is more than the \(rawMax) a chunk may hold (chunkRawBytesMax; only a chunk with one event may reach singleEventChunkRawBytesMax)")
    }
    guard c.count >= 0, c.count <= Int64(ContainerLimits.chunkEventsMax) else {
      throw CodecError("event count \(c.count) is more than the \(ContainerLimits.chunkEventsMax) a chunk may hold (chunkEventsMax)")
    }
    guard c.count <= c.rawSize / 3 + 1 else {
      throw CodecError("event count \(c.count) cannot fit in \(c.rawSize) bytes")
    }
  }

  /// Decodes every event of a verified chunk (for `Doctor` and stats).
  static func decodeAll(_ raw: [UInt8], _ c: ChunkInfo, decoder: EventDecoder, _ each: (InputEvent, Int64) -> Void) throws(CodecError) {
    decoder.reset(startT: c.startMs, endT: c.endMs, firstSeq: c.firstSeq)
    let result: Result<Void, CodecError> = raw.withUnsafeBytes { b in
      do throws(CodecError) {
        var r = try decoder.open(b)
        var lastT = c.startMs
        for _ in 0..<c.count {
          let (e, s) = try decoder.decode(&r)
          lastT = e.t
          each(e, s)
        }
        if c.count > 0, lastT != c.endMs {
          throw CodecError("last event at t=\(lastT) but the chunk ends at \(c.endMs) ms")
        }
        let unread = decoder.bytesLeft(r)
        if unread != 0 { throw CodecError("\(unread) bytes left after the chunk's \(c.count) events") }
        return .success(())
      } catch { return .failure(error) }
    }
    try result.get()
  }
}
