import CanonicalJSON
import EngineIO
import Foundation
import GRDB

extension Doctor {
  /// Copies the meta rows and every good chunk of `from` into the new file `to` (which must
  /// not exist), marks it complete with meta `recovered_from` and `recovery_lost`, then checks it.
  ///
  /// The output is written to a temporary file beside `to` (`SafeFile`) and renamed to `to`
  /// once complete, so it is always one `replay` reads: meta values that are not valid JSON are
  /// dropped (and listed as lost), the event counts are recomputed, the meta CRC is rewritten,
  /// and `jprec.seq_contiguous = false` records that sequence numbers have gaps when chunks were lost.
  /// The typed kinds are decoded with `definitions` (the recording's engine's).
  public static func recover(from: String, to: String, definitions: any EventDefinitions.Type) throws(RecordingError) -> RecoverReport {
    if FileManager.default.fileExists(atPath: to) { throw RecordingError(file: to, "already exists; choose another name") }
    let truncation = try JPRec.checkHeader(from, allowTruncated: true)
    let src = try JPRec.openReadOnly(from, allowTruncated: true)
    defer { try? src.close() }
    let scan = scan(src, path: from, definitions: definitions)
    if scan.good.isEmpty && !scan.problems.isEmpty {
      throw RecordingError(file: from, "nothing can be recovered: \(scan.problems.joined(separator: "; "))")
    }
    var lost = scan.bad.map { c, name, message in "\(c.summary(name)): \(message)" }
    if let truncation { lost.append("file \(truncation)") }
    if let damage = scan.tableDamage { lost.append(damage) }
    let chunksLost = !lost.isEmpty
    do {
      try SafeFile.produce(to, placement: .createNew, keepOpen: false) { tmp in
        let (metaRows, channelRows) = try readHeaderRows(src)
        if let e = RecordingMeta.crcProblem(metaRows) { lost.append(e) }
        var meta = recoveredMeta(metaRows, lost: &lost)
        meta.append((JPRec.metaComplete, "true"))
        if !meta.contains(where: { $0.0 == JPRec.metaKinds }) {
          meta.append((JPRec.metaKinds, JSONWriter.write(.array(definitions.kindTable.map { .string($0) }))))
        }
        var co = JSONObject()
        for (k, n) in scan.counts.sorted(by: { $0.key < $1.key }) { co.members.append(JSONMember(k, .number(Double(n)))) }
        meta.append((JPRec.metaEventCounts, JSONWriter.write(.object(co))))
        // Sequence numbers are 0…N-1 only when nothing was lost and the largest is N-1.
        if chunksLost || scan.maxSeq + 1 != Int64(scan.events) { meta.append((JPRec.metaSeqContiguous, "false")) }
        meta.append(("recovered_from", JSONWriter.write(.string(Paths.name(from)))))
        meta.append(("recovery_lost", JSONWriter.write(.string(lost.isEmpty ? "nothing" : lost.joined(separator: "; ")))))
        let dst = try DatabaseQueue(path: tmp.path)
        do {
          try writeRecovered(dst, meta: meta, channels: channelRows)
          try copyChunks(scan.good.map(\.0), from: src, to: dst)
          try dst.close()
        } catch {
          try? dst.close()
          throw error
        }
      }
    } catch {
      if let e = error as? RecordingError { throw e }
      if let e = error as? SafeFileError { throw RecordingError(file: to, "cannot write the recovered recording: \(e.description)") }
      throw RecordingError(file: to, "cannot write the recovered recording: \(JPRec.sqliteMessage(error))")
    }
    let verify = check(path: to, definitions: definitions)
    return RecoverReport(kept: scan.good.count, lostChunks: lost, verify: verify)
  }

