import Foundation
import Recording
/// An error the CLI reports as one line on stderr, exiting with `code`.
struct CLIError: Error {
  var code: Int32
  var message: String
  /// Bad input or usage (exit 2): the message names the file, the place and what was expected.
  static func badInput(_ message: String) -> CLIError { CLIError(code: 2, message: message) }
  /// A behavioural difference or a failed check (exit 1).
  static func failed(_ message: String) -> CLIError { CLIError(code: 1, message: message) }
}

/// Writes to stderr, through `ConsoleText` (text from files never forges a log line).
func printErr(_ text: String) {
  StandardError.write(ConsoleText.safe(text) + "\n")
}

/// Writes a line the tool built to be one log line (a GitHub annotation, already escaped by
/// `GitHubAnnotations`) to stderr as it is.
func printErrBuilt(_ line: String) {
  StandardError.write(line + "\n")
}

/// Bounds of numeric command-line options.
enum CLILimits {
  /// Lines of context around a divergence (`diff`, `review`).
  static let contextLinesMax = 10_000
}

/// Standard output's failures (issue 23 item 6): a reader that closed the pipe (`| head`) ends
/// the run quietly with exit 0; any other failed write (a full disk, a closed descriptor) is
/// bad output, exit 2 with the reason — never a trap and never a silent success.
enum StandardOutput {
  /// SIGPIPE would kill the process: a closed pipe is seen as EPIPE from write(2) instead.
  static func install() { signal(SIGPIPE, SIG_IGN) }

  /// write(2) of all of `bytes` to descriptor 1 (Swift's `print` buffer flushed first).
  static func write(_ bytes: [UInt8]) throws {
    fflush(nil)
    guard let code = bytes.withUnsafeBytes({ SafeFile.writeAll(1, $0) }) else { return }
    if code == EPIPE { exit(0) }
    throw CLIError.badInput("standard output: cannot write (\(String(cString: strerror(code))))")
  }

  /// Flushes what `print` buffered; called once before the process exits.
  static func finish() {
    guard fflush(nil) != 0 else { return }
    if errno == EPIPE || readerLeft() { return }
    fail(CLIError.badInput("standard output: cannot write (\(String(cString: strerror(errno))))"))
  }

  /// Whether standard output is a pipe whose reader has gone (poll reports an error on it).
  static func readerLeft() -> Bool {
    var st = stat()
    guard fstat(STDOUT_FILENO, &st) == 0, (st.st_mode & S_IFMT) == S_IFIFO || (st.st_mode & S_IFMT) == S_IFSOCK else { return false }
    var p = pollfd(fd: STDOUT_FILENO, events: Int16(POLLOUT), revents: 0)
    guard poll(&p, 1, 0) == 1 else { return false }
    return p.revents & Int16(POLLERR | POLLHUP) != 0
  }

  /// Whether `error` (or an error under it) is EPIPE: the reader closed the pipe.
  static func isBrokenPipe(_ error: Error) -> Bool { SystemReason.isBrokenPipe(error) }

  /// The system's reason for a failed write, never a debug description.
  static func reason(_ error: Error) -> String { SystemReason.of(error) }

  static func fail(_ error: Error) -> Never {
    let message = (error as? CLIError)?.message ?? "standard output: cannot write (\(error))"
    StandardError.write("jpreplay: " + ConsoleText.safe(message) + "\n")
    exit(2)
  }
}


/// Whether stdout/stderr is a terminal (progress and colour only then).
var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }
var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }

/// Progress on stderr for long work: a rewritten line on a TTY, silence otherwise.
final class ProgressLine: @unchecked Sendable {
  let label: String
  let enabled: Bool
  init(label: String, enabled: Bool = stderrIsTTY) {
    self.label = label
    self.enabled = enabled
  }
  func update(_ done: Int, of total: Int, _ detail: String = "") {
    guard enabled else { return }
    StandardError.write("\r\u{1B}[K\(label) \(done)/\(total) \(ConsoleText.line(detail))")
  }
  func finish() {
    guard enabled else { return }
    StandardError.write("\r\u{1B}[K")
  }
}
