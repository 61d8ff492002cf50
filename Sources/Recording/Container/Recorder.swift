import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import GRDB

/// Writes a new `.jprec` recording, streaming (DESIGN §3, docs/FORMAT-jprec.md).
///
/// Events are batched per channel into chunks of at most `chunkRawLimit` encoded bytes; each
/// full chunk is compressed and committed in its own transaction (WAL), so a process killed
/// mid-recording loses at most the open chunks. `finish()` commits the rest, marks the file
/// complete and leaves a single self-contained file (journal_mode=DELETE).
///
/// Dropping a `Recorder` without `finish()` behaves like a crash: open chunks are lost and the
/// file stays `complete = false` (readable; `Doctor` reports it as incomplete).
public final class Recorder {
  /// The file being written.
  public let path: String
  /// Events appended so far, the open chunks' included.
  public private(set) var eventCount: Int = 0
  let chunkRawLimit: Int
  let level: Int32
  var db: DatabaseQueue?
  var open: [OpenChunk?] = Array(repeating: nil, count: Channel.allCases.count)
  var channelCreated = [Bool](repeating: false, count: Channel.allCases.count)
  var nextSeq: Int64 = 0
  var lastT: Millis?
  var kindCounts: [Int]
  var chunksWritten = 0
  /// The kind table written to meta `jprec.kinds`: the definitions' ``EventDefinitions/kindTable``,
  /// then (a recording of named events) the kinds it lacks in order of first appearance
  /// (indexes never change).
  var kindNames: [String]
  /// The index of each name of the definitions' kind table.
  let tableIndex: [String: Int]
  /// The indexes of the hot payloads' kinds in the table (nil when it has none).
  let landmarksIndex: Int?, lumaIndex: Int?
  /// The events are named events (``EventDefinitions/namedEvents(in:)`` of the header's engine),
  /// not the definitions' typed kinds.
  public let namedEvents: Bool
  var namedIndex: [String: Int] = [:]
  /// The channel each named kind went to (meta `jprec.kind_channels`).
  var namedChannelOf = JSONObject()
  /// The table grew since meta `jprec.kinds` was last written (written with the next chunk).
  var kindsDirty = false
  /// The `.jprec` channel of each named kind (another engine's vocabulary says; the CLI sets
  /// it from `EventKindInfo.channel`). A kind not listed, or listed with `landmarks`/`pixels`
  /// or an unknown channel, goes to `ui` (`label` to `label`).
  public var namedChannels: [String: String] = [:]
  /// The engine the header names (`engine`; ``EngineName/of(header:)``'s default when absent).
  public let engine: String
  /// The channel of each kind of the definitions' kind table, as they state it.
  let kindChannels: [Channel?]

  struct OpenChunk {
    var startT: Int64
    var endT: Int64
    var firstSeq: Int64
    var count: Int64
    var encoder: EventEncoder
    var writer = ByteWriter()
  }

  /// Default chunk size limit (raw bytes). 256 KiB rather than 1 MiB: the reader loads the
  /// next chunk in the background while decoding the current one, and only the first chunk's
  /// load is not overlapped; compression is within 0.5% of 1 MiB chunks (FORMAT-jprec.md §3).
  public static let defaultChunkRawLimit = 1 << 18

  /// zstd level used for chunks (see docs/FORMAT-jprec.md §3 for the measurement).
  public static let defaultLevel: Int32 = 19

