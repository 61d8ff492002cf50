import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension SafeFile {
  /// A temporary file created exclusively beside a target; see `SafeFile`. Removed by
  /// `discard()` or when dropped without `commit`.
  package final class Temporary: @unchecked Sendable {
    /// The temporary file's path (same directory as the target).
    package let path: String
    /// The open descriptor (nil once closed; `SQLite` users close it before opening the path).
    package private(set) var fd: Int32?
    private var done = false

    /// Creates `.jpreplay-tmp-<pid>-<token>-<name>` in `target`'s directory (creating the
    /// directory if needed). The token is 16 hex digits from the system's random source, so
    /// only this process knows the name; `<name>` is the target's name cut to keep the whole
    /// name (with SQLite's `-journal` after it) within NAME_MAX, whatever the target's length.
    /// Nothing else in the directory is touched: there is no sweep (issue 34 item 2), so a
    /// file that only looks like a temporary — the user's own — is never removed.
    /// With `keepOpen: false` the file is closed at once (for a writer that opens it by path).
    package init(beside target: String, keepOpen: Bool = true) throws(SafeFileError) {
      let dir = Paths.directory(of: target)
      do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
        throw SafeFileError(path: dir, "cannot create the directory: \(SystemReason.of(error))")
      }
      var rng = SystemRandomNumberGenerator()
      var attempt = 0
      while true {
        let name = SafeFile.temporaryName(for: Paths.name(target), token: rng.next())
        let p = Paths.join(Paths.parent(target), name)
        let d = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if d >= 0 {
          path = p
          if keepOpen { fd = d } else { close(d) }
          return
        }
        attempt += 1
        guard errno == EEXIST, attempt < 8 else {
          throw SafeFileError(path: p, "cannot create a temporary file", errno)
        }
      }
    }

    /// Appends `bytes` (the file must be open).
    package func write(_ bytes: [UInt8]) throws(SafeFileError) {
      guard let fd else { throw SafeFileError(path: path, "write after close") }
      if let code = bytes.withUnsafeBytes({ SafeFile.writeAll(fd, $0) }) { throw SafeFileError(path: path, "cannot write", code) }
    }

    /// Flushes to disk and closes the descriptor (if open).
    func syncAndClose() throws(SafeFileError) {
      if let d = fd {
        fd = nil
        let synced = fsync(d) == 0
        let code = errno
        close(d)
        guard synced else { throw SafeFileError(path: path, "cannot flush to disk", code) }
      }
    }

    /// fsync, close, and rename over `target` (replacing it: a symlink there is replaced, not followed).
    package func commit(to target: String) throws(SafeFileError) {
      try syncAndClose()
      for s in SafeFile.sqliteSuffixes { unlink(path + s) }
      try SafeFile.rename(path, to: target)
      done = true
    }

    /// As `commit`, but fails (EEXIST) when `target` exists: link(2), then unlink the temporary.
    package func commitNew(to target: String) throws(SafeFileError) {
      try syncAndClose()
      for s in SafeFile.sqliteSuffixes { unlink(path + s) }
      guard link(path, target) == 0 else { throw SafeFileError(path: target, "cannot create", errno) }
      unlink(path)
      SafeFile.syncDirectory(of: target)
      done = true
    }

    /// Copies the (closed) temporary's bytes into the existing device or FIFO at `target`,
    /// opened for writing without creating or truncating anything.
    func copyThrough(to target: String) throws(SafeFileError) {
      try syncAndClose()
      let src = open(path, O_RDONLY | O_CLOEXEC)
      guard src >= 0 else { throw SafeFileError(path: path, "cannot read back", errno) }
      defer { close(src) }
      let dst = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC)
      guard dst >= 0 else { throw SafeFileError(path: target, "cannot open for writing", errno) }
      defer { close(dst) }
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let n = buffer.withUnsafeMutableBytes { read(src, $0.baseAddress!, $0.count) }
        if n < 0 {
          if errno == EINTR { continue }
          throw SafeFileError(path: path, "cannot read back", errno)
        }
        if n == 0 { return }
        if let code = buffer.withUnsafeBytes({ SafeFile.writeAll(dst, UnsafeRawBufferPointer(rebasing: $0[..<n])) }) {
          throw SafeFileError(path: target, "cannot write", code)
        }
      }
    }

    /// Closes and removes the temporary file and any SQLite files beside it.
    package func discard() {
      if let d = fd { close(d) }
      fd = nil
      if !done { for s in [""] + SafeFile.sqliteSuffixes { unlink(path + s) } }
      done = true
    }

    deinit { discard() }
  }
}

extension SafeFile {
  /// write(2) of all of `bytes` to `fd`, retried on EINTR and short writes: the one write loop
  /// of the package (temporaries, write-through outputs, standard output). Returns nil, or the
  /// errno of the failure.
  package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var off = 0
    while off < bytes.count {
      let n = posixWrite(fd, bytes.baseAddress! + off, bytes.count - off)
      if n < 0 {
        if errno == EINTR { continue }
        return errno
      }
      off += n
    }
    return nil
  }
}

/// write(2) (a free function: inside `Temporary`, `write` is the method).
private func posixWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
