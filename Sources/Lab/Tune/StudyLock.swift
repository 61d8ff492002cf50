import Foundation
import JustPhotoPlugin
import Recording

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The advisory lock a `tune run` holds on its study while it writes (issue 34.6): a POSIX
/// record lock (fcntl `F_SETLK`, write) on one byte of the study file far from the bytes
/// SQLite locks (its lock bytes start at 1 GiB), so SQLite's own locking is untouched. The
/// kernel drops it when the process ends, however it ends (kill -9 included): no stale lock
/// file to remove. A second run finds the byte locked and is refused with the holder's pid
/// (`F_GETLK`) — never a second writer of the same trials, never SQLite's "database is
/// locked" in the middle of a chunk.
///
/// POSIX locks belong to the process and close(2) of any descriptor of the file releases
/// them all: the descriptor is kept open for the study's life and closed after the database
/// (``TuneStudy``'s deinit), and nothing else in the process opens the file by hand.
final class StudyLock: @unchecked Sendable {
  /// The locked byte: below SQLite's `PENDING_BYTE` (0x40000000) and its shared range.
  static let offset: off_t = 0x3FFF_F000

  let path: String
  private var fd: Int32

  /// Opens `path` (never through a symbolic link) and takes the lock, or throws naming the
  /// process that holds it.
  init(_ path: String) throws(HarnessFailure) {
    self.path = path
    fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      throw .badInput("\(path): cannot open the study for writing (\(String(cString: strerror(code))))")
    }
    var fl = Self.region(type: F_WRLCK)
    guard fcntl(fd, F_SETLK, &fl) == -1 else { return }
    let code = errno
    var probe = Self.region(type: F_WRLCK)
    let holder = fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != Int16(F_UNLCK) ? probe.l_pid : 0
    close(fd)
    fd = -1
    guard code == EAGAIN || code == EACCES else {
      throw .badInput("\(path): cannot lock the study (\(String(cString: strerror(code))))")
    }
    let who = holder > 0 ? "another jpreplay (pid \(holder))" : "another jpreplay"
    throw .badInput(
      "study \(path) is in use by \(who); wait for that run to end (its trials are stored as it goes), then run again to continue the study")
  }

  static func region(type: Int32) -> flock {
    var fl = flock()
    fl.l_type = Int16(type)
    fl.l_whence = Int16(SEEK_SET)
    fl.l_start = offset
    fl.l_len = 1
    return fl
  }

  /// The file's first 100 bytes (SQLite's header; fewer for a shorter file), read through the
  /// lock's own descriptor (opening and closing another would drop the lock).
  func header() -> [UInt8] {
    guard fd >= 0 else { return [] }
    var out = [UInt8](repeating: 0, count: 100)
    var got = 0
    while got < out.count {
      let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, $0.count - got, off_t(got)) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      got += n
    }
    return Array(out[0..<got])
  }

  /// Releases the lock (closing the descriptor); idempotent.
  func release() {
    guard fd >= 0 else { return }
    close(fd)
    fd = -1
  }

  deinit { release() }
}
