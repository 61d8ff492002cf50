import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import Recording
import GRDB

/// The session store of one replay of the engine whose vocabulary is `V`, under a
/// ``SessionStorePolicy``: a ``SchemaStoreVocabulary`` opens its own store (Just Photo's
/// SQLite schema); any other engine's snapshot is stored as its vocabulary's JSON form
/// (``JSONSnapshotStore``, one row per engine in a SQLite file).
public final class EngineStoreLease<V: EngineVocabulary>: SessionStorePort {
  /// The engine's persisted state.
  public typealias Snapshot = V.Snapshot
  /// The engine's own store, when its vocabulary has one.
  private let own: (any SessionStoreLease<V.Snapshot>)?
  private let policy: SessionStorePolicy
  private let label: String
  private var json: JSONSnapshotStore?
  private var directory: String?
  /// The latest snapshot of a temporary store not written yet: it is written when read back
  /// (`load`, after a kill), not after every flush of the engine, so a session of thousands of
  /// changes does not rewrite a growing snapshot thousands of times. A kept store (`--store`)
  /// is written on every save.
  private var unwritten: V.Snapshot?

  /// The store `policy` asks for; nil for `.none`.
  public static func open(_ policy: SessionStorePolicy, label: String) throws(SessionStoreError) -> EngineStoreLease? {
    if policy == .none { return nil }
    if let schema = V.self as? any SchemaStoreVocabulary.Type {
      guard let store = try openOwn(schema, policy, label: label) else { return nil }
      return EngineStoreLease(own: store, policy: policy, label: label)
    }
    let lease = EngineStoreLease(own: nil, policy: policy, label: label)
    if case .keep(let path) = policy {
      if !SessionStorePolicy.mayCreate(path) {
        throw SessionStoreError(path: path, message: "already exists; refusing to overwrite it")
      }
      lease.json = try JSONSnapshotStore(path: path, engine: V.engineName)
    }
    return lease
  }

  /// The store `W` (which is `V`) opens for itself.
  private static func openOwn<W: SchemaStoreVocabulary>(_: W.Type, _ policy: SessionStorePolicy, label: String)
    throws(SessionStoreError) -> (any SessionStoreLease<V.Snapshot>)?
  {
    guard let store = try W.openStore(policy, label: label) else { return nil }
    guard let same = store as? any SessionStoreLease<V.Snapshot> else {
      throw SessionStoreError(path: label, message: "\(V.engineName)'s store keeps another snapshot type than its vocabulary's")
    }
    return same
  }

  init(own: (any SessionStoreLease<V.Snapshot>)?, policy: SessionStorePolicy, label: String) {
    self.own = own
    self.policy = policy
    self.label = label
  }

  func store() throws(SessionStoreError) -> JSONSnapshotStore {
    if let json { return json }
    let (dir, file) = try SessionStorePolicy.temporaryFile(label: label)
    do {
      let s = try JSONSnapshotStore(path: file, engine: V.engineName)
      json = s
      directory = dir
      return s
    } catch {
      try? FileManager.default.removeItem(atPath: dir)
      throw error
    }
  }

  /// false for a temporary JSON store (read back only by ``load()``): it needs only the
  /// latest snapshot before a load; true for a kept file and the engine's own store.
  public var wantsEverySnapshot: Bool { own != nil || policy != .temporary }

  /// Stores `snapshot` as the engine's JSON object (``EngineVocabulary/snapshotJSON(_:)``).
  public func save(_ snapshot: V.Snapshot) throws {
    if var own { return try own.save(snapshot) }
    if case .keep = policy { return try store().save(V.snapshotJSON(snapshot)) }
    unwritten = snapshot
  }

  /// The stored snapshot, or the vocabulary's empty one when none was saved.
  public func load() throws -> V.Snapshot {
    if let own { return try own.load() }
    let s = try store()
    if let pending = unwritten {
      try s.save(V.snapshotJSON(pending))
      unwritten = nil
    }
    guard let object = try s.load() else { return V.emptySnapshot }
    do { return try V.snapshot(json: object) } catch {
      throw SessionStoreError(path: s.path, message: "cannot load the \(V.engineName) snapshot: \(error.message)")
    }
  }

  /// Closes the store and removes its temporary directory (a kept file stays).
  public func finish() {
    own?.finish()
    json?.close()
    if let directory { try? FileManager.default.removeItem(atPath: directory) }
    directory = nil
  }

  deinit { finish() }
}

/// A snapshot per engine as one canonical JSON text in a SQLite file (table
/// `engine_snapshot(engine, json)`): the session store of engines without a schema of their own.
public final class JSONSnapshotStore: @unchecked Sendable {
  /// The SQLite file.
  public let path: String
  let engine: String
  private var queue: DatabaseQueue?

  /// Opens (or creates) the store at `path` for the engine named `engine`; an error names the file.
  public init(path: String, engine: String) throws(SessionStoreError) {
    self.path = path
    self.engine = engine
    var config = Configuration()
    config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
    do {
      let q = try DatabaseQueue(path: path, configuration: config)
      try q.write { db in
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS engine_snapshot(engine TEXT PRIMARY KEY, json TEXT NOT NULL)")
      }
      queue = q
    } catch {
      throw SessionStoreError(path: path, message: "cannot open: \(SystemReason.message(error))")
    }
  }

  /// Replaces the engine's stored object with `object`.
  public func save(_ object: JSONObject) throws(SessionStoreError) {
    guard let queue else { throw SessionStoreError(path: path, message: "closed") }
    let text = JSONWriter.write(.object(object), sortKeys: true, numbers: .shortest)
    do {
      try queue.write { db in
        try db.execute(
          sql: "INSERT INTO engine_snapshot(engine, json) VALUES (?, ?) ON CONFLICT(engine) DO UPDATE SET json = excluded.json",
          arguments: [engine, text])
      }
    } catch { throw SessionStoreError(path: path, message: "cannot save: \(SystemReason.message(error))") }
  }

  /// The stored object; nil when nothing was saved.
  public func load() throws(SessionStoreError) -> JSONObject? {
    guard let queue else { throw SessionStoreError(path: path, message: "closed") }
    let text: String?
    do {
      text = try queue.read { db in
        try String.fetchOne(db, sql: "SELECT json FROM engine_snapshot WHERE engine = ?", arguments: [engine])
      }
    } catch { throw SessionStoreError(path: path, message: "cannot load: \(SystemReason.message(error))") }
    guard let text else { return nil }
    do {
      guard case .object(let o) = try JSONParser.parse(text) else {
        throw SessionStoreError(path: path, message: "cannot load: the stored snapshot is not a JSON object")
      }
      return o
    } catch let e as SessionStoreError { throw e } catch {
      throw SessionStoreError(path: path, message: "cannot load: stored snapshot is not JSON (\(error))")
    }
  }

  /// Closes the database (later calls reopen nothing and fail).
  public func close() {
    try? queue?.close()
    queue = nil
  }
}