  /// Creates a NEW recording at `path` (refuses an existing file) and writes `header` to `meta`;
  /// each typed kind goes to the channel `definitions` (the recording's engine's) states.
  public init(
    path: String, header: JSONObject, chunkRawLimit: Int = Recorder.defaultChunkRawLimit, definitions: any EventDefinitions.Type
  ) throws(RecordingError) {
    self.path = path
    kindNames = definitions.kindTable
    kindCounts = [Int](repeating: 0, count: kindNames.count)
    tableIndex = KindTable.index(of: kindNames)
    landmarksIndex = tableIndex[InputPayload.landmarksKind]
    lumaIndex = tableIndex[InputPayload.lumaKind]
    kindChannels = KindTable.channels(of: kindNames, definitions)
    // The limit counts the streams; their lengths go in front (≤ streamLengthsBytesMax).
    self.chunkRawLimit = min(max(64, chunkRawLimit), ContainerLimits.chunkRawBytesMax - ContainerLimits.streamLengthsBytesMax)
    level = Recorder.defaultLevel
    let fm = FileManager.default
    // An empty `SafeFile.Temporary` (created exclusively by the caller) is filled; anything
    // else that exists is refused.
    let isEmptyTemporary = Paths.name(path).hasPrefix(SafeFile.temporaryPrefix) && JPRec.fileSize(path) == 0
    var st = stat()
    let exists = lstat(path, &st) == 0  // also a (dangling) symlink: never written through
    if exists && !isEmptyTemporary {
      throw RecordingError(file: path, "already exists; a recording is never overwritten (choose another name or delete it first)")
    }
    var seen = Set<String>()
    guard let engine = EngineName.of(header: header) else {
      throw RecordingError(file: path, place: "header", EngineName.problem(in: header) ?? "bad engine")
    }
    self.engine = engine
    namedEvents = definitions.namedEvents(in: engine)
    for m in header.members {
      if m.key.hasPrefix(JPRec.internalPrefix) {
        throw RecordingError(file: path, place: "header", "key \"\(m.key)\": the prefix \"jprec.\" is reserved for the container")
      }
      if !seen.insert(m.key).inserted {
        throw RecordingError(file: path, place: "header", "key \"\(m.key)\" appears twice")
      }
    }
    // Leftovers of an earlier recording at this path that was deleted without its WAL.
    for s in ["-wal", "-shm", "-journal"] where fm.fileExists(atPath: path + s) { try? fm.removeItem(atPath: path + s) }
    do {
      let q = try DatabaseQueue(path: path)
      db = q
      try q.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA application_id = \(JPRec.applicationID)")
        try db.execute(sql: "PRAGMA user_version = \(JPRec.formatVersion)")
        try db.inTransaction {
          try db.execute(sql: JPRec.schemaSQL)
          func put(_ k: String, _ v: JSONValue) throws {
            try db.execute(
              sql: "INSERT INTO meta(key, value) VALUES (?, ?)",
              arguments: [k, JSONWriter.write(v, sortKeys: false, numbers: .shortest)])
          }
          try put(JPRec.metaWriter, .string(JPRec.writerName))
          try put(JPRec.metaComplete, .bool(false))
          try put(JPRec.metaKinds, .array(kindNames.map { .string($0) }))
          for m in header.members { try put(m.key, m.value) }
          try Recorder.putMetaCRC(db)
          return .commit
        }
        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
      }
    } catch {
      try? db?.close()
      db = nil
      for s in ["", "-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: path + s) }
      throw RecordingError(file: path, "cannot create recording: \(JPRec.sqliteMessage(error))")
    }
  }

