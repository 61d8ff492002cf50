import Foundation
import GRDB
import JustPhotoPlugin
import Recording

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opening a study: read-only for the readers, made whole in a temporary or locked and
/// checked for `tune run` (see ``TuneStudy``), and SQLite's conditions named.
extension TuneStudy {
  /// Opens the study at `path`. `create: false` (report, promote, merge's inputs): read-only,
  /// so a damaged or foreign file is never written to; either way its pages are checked
  /// first (issue 23.5). `create: true` (`tune run`): a missing study is made complete in a
  /// temporary and put in place — `initialise` fills it (settings, the shipped row) before it
  /// has its name — then the study is locked for this object's life and checked.
  package static func open(
    _ path: String, create: Bool, initialise: ((TuneStudy) throws(HarnessFailure) -> Void)? = nil
  ) throws(HarnessFailure) -> TuneStudy {
    guard create else { return try openReadOnly(path) }
    let target: OutputTarget
    do { target = try OutputTarget(path, database: true) } catch { throw .badInput("\(error.path): \(error.message) (the study file)") }
    guard case .replace = target else { throw .badInput("\(path): not a regular file (the study file)") }
    // A run writes its trials into the study at its name, with SQLite's `NAME-journal` beside
    // it: a longer name (legal, up to NAME_MAX) would fail after the study was made.
    guard SafeFile.sqliteSideFilesFit(path) else {
      let max = Paths.nameMax - "-journal".utf8.count
      throw .badInput(
        "\(path): a study's file name must leave room for SQLite's \"-journal\" beside it: at most \(max) bytes, this one has \(Paths.name(path).utf8.count) (choose a shorter name)"
      )
    }
    var st = stat()
    if lstat(path, &st) != 0 {
      do {
        try SafeFile.produce(path, placement: .createNew, keepOpen: false, sqlite: true) { t in
          let fresh = try make(at: t.path, named: path)
          try initialise?(fresh)
          try fresh.queue.close()
        }
      } catch let e as HarnessFailure {
        throw e
      } catch {
        // Another run may have put its new study here meanwhile: continue with it (locked,
        // checked) as with any existing study; any other failure is this path's.
        if lstat(path, &st) != 0 {
          let message = (error as? SafeFileError)?.message ?? "\(error)"
          throw .badInput("\(path): cannot create the study (\(message))")
        }
      }
    }
    return try openForWriting(path)
  }

  /// A new, empty study (tables and marks) in the fresh file at `file` (a temporary);
  /// messages name it `path` (the study it becomes).
  static func make(at file: String, named path: String) throws(HarnessFailure) -> TuneStudy {
    do {
      let q = try DatabaseQueue(path: file, configuration: configuration(readonly: false))
      try q.write { db in
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        try db.execute(sql: "PRAGMA user_version = \(schemaVersion)")
        try createTables(db)
      }
      return TuneStudy(path: path, queue: q)
    } catch { throw .badInput("\(path): cannot create the study (\(reason(error)))") }
  }