  /// The meta and channel rows of a recording being recovered (at most the container limits).
  static func readHeaderRows(_ src: DatabaseQueue) throws -> (meta: [(String, String)], channels: [(Int64, String, String)]) {
    try src.inDatabase { db in
      (
        try Row.fetchAll(db, sql: "SELECT key, value FROM meta ORDER BY rowid LIMIT \(ContainerLimits.metaRowsMax)").map {
          (try $0.decode(String.self, atIndex: 0), try $0.decode(String.self, atIndex: 1))
        },
        try Row.fetchAll(db, sql: "SELECT id, name, encoding FROM channels ORDER BY id LIMIT \(ContainerLimits.channelsMax)").map {
          (try $0.decode(Int64.self, atIndex: 0), try $0.decode(String.self, atIndex: 1), try $0.decode(String.self, atIndex: 2))
        }
      )
    }
  }

  /// The meta rows kept, in their order: those recomputed by `recover` go (counts, CRC,
  /// contiguity, completeness — once checked as JSON —, an earlier recovery's notes); a value that is not JSON, or a
  /// malformed kind table, is dropped and listed in `lost`.
  static func recoveredMeta(_ rows: [(String, String)], lost: inout [String]) -> [(String, String)] {
    let skip: Set<String> = [
      JPRec.metaEventCounts, JPRec.metaCRC, JPRec.metaSeqContiguous, "recovered_from", "recovery_lost",
    ]
    var kept: [(String, String)] = []
    for (k, v) in rows where !skip.contains(k) {
      guard (try? JSONParser.parse(v)) != nil else {
        lost.append("meta \"\(k)\": not valid JSON; dropped")
        continue
      }
      if k == JPRec.metaKinds && (try? RecordingMeta.parseKinds(v)) == nil {
        lost.append("meta \"\(k)\": malformed; replaced by this jpreplay's kind table")
        continue
      }
      if k == JPRec.metaComplete { continue }
      kept.append((k, v))
    }
    return kept
  }

  /// Creates the container in `dst`: pragmas, schema, `meta` (then its CRC) and `channels`.
  static func writeRecovered(_ dst: DatabaseQueue, meta: [(String, String)], channels: [(Int64, String, String)]) throws {
    try dst.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA application_id = \(JPRec.applicationID)")
      try db.execute(sql: "PRAGMA user_version = \(JPRec.formatVersion)")
      try db.inTransaction {
        try db.execute(sql: JPRec.schemaSQL)
        for (k, v) in meta {
          try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?)", arguments: [k, v])
        }
        try Recorder.putMetaCRC(db)
        for (id, name, enc) in channels {
          try db.execute(sql: "INSERT INTO channels(id, name, encoding) VALUES (?, ?, ?)", arguments: [id, name, enc])
        }
        return .commit
      }
    }
  }

  /// Copies the rows of `chunks` (compressed data as stored) from `src` to `dst`, one
  /// transaction per chunk.
  static func copyChunks(_ chunks: [ChunkInfo], from src: DatabaseQueue, to dst: DatabaseQueue) throws {
    for c in chunks {
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
  }
}

extension RecordingMeta {
  /// "meta: CRC mismatch …" when the stored meta CRC is missing or wrong (nil when it matches).
  static func crcProblem(_ rows: [(String, String)]) -> String? {
    let r = rows.map { (key: $0.0, value: $0.1) }
    guard let stored = r.first(where: { $0.key == JPRec.metaCRC }).flatMap({ UInt32($0.value) }) else {
      return "meta: no valid \"\(JPRec.metaCRC)\"; header values could not be verified"
    }
    let computed = JPRec.metaCRC32(r)
    return stored == computed ? nil : "meta: CRC mismatch (stored \(JPRec.hex(stored)), computed \(JPRec.hex(computed))); header values may be altered"
  }

  /// The kind table of a `jprec.kinds` value, as `parse` checks it.
  static func parseKinds(_ text: String) throws(MetaError) -> [String] {
    let m = try parse([(key: JPRec.metaKinds, value: text), (key: JPRec.metaCRC, value: String(JPRec.metaCRC32([(key: JPRec.metaKinds, value: text)])))])
    return m.kinds
  }
}