  /// Appends one event. Times must not decrease across calls.
  public func append(_ event: InputEvent) throws(RecordingError) {
    guard db != nil else { throw RecordingError(file: path, "the recording is finished (or failed); cannot append") }
    if let lastT, event.t < lastT {
      throw RecordingError(
        file: path, place: "event \(eventCount + 1)",
        "events must come in time order: t=\(event.t) after t=\(lastT)")
    }
    if case .typed(let g) = event.payload, g.kind == InputPayload.landmarksKind || g.kind == InputPayload.lumaKind {
      throw RecordingError(file: path, place: "event \(eventCount + 1)", "a \(g.kind) event must use its typed payload")
    }
    try checkBounds(event)
    let kindName = event.kindName
    let ci: Int
    let kindIndex: Int
    if !namedEvents {
      let index: Int?
      switch event.payload {
      case .landmarks: index = landmarksIndex
      case .luma: index = lumaIndex
      case .typed(let g): index = tableIndex[g.kind]
      case .named: index = nil
      }
      guard let index else {
        throw RecordingError(
          file: path, place: "event \(eventCount + 1)",
          "a \"\(kindName)\" event is not a kind of the recording's event definitions; a recording of another engine names it in the header key \"engine\"")
      }
      kindIndex = index
      guard let channel = kindChannels[kindIndex] else {
        throw RecordingError(
          file: path, place: "event \(eventCount + 1)",
          "a \"\(kindName)\" event has no .jprec channel in the event definitions the recorder was given")
      }
      ci = Channel.allCases.firstIndex(of: channel)!
    } else {
      guard case .named = event.payload else {
        throw RecordingError(
          file: path, place: "event \(eventCount + 1)",
          "a typed \(kindName) event in a recording of engine \"\(engine)\" (its events are named events)")
      }
      (ci, kindIndex) = try namedSlot(kindName)
    }
    let seq = nextSeq
    var c = open[ci] ?? OpenChunk(
      startT: event.t, endT: event.t, firstSeq: seq, count: 0, encoder: EventEncoder(startT: event.t, firstSeq: seq))
    open[ci] = nil
    let mark = c.writer.mark
    c.encoder.encode(event, seq: seq, kindIndex: kindIndex, into: &c.writer)
    if c.writer.count > chunkRawLimit && c.count > 0 {
      // The event does not fit: commit the chunk without it and start a new one with it.
      c.writer.truncate(to: mark)
      open[ci] = c
      try flush(ci)
      c = OpenChunk(
        startT: event.t, endT: event.t, firstSeq: seq, count: 0, encoder: EventEncoder(startT: event.t, firstSeq: seq))
      c.encoder.encode(event, seq: seq, kindIndex: kindIndex, into: &c.writer)
    }
    // Alone in its chunk, the event makes the whole payload (its stream lengths included).
    let eventBytes = c.count > 0 ? c.writer.bytes(since: mark) : c.writer.payloadCount
    if event.jsonFields != nil, eventBytes > ContainerLimits.singleEventChunkRawBytesMax {
      // The encoder state already holds this event: the open chunk is dropped, as in a crash.
      open[ci] = nil
      try? db?.close()
      db = nil
      throw RecordingError(
        file: path, place: "event \(eventCount + 1)",
        "a \(kindName) event of \(eventBytes) bytes is larger than a chunk may hold (\(ContainerLimits.singleEventChunkRawBytesMax), singleEventChunkRawBytesMax: one event alone in its chunk); the recording is left unfinished")
    }
    c.count += 1
    c.endT = event.t
    let full = c.writer.count >= chunkRawLimit || c.count >= Int64(ContainerLimits.chunkEventsMax)
    open[ci] = c
    nextSeq += 1
    lastT = event.t
    eventCount += 1
    kindCounts[kindIndex] += 1
    if full { try flush(ci) }
  }

  /// The channel index and kind index of a named kind (another engine's), adding it to the kind
  /// table on first sight.
  func namedSlot(_ name: String) throws(RecordingError) -> (channel: Int, kind: Int) {
    if name.isEmpty || name.utf8.count > EngineName.lengthMax {
      throw RecordingError(
        file: path, place: "event \(eventCount + 1)",
        "a named event's kind must be a name of 1 to \(EngineName.lengthMax) bytes, found \"\(name)\"")
    }
    var channel = Channel(rawValue: namedChannels[name] ?? (name == "label" ? "label" : "ui")) ?? .ui
    if channel == .landmarks || channel == .pixels { channel = .ui }
    let ci = Channel.allCases.firstIndex(of: channel)!
    if let k = namedIndex[name] { return (ci, k) }
    namedChannelOf[name] = .string(channel.rawValue)
    kindsDirty = true
    // A name the starting table holds keeps its entry: the table holds names, not meanings.
    if let k = tableIndex[name] {
      namedIndex[name] = k
      return (ci, k)
    }
    guard kindNames.count < ContainerLimits.kindsMax else {
      throw RecordingError(
        file: path, place: "event \(eventCount + 1)",
        "kind \"\(name)\" would make \(kindNames.count + 1) event kinds; the kind table holds at most \(ContainerLimits.kindsMax) (kindsMax)")
    }
    namedIndex[name] = kindNames.count
    kindNames.append(name)
    kindCounts.append(0)
    kindsDirty = true
    return (ci, kindNames.count - 1)
  }

