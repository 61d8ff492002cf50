import CoachEngine
import Foundation
import GRDB
import PoseSpec

/// The result of `Doctor.check`.
public struct DoctorReport: Sendable {
  /// True when the file opens, is complete, and every chunk verifies and decodes.
  public var ok: Bool
  /// One line per problem (a bad chunk, an unfinished recording, a file that does not open).
  public var problems: [String]
  /// Ids of chunks that failed.
  public var badChunks: [Int64]
  public var chunksChecked: Int
  /// Events in the chunks that decoded.
  public var events: Int
  /// The human-readable report (`jpreplay doctor` prints it).
  public var lines: [String]

  public init(ok: Bool, problems: [String], badChunks: [Int64], chunksChecked: Int, events: Int, lines: [String]) {
    self.ok = ok
    self.problems = problems
    self.badChunks = badChunks
    self.chunksChecked = chunksChecked
    self.events = events
    self.lines = lines
  }
}

/// The result of `Doctor.recover`.
public struct RecoverReport: Sendable {
  /// Chunks copied to the new file.
  public var kept: Int
  /// One line per chunk that could not be kept: "chunk 7 (landmarks, 12000–15000 ms, 900 events): CRC mismatch …".
  public var lostChunks: [String]
  /// `Doctor.check` of the new file.
  public var verify: DoctorReport

  public init(kept: Int, lostChunks: [String], verify: DoctorReport) {
    self.kept = kept
    self.lostChunks = lostChunks
    self.verify = verify
  }
}

/// Integrity checks and salvage of `.jprec` files (`jpreplay doctor [--recover]`).
public enum Doctor {
  struct Scan {
    var good: [(ChunkInfo, counts: [String: Int])] = []
    var bad: [(ChunkInfo, channel: String, message: String)] = []
    var events = 0
    var problems: [String] = []
  }

