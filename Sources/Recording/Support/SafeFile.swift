import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Safe file replacement, the one helper every writer of jpreplay uses (goldens and `.new`
/// files, JUnit, traces, recordings from `record`/`import`, `doctor --recover`).
///
/// A `Temporary` is created beside its target (same directory, hence same file system) with
/// `open(O_CREAT | O_EXCL | O_NOFOLLOW)` under an unpredictable name holding the pid:
/// `.jpreplay-tmp-<pid>-<16 random hex>-<target name, cut to fit NAME_MAX>`; a planted file or
/// symlink of that name makes the creation fail instead of being followed. It is fsynced and
/// renamed over the target (readers see the old or the new file, never a part), and removed —
/// with any SQLite `-wal`/`-shm`/`-journal` beside it — on every error path. Nothing else in
/// the folder is ever removed: what a `kill -9` leaves (a hidden `.jpreplay-tmp-…` file, which
/// golden listings skip) stays until removed by hand, since no name proves a file is ours.
package enum SafeFile {
  /// The prefix of every temporary file (listings of `Golden/` skip such files).
  package static let temporaryPrefix = ".jpreplay-tmp-"
  /// Suffixes SQLite adds beside a database file.
  static let sqliteSuffixes = ["-wal", "-shm", "-journal"]

  /// Whether SQLite's side files of a database at `path` (`NAME-journal`, the longest) have
  /// names within NAME_MAX. A database with a longer name (248–255 bytes, legal) is made under
  /// a `Temporary`'s short name and renamed into place.
  package static func sqliteSideFilesFit(_ path: String) -> Bool {
    Paths.name(path).utf8.count + "-journal".utf8.count <= Paths.nameMax
  }

  /// Writes `bytes` to `path` under the output rule (`OutputTarget`): atomically for a
  /// regular file or a missing path, through for a character device or a FIFO.
  package static func write(_ bytes: [UInt8], to path: String) throws(SafeFileError) {
    let target = try OutputTarget(path)
    let t = try Temporary(for: target)
    do throws(SafeFileError) {
      try t.write(bytes)
      try t.finish(into: target, placement: .replace)
    } catch {
      t.discard()
      throw error
    }
  }

  /// Writes `text` (UTF-8) to `path` atomically.
  package static func write(_ text: String, to path: String) throws(SafeFileError) {
    try write(Array(text.utf8), to: path)
  }

  /// How `produce` puts a finished temporary at its target.
  package enum Placement: Sendable {
    /// rename(2) over the target, replacing a file or symlink there.
    case replace
    /// link(2): fails (EEXIST) when something appeared at the target meanwhile.
    case createNew
  }

  /// Produces the file at `path` atomically, the one way jpreplay writes a file that others
  /// read: `body` fills a fresh `Temporary` beside it (through `fd`, or by its path when
  /// `keepOpen` is false, as SQLite needs), which is then fsynced and put in place
  /// (`placement`). On any error, from `body` or here, the temporary is removed and the target
  /// left as it was; `body`'s errors are rethrown as they are, this helper's own are
  /// `SafeFileError`s naming the file. With `sqlite`, the old target's `-wal`/`-shm`/`-journal`
  /// are removed before the new database takes its name (SQLite would apply them to it).
  /// The output rule (`OutputTarget`) applies: a database (`sqlite`, or a writer that opens
  /// the file by path) needs a regular file or a missing path.
  package static func produce<T>(
    _ path: String, placement: Placement = .replace, keepOpen: Bool = true, sqlite: Bool = false,
    _ body: (Temporary) throws -> T
  ) throws -> T {
    let target = try OutputTarget(path, database: sqlite || !keepOpen)
    let t = try Temporary(for: target, keepOpen: keepOpen)
    do {
      let result = try body(t)
      if sqlite, case .replace(let real) = target { for s in sqliteSuffixes { unlink(real + s) } }
      try t.finish(into: target, placement: placement)
      return result
    } catch {
      t.discard()
      throw error
    }
  }

  /// rename(2) `from` over `to` (atomic within one file system), then fsync the directory.
  package static func rename(_ from: String, to: String) throws(SafeFileError) {
    guard Foundation.rename(from, to) == 0 else { throw SafeFileError(path: to, "cannot rename \(from) over it", errno) }
    syncDirectory(of: to)
  }

  /// The name of a temporary beside a file named `target`:
  /// `.jpreplay-tmp-<pid>-<token as 16 hex digits>-<target, cut>`, at most
  /// `Paths.nameMax - 8` bytes (room for SQLite's `-journal`, `-wal`, `-shm` after it).
  package static func temporaryName(for target: String, token: UInt64) -> String {
    let hex = String(token, radix: 16)
    let head = "\(temporaryPrefix)\(getpid())-\(String(repeating: "0", count: 16 - hex.count))\(hex)-"
    let room = Paths.nameMax - 8 - head.utf8.count
    return head + Paths.prefix(of: target, utf8Bytes: room)
  }

  /// A new private folder `jpreplay-<label>-XXXXXX` in the system's temporary folder,
  /// made by mkdtemp(3): a random name only this process knows, created mode 0700, never an
  /// existing folder (so removing it when done removes only what this process made).
  package static func temporaryDirectory(_ label: String) throws(SafeFileError) -> URL {
    let base = FileManager.default.temporaryDirectory.joined("jpreplay-\(label)-XXXXXX").path
    var template = Array(base.utf8CString)
    let dir: String? = template.withUnsafeMutableBufferPointer { buf in
      mkdtemp(buf.baseAddress!).map { String(cString: $0) }
    }
    guard let dir else { throw SafeFileError(path: base, "cannot create a temporary folder", errno) }
    return URL(fileURLWithPath: dir)
  }

  static func syncDirectory(of path: String) {
    let fd = open(Paths.directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = fsync(fd)
    close(fd)
  }
}

/// A failed safe write: the file and what went wrong (with the system's reason).
package struct SafeFileError: Error, CustomStringConvertible, Sendable {
  package var path: String
  package var message: String
  package init(path: String, _ message: String, _ code: Int32? = nil) {
    self.path = path
    self.message = code.map { "\(message) (\(String(cString: strerror($0))))" } ?? message
  }
  package var description: String { "\(path): \(message)" }
}
