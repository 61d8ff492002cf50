import CanonicalJSON
import EngineIO
import Foundation
import GRDB
import JustPhotoIO
import Replay

/// The GRDB adapter: the app's session schema (ENGINE §5.1; [C]
/// `INF/Database/DatabaseMigratorFactory.swift`) in one SQLite file.
///
/// Tables: `sessions`, `session_items` (the app's columns plus `write_fail_reason`,
/// `write_attempts`, `album_attempts`, `thumb_attempts`), `ref_items` (created, unused yet),
/// `app_meta(key, value)` with `current_session_id`, `next_shot_seq`, `ordinal`, `ref_count`,
/// and `install_flags(flag)` (the installOnce keys; `UserDefaults` in the app).
/// Columns the engine does not model (`thumb_cache_rel_path`, `album_retry_last_at_ms`) are
/// left NULL on insert and untouched on update.
public final class SQLiteSessionStore: SessionStorePort, Sendable {
  /// The database file.
  public let path: String
  let dbQueue: DatabaseQueue

  /// Opens (creating if needed) the store at `path` and migrates it to the current schema.
  /// `durable: false` turns off fsync (`PRAGMA synchronous = OFF`): for throw-away replay
  /// stores, where a power loss does not matter and a flush per engine change must be cheap.
  public init(path: String, durable: Bool = true) throws(SessionStoreError) {
    self.path = path
    var config = Configuration()
    config.label = "session-store"
    if !durable {
      config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
    }
    do {
      dbQueue = try DatabaseQueue(path: path, configuration: config)
    } catch {
      throw SessionStoreError(path: path, message: "cannot open: \(Self.describe(error))")
    }
    do { try Self.migrator.migrate(dbQueue) } catch {
      try? dbQueue.close()
      throw SessionStoreError(path: path, message: "cannot create the schema: \(Self.describe(error))")
    }
  }

  /// Closes the database connection (later calls fail). Called automatically on deinit.
  public func close() throws(SessionStoreError) {
    do { try dbQueue.close() } catch {
      throw SessionStoreError(path: path, message: "cannot close: \(Self.describe(error))")
    }
  }

  static let migrator: DatabaseMigrator = {
    var m = DatabaseMigrator()
    m.registerMigration("v1_session_schema") { db in
      try db.execute(
        sql: """
          CREATE TABLE sessions(
            session_id TEXT PRIMARY KEY NOT NULL,
            created_at_ms INTEGER NOT NULL,
            last_active_at_ms INTEGER NOT NULL,
            scene TEXT NOT NULL,
            flags_json TEXT NOT NULL DEFAULT '{}');
          CREATE TABLE session_items(
            item_id TEXT PRIMARY KEY NOT NULL,
            session_id TEXT NOT NULL REFERENCES sessions(session_id) ON DELETE CASCADE,
            shot_seq INTEGER NOT NULL,
            created_at_ms INTEGER NOT NULL,
            state TEXT NOT NULL,
            liked INTEGER NOT NULL DEFAULT 0,
            asset_id TEXT,
            pending_file_rel_path TEXT,
            thumb_cache_rel_path TEXT,
            last_error_at_ms INTEGER,
            album_retry_count INTEGER NOT NULL DEFAULT 0,
            album_retry_last_at_ms INTEGER,
            album_retry_next_at_ms INTEGER,
            thumbnail_state TEXT NOT NULL,
            album_state TEXT NOT NULL,
            write_fail_reason TEXT,
            write_attempts INTEGER NOT NULL DEFAULT 0,
            album_attempts INTEGER NOT NULL DEFAULT 0,
            thumb_attempts INTEGER NOT NULL DEFAULT 0);
          CREATE INDEX session_items_session_shot ON session_items(session_id, shot_seq);
          CREATE TABLE ref_items(
            ref_id TEXT PRIMARY KEY NOT NULL,
            session_id TEXT NOT NULL REFERENCES sessions(session_id) ON DELETE CASCADE,
            created_at_ms INTEGER NOT NULL,
            asset_id TEXT,
            is_selected INTEGER NOT NULL DEFAULT 0,
            target_outputs_json TEXT);
          CREATE INDEX ref_items_session ON ref_items(session_id);
          CREATE TABLE app_meta(key TEXT PRIMARY KEY NOT NULL, value TEXT);
          CREATE TABLE install_flags(flag TEXT PRIMARY KEY NOT NULL);
          """)
    }
    return m
  }()

