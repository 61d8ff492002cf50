import Foundation
import Testing

/// Issue 23 item 6: a golden that does not parse (merge-conflict markers) is bad input — exit 2,
/// and 125 (skip) under --bisect — never a behavioural difference `git bisect` would blame;
/// `--update always` may still regenerate it.
@Suite struct GoldenConflictTests {
  @Test func aConflictedGoldenIsBadInputNotADifference() throws {
    let dir = try CLI.tempDir("conflict")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    for sub in ["Recordings", "Golden"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    let name = "s04-frame-left-enter"
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("Recordings/\(name).jprec"), to: dir.appendingPathComponent("Recordings/\(name).jprec"))
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("Golden/\(name).a13.jsonl"), to: dir.appendingPathComponent("Golden/\(name).a13.jsonl"))
    let golden = try String(contentsOf: CLI.repoRoot.appendingPathComponent("Golden/\(name).trace.jsonl"), encoding: .utf8)
    let conflicted = "<<<<<<< HEAD\n" + golden + "=======\n>>>>>>> theirs\n"
    let path = dir.appendingPathComponent("Golden/\(name).trace.jsonl")
    try conflicted.write(to: path, atomically: true, encoding: .utf8)
    let plain = try CLI.run(["verify"], cwd: dir)
    #expect(plain.code == 2 && plain.stdout.contains("does not parse"), "\(plain.stdout)\(plain.stderr)")
    #expect(try CLI.run(["verify", "--bisect", name], cwd: dir).code == 125)
    #expect(try String(contentsOf: path, encoding: .utf8) == conflicted, "nothing written without --update always")
    let always = try CLI.run(["verify", "--update", "always"], cwd: dir)
    #expect(always.code != 2, "\(always.stdout)\(always.stderr)")
    #expect(try String(contentsOf: path, encoding: .utf8) == golden)
  }
}
