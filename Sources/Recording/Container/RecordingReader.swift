import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import GRDB

/// Reads a `.jprec` recording: its header and its events merged over channels by
/// `(t, seq)` — the order they were appended in. Holds one decompressed chunk per channel.
///
/// Opening validates the file (SQLite, application_id, format version, truncation, tables);
/// every failure, here or in `next()`, is a `RecordingError` naming the file and chunk.
/// The file is opened read-only (SQLite may replay the WAL of a writer that was killed).
public final class RecordingReader {
  /// The file as the caller named it; messages start with it.
  public let path: String
  /// The recording header (ENGINE §1.4): every `meta` row except the container's own
  /// `jprec.*` rows, in the order they were written.
  @exclusivity(unchecked) public private(set) var header: JSONObject
  /// Whether the writer finished the file (`jprec.complete`). An incomplete recording reads
  /// up to its last committed chunk.
  public let isComplete: Bool
  /// The number of events its chunk index holds, known before any event is decoded: a command
  /// with an event limit checks it first (issue 23.7) instead of reading up to the limit.
  public private(set) var declaredEvents: Int64 = 0
  let db: DatabaseQueue
  let kindNames: [String]
  /// Every meta row as stored (key, JSON text), in insertion order.
  let metaRows: [(key: String, value: String)]
  @exclusivity(unchecked) var cursors: [ChannelCursor] = []
  @exclusivity(unchecked) var primed = false
  /// False in a `recover` output that lost chunks: then sequence numbers may have gaps.
  let seqContiguous: Bool
  /// The sequence number the next event must have (nil after a seek, until the next event).
  @exclusivity(unchecked) var expectedSeq: Int64? = 0
  /// A read-ahead failure, thrown by the next call of `next()`.
  @exclusivity(unchecked) var deferredError: RecordingError? = nil

  /// Opens `path` read-only and validates the container (SQLite, application id, format
  /// version, tables, meta CRC); no chunk is decoded yet. Throws a `RecordingError` naming the file.
  /// Its typed kinds are decoded with `definitions` (the recording's engine's, from the caller).
  public init(path: String, definitions: any EventDefinitions.Type) throws(RecordingError) {
    self.path = path
    db = try JPRec.openReadOnly(path)
    do {
      let meta: RecordingMeta
      do { meta = try db.inDatabase { try RecordingMeta.read($0) } } catch let e as MetaError {
        throw e.recordingError(path)
      }
      metaRows = meta.rows
      header = meta.header
      isComplete = meta.complete
      kindNames = meta.kinds
      seqContiguous = meta.seqContiguous
      let kinds = meta.kinds
      guard let engineName = EngineName.of(header: meta.header) else {
        throw RecordingError(file: path, place: "header", EngineName.problem(in: meta.header) ?? "bad engine")
      }
      // The definitions' typed kinds, or (another engine's recording) named events.
      let namedKinds = definitions.namedEvents(in: engineName)
      let layout = try db.inDatabase { try ChunkIndex.read($0, path: path) }
      var declared: [String: Int64]
      do throws(MetaError) { declared = try meta.eventsPerChannel(definitions) ?? [:] } catch { throw error.recordingError(path) }
      let checkCounts = meta.eventCounts != nil
      for (ch, encoding, chunks) in layout.channels {
        var total: Int64 = 0
        for c in chunks { total += c.count }  // each ≤ chunkEventsMax, at most chunksMax rows: no overflow
        declaredEvents += total
        if checkCounts, total != declared[ch.rawValue] ?? 0 {
          throw RecordingError(
            file: path, place: "channel \(ch.rawValue)",
            "its chunks hold \(total) events but meta \"\(JPRec.metaEventCounts)\" declares \(declared[ch.rawValue] ?? 0): chunks are missing or the chunk index is damaged (run `jpreplay doctor`)")
        }
        declared[ch.rawValue] = nil
        cursors.append(ChannelCursor(channel: ch, name: ch.rawValue, chunks: chunks, decoder: EventDecoder(kindNames: kinds, channel: ch, namedKinds: namedKinds, definitions: definitions, encoding: encoding), db: db))
      }
      // Every command reads a recording through here: one more than a recording may hold
      // (its chunk index says so) is refused before a chunk is decompressed.
      if declaredEvents > ContainerLimits.recordingEventsMax {
        throw RecordingError(
          file: path, place: "chunk index",
          "\(declaredEvents) events, more than a recording may hold (ContainerLimits.recordingEventsMax = \(ContainerLimits.recordingEventsMax)); split the recording")
      }
      if checkCounts, let (name, n) = declared.filter({ $0.value > 0 }).sorted(by: { $0.key < $1.key }).first {
        throw RecordingError(
          file: path, place: "channel \(name)",
          "meta \"\(JPRec.metaEventCounts)\" declares \(n) events but the recording has no chunk of this channel: chunks are missing or the chunk index is damaged (run `jpreplay doctor`)")
      }
    } catch let e as RecordingError {
      try? db.close()
      throw e
    } catch {
      try? db.close()
      throw RecordingError(file: path, "cannot read: \(JPRec.sqliteMessage(error))")
    }
  }