  static let metaKeys = ["current_session_id", "next_shot_seq", "ordinal", "ref_count"]

  /// Replaces the stored state with `snapshot` in one transaction: rows that are not in the
  /// snapshot are deleted, the others inserted or updated.
  public func save(_ snapshot: StoreSnapshot) throws {
    do {
      try dbQueue.write { db in try Self.write(snapshot, db) }
    } catch {
      throw SessionStoreError(path: path, message: "cannot save: \(Self.describe(error))")
    }
  }

  static func write(_ snapshot: StoreSnapshot, _ db: Database) throws {
    if let s = snapshot.session {
      try db.execute(sql: "DELETE FROM sessions WHERE session_id <> ?", arguments: [s.sessionId])
      try db.execute(
        sql: """
          INSERT INTO sessions(session_id, created_at_ms, last_active_at_ms, scene, flags_json)
          VALUES (?, ?, ?, ?, ?)
          ON CONFLICT(session_id) DO UPDATE SET created_at_ms = excluded.created_at_ms,
            last_active_at_ms = excluded.last_active_at_ms, scene = excluded.scene,
            flags_json = excluded.flags_json
          """,
        arguments: [s.sessionId, s.createdAtMs, s.lastActiveAtMs, s.scene, flagsJSON(s.flags)])
      // Items of other sessions went with their session (ON DELETE CASCADE); drop the rest
      // that the snapshot no longer has, and anything left over if foreign keys were off.
      let keep = Set(s.items.map(\.itemId))
      let stored = try String.fetchAll(db, sql: "SELECT item_id FROM session_items")
      for id in stored where !keep.contains(id) {
        try db.execute(sql: "DELETE FROM session_items WHERE item_id = ?", arguments: [id])
      }
      try db.execute(sql: "DELETE FROM ref_items WHERE session_id <> ?", arguments: [s.sessionId])
      for item in s.items { try upsert(item, sessionId: s.sessionId, db) }
      try setMeta("current_session_id", s.sessionId, db)
      try setMeta("next_shot_seq", String(s.nextShotSeq), db)
      try setMeta("ordinal", String(s.ordinal), db)
      try setMeta("ref_count", String(s.refCount), db)
    } else {
      try db.execute(sql: "DELETE FROM session_items")
      try db.execute(sql: "DELETE FROM ref_items")
      try db.execute(sql: "DELETE FROM sessions")
      for k in metaKeys { try db.execute(sql: "DELETE FROM app_meta WHERE key = ?", arguments: [k]) }
    }
    let flags = Set(snapshot.installFlags)
    for f in try String.fetchAll(db, sql: "SELECT flag FROM install_flags") where !flags.contains(f) {
      try db.execute(sql: "DELETE FROM install_flags WHERE flag = ?", arguments: [f])
    }
    for f in snapshot.installFlags.sorted() {
      try db.execute(sql: "INSERT OR IGNORE INTO install_flags(flag) VALUES (?)", arguments: [f])
    }
  }

