import Foundation
import Testing

/// Exit codes the command-line contract gives where they were wrong (issue 34 item 8): a
/// failed write is bad output (2) naming the file, and a recording named nowhere is bad input.
@Suite("Exit codes of the contract")
struct ExitCodeContractTests {
  /// A scratch corpus with one recording and its goldens.
  static func corpus() throws -> URL {
    let dir = try CLI.tempDir("exit-codes")
    let fm = FileManager.default
    for sub in ["Recordings", "Golden"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    let n = "s04-frame-left-enter"
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("Recordings/\(n).jprec"), to: dir.appendingPathComponent("Recordings/\(n).jprec"))
    for k in ["trace", "a13"] {
      try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("Golden/\(n).\(k).jsonl"), to: dir.appendingPathComponent("Golden/\(n).\(k).jsonl"))
    }
    return dir
  }

  @Test("accept of a .new that is a directory: exit 2 naming the file (was 1); the golden and the folder stay")
  func acceptOfADirectoryIsBadOutput() throws {
    let dir = try Self.corpus()
    defer { try? FileManager.default.removeItem(at: dir) }
    let golden = dir.appendingPathComponent("Golden/s04-frame-left-enter.trace.jsonl")
    let before = try Data(contentsOf: golden)
    let pending = dir.appendingPathComponent("Golden/s04-frame-left-enter.trace.jsonl.new")
    try FileManager.default.createDirectory(at: pending.appendingPathComponent("inside"), withIntermediateDirectories: true)
    let r = try CLI.run(["accept", "s04-frame-left-enter", "--recordings-dir", "Recordings", "--golden-dir", "Golden"], cwd: dir)
    #expect(r.code == 2, "exit \(r.code): \(r.stderr)")
    #expect(r.stderr.contains("s04-frame-left-enter.trace.jsonl"), "\(r.stderr)")
    #expect(try Data(contentsOf: golden) == before)
    var isDir: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: pending.appendingPathComponent("inside").path, isDirectory: &isDir) && isDir.boolValue)
  }

  @Test("bisect commits with a recording at neither GOOD nor BAD: exit 2 naming it (was 1)")
  func bisectOfARecordingNamedNowhere() throws {
    let dir = try BisectCommitsTests.makeRepo(recordings: ["s04-frame-left-enter"])
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try CLI.run(
      ["bisect", "commits", "--good", "HEAD", "--bad", "HEAD", "no-such-recording", "--golden-dir", "Golden"], cwd: dir)
    #expect(r.code == 2, "exit \(r.code): \(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("Recordings/no-such-recording.jprec"), "\(r.stderr)")
  }
}
