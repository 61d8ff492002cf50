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
  FileHandle.standardError.write(Data((ConsoleText.safe(text) + "\n").utf8))
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
    FileHandle.standardError.write(Data("\r\u{1B}[K\(label) \(done)/\(total) \(detail)".utf8))
  }
  func finish() {
    guard enabled else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }
}
