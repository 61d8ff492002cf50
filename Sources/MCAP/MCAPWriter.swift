import CZstd

/// Bounds of one MCAP file this writer makes.
public enum MCAPLimits {
  /// Schemas, and channels, in one file: their ids are 16-bit and 0 means "none".
  public static let idsMax = 65_535
  /// Uncompressed bytes of records gathered in one chunk before it is compressed and written.
  public static let chunkBytes = 1 << 20
  /// Bytes of one message's data (a chunk holds at least one message whatever its size).
  public static let messageBytesMax = 64 << 20
}

/// What the writer refuses: an id space or a size limit exceeded, or a message after `finish`.
public struct MCAPError: Error, CustomStringConvertible, Sendable {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// A streaming writer of MCAP files (https://mcap.dev/spec, major version 0), no Foundation.
///
/// The file it writes: magic, header, then the data section — schema and channel records and
/// messages gathered in zstd-compressed chunks of about `MCAPLimits.chunkBytes`, each followed
/// by one message index per channel it holds — a data-end record carrying the CRC-32 of every
/// byte before it, the summary section (the schemas, the channels, statistics, the chunk
/// indexes, then a summary offset per group), the footer (its CRC covers the summary and the
/// footer's own leading fields) and the closing magic. Each chunk records the CRC-32 of its
/// uncompressed records. Bytes go to `sink` in file order as they are ready: memory is one
/// chunk plus the summary, whatever the file's length.
public final class MCAPWriter {
  public typealias Sink = (UnsafeRawBufferPointer) throws -> Void
  static let magic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]

  private let sink: Sink
  private let chunkBytes: Int
  private let level: Int32
  private var position: UInt64 = 0
  private var dataCRC = MCAPCRC32()
  private var out = MCAPBytes()
  private var chunk = MCAPBytes()
  private var chunkMessages = 0
  private var chunkStart: UInt64 = .max
  private var chunkEnd: UInt64 = 0
  /// Per channel id, the chunk's (log time, offset) pairs, flat.
  private var chunkIndex: [UInt16: [UInt64]] = [:]
  private var schemas = MCAPBytes()
  private var channels = MCAPBytes()
  private var chunkIndexes = MCAPBytes()
  private var schemaCount = 0
  private var channelCount = 0
  private var chunkCount = 0
  private var counts: [UInt64] = [0]
  private var messageCount: UInt64 = 0
  private var startTime: UInt64 = .max
  private var endTime: UInt64 = 0
  private var compressed: [UInt8] = []
  private let cctx: OpaquePointer
  private var finished = false

  /// Starts a file: writes the magic and the header (`profile`, `library`) to `sink`.
  /// `chunkBytes`: uncompressed bytes per chunk; `level`: zstd's compression level.
  public init(
    profile: String = "", library: String, chunkBytes: Int = MCAPLimits.chunkBytes, level: Int32 = 3,
    sink: @escaping Sink
  ) throws {
    self.sink = sink
    self.chunkBytes = max(1, chunkBytes)
    self.level = level
    guard let c = ZSTD_createCCtx() else { throw MCAPError("zstd: cannot create a compression context") }
    cctx = c
    out.raw(Self.magic)
    out.record(.header) {
      $0.string(profile)
      $0.string(library)
    }
    try flush(crc: true)
  }

  deinit { ZSTD_freeCCtx(cctx) }

  /// Messages written so far, all channels.
  public var messages: UInt64 { messageCount }

  /// Registers a schema (`encoding` e.g. `jsonschema`, `data` its text) and returns its id (1…).
  public func addSchema(name: String, encoding: String, data: [UInt8]) throws -> UInt16 {
    guard schemaCount < MCAPLimits.idsMax else { throw MCAPError("more than MCAPLimits.idsMax = \(MCAPLimits.idsMax) schemas") }
    schemaCount += 1
    let id = UInt16(schemaCount)
    let write: (inout MCAPBytes) -> Void = { b in
      b.record(.schema) {
        $0.u16(id)
        $0.string(name)
        $0.string(encoding)
        $0.u32(UInt32(data.count))
        $0.raw(data)
      }
    }
    write(&chunk)
    write(&schemas)
    return id
  }