  deinit {
    for c in cursors { c.prefetcher?.drain() }
    try? db.close()
  }

  /// The next event in `(t, seq)` order, or nil at the end.
  public func next() throws(RecordingError) -> InputEvent? {
    if let e = deferredError {
      deferredError = nil
      throw e
    }
    if !primed {
      primed = true
      for c in cursors { try c.advance(self) }
    }
    // The cursor is chosen by index and borrowed, not held in a local: a `ChannelCursor?`
    // local retained and released the cursor once per event read.
    var best = -1
    let count = cursors.count
    if count == 1 {
      if cursors[0].hasHead { best = 0 }
    } else {
      for i in 0..<count where cursors[i].hasHead {
        if best < 0 {
          best = i
        } else {
          let c = cursors[i], b = cursors[best]
          if c.headT < b.headT || (c.headT == b.headT && c.headSeq < b.headSeq) { best = i }
        }
      }
    }
    guard best >= 0 else { return nil }
    let taken: Result<InputEvent?, RecordingError> = Unmanaged.passUnretained(cursors[best])._withUnsafeGuaranteedRef { b in
      do throws(RecordingError) { return .success(try take(from: b)) } catch { return .failure(error) }
    }
    return try taken.get()
  }

  /// The head event of `b` (the cursor with the earliest head), checked for its sequence
  /// number, with `b` advanced past it.
  @inline(__always)
  private func take(from b: ChannelCursor) throws(RecordingError) -> InputEvent? {
    if seqContiguous {
      // Merged by (t, seq) the events come in append order: every sequence number once.
      if let want = expectedSeq, b.headSeq != want {
        let place = b.current.map { $0.place(b.name) } ?? "channel \(b.name)"
        throw RecordingError(
          file: path, place: place,
          "event sequence number \(b.headSeq) where \(want) was expected: a chunk holding events \(want)…\(b.headSeq - 1) is missing (run `jpreplay doctor`)")
      }
      expectedSeq = b.headSeq &+ 1
    }
    let e = b.takeHead()
    // Reading ahead must not cost the caller this event: a failure in the next chunk is
    // reported by the following call.
    do { try b.advance(self) } catch { deferredError = error }
    return e
  }