  static func createTables(_ db: Database) throws {
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS study (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
    try db.execute(
      sql: """
        CREATE TABLE IF NOT EXISTS trials (idx INTEGER PRIMARY KEY NOT NULL, params TEXT NOT NULL,
        status TEXT NOT NULL, objectives TEXT NOT NULL, reason TEXT)
        """)
  }

  /// Waits this long for a reader's (or another program's) SQLite lock before BUSY.
  static let busySeconds: TimeInterval = 10

  static func configuration(readonly: Bool) -> Configuration {
    var config = Configuration()
    config.readonly = readonly
    config.busyMode = .timeout(busySeconds)
    return config
  }

  static func openReadOnly(_ path: String) throws(HarnessFailure) -> TuneStudy {
    guard FileManager.default.fileExists(atPath: path) else {
      do { try InputFile.checkRegular(path, what: "tune study") } catch { throw .badInput(error.description) }
      throw .badInput("\(path): no such study")
    }
    do { try InputFile.checkRegular(path, what: "tune study") } catch { throw .badInput(error.description) }
    let q: DatabaseQueue
    do { q = try DatabaseQueue(path: path, configuration: configuration(readonly: true)) } catch {
      throw .badInput("\(path): not a tune study (\(Self.reason(error)))")
    }
    let legacy = try checkMark(q, path: path)
    try checkIntegrity(q, path: path)
    return TuneStudy(path: path, queue: q, legacy: legacy)
  }

  /// An existing study for `tune run`: locked first (a second run is refused naming the
  /// first), its header read through the lock's descriptor (a file that is not a SQLite
  /// database, or another program's, is refused before SQLite opens it for writing), then
  /// opened and checked.
  static func openForWriting(_ path: String) throws(HarnessFailure) -> TuneStudy {
    let lock = try StudyLock(path)
    let header = lock.header()
    guard header.count > 0 else {
      lock.release()
      throw .badInput(
        "\(path): an empty file (0 bytes), not a tune study; remove it (an older jpreplay could leave one after a failure) or give another --study")
    }
    guard header.count >= 100, header.starts(with: Array("SQLite format 3\u{0}".utf8)) else {
      lock.release()
      throw .badInput("\(path): not a tune study (not a SQLite database); give another --study path: jpreplay writes a study only into a file it made")
    }
    let application = Int32(bitPattern: header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    guard application == applicationID || application == 0 else {
      lock.release()
      throw .badInput(
        "\(path): a SQLite database of another program (application_id \(hex(application))), not a tune study; give another --study path: jpreplay writes a study only into a file it made")
    }
    let q: DatabaseQueue
    do { q = try DatabaseQueue(path: path, configuration: configuration(readonly: false)) } catch {
      lock.release()
      throw .badInput("\(path): cannot open the study (\(Self.reason(error)))")
    }
    do {
      let legacy = try checkMark(q, path: path)
      try checkIntegrity(q, path: path)
      return TuneStudy(path: path, queue: q, lock: lock, legacy: legacy)
    } catch {
      try? q.close()
      lock.release()
      throw error
    }
  }

  static func hex(_ v: Int32) -> String { "0x" + String(UInt32(bitPattern: v), radix: 16, uppercase: true) }

  /// A study carries ``applicationID``; a database with application_id 0 holding exactly the
  /// tables `study` and `trials` is a study made before the mark (returns true). Anything
  /// else is refused naming the file.
  static func checkMark(_ q: DatabaseQueue, path: String) throws(HarnessFailure) -> Bool {
    let found: (application: Int32, tables: [String])
    do {
      found = try q.read { db in
        (
          try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
          try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        )
      }
    } catch { throw .badInput("\(path): not a tune study (\(Self.reason(error)))") }
    let (application, tables) = found
    let shape = tables == ["study", "trials"]
    if application == applicationID && shape { return false }
    if application == 0 && shape { return true }
    let what = application == 0 ? "" : "application_id \(hex(application)), "
    let list = tables.isEmpty ? "no tables" : "tables " + tables.prefix(8).joined(separator: ", ") + (tables.count > 8 ? ", …" : "")
    throw .badInput(
      "\(path): a SQLite database that is not a tune study (\(what)\(list)); give another --study path: jpreplay writes a study only into a file it made")
  }

  /// `PRAGMA integrity_check` must say "ok".
  static func checkIntegrity(_ q: DatabaseQueue, path: String) throws(HarnessFailure) {
    let result: String?
    do { result = try q.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } } catch {
      throw .badInput("\(path): not a tune study, or damaged (\(reason(error)))")
    }
    guard result == "ok" else { throw .badInput("\(path): the study is damaged (integrity_check: \(String((result ?? "no answer").prefix(200))))") }
  }

  /// SQLite's own message, without the debug description of the error value; the conditions
  /// a user can act on are named (BUSY, FULL, READONLY, I/O error, not a database).
  static func reason(_ error: Error) -> String {
    guard let e = error as? DatabaseError else {
      if let f = error as? HarnessFailure { return f.message }
      return "\(error)"
    }
    let message = e.message ?? "SQLite error \(e.resultCode.rawValue)"
    switch e.resultCode.primaryResultCode {
    case .SQLITE_BUSY, .SQLITE_LOCKED:
      return "the study is locked by another program (SQLite BUSY: \(message)); wait for it, or close it"
    case .SQLITE_FULL: return "the disk is full (SQLite FULL: \(message)); free space and run again"
    case .SQLITE_READONLY: return "the study cannot be written (SQLite READONLY: \(message))"
    case .SQLITE_IOERR: return "an I/O error (SQLite IOERR: \(message))"
    case .SQLITE_CANTOPEN: return "cannot open the file (SQLite CANTOPEN: \(message))"
    case .SQLITE_NOTADB: return "not a SQLite database (\(message))"
    case .SQLITE_CORRUPT: return "damaged (SQLite CORRUPT: \(message))"
    default: return message
    }
  }
}