  static func upsert(_ i: SessionItem, sessionId: String, _ db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO session_items(item_id, session_id, shot_seq, created_at_ms, state, liked,
          asset_id, pending_file_rel_path, last_error_at_ms, album_retry_count,
          album_retry_next_at_ms, thumbnail_state, album_state, write_fail_reason,
          write_attempts, album_attempts, thumb_attempts)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(item_id) DO UPDATE SET session_id = excluded.session_id,
          shot_seq = excluded.shot_seq, created_at_ms = excluded.created_at_ms,
          state = excluded.state, liked = excluded.liked, asset_id = excluded.asset_id,
          pending_file_rel_path = excluded.pending_file_rel_path,
          last_error_at_ms = excluded.last_error_at_ms,
          album_retry_count = excluded.album_retry_count,
          album_retry_next_at_ms = excluded.album_retry_next_at_ms,
          thumbnail_state = excluded.thumbnail_state, album_state = excluded.album_state,
          write_fail_reason = excluded.write_fail_reason,
          write_attempts = excluded.write_attempts, album_attempts = excluded.album_attempts,
          thumb_attempts = excluded.thumb_attempts
        """,
      arguments: [
        i.itemId, sessionId, i.shotSeq, i.createdAtMs, i.core.rawValue, i.liked, i.assetId,
        i.pendingFile, i.lastErrorAtMs, i.albumRetryCount, i.albumRetryNextAtMs,
        i.thumb.rawValue, i.album.rawValue, i.writeFailReason, i.writeAttempts,
        i.albumAttempts, i.thumbAttempts,
      ])
  }

  static func setMeta(_ key: String, _ value: String, _ db: Database) throws {
    try db.execute(
      sql: "INSERT INTO app_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      arguments: [key, value])
  }

  /// `{"flag":true,…}` with keys sorted (byte order), as the app's `flags_json`.
  static func flagsJSON(_ flags: [String]) -> String {
    let members = Set(flags).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map {
      JSONMember($0, .bool(true))
    }
    return JSONWriter.write(.object(JSONObject(members)), sortKeys: true)
  }

  /// Reads the stored state; items newest first (`shot_seq` descending).
  public func load() throws -> StoreSnapshot {
    let path = self.path
    do {
      return try dbQueue.read { db in try Self.read(db, path: path) }
    } catch let e as SessionStoreError {
      throw e
    } catch {
      throw SessionStoreError(path: path, message: "cannot load: \(Self.describe(error))")
    }
  }

  static func read(_ db: Database, path: String) throws -> StoreSnapshot {
    func bad(_ m: String) -> SessionStoreError { SessionStoreError(path: path, message: "cannot load: \(m)") }
    var meta: [String: String] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT key, value FROM app_meta") {
      let k: String = try row.decode(forColumn: "key")
      let v: String? = try row.decode(forColumn: "value")
      if let v { meta[k] = v }
    }
    let installFlags = try String.fetchAll(db, sql: "SELECT flag FROM install_flags").sorted()
    guard let sid = meta["current_session_id"] else {
      return StoreSnapshot(session: nil, installFlags: installFlags)
    }
    guard
      let srow = try Row.fetchOne(
        db, sql: "SELECT created_at_ms, last_active_at_ms, scene, flags_json FROM sessions WHERE session_id = ?",
        arguments: [sid])
    else { throw bad("app_meta.current_session_id is \"\(sid)\" but table sessions has no such row") }
    let flagsText: String = try srow.decode(forColumn: "flags_json")
    let flags: [String]
    do {
      guard let o = try JSONParser.parse(flagsText).objectValue else {
        throw bad("sessions.flags_json of \(sid) is not a JSON object: \(flagsText)")
      }
      flags = o.members.filter { $0.value.boolValue == true }.map(\.key).sorted()
    } catch let e as SessionStoreError { throw e } catch {
      throw bad("sessions.flags_json of \(sid): \(error)")
    }
    var items: [SessionItem] = []
    let rows = try Row.fetchAll(
      db, sql: "SELECT * FROM session_items WHERE session_id = ? ORDER BY shot_seq DESC, item_id",
      arguments: [sid])
    for r in rows {
      let id: String = try r.decode(forColumn: "item_id")
      func state<T: RawRepresentable<String>>(_ column: String, _: T.Type) throws -> T {
        let raw: String = try r.decode(forColumn: column)
        guard let v = T(rawValue: raw) else { throw bad("session_items.\(column) of \(id) is \"\(raw)\"") }
        return v
      }
      items.append(
        SessionItem(
          itemId: id, shotSeq: try r.decode(forColumn: "shot_seq"),
          createdAtMs: try r.decode(forColumn: "created_at_ms"), core: try state("state", ItemCore.self),
          thumb: try state("thumbnail_state", ThumbState.self), album: try state("album_state", AlbumState.self),
          liked: try r.decode(forColumn: "liked"), assetId: try r.decode(forColumn: "asset_id"),
          pendingFile: try r.decode(forColumn: "pending_file_rel_path"),
          writeFailReason: try r.decode(forColumn: "write_fail_reason"),
          lastErrorAtMs: try r.decode(forColumn: "last_error_at_ms"),
          writeAttempts: try r.decode(forColumn: "write_attempts"),
          albumAttempts: try r.decode(forColumn: "album_attempts"),
          thumbAttempts: try r.decode(forColumn: "thumb_attempts"),
          albumRetryCount: try r.decode(forColumn: "album_retry_count"),
          albumRetryNextAtMs: try r.decode(forColumn: "album_retry_next_at_ms")))
    }
    func int(_ key: String, _ fallback: Int) throws -> Int {
      guard let text = meta[key] else { return fallback }
      guard let v = Int(text) else { throw bad("app_meta.\(key) is \"\(text)\", not an integer") }
      return v
    }
    let session = SessionSnapshot(
      sessionId: sid, createdAtMs: try srow.decode(forColumn: "created_at_ms"),
      lastActiveAtMs: try srow.decode(forColumn: "last_active_at_ms"), scene: try srow.decode(forColumn: "scene"),
      flags: flags, items: items,
      nextShotSeq: try int("next_shot_seq", (items.map(\.shotSeq).max() ?? 0) + 1),
      ordinal: try int("ordinal", 1), refCount: try int("ref_count", 0))
    return StoreSnapshot(session: session, installFlags: installFlags)
  }

  static func describe(_ error: any Error) -> String {
    if let e = error as? DatabaseError {
      return "SQLite error \(e.resultCode.rawValue): \(e.message ?? "\(e.resultCode)")"
    }
    return "\(error)"
  }
}

/// A store opened for one replay, with what to remove when the replay is over.
///
/// A `.temporary` store is created when the replay first saves or loads a session: most
/// recordings never persist anything, and creating, migrating and removing a SQLite file per
/// replay was a fixed cost of every one (issue 15 item 8). A `.keep` store exists from the
/// start, so `sqlite3 PATH` always finds the file.
public final class ReplayStoreLease: SessionStoreLease {
  private let policy: SessionStorePolicy
  private let label: String
  /// The open store (for `.keep`, from the start; for `.temporary`, after the first use).
  public private(set) var opened: SQLiteSessionStore?
  private var directory: String?

  /// Opens the store `policy` asks for; nil for `.none`. `label` (the recording's name) is
  /// part of the temporary file's name.
  public static func open(_ policy: SessionStorePolicy, label: String) throws(SessionStoreError) -> ReplayStoreLease? {
    switch policy {
    case .none:
      return nil
    case .keep(let path):
      if !SessionStorePolicy.mayCreate(path) {
        throw SessionStoreError(path: path, message: "already exists; refusing to overwrite it")
      }
      let lease = ReplayStoreLease(policy: policy, label: label)
      lease.opened = try SQLiteSessionStore(path: path, durable: false)
      return lease
    case .temporary:
      return ReplayStoreLease(policy: policy, label: label)
    }
  }

  init(policy: SessionStorePolicy, label: String) {
    self.policy = policy
    self.label = label
  }

  /// The store, created in a new temporary directory on first use (`.temporary`).
  func store() throws(SessionStoreError) -> SQLiteSessionStore {
    if let opened { return opened }
    let (dir, file) = try SessionStorePolicy.temporaryFile(label: label)
    do {
      let store = try SQLiteSessionStore(path: file, durable: false)
      opened = store
      directory = dir
      return store
    } catch {
      try? FileManager.default.removeItem(atPath: dir)
      throw error
    }
  }

  /// Stores `snapshot` (the port's save).
  public func save(_ snapshot: StoreSnapshot) throws {
    try store().save(snapshot)
  }

  /// The stored snapshot (the port's load).
  public func load() throws -> StoreSnapshot {
    try store().load()
  }

  /// Closes the store and removes its temporary directory (a kept file stays).
  public func finish() {
    try? opened?.close()
    if let directory { try? FileManager.default.removeItem(atPath: directory) }
    directory = nil
  }

  deinit { finish() }
}

extension JustPhotoVocabulary: SchemaStoreVocabulary {
  /// Just Photo's session tables (``SQLiteSessionStore``, opened for one replay by
  /// ``ReplayStoreLease``).
  public static func openStore(_ policy: SessionStorePolicy, label: String) throws(SessionStoreError)
    -> (any SessionStoreLease<StoreSnapshot>)?
  {
    try ReplayStoreLease.open(policy, label: label)
  }
}