  /// Positions the reader so that `next()` returns the first event with time ≥ `t`.
  public func seek(to t: Millis) throws(RecordingError) {
    primed = true
    deferredError = nil
    expectedSeq = nil
    for c in cursors {
      // Chunks of a channel are in (start_ms, id) order with non-decreasing end_ms: the first
      // chunk that ends at or after t holds the first event at or after t.
      var lo = 0, hi = c.chunks.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if c.chunks[mid].endMs < t { lo = mid + 1 } else { hi = mid }
      }
      c.nextChunk = lo
      c.left = 0
      c.clearHead()
      c.lastEnd = nil
      try c.advance(self)
      while c.hasHead && c.headT < t { try c.advance(self) }
    }
  }

  func fail(_ chunk: ChunkInfo, _ channel: String, _ message: String) -> RecordingError {
    RecordingError(file: path, place: chunk.place(channel), message)
  }

  func loadChunk(_ c: ChunkInfo) throws(CodecError) -> [UInt8] {
    let r: Result<[UInt8], CodecError> = db.inDatabase { db in
      do throws(CodecError) { return .success(try ChunkLoader.load(db, c)) } catch { return .failure(error) }
    }
    return try r.get()
  }

  func loadChunk(_ c: ChunkInfo, into buffer: ChunkBuffer) throws(CodecError) {
    let r: CodecError? = db.inDatabase { db in
      do throws(CodecError) {
        try ChunkLoader.load(db, c, into: buffer)
        return nil
      } catch { return error }
    }
    if let r { throw r }
  }

  /// Statistics for `jpreplay info`, from the tables' metadata (no chunk is decompressed,
  /// except to count event kinds of a recording that was not finished).
  public func stats() throws(RecordingError) -> RecordingStats {
    do {
      var s = RecordingStats(
        fileBytes: JPRec.fileSize(path) ?? 0, formatVersion: JPRec.formatVersion, complete: isComplete,
        meta: metaRows)
      // From the chunk rows the reader scanned (never through the index), plus the stored
      // sizes by a table scan.
      let stored = try db.inDatabase { db in
        try Row.fetchAll(db, sql: "SELECT channel_id, COALESCE(SUM(LENGTH(data)), 0) FROM chunks NOT INDEXED GROUP BY channel_id")
          .reduce(into: [Int64: Int64]()) { d, r in d[try r.decode(Int64.self, atIndex: 0)] = try r.decode(Int64.self, atIndex: 1) }
      }
      for c in cursors {
        let id = JPRec.channelID(c.channel)
        s.channels.append(
          ChannelStats(
            id: id, name: c.name, encoding: c.decoder.encoding.rawValue, events: Int(c.chunks.reduce(0) { $0 + $1.count }),
            chunks: c.chunks.count, rawBytes: c.chunks.reduce(0) { $0 + $1.rawSize }, storedBytes: stored[id] ?? 0,
            firstT: c.chunks.map(\.startMs).min(), lastT: c.chunks.map(\.endMs).max()))
      }
      var counts: [String: Int]? = nil
      if let row = metaRows.first(where: { $0.key == JPRec.metaEventCounts }),
        let o = (try? JSONParser.parse(row.value))?.objectValue
      {
        var d: [String: Int] = [:]
        for m in o.members { d[m.key] = Int(m.value.int64Value ?? 0) }
        counts = d
      }
      if counts == nil {
        // Not finished: count by decoding the readable chunks.
        var d: [String: Int] = [:]
        for c in cursors {
          for info in c.chunks {
            guard let raw = try? loadChunk(info) else { continue }
            var local: [String: Int] = [:]
            let ok = (try? ChunkLoader.decodeAll(raw, info, decoder: c.decoder) { e, _ in local[e.kindName, default: 0] += 1 }) != nil
            if ok { d.merge(local, uniquingKeysWith: +) }
          }
        }
        counts = d
      }
      s.eventsByKind = counts!.filter { $0.value > 0 }.map { (kind: $0.key, count: $0.value) }.sorted { $0.kind < $1.kind }
      if let d = header["duration_ms"]?.int64Value {
        s.durationMs = d
      } else {
        s.durationMs = s.channels.compactMap(\.lastT).max()
      }
      return s
    } catch {
      throw RecordingError(file: path, "cannot read: \(JPRec.sqliteMessage(error))")
    }
  }
}