  /// Registers a channel on `topic` (messages in `messageEncoding`, e.g. `json`, described by
  /// schema `schema`, 0 for none) and returns its id (1…).
  public func addChannel(topic: String, messageEncoding: String, schema: UInt16, metadata: [(String, String)] = []) throws
    -> UInt16
  {
    guard channelCount < MCAPLimits.idsMax else { throw MCAPError("more than MCAPLimits.idsMax = \(MCAPLimits.idsMax) channels") }
    channelCount += 1
    let id = UInt16(channelCount)
    counts.append(0)
    let write: (inout MCAPBytes) -> Void = { b in
      b.record(.channel) {
        $0.u16(id)
        $0.u16(schema)
        $0.string(topic)
        $0.string(messageEncoding)
        $0.stringMap(metadata)
      }
    }
    write(&chunk)
    write(&channels)
    return id
  }

  /// Adds one message on `channel` at `logTime` (ns; also its publish time).
  public func addMessage(channel: UInt16, logTime: UInt64, data: UnsafeRawBufferPointer) throws {
    guard !finished else { throw MCAPError("message after finish") }
    guard channel >= 1, Int(channel) < counts.count else { throw MCAPError("message on unknown channel \(channel)") }
    guard data.count <= MCAPLimits.messageBytesMax else {
      throw MCAPError("a message of \(data.count) bytes, more than MCAPLimits.messageBytesMax = \(MCAPLimits.messageBytesMax)")
    }
    let offset = UInt64(chunk.count)
    let sequence = UInt32(truncatingIfNeeded: counts[Int(channel)])
    chunk.record(.message) {
      $0.u16(channel)
      $0.u32(sequence)
      $0.u64(logTime)
      $0.u64(logTime)
      $0.raw(data)
    }
    chunkIndex[channel, default: []].append(logTime)
    chunkIndex[channel, default: []].append(offset)
    counts[Int(channel)] += 1
    messageCount += 1
    chunkMessages += 1
    chunkStart = min(chunkStart, logTime)
    chunkEnd = max(chunkEnd, logTime)
    startTime = min(startTime, logTime)
    endTime = max(endTime, logTime)
    if chunk.count >= chunkBytes { try closeChunk() }
  }

  public func addMessage(channel: UInt16, logTime: UInt64, data: [UInt8]) throws {
    try data.withUnsafeBytes { try addMessage(channel: channel, logTime: logTime, data: $0) }
  }

  /// Writes the last chunk, the data end, the summary, the footer and the closing magic.
  public func finish() throws {
    guard !finished else { return }
    if chunkMessages > 0 {
      try closeChunk()
    } else if chunk.count > 0 {
      // Schemas or channels registered after the last message: plain data-section records.
      out.raw(chunk.bytes)
      chunk.removeAll()
      try flush(crc: true)
    }
    finished = true
    let dataCRC = self.dataCRC.value
    out.record(.dataEnd) { $0.u32(dataCRC) }
    try flush(crc: false)
    try writeSummaryAndFooter()
  }

