import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import GRDB

/// The result of `Doctor.check`.
public struct DoctorReport: Sendable {
  /// What `doctor` found, as a value (the CLI picks its exit code from it).
  public enum Status: Sendable, Equatable {
    /// Opens, is complete, passes SQLite's integrity check, meta parses and matches its CRC,
    /// every chunk verifies and decodes, the counts agree, and a full read as `replay` does it succeeds.
    case ok
    /// A recording with damage or missing parts (exit 1); `--recover` may salvage it.
    case damaged
    /// Not a readable recording at all: no such file, not SQLite, not a .jprec, a newer format (exit 2).
    case unreadable
  }
  /// The verdict: ok, damaged or unreadable.
  public var status: Status
  /// True when `status == .ok`.
  public var ok: Bool { status == .ok }
  /// One line per problem (a bad chunk, an unfinished recording, a file that does not open).
  public var problems: [String]
  /// Ids of chunks that failed.
  public var badChunks: [Int64]
  /// Chunks whose CRC, decompression and decoding were tried (bad ones included).
  public var chunksChecked: Int
  /// Events in the chunks that decoded.
  public var events: Int
  /// The human-readable report (`jpreplay doctor` prints it).
  public var lines: [String]

  /// A report as `Doctor.check` assembles it.
  public init(status: Status, problems: [String], badChunks: [Int64], chunksChecked: Int, events: Int, lines: [String]) {
    self.status = status
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

  /// A report as `Doctor.recover` assembles it.
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
    /// Why chunk rows were not read (also in `problems`): `recover` lists it as lost.
    var tableDamage: String?
    /// The largest sequence number of the good chunks (-1 when none).
    var maxSeq: Int64 = -1
    /// Events per kind in the good chunks.
    var counts: [String: Int] {
      var d: [String: Int] = [:]
      for g in good { d.merge(g.counts, uniquingKeysWith: +) }
      return d
    }
  }

  /// Verifies every chunk of every channel: CRC, zstd, full decode, count, time range, order.
  static func scan(_ db: DatabaseQueue, path: String, definitions: any EventDefinitions.Type) -> Scan {
    var scan = Scan()
    let tables: Tables
    do { tables = try readTables(db) } catch {
      scan.problems.append("cannot read the tables: \(JPRec.sqliteMessage(error))")
      return scan
    }
    scan.tableDamage = tables.damage
    if let d = tables.damage { scan.problems.append(d) }
    if tables.kinds.isEmpty { scan.problems.append("meta \"\(JPRec.metaKinds)\" is missing or malformed; no chunk can be decoded") }
    let decoders = decoders(tables, problems: &scan.problems, definitions: definitions)
    var last: [Int64: (t: Int64, seq: Int64)] = [:]
    for c in tables.chunks {
      guard let (decoder, name) = decoders[c.channelID] else {
        scan.bad.append((c, "#\(c.channelID)", "belongs to no known channel"))
        continue
      }
      do {
        let (counts, lastEv) = try verify(c, in: db, decoder: decoder, after: last[c.channelID])
        last[c.channelID] = lastEv
        scan.good.append((c, counts))
        scan.maxSeq = max(scan.maxSeq, lastEv.seq)
        scan.events += Int(c.count)
      } catch let e as CodecError {
        scan.bad.append((c, name, e.message))
      } catch {
        scan.bad.append((c, name, "cannot read: \(JPRec.sqliteMessage(error))"))
      }
    }
    return scan
  }

  /// What `scan` reads before decoding: the kind table, the channel rows and the chunk rows.
  struct Tables: Sendable {
    var kinds: [String]
    var channels: [(id: Int64, name: String, encoding: String)]
    /// In (channel, start, id) order.
    var chunks: [ChunkInfo]
    /// Why chunk rows after the readable ones were not read (a damaged or oversized table).
    var damage: String?
    /// The engine the header names (``EngineName/of(header:)``; nil when malformed).
    var engine: String?
  }

