#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one writer of standard error (issue 34 item 2): every line any part of jpreplay prints
/// there goes through `write`, a write(2) loop that can never trap. A failed write — a full
/// device (`2>/dev/full`, ENOSPC), a closed descriptor (`2>&-`, EBADF), a reader that left
/// (`2>&1 | head -1`, EPIPE with SIGPIPE ignored) — is dropped: there is nowhere left to report
/// it, and the exit code still tells the outcome. (`FileHandle.standardError.write` raises an
/// Objective-C exception on such a failure, which is a trap in Linux Foundation.)
package enum StandardError {
  /// Writes `text` as it is (callers pass text already made safe by `ConsoleText`).
  package static func write(_ text: String) {
    let bytes = Array(text.utf8)
    guard !bytes.isEmpty else { return }
    _ = bytes.withUnsafeBytes { SafeFile.writeAll(STDERR_FILENO, $0) }
  }

  /// Makes a closed standard descriptor (0, 1 or 2) refer to /dev/null opened read-only, once,
  /// at the start of a process: a file the process opens later never takes descriptor 1 or 2
  /// (where stdout/stderr text would land in it), while writes there still fail (EBADF) as
  /// they would on the closed descriptor — so a closed standard output stays a reported failure.
  package static func guardClosedDescriptors() {
    for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
      let n = open("/dev/null", O_RDONLY)
      if n >= 0 && n != fd {
        _ = dup2(n, fd)
        close(n)
      }
    }
  }
}