  private func writeSummaryAndFooter() throws {
    let summaryStart = position
    var summary = MCAPBytes()
    var offsets: [(MCAPOp, UInt64, UInt64)] = []
    func group(_ op: MCAPOp, _ bytes: [UInt8]) {
      guard !bytes.isEmpty else { return }
      offsets.append((op, summaryStart + UInt64(summary.count), UInt64(bytes.count)))
      summary.raw(bytes)
    }
    group(.schema, schemas.bytes)
    group(.channel, channels.bytes)
    var stats = MCAPBytes()
    stats.record(.statistics) {
      $0.u64(messageCount)
      $0.u16(UInt16(schemaCount))
      $0.u32(UInt32(channelCount))
      $0.u32(0)  // attachments
      $0.u32(0)  // metadata
      $0.u32(UInt32(chunkCount))
      $0.u64(messageCount == 0 ? 0 : startTime)
      $0.u64(endTime)
      var counts = MCAPBytes()
      for id in 1..<self.counts.count where self.counts[id] > 0 {
        counts.u16(UInt16(id))
        counts.u64(self.counts[id])
      }
      $0.u32(UInt32(counts.count))
      $0.raw(counts.bytes)
    }
    group(.statistics, stats.bytes)
    group(.chunkIndex, chunkIndexes.bytes)
    let offsetStart = summaryStart + UInt64(summary.count)
    for (op, start, length) in offsets {
      summary.record(.summaryOffset) {
        $0.u8(op.rawValue)
        $0.u64(start)
        $0.u64(length)
      }
    }
    var footer = MCAPBytes()
    footer.u8(MCAPOp.footer.rawValue)
    footer.u64(8 + 8 + 4)
    footer.u64(summaryStart)
    footer.u64(offsetStart)
    var crc = MCAPCRC32()
    crc.update(summary.bytes)
    crc.update(footer.bytes)
    footer.u32(crc.value)
    out.raw(summary.bytes)
    out.raw(footer.bytes)
    out.raw(Self.magic)
    try flush(crc: false)
  }

  /// Compresses the gathered records into a chunk record, then writes the chunk's message indexes.
  private func closeChunk() throws {
    let raw = chunk.bytes
    var crc = MCAPCRC32()
    crc.update(raw)
    let bound = ZSTD_compressBound(raw.count)
    if compressed.count < bound { compressed = [UInt8](repeating: 0, count: bound) }
    let n = raw.withUnsafeBytes { src in
      compressed.withUnsafeMutableBytes { dst in
        ZSTD_compressCCtx(cctx, dst.baseAddress, bound, src.baseAddress, src.count, level)
      }
    }
    guard ZSTD_isError(n) == 0 else { throw MCAPError("zstd: \(String(cString: ZSTD_getErrorName(n)))") }
    let chunkStartOffset = position
    let (start, end) = (chunkStart, chunkEnd)
    let data = compressed
    out.record(.chunk) { b in
      b.u64(start)
      b.u64(end)
      b.u64(UInt64(raw.count))
      b.u32(crc.value)
      b.string("zstd")
      b.u64(UInt64(n))
      data.withUnsafeBytes { c in b.raw(UnsafeRawBufferPointer(rebasing: c[..<n])) }
    }
    let chunkLength = UInt64(out.count)
    try flush(crc: true)
    let indexStart = position
    var indexOffsets: [(UInt16, UInt64)] = []
    for id in chunkIndex.keys.sorted() {
      let pairs = chunkIndex[id]!
      indexOffsets.append((id, indexStart + UInt64(out.count)))
      out.record(.messageIndex) {
        $0.u16(id)
        $0.u32(UInt32(pairs.count * 8))
        for v in pairs { $0.u64(v) }
      }
    }
    let indexLength = UInt64(out.count)
    try flush(crc: true)
    chunkIndexes.record(.chunkIndex) {
      $0.u64(start)
      $0.u64(end)
      $0.u64(chunkStartOffset)
      $0.u64(chunkLength)
      $0.u32(UInt32(indexOffsets.count * 10))
      for (id, off) in indexOffsets {
        $0.u16(id)
        $0.u64(off)
      }
      $0.u64(indexLength)
      $0.string("zstd")
      $0.u64(UInt64(n))
      $0.u64(UInt64(raw.count))
    }
    chunkCount += 1
    chunk.removeAll()
    chunkIndex.removeAll(keepingCapacity: true)
    chunkMessages = 0
    chunkStart = .max
    chunkEnd = 0
  }

  /// Sends `out` to the sink (adding it to the data section's CRC when `crc`).
  private func flush(crc: Bool) throws {
    guard out.count > 0 else { return }
    if crc { dataCRC.update(out.bytes) }
    try out.bytes.withUnsafeBytes { try sink($0) }
    position += UInt64(out.count)
    out.removeAll()
  }
}
