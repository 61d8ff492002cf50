import Foundation
import Testing

/// Issue 23 item 2: no shell text is ever built from data. `minimize --test` hands the
/// candidate to the command as "$1" (a recording named with quotes and `$(…)` runs nothing and
/// still minimizes); a spec argument starting with `-` never reaches git as an option.
@Suite struct NoShellFromDataTests {
  @Test("a recording named a'b$(touch PWNED) is minimized with --test and runs nothing")
  func minimizeTestGetsTheCandidateAsAnArgument() throws {
    let dir = try CLI.tempDir("noshell")
    defer { try? FileManager.default.removeItem(at: dir) }
    let hostile = dir.appendingPathComponent("a'b$(touch PWNED)`touch PWNED2`.jprec")
    try FileManager.default.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"), to: hostile)
    try FileManager.default.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    let out = dir.appendingPathComponent("min.jprec")
    for test in ["test -s {}", "test -s '{}'", "test -s \"{}\"", "test -s", "test -s \"$JPREPLAY_CANDIDATE\""] {
      let r = try CLI.run(["minimize", hostile.path, "--test", test, "-o", out.path, "--force"], cwd: dir)
      #expect(r.code == 0, "\(test): \(r.stdout)\(r.stderr)")
      let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
      #expect(!left.contains { $0.hasPrefix("PWNED") }, "\(test): \(left)")
      // `test -s` holds for any non-empty candidate: the smallest one keeps at least the header.
      #expect(FileManager.default.fileExists(atPath: out.path))
    }
  }

  @Test("bisect spec refuses a REV:PATH that starts with '-' (exit 2) before git sees it")
  func specArgumentIsNeverAGitOption() throws {
    let dir = try CLI.tempDir("noshell-git")
    defer { try? FileManager.default.removeItem(at: dir) }
    let trap = dir.appendingPathComponent("written-by-git").path
    let r = try CLI.run(["bisect", "spec", "--", "--output=\(trap):PoseSpec.json", "PoseSpec.json", "s04-frame-left-enter"])
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("starts with '-'"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: trap))
  }
}
