import Foundation
import Testing

/// Issue 23 item 6: a failed write to standard output is bad output (exit 2, the system's
/// reason, no debug description, never a trap), a reader that closed the pipe is not an error
/// (exit 0, no signal); numeric options are range-checked.
@Suite struct StandardOutputTests {
  /// Runs jpreplay with stdout on `handle` (stderr captured); returns the exit status and stderr.
  static func run(_ args: [String], stdout handle: FileHandle) throws -> (code: Int32, reason: Process.TerminationReason, stderr: String) {
    let p = Process()
    p.executableURL = CLI.binary
    p.arguments = args
    p.currentDirectoryURL = CLI.repoRoot
    p.standardOutput = handle
    let err = Pipe()
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, p.terminationReason, String(decoding: e, as: UTF8.self))
  }

  static let commands = [
    ["record", "tune-outdoor-still", "--jsonl"], ["cat", "Recordings/tune-outdoor-still.jprec"],
    ["replay", "Recordings/tune-outdoor-still.jprec"], ["info", "Recordings/s04-frame-left-enter.jprec"],
    ["score", "Recordings/s04-frame-left-enter.jprec"],
    // More than the 64 KiB sink buffer, so the write fails inside the replay, not at the end.
    ["replay", "--trace", "metrics", "Recordings/tune-outdoor-still.jprec"],
    ["replay", "Recordings/pixscan/long-session-5000.jprec"],
  ]

  @Test("a full standard output: exit 2 naming the reason, never a trap or a debug description")
  func fullStdout() throws {
    // A device that is always full: written to (never replaced), as a shell's `> /dev/full`.
    guard let full = FileHandle(forWritingAtPath: "/dev/full") else {
      print("skipped: no /dev/full on this system")
      return
    }
    for args in Self.commands {
      let r = try Self.run(args, stdout: full)
      #expect(r.reason == .exit && r.code == 2, "\(args): \(r.code) \(r.stderr)")
      #expect(r.stderr.contains("No space left on device"), "\(args): \(r.stderr)")
      #expect(!r.stderr.contains("Error Domain") && !r.stderr.contains("UserInfo"), "\(args): \(r.stderr)")
    }
  }

  @Test("a reader that closed the pipe (| head): exit 0, no signal, nothing on stderr")
  func closedPipe() throws {
    for args in Self.commands where args[0] != "info" && args[0] != "score" {
      let pipe = Pipe()
      try pipe.fileHandleForReading.close()
      let r = try Self.run(args, stdout: pipe.fileHandleForWriting)
      #expect(r.reason == .exit && r.code == 0, "\(args): \(r.reason) \(r.code) \(r.stderr)")
      #expect(r.stderr.isEmpty || r.stderr.hasPrefix("score:"), "\(args): \(r.stderr)")
    }
  }

  @Test("diff and review --context: negative or huge is exit 2 naming the bound", arguments: ["-1", "99999999999"])
  func contextIsBounded(value: String) throws {
    let golden = "Golden/s04-frame-left-enter.trace.jsonl"
    for args in [["diff", golden, golden, "--context=\(value)"], ["review", "--context=\(value)"]] {
      let r = try CLI.run(args)
      #expect(r.code == 2 && r.stderr.contains("CLILimits.contextLinesMax"), "\(args): \(r.stderr)")
    }
  }
}
