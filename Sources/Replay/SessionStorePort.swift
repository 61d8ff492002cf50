import EngineSeam
import Foundation
import Recording

/// Persistence as a port (DESIGN §1): where the engine's `Effects.persist` snapshots go and
/// where `app_launch {store}` comes from after a kill.
///
/// `save` replaces the whole stored state with `snapshot`; `load` returns the stored state
/// (the engine's empty snapshot when nothing was stored). Reference-type adapters can
/// implement `save` as a non-mutating method.
public protocol SessionStorePort<Snapshot> {
  /// The engine's persisted state (``EngineVocabulary/Snapshot``).
  associatedtype Snapshot
  /// Replaces the stored state with `snapshot`.
  mutating func save(_ snapshot: Snapshot) throws
  /// The stored state.
  func load() throws -> Snapshot
  /// Whether the store wants every snapshot as the engine flushes it (a kept file, Just
  /// Photo's tables: the default). false: the store is read only through ``load()`` (a
  /// temporary one), so a replay of an engine with ``SeamEngine/snapshotOnDemand`` saves only
  /// the latest state, just before a kill, before a `load` and at the end.
  var wantsEverySnapshot: Bool { get }
}

extension SessionStorePort {
  /// true: every flush is saved.
  public var wantsEverySnapshot: Bool { true }
}

/// A store opened for one replay: the port, and what to close and remove when the replay is
/// over (``finish()``).
public protocol SessionStoreLease<Snapshot>: SessionStorePort, AnyObject {
  /// Closes the store and removes its temporary directory (a kept file stays).
  func finish()
}

/// A vocabulary whose engine keeps its snapshot in a store with a schema of its own (Just
/// Photo's session tables) instead of its JSON form (``JSONSnapshotStore``).
/// ``EngineStoreLease`` opens such a store through ``openStore(_:label:)``.
public protocol SchemaStoreVocabulary: EngineVocabulary {
  /// The engine's store for one replay.
  ///
  /// - Parameters:
  ///   - policy: where the store lives (never `.none`: the lease asks for no store then).
  ///   - label: the recording's name, part of a temporary file's name.
  /// - Returns: the opened store; nil when the policy asks for none.
  /// - Throws: ``SessionStoreError`` naming the file.
  static func openStore(_ policy: SessionStorePolicy, label: String) throws(SessionStoreError) -> (any SessionStoreLease<Snapshot>)?
}

/// A session store failure; the message names the database file.
public struct SessionStoreError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The database file.
  public var path: String
  /// What failed.
  public var message: String
  /// An error of the store at `path`.
  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }
  /// `PATH: session store: MESSAGE`.
  public var description: String { "\(path): session store: \(message)" }
}

/// Where a replay's session store lives (``ReplayDriver/sessionStore``).
public enum SessionStorePolicy: Sendable, Equatable {
  /// No store: `Effects.persist` is dropped and `app_launch` events are handed over as recorded.
  case none
  /// A fresh SQLite file in a new temporary directory per replay, removed afterwards.
  case temporary
  /// A fresh SQLite file at `path`, kept after the replay for inspection (`sqlite3 PATH`).
  /// The file must not exist (the CLI checks; an existing file is an error here), or be the
  /// empty `SafeFile` temporary the CLI made for it (`replay --keep-store` writes the store under
  /// that short name and renames it into place: a name near NAME_MAX leaves no room for SQLite's
  /// `-journal` beside it).
  case keep(path: String)

  /// Whether `.keep(path:)` may create its store at `path` (see `keep`).
  package static func mayCreate(_ path: String) -> Bool {
    guard FileManager.default.fileExists(atPath: path) else { return true }
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    return Paths.name(path).hasPrefix(SafeFile.temporaryPrefix) && size == 0
  }

  /// A new temporary directory and the store file's path in it, named after `label`.
  package static func temporaryFile(label: String) throws(SessionStoreError) -> (directory: String, file: String) {
    // mkdtemp: unique across threads and processes (parallel verify workers).
    let base = FileManager.default.temporaryDirectory.joined("jpreplay-store-XXXXXX").path
    var template = Array(base.utf8CString)
    let dir: String? = template.withUnsafeMutableBufferPointer { buf in
      mkdtemp(buf.baseAddress!).map { String(cString: $0) }
    }
    guard let dir else {
      throw SessionStoreError(path: base, message: "cannot create a temporary directory: \(String(cString: strerror(errno)))")
    }
    let safe = String(label.split(separator: "/").last ?? "replay").map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" }
    return (dir, dir + "/" + String(safe) + ".session.sqlite")
  }
}