/// The read position in one channel: its chunk list, the decompressed current chunk, and the
/// next event (`head`).
final class ChannelCursor {
  let channel: Channel
  let name: String
  let chunks: [ChunkInfo]
  let decoder: EventDecoder
  @exclusivity(unchecked) var nextChunk = 0
  @exclusivity(unchecked) var current: ChunkInfo? = nil
  /// The decompressed current chunk (`reader_` points into it).
  @exclusivity(unchecked) var buffer = ChunkBuffer()
  /// Loads the following chunk in the background (nil when the channel has one chunk).
  let prefetcher: ChunkPrefetcher?
  /// Read position in the current chunk (points into `buffer`).
  @exclusivity(unchecked) var reader_: ByteReader
  @exclusivity(unchecked) var left: Int64 = 0
  @exclusivity(unchecked) var lastEnd: (t: Int64, seq: Int64)? = nil
  /// The next event (`hasHead`), in a slot of its own rather than an `InputEvent?`: writing
  /// over or dropping an optional event goes through its value witnesses (~110 instructions,
  /// even for nil), once per event read.
  private let head = UnsafeMutablePointer<InputEvent>.allocate(capacity: 1)
  @exclusivity(unchecked) private(set) var hasHead = false
  @exclusivity(unchecked) var headT: Int64 = 0
  @exclusivity(unchecked) var headSeq: Int64 = 0

  init(channel: Channel, name: String, chunks: [ChunkInfo], decoder: EventDecoder, db: DatabaseQueue) {
    self.channel = channel
    self.name = name
    self.chunks = chunks
    self.decoder = decoder
    prefetcher = chunks.count > 1 ? ChunkPrefetcher(db: db) : nil
    reader_ = ByteReader()
  }

  deinit {
    clearHead()
    head.deallocate()
  }

  /// Stores `e` as the next event (over the one there, if any).
  @inline(__always)
  func setHead(_ e: consuming InputEvent) {
    if hasHead { head.deinitialize(count: 1) }
    head.initialize(to: e)
    hasHead = true
  }

  /// The next event, moved out (nil when there is none); the slot is then empty.
  @inline(__always)
  func takeHead() -> InputEvent? {
    guard hasHead else { return nil }
    hasHead = false
    return head.move()
  }

  /// Drops the next event, if any.
  @inline(__always)
  func clearHead() {
    guard hasHead else { return }
    hasHead = false
    head.deinitialize(count: 1)
  }

  /// Decodes the next event of this channel into `head` (nil at the channel's end).
  @inline(__always)
  func advance(_ reader: RecordingReader) throws(RecordingError) {
    if left == 0 {
      clearHead()
      guard try loadNext(reader) else { return }
    }
    do throws(CodecError) {
      let (e, s) = try decoder.decode(&reader_)
      left -= 1
      if left == 0 {
        let unread = decoder.bytesLeft(reader_)
        if unread != 0 { throw CodecError("\(unread) bytes left after the chunk's \(current!.count) events") }
        if decoder.prevT != current!.endMs { throw CodecError("last event at t=\(decoder.prevT) but the chunk ends at \(current!.endMs) ms") }
      }
      setHead(e)
      headT = decoder.prevT
      headSeq = s
      lastEnd = (headT, s)
    } catch {
      left = 0
      clearHead()
      nextChunk = chunks.count
      throw reader.fail(current!, name, error.message)
    }
  }

  /// Loads the next non-empty chunk; false at the end of the channel.
  func loadNext(_ reader: RecordingReader) throws(RecordingError) -> Bool {
    while nextChunk < chunks.count {
      let c = chunks[nextChunk]
      nextChunk += 1
      current = c
      if let last = lastEnd, c.startMs < last.t || c.firstSeq <= last.seq {
        nextChunk = chunks.count
        throw reader.fail(c, name, "overlaps the previous chunk of the channel (starts at \(c.startMs) ms, seq \(c.firstSeq); previous ended at \(last.t) ms, seq \(last.seq))")
      }
      do throws(CodecError) {
        if let prefetcher {
          buffer = try prefetcher.take(
            nextChunk - 1, c, current: buffer,
            following: nextChunk < chunks.count ? (nextChunk, chunks[nextChunk]) : nil)
        } else {
          try reader.loadChunk(c, into: buffer)
        }
      } catch {
        nextChunk = chunks.count
        throw reader.fail(c, name, error.message)
      }
      do throws(CodecError) { reader_ = try decoder.open(buffer.bytes) } catch {
        nextChunk = chunks.count
        throw reader.fail(c, name, error.message)
      }
      left = c.count
      decoder.reset(startT: c.startMs, endT: c.endMs, firstSeq: c.firstSeq)
      if left > 0 { return true }
    }
    return false
  }
}