  /// Verifies every chunk of every channel: CRC, zstd, full decode, count, time range, order.
  static func scan(_ db: DatabaseQueue, path: String) -> Scan {
    var scan = Scan()
    let kinds: [String]
    let channels: [(Int64, String, String)]
    let chunks: [ChunkInfo]
    nonisolated(unsafe) var tableDamage: String? = nil
    do {
      (kinds, channels, chunks) = try db.inDatabase { db in
        let k = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [JPRec.metaKinds])
        let names = k.flatMap { try? JSONParser.parse($0) }?.arrayValue?.compactMap(\.stringValue) ?? []
        let ch = try Row.fetchAll(db, sql: "SELECT id, name, encoding FROM channels ORDER BY id").map {
          (try $0.decode(Int64.self, atIndex: 0), try $0.decode(String.self, atIndex: 1), try $0.decode(String.self, atIndex: 2))
        }
        // In rowid order, keeping the rows read before any damage (a truncated file).
        var cs: [ChunkInfo] = []
        do {
          let rows = try Row.fetchCursor(db, sql: "SELECT \(ChunkInfo.columns) FROM chunks ORDER BY id")
          while let row = try rows.next() {
            guard let info = try? ChunkInfo(row: row) else {
              tableDamage = "the chunk table is damaged after \(cs.count) readable row(s) (a row with NULL or mistyped columns); later chunks are lost"
              break
            }
            cs.append(info)
          }
        } catch {
          tableDamage =
            "the chunk table is damaged after \(cs.count) readable row(s) (\(JPRec.sqliteMessage(error))); later chunks are lost"
        }
        cs.sort { ($0.channelID, $0.startMs, $0.id) < ($1.channelID, $1.startMs, $1.id) }
        return (names, ch, cs)
      }
    } catch {
      scan.problems.append("cannot read the tables: \(JPRec.sqliteMessage(error))")
      return scan
    }
    if let tableDamage { scan.problems.append(tableDamage) }
    if kinds.isEmpty { scan.problems.append("meta \"\(JPRec.metaKinds)\" is missing or malformed; no chunk can be decoded") }
    var decoders: [Int64: (EventDecoder, String)] = [:]
    for (id, name, encoding) in channels {
      guard let ch = Channel(rawValue: name) else {
        scan.problems.append("channel \(id): unknown channel \"\(name)\"")
        continue
      }
      guard encoding == eventEncodingName else {
        scan.problems.append("channel \(name): unknown encoding \"\(encoding)\"")
        continue
      }
      decoders[id] = (EventDecoder(kindNames: kinds, channel: ch), name)
    }
    var last: [Int64: (t: Int64, seq: Int64)] = [:]
    for c in chunks {
      guard let (decoder, name) = decoders[c.channelID] else {
        scan.bad.append((c, "#\(c.channelID)", "belongs to no known channel"))
        continue
      }
      do {
        if c.count <= 0 { throw CodecError("holds no events") }
        if c.endMs < c.startMs { throw CodecError("ends (\(c.endMs) ms) before it starts") }
        if let l = last[c.channelID], c.startMs < l.t || c.firstSeq <= l.seq {
          throw CodecError("overlaps the previous chunk of the channel (starts at \(c.startMs) ms, seq \(c.firstSeq); previous ended at \(l.t) ms, seq \(l.seq))")
        }
        let raw: [UInt8] = try db.inDatabase { db in
          let r: Result<[UInt8], CodecError>
          do throws(CodecError) { r = .success(try ChunkLoader.load(db, c)) } catch { r = .failure(error) }
          return r
        }.get()
        var counts: [String: Int] = [:]
        var lastEv: (t: Int64, seq: Int64) = (c.startMs, c.firstSeq)
        try ChunkLoader.decodeAll(raw, c, decoder: decoder) { e, s in
          counts[e.kind.rawValue, default: 0] += 1
          lastEv = (e.t, s)
        }
        last[c.channelID] = lastEv
        scan.good.append((c, counts))
        scan.events += Int(c.count)
      } catch let e as CodecError {
        scan.bad.append((c, name, e.message))
      } catch {
        scan.bad.append((c, name, "cannot read: \(JPRec.sqliteMessage(error))"))
      }
    }
    return scan
  }

  /// Checks a recording. Never throws: a file that cannot be opened is a failed report.
  public static func check(path: String) -> DoctorReport {
    var lines = ["checking \(path)"]
    let db: DatabaseQueue
    let truncation: String?
    do {
      truncation = try JPRec.checkHeader(path, allowTruncated: true)
      db = try JPRec.openReadOnly(path, allowTruncated: true)
    } catch {
      lines.append("FAILED: \(error.description)")
      return DoctorReport(ok: false, problems: [error.description], badChunks: [], chunksChecked: 0, events: 0, lines: lines)
    }
    defer { try? db.close() }
    let scan = scan(db, path: path)
    var problems = (truncation.map { [$0] } ?? []) + scan.problems
    for (c, name, message) in scan.bad { problems.append("\(c.place(name)): \(message)") }
    let complete = (try? db.inDatabase { db in
      try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [JPRec.metaComplete])
    }) ?? nil
    let chunksChecked = scan.good.count + scan.bad.count
    if complete != "true" {
      let lastT = scan.good.map(\.0.endMs).max()
      problems.append(
        "incomplete: recording was not finished (writer stopped after \(scan.events) events, last t=\(lastT.map { "\($0) ms" } ?? "-")); events in its open chunks are lost")
    }
    lines.append("format version \(JPRec.formatVersion), \(complete == "true" ? "complete" : "not complete")")
    lines.append("\(chunksChecked) chunk(s) checked, \(scan.good.count) good, \(scan.bad.count) bad; \(scan.events) events readable")
    for p in problems { lines.append("PROBLEM: \(p)") }
    if !scan.bad.isEmpty || truncation != nil || !scan.problems.isEmpty { lines.append("salvage with: jpreplay doctor --recover \(path) -o OUT.jprec") }
    lines.append(problems.isEmpty ? "ok" : "FAILED: \(problems.count) problem(s)")
    return DoctorReport(
      ok: problems.isEmpty, problems: problems, badChunks: scan.bad.map(\.0.id), chunksChecked: chunksChecked,
      events: scan.events, lines: lines)
  }

  /// Copies the meta rows and every good chunk of `from` into the new file `to` (which must
  /// not exist), marks it complete with meta `recovered_from` and `recovery_lost`, then checks it.
  public static func recover(from: String, to: String) throws(RecordingError) -> RecoverReport {
    let fm = FileManager.default
    if fm.fileExists(atPath: to) { throw RecordingError(file: to, "already exists; choose another name") }
    let truncation = try JPRec.checkHeader(from, allowTruncated: true)
    let src = try JPRec.openReadOnly(from, allowTruncated: true)
    defer { try? src.close() }
    let scan = scan(src, path: from)
    if scan.good.isEmpty && !scan.problems.isEmpty {
      throw RecordingError(file: from, "nothing can be recovered: \(scan.problems.joined(separator: "; "))")
    }
    var lost = scan.bad.map { c, name, message in "\(c.summary(name)): \(message)" }
    if let truncation { lost.append("file \(truncation)") }
    lost += scan.problems.filter { $0.hasPrefix("the chunk table is damaged") }
    var counts: [String: Int] = [:]
    for g in scan.good { counts.merge(g.counts, uniquingKeysWith: +) }
    do {
      let (metaRows, channelRows) = try src.inDatabase { db in
        (
          try Row.fetchAll(db, sql: "SELECT key, value FROM meta ORDER BY rowid").map { (try $0.decode(String.self, atIndex: 0), try $0.decode(String.self, atIndex: 1)) },
          try Row.fetchAll(db, sql: "SELECT id, name, encoding FROM channels ORDER BY id").map {
            (try $0.decode(Int64.self, atIndex: 0), try $0.decode(String.self, atIndex: 1), try $0.decode(String.self, atIndex: 2))
          }
        )
      }
      for s in ["-wal", "-shm", "-journal"] where fm.fileExists(atPath: to + s) { try? fm.removeItem(atPath: to + s) }
      let dst = try DatabaseQueue(path: to)
      do {
        try dst.writeWithoutTransaction { db in
          try db.execute(sql: "PRAGMA application_id = \(JPRec.applicationID)")
          try db.execute(sql: "PRAGMA user_version = \(JPRec.formatVersion)")
          try db.inTransaction {
            try db.execute(sql: JPRec.schemaSQL)
            var lostText = "nothing"
            if !lost.isEmpty { lostText = lost.joined(separator: "; ") }
            var hadKinds = false
            for (k, v) in metaRows where k != JPRec.metaEventCounts && k != "recovered_from" && k != "recovery_lost" {
              let value = k == JPRec.metaComplete ? "true" : v
              if k == JPRec.metaKinds { hadKinds = true }
              try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?)", arguments: [k, value])
            }
            if !hadKinds {
              try db.execute(
                sql: "INSERT INTO meta(key, value) VALUES (?, ?)",
                arguments: [JPRec.metaKinds, JSONWriter.write(.array(KindTable.names.map { .string($0) }))])
            }
            var co = JSONObject()
            for (k, n) in counts.sorted(by: { $0.key < $1.key }) { co.members.append(JSONMember(k, .number(Double(n)))) }
            try db.execute(
              sql: "INSERT INTO meta(key, value) VALUES (?, ?)",
              arguments: [JPRec.metaEventCounts, JSONWriter.write(.object(co))])
            try db.execute(
              sql: "INSERT INTO meta(key, value) VALUES (?, ?)",
              arguments: ["recovered_from", JSONWriter.write(.string((from as NSString).lastPathComponent))])
            try db.execute(
              sql: "INSERT INTO meta(key, value) VALUES (?, ?)",
              arguments: ["recovery_lost", JSONWriter.write(.string(lostText))])
            for (id, name, enc) in channelRows {
              try db.execute(sql: "INSERT INTO channels(id, name, encoding) VALUES (?, ?, ?)", arguments: [id, name, enc])
            }
            return .commit
          }
        }
        for (c, _) in scan.good {
          try dst.write { db in
            let data = try src.inDatabase { sdb in
              try Data.fetchOne(sdb, sql: "SELECT data FROM chunks WHERE id = ?", arguments: [c.id])
            } ?? Data()
            try db.execute(
              sql: """
                INSERT INTO chunks(id, channel_id, start_ms, end_ms, count, first_seq, raw_size, crc32, data)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
              arguments: [c.id, c.channelID, c.startMs, c.endMs, c.count, c.firstSeq, c.rawSize, Int64(c.crc32), data])
          }
        }
        try dst.close()
      } catch {
        try? dst.close()
        throw error
      }
    } catch {
      for s in ["", "-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: to + s) }
      if let e = error as? RecordingError { throw e }
      throw RecordingError(file: to, "cannot write the recovered recording: \(JPRec.sqliteMessage(error))")
    }
    let verify = check(path: to)
    return RecoverReport(kept: scan.good.count, lostChunks: lost, verify: verify)
  }
}