  /// Reads the tables; chunk rows in rowid order, keeping those read before any damage (a
  /// truncated file). Throws only when the kind or channel rows cannot be read.
  static func readTables(_ db: DatabaseQueue) throws -> Tables {
    try db.inDatabase { db in
      let k = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [JPRec.metaKinds])
      let names = k.flatMap { try? JSONParser.parse($0) }?.arrayValue?.compactMap(\.stringValue) ?? []
      // Another engine's recording (header `engine`) holds named events.
      let e = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [EngineName.headerKey])
      let engine = e.flatMap { try? JSONParser.parse($0) }?.stringValue
      let ch = try Row.fetchAll(db, sql: "SELECT id, name, encoding FROM channels ORDER BY id").map {
        (id: try $0.decode(Int64.self, atIndex: 0), name: try $0.decode(String.self, atIndex: 1), encoding: try $0.decode(String.self, atIndex: 2))
      }
      var cs: [ChunkInfo] = []
      var damage: String? = nil
      do {
        let rows = try Row.fetchCursor(db, sql: "SELECT \(ChunkInfo.columns) FROM chunks NOT INDEXED ORDER BY id")
        while let row = try rows.next() {
          guard cs.count < ContainerLimits.chunksMax else {
            damage = "more than \(ContainerLimits.chunksMax) chunk rows (chunksMax); later chunks are ignored"
            break
          }
          guard let info = try? ChunkInfo(row: row) else {
            damage = "the chunk table is damaged after \(cs.count) readable row(s) (a row with NULL or mistyped columns); later chunks are lost"
            break
          }
          cs.append(info)
        }
      } catch {
        damage = "the chunk table is damaged after \(cs.count) readable row(s) (\(JPRec.sqliteMessage(error))); later chunks are lost"
      }
      cs.sort { ($0.channelID, $0.startMs, $0.id) < ($1.channelID, $1.startMs, $1.id) }
      return Tables(kinds: names, channels: ch, chunks: cs, damage: damage, engine: EngineName.of(header: engine.map { [EngineName.headerKey: .string($0)] } ?? JSONObject()))
    }
  }

  /// A decoder per known channel id (with the channel's name); each unknown or mismatched
  /// channel row is a problem.
  static func decoders(_ t: Tables, problems: inout [String], definitions: any EventDefinitions.Type) -> [Int64: (EventDecoder, String)] {
    var decoders: [Int64: (EventDecoder, String)] = [:]
    for (id, name, encoding) in t.channels {
      guard let ch = Channel(rawValue: name) else {
        problems.append("channel \(id): unknown channel \"\(name)\"")
        continue
      }
      guard let enc = EventEncoding(rawValue: encoding) else {
        problems.append("channel \(name): unknown encoding \"\(encoding)\"")
        continue
      }
      guard id == JPRec.channelID(ch) else {
        problems.append("channel \(name): has id \(id), expected \(JPRec.channelID(ch))")
        continue
      }
      decoders[id] = (EventDecoder(kindNames: t.kinds, channel: ch, namedKinds: definitions.namedEvents(in: t.engine), definitions: definitions, encoding: enc), name)
    }
    return decoders
  }

  /// Checks one chunk's row against the previous chunk of its channel (`after`: its last event's
  /// time and sequence), loads (CRC, zstd) and decodes it. Returns its events per kind and its
  /// last event's time and sequence.
  static func verify(
    _ c: ChunkInfo, in db: DatabaseQueue, decoder: EventDecoder, after previous: (t: Int64, seq: Int64)?
  ) throws -> (counts: [String: Int], last: (t: Int64, seq: Int64)) {
    if c.count <= 0 { throw CodecError("holds no events") }
    if c.endMs < c.startMs { throw CodecError("ends (\(c.endMs) ms) before it starts") }
    if let l = previous, c.startMs < l.t || c.firstSeq <= l.seq {
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
      counts[e.kindName, default: 0] += 1
      lastEv = (e.t, s)
    }
    return (counts, lastEv)
  }

  /// Checks a recording. Never throws: a file that cannot be opened is a failed report.
  ///
  /// Runs, in order: the header checks, `PRAGMA integrity_check`, the meta parse (as the reader
  /// does it, CRC included), every chunk (CRC, bounds, zstd, full decode, order), the event
  /// counts of meta against the chunks, and — when all that passed — a complete read through
  /// `RecordingReader`, the code path `replay` uses. So `ok` means `replay` can read every event.
  /// The typed kinds are decoded with `definitions` (the recording's engine's).
  public static func check(path: String, definitions: any EventDefinitions.Type) -> DoctorReport {
    var lines = ["checking \(path)"]
    let db: DatabaseQueue
    let truncation: String?
    do {
      truncation = try JPRec.checkHeader(path, allowTruncated: true)
      db = try JPRec.openReadOnly(path, allowTruncated: true)
    } catch {
      lines.append("FAILED: \(error.description)")
      return DoctorReport(
        status: .unreadable, problems: [error.description], badChunks: [], chunksChecked: 0, events: 0, lines: lines)
    }
    defer { try? db.close() }
    var problems = truncation.map { [$0] } ?? []
    problems += integrityProblems(db)
    let meta: RecordingMeta?
    do { meta = try db.inDatabase { try RecordingMeta.read($0) } } catch let e as MetaError {
      problems.append("\(e.place): \(e.message)")
      meta = nil
    } catch {
      problems.append("meta: cannot read: \(JPRec.sqliteMessage(error))")
      meta = nil
    }
    let scan = scan(db, path: path, definitions: definitions)
    problems += scan.problems
    for (c, name, message) in scan.bad { problems.append("\(c.place(name)): \(message)") }
    if let declared = meta?.eventCounts {
      let found = scan.counts
      for (kind, n) in declared where Int64(found[kind] ?? 0) != n {
        problems.append("event counts: meta \"\(JPRec.metaEventCounts)\" declares \(n) \(kind) events, the readable chunks hold \(found[kind] ?? 0)")
      }
      for (kind, n) in found.sorted(by: { $0.key < $1.key }) where !declared.contains(where: { $0.kind == kind }) {
        problems.append("event counts: the chunks hold \(n) \(kind) events that meta \"\(JPRec.metaEventCounts)\" does not declare")
      }
    }
    let complete = meta?.complete ?? false
    let chunksChecked = scan.good.count + scan.bad.count
    if meta != nil && !complete {
      let lastT = scan.good.map(\.0.endMs).max()
      problems.append(
        "incomplete: recording was not finished (writer stopped after \(scan.events) events, last t=\(lastT.map { "\($0) ms" } ?? "-")); events in its open chunks are lost")
    }
    if problems.isEmpty, let p = readAsReplayDoes(path, definitions: definitions) { problems.append(p) }
    lines.append("format version \(JPRec.formatVersion), \(complete ? "complete" : "not complete")")
    lines.append("\(chunksChecked) chunk(s) checked, \(scan.good.count) good, \(scan.bad.count) bad; \(scan.events) events readable")
    for p in problems { lines.append("PROBLEM: \(p)") }
    if !problems.isEmpty { lines.append("salvage with: jpreplay doctor --recover \(path) -o OUT.jprec") }
    lines.append(problems.isEmpty ? "ok" : "FAILED: \(problems.count) problem(s)")
    return DoctorReport(
      status: problems.isEmpty ? .ok : .damaged, problems: problems, badChunks: scan.bad.map(\.0.id),
      chunksChecked: chunksChecked, events: scan.events, lines: lines)
  }

  /// `PRAGMA integrity_check` (at most `integrityLinesMax` lines), as problems.
  static func integrityProblems(_ db: DatabaseQueue) -> [String] {
    do {
      let rows = try db.inDatabase { db in
        try String.fetchAll(db, sql: "PRAGMA integrity_check(\(ContainerLimits.integrityLinesMax))")
      }
      if rows == ["ok"] { return [] }
      return rows.map { "SQLite integrity check: \($0)" }
    } catch {
      return ["SQLite integrity check failed: \(JPRec.sqliteMessage(error))"]
    }
  }

  /// Reads every event with `RecordingReader` (what `replay` does); the error, if any.
  static func readAsReplayDoes(_ path: String, definitions: any EventDefinitions.Type) -> String? {
    do {
      let r = try RecordingReader(path: path, definitions: definitions)
      while try r.next() != nil {}
      return nil
    } catch {
      return "a full read (as replay does it) fails: \(error.description)"
    }
  }
}
