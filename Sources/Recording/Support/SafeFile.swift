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
/// `.jpreplay-tmp-<pid>-<16 random hex>-<target name>`; a planted file or symlink of that name
/// makes the creation fail instead of being followed. It is fsynced and renamed over the
/// target (readers see the old or the new file, never a part), and removed — with any SQLite
/// `-wal`/`-shm`/`-journal` beside it — on every error path. Creating one first sweeps the
/// directory of temporaries whose process is gone (`kill(pid, 0)` fails with ESRCH): what a
/// `kill -9` left behind, including the older names `.<name>.import-<pid>`,
/// `.<name>.record-<pid>` and `.<name>.tmp-<pid>`.
package enum SafeFile {
  /// The prefix of every temporary file (listings of `Golden/` skip such files).
  package static let temporaryPrefix = ".jpreplay-tmp-"
  /// Suffixes SQLite adds beside a database file.
  static let sqliteSuffixes = ["-wal", "-shm", "-journal"]

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

  /// Removes the temporary files in `directory` left by processes that no longer exist.
  /// Returns the names removed. Never touches a file whose process is alive (or unknown).
  @discardableResult
  package static func sweep(directory: String) -> [String] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
    var removed: [String] = []
    for name in names.sorted() {
      guard let pid = ownerPID(of: name), pid != getpid(), !processExists(pid) else { continue }
      let p = (directory as NSString).appendingPathComponent(name)
      var st = stat()
      guard lstat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG || (st.st_mode & S_IFMT) == S_IFLNK else { continue }
      if unlink(p) == 0 { removed.append(name) }
    }
    return removed
  }

  /// The pid in a temporary file's name (`.jpreplay-tmp-<pid>-…`, or the older
  /// `.<name>.import-<pid>`, `.<name>.record-<pid>`, `.<name>.tmp-<pid>`, each possibly followed
  /// by `-wal`, `-shm` or `-journal`); nil for any other name.
  static func ownerPID(of name: String) -> pid_t? {
    if name.hasPrefix(temporaryPrefix) {
      let digits = name.dropFirst(temporaryPrefix.count).prefix { $0.isASCII && $0.isNumber }
      guard !digits.isEmpty, name.dropFirst(temporaryPrefix.count + digits.count).hasPrefix("-") else { return nil }
      return pid_t(digits)
    }
    guard name.hasPrefix(".") else { return nil }
    var base = Substring(name)
    for s in sqliteSuffixes where base.hasSuffix(s) { base = base.dropLast(s.count) }
    for marker in [".import-", ".record-", ".tmp-"] {
      guard let r = base.range(of: marker, options: .backwards) else { continue }
      let digits = base[r.upperBound...]
      guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { continue }
      return pid_t(digits)
    }
    return nil
  }

  /// False only when `kill(pid, 0)` says no such process (EPERM: it exists, another user's).
  static func processExists(_ pid: pid_t) -> Bool {
    guard pid > 0 else { return true }
    return kill(pid, 0) == 0 || errno != ESRCH
  }

  static func syncDirectory(of path: String) {
    let dir = (path as NSString).deletingLastPathComponent
    let fd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
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
