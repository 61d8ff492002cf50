import Foundation
import Testing

/// Issue 34 item 8: messages name the command that printed them and the situation it is in.
@Suite struct CommandMessageTests {
  static func scratch() throws -> URL {
    let dir = try CLI.tempDir("messages")
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("Recordings"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"),
      to: dir.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"))
    try FileManager.default.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    return dir
  }

  @Test("minimize --against names minimize, not bisect commits")
  func minimizeNamesItself() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    // A scratch folder outside any git repository.
    let r = try CLI.run(["minimize", "Recordings/s04-frame-left-enter.jprec", "--against", "HEAD~1"], cwd: dir, env: ["GIT_CEILING_DIRECTORIES": dir.deletingLastPathComponent().path])
    #expect(r.code == 2, "\(r.stderr)")
    #expect(r.stderr.contains("minimize --against: not inside a git repository"), "\(r.stderr)")
    #expect(!r.stderr.contains("bisect commits"), "\(r.stderr)")
  }

  @Test("faults --no-faults --mutants that makes no mutant says so")
  func noMutantsIsNamed() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    // The recording has no scenario with rules: no cue is seen, no mutant made.
    let r = try CLI.run(["faults", "--no-faults", "--mutants", "--recordings", "Recordings"], cwd: dir)
    #expect(r.code == 2, "\(r.stderr)")
    #expect(r.stderr.contains("--mutants made no spec mutant"), "\(r.stderr)")
    #expect(!r.stderr.contains("without --mutants"), "\(r.stderr)")
    let plain = try CLI.run(["faults", "--no-faults", "--recordings", "Recordings"], cwd: dir)
    #expect(plain.code == 2 && plain.stderr.contains("--no-faults without --mutants"), "\(plain.stderr)")
  }

  @Test("faults with a name or glob that selects no scenario recording is exit 2 naming it, for each engine's corpus")
  func faultsNamesThatSelectNothing() throws {
    let r = try CLI.run(["faults", "zz-no-such*", "--fault", "gate-min-hold-ignored"])
    #expect(r.code == 2, "\(r.stderr)")
    #expect(r.stderr.contains("Recordings: no scenario recording matches 'zz-no-such*'"), "\(r.stderr)")
    let pix = try CLI.run(["faults", "--recordings", "Recordings/pixscan", "zz-no-such"])
    #expect(pix.code == 2, "\(pix.stderr)")
    #expect(pix.stderr.contains("no scenario recording matches 'zz-no-such'"), "\(pix.stderr)")
  }
}