  /// Compresses and commits the open chunk of channel index `ci` in one transaction.
  func flush(_ ci: Int) throws(RecordingError) {
    guard let c = open[ci], c.count > 0, let db else { return }
    open[ci] = nil
    let channel = Channel.allCases[ci]
    let (payload, ends) = c.writer.segmentedPayload()
    // Each stream its own zstd frame, so each gets its own entropy tables (§5.6).
    let compressed = Zstd.compressFrames(payload, level: level, ends: ends)
    let crc = compressed.withUnsafeBytes {
      JPRec.chunkCRC32(
        channelID: JPRec.channelID(channel), startMs: c.startT, endMs: c.endT, count: c.count, firstSeq: c.firstSeq,
        rawSize: Int64(payload.count), data: $0)
    }
    let create = !channelCreated[ci]
    let kinds: String? = kindsDirty ? JSONWriter.write(.array(kindNames.map { .string($0) }), sortKeys: false, numbers: .shortest) : nil
    let channels = JSONWriter.write(.object(namedChannelOf), sortKeys: false, numbers: .shortest)
    do {
      try db.write { db in
        if let kinds {
          try db.execute(sql: "UPDATE meta SET value = ? WHERE key = ?", arguments: [kinds, JPRec.metaKinds])
          try db.execute(
            sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            arguments: [JPRec.metaKindChannels, channels])
          try Recorder.putMetaCRC(db)
        }
        if create {
          try db.execute(
            sql: "INSERT OR IGNORE INTO channels(id, name, encoding) VALUES (?, ?, ?)",
            arguments: [JPRec.channelID(channel), channel.rawValue, EventEncoding.written.rawValue])
        }
        try db.execute(
          sql: """
            INSERT INTO chunks(channel_id, start_ms, end_ms, count, first_seq, raw_size, crc32, data)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
          arguments: [
            JPRec.channelID(channel), c.startT, c.endT, c.count, c.firstSeq, Int64(payload.count),
            Int64(crc), Data(compressed),
          ])
      }
    } catch {
      throw RecordingError(
        file: path, place: "chunk \(chunksWritten + 1) (channel \(channel.rawValue), \(c.startT)–\(c.endT) ms)",
        "cannot write: \(JPRec.sqliteMessage(error))")
    }
    channelCreated[ci] = true
    if kinds != nil { kindsDirty = false }
    chunksWritten += 1
  }

  /// Commits the open chunks, marks the recording complete, checkpoints the WAL, switches to
  /// journal_mode=DELETE and closes the file.
  public func finish() throws(RecordingError) {
    guard let db else { throw RecordingError(file: path, "the recording is already finished") }
    for ci in open.indices { try flush(ci) }
    var counts = JSONObject()
    for (i, name) in kindNames.enumerated().sorted(by: { $0.element < $1.element }) where kindCounts[i] > 0 {
      counts.members.append(JSONMember(name, .number(Double(kindCounts[i]))))
    }
    do {
      try db.write { db in
        try db.execute(
          sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
          arguments: [JPRec.metaEventCounts, JSONWriter.write(.object(counts), sortKeys: false, numbers: .shortest)])
        try db.execute(sql: "UPDATE meta SET value = 'true' WHERE key = ?", arguments: [JPRec.metaComplete])
        try Recorder.putMetaCRC(db)
      }
      try db.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
      }
      try db.close()
    } catch {
      self.db = nil
      throw RecordingError(file: path, "cannot finish: \(JPRec.sqliteMessage(error))")
    }
    self.db = nil
  }

  /// Refuses an event the reader would refuse (ContainerLimits), before it touches the chunk.
  func checkBounds(_ event: InputEvent) throws(RecordingError) {
    switch event.payload {
    case .luma(let l):
      guard let pixels = ContainerLimits.lumaPixels(w: l.w, h: l.h), pixels == l.data.count else {
        throw RecordingError(
          file: path, place: "event \(eventCount + 1)",
          "luma: expected w, h ≥ 0 with w·h ≤ \(ContainerLimits.lumaPixelsMax) (lumaPixelsMax) and w·h bytes of data, found \(l.w)×\(l.h) with \(l.data.count) bytes")
      }
    case .landmarks(let f):
      guard f.faces.count <= ContainerLimits.landmarkFacesMax else {
        throw RecordingError(
          file: path, place: "event \(eventCount + 1)",
          "landmarks: \(f.faces.count) faces; at most \(ContainerLimits.landmarkFacesMax) (landmarkFacesMax)")
      }
    case .typed, .named: break
    }
  }

  /// Writes `jprec.meta_crc32` for the meta rows as they are now.
  static func putMetaCRC(_ db: Database) throws {
    let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM meta WHERE key != ? ORDER BY rowid", arguments: [JPRec.metaCRC])
      .map { (key: try $0.decode(String.self, atIndex: 0), value: try $0.decode(String.self, atIndex: 1)) }
    try db.execute(
      sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
      arguments: [JPRec.metaCRC, String(JPRec.metaCRC32(rows))])
  }

  deinit {
    // Like a crash: open chunks are dropped; SQLite checkpoints what was committed.
    try? db?.close()
  }
}
