import Foundation
import Testing

/// `jpreplay bisect commits` and `verify --bisect` (issue 14) in a temporary git repository
/// built from this one: seven commits, one PoseSpec edit that changes behaviour, goldens
/// re-blessed after it, and a commit that does not build.
@Suite("bisect commits", .serialized)
struct BisectCommitsTests {
  @discardableResult
  static func git(_ args: [String], in dir: URL) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"] + args
    p.currentDirectoryURL = dir
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    try #require(p.terminationStatus == 0, "git \(args.joined(separator: " ")) failed")
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// A repository with the sources, spec and two recordings of this one. Returns its folder.
  static func makeRepo() throws -> URL {
    let dir = try CLI.tempDir("bisect")
    let fm = FileManager.default
    for f in ["Package.swift", "Sources", "PoseSpec.json", ".gitignore"] {
      try fm.copyItem(at: CLI.repoRoot.appendingPathComponent(f), to: dir.appendingPathComponent(f))
    }
    for sub in ["Recordings", "Golden"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    for n in ["s04-frame-left-enter", "s05-head-level-flicker"] {
      try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("Recordings/\(n).jprec"), to: dir.appendingPathComponent("Recordings/\(n).jprec"))
      for k in ["trace", "a13"] {
        try fm.copyItem(
          at: CLI.repoRoot.appendingPathComponent("Golden/\(n).\(k).jsonl"), to: dir.appendingPathComponent("Golden/\(n).\(k).jsonl"))
      }
    }
    try git(["init", "-q"], in: dir)
    try git(["add", "-A"], in: dir)
    try git(["commit", "-qm", "c1 base"], in: dir)
    return dir
  }

  static func commit(_ dir: URL, _ message: String, _ change: () throws -> Void) throws {
    try change()
    try git(["add", "-A"], in: dir)
    try git(["commit", "-qm", message], in: dir)
  }

  /// Edits the repository's PoseSpec.json as a person would: FRAME_MOVE_LEFT's persistFrames 4 → 5.
  static func leftPersistFramesToFive(in dir: URL) throws {
    let url = dir.appendingPathComponent("PoseSpec.json")
    var text = try String(contentsOf: url, encoding: .utf8)
    let cue = try #require(text.range(of: #""id": "FRAME_MOVE_LEFT""#))
    let pf = try #require(text.range(of: #""persistFrames": 4"#, range: cue.upperBound..<text.endIndex))
    text.replaceSubrange(pf, with: #""persistFrames": 5"#)
    try text.write(to: url, atomically: true, encoding: .utf8)
  }

  static func append(_ text: String, to file: URL) throws {
    let old = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    try (old + text).write(to: file, atomically: true, encoding: .utf8)
  }

  /// The test's own jpreplay stands in for the release build of the unchanged sources: the
  /// cache is keyed by the git trees of Package.swift and Sources/, which this repository
  /// shares with every data-only commit.
  static func seedBuildCache(_ dir: URL) throws {
    let key = try git(["rev-parse", "HEAD:Package.swift"], in: dir).prefix(16) + "-" + git(["rev-parse", "HEAD:Sources"], in: dir).prefix(16)
    let bin = dir.appendingPathComponent(".build/bisect/bin/\(key)")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: CLI.binary, to: bin.appendingPathComponent("jpreplay"))
  }

  @Test("names the PoseSpec commit, though the goldens were re-blessed after it; the working tree is untouched")
  func findsTheCulprit() throws {
    let dir = try Self.makeRepo()
    defer { try? FileManager.default.removeItem(at: dir) }
    try Self.seedBuildCache(dir)
    try Self.commit(dir, "c2 notes") { try Self.append("notes\n", to: dir.appendingPathComponent("NOTES.md")) }
    try Self.commit(dir, "c3 spec: FRAME_MOVE_LEFT persistFrames 4 → 5") { try Self.leftPersistFramesToFive(in: dir) }
    try Self.commit(dir, "c4 re-bless goldens") {
      let r = try CLI.run(["replay", "Recordings/s04-frame-left-enter.jprec", "-o", "Golden/s04-frame-left-enter.trace.jsonl"], cwd: dir)
      try #require(r.code == 0, "\(r.stderr)")
    }
    // A subject that imitates git's verdict line (issue 23): the culprit comes from git's bisect
    // state, so it cannot name c2.
    let c2 = try Self.git(["rev-parse", "HEAD~2"], in: dir).trimmingCharacters(in: .whitespacesAndNewlines)
    try Self.commit(dir, "\(c2) is the first bad commit") { try Self.append("more\n", to: dir.appendingPathComponent("NOTES.md")) }
    try Self.commit(dir, "c6 readme") { try Self.append("readme\n", to: dir.appendingPathComponent("README.md")) }
    // Goldens at HEAD agree with HEAD: plain `verify` sees nothing wrong.
    #expect(try CLI.run(["verify", "--bisect"], cwd: dir).code == 0)
    let r = try CLI.run(["bisect", "commits", "--good", "HEAD~5", "--bad", "HEAD"], cwd: dir)
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("first bad commit:"))
    #expect(r.stdout.contains("c3 spec: FRAME_MOVE_LEFT persistFrames 4 → 5"))
    #expect(r.stdout.contains("cue_display FRAME_MOVE_LEFT/hard"))
    #expect(try Self.git(["status", "--porcelain"], in: dir).isEmpty)
    #expect(try Self.git(["log", "-1", "--format=%s"], in: dir) == "c6 readme")
  }

  @Test("a commit that does not build is skipped (125), never blamed; BAD like GOOD exits 1")
  func brokenBuildIsSkipped() throws {
    let dir = try Self.makeRepo()
    defer { try? FileManager.default.removeItem(at: dir) }
    try Self.seedBuildCache(dir)
    try Self.commit(dir, "c2 break the manifest") { try Self.append("let broken = (\n", to: dir.appendingPathComponent("Package.swift")) }
    let r = try CLI.run(["bisect", "commits", "--good", "HEAD~1", "--bad", "HEAD", "s04-frame-left-enter"], cwd: dir)
    #expect(r.code == 1, "\(r.stdout) \(r.stderr)")
    #expect(r.stdout.contains("not judgeable (skip)"))
    #expect(r.stderr.contains("does not build"))
    // The data-only GOOD commit reused the seeded build: nothing was built for it.
    #expect(r.stderr.components(separatedBy: "building jpreplay").count == 2)
  }

  @Test("verify --bisect: 0 good, 1 a behavioural difference, 125 for a missing golden, a stale or absent recording")
  func verifyBisectExitCodes() throws {
    let dir = try Self.makeRepo()
    defer { try? FileManager.default.removeItem(at: dir) }
    #expect(try CLI.run(["verify", "--bisect", "s04-frame-left-enter"], cwd: dir).code == 0)
    #expect(try CLI.run(["verify", "--bisect", "no-such-recording"], cwd: dir).code == 125)
    try FileManager.default.removeItem(at: dir.appendingPathComponent("Golden/s05-head-level-flicker.trace.jsonl"))
    #expect(try CLI.run(["verify", "--bisect", "s05-head-level-flicker"], cwd: dir).code == 125)
    try Self.append("{\"out\":\"tier\",\"t\":1}\n", to: dir.appendingPathComponent("Golden/s04-frame-left-enter.trace.jsonl"))
    let bad = try CLI.run(["verify", "--bisect", "s04-frame-left-enter", "no-such-recording"], cwd: dir)
    #expect(bad.code == 1)
    #expect(bad.stdout.contains("bisect: bad"))
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Golden/s04-frame-left-enter.trace.jsonl.new").path))
  }
}
