import Foundation
import Testing

/// `jpreplay bisect commits` and `verify --bisect` (issue 14) in a temporary git repository
/// built from this one: seven commits, one PoseSpec edit that changes behaviour, goldens
/// re-blessed after it, and a commit that does not build.
@Suite("bisect commits", .serialized)
struct BisectCommitsTests {
  @discardableResult
  static func git(_ args: [String], in dir: URL) throws -> String {
    // ChildProcess, not Foundation's Process: reaped by waitpid, and given no descriptor of
    // this process but its three streams (see ChildProcess).
    let r = try ChildProcess.run(
      ["/usr/bin/env", "git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"] + args,
      cwd: dir.path, environment: ProcessInfo.processInfo.environment, stdin: Data())
    try #require(r.status == 0, "git \(args.joined(separator: " ")) failed: \(String(decoding: r.stderr, as: UTF8.self))")
    return String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// A repository with the sources, spec and two recordings of this one. Returns its folder.
  static func makeRepo(recordings: [String] = ["s04-frame-left-enter", "s05-head-level-flicker"]) throws -> URL {
    let dir = try CLI.tempDir("bisect")
    let fm = FileManager.default
    for f in ["Package.swift", "Sources", "PoseSpec.json", ".gitignore"] {
      try fm.copyItem(at: CLI.repoRoot.appendingPathComponent(f), to: dir.appendingPathComponent(f))
    }
    for sub in ["Recordings", "Golden"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    for n in recordings {
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
    try CLI.copyBinary(to: try cachedBinary(dir))
  }

  /// Where `bisect commits` caches the build of HEAD's sources (its folder is created).
  static func cachedBinary(_ dir: URL) throws -> URL {
    let key = try git(["rev-parse", "HEAD:Package.swift"], in: dir).prefix(16) + "-" + git(["rev-parse", "HEAD:Sources"], in: dir).prefix(16)
    let bin = dir.appendingPathComponent(".build/bisect/bin/\(key)")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    return bin.appendingPathComponent("jpreplay")
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
    // Issue 28.2: diffstat, the metric table at the culprit and its parent, and — the culprit
    // touched only the spec — the bisect spec command to run next.
    #expect(r.stdout.contains("PoseSpec.json | 2 +-"), "\(r.stdout)")
    #expect(r.stdout.contains("why, at the culprit"))
    #expect(r.stdout.contains("gate: persist 5 frames") && r.stdout.contains("gate: persist 4 frames"))
    #expect(r.stdout.contains("the culprit changed only data files (PoseSpec.json), no code."))
    let c3 = try Self.git(["rev-parse", "HEAD~3"], in: dir)
    let parent = try Self.git(["rev-parse", "HEAD~4"], in: dir)
    #expect(r.stdout.contains("\n  jpreplay bisect spec \(parent.prefix(12)):PoseSpec.json \(c3.prefix(12)):PoseSpec.json s04-frame-left-enter\n"))
    // Progress on stderr: steps, commits, cached builds, time since the start.
    #expect(r.stderr.contains("bisect: step 1"))
    #expect(r.stderr.contains("cached build"))
    #expect(r.stderr.contains("since the start"))
    #expect(try Self.git(["status", "--porcelain"], in: dir).isEmpty)
    #expect(try Self.git(["log", "-1", "--format=%s"], in: dir) == "c6 readme")
  }

  /// Edits cue `cue`'s first `from` after its id in the repository's PoseSpec.json to `to`.
  static func editCue(_ cue: String, _ from: String, _ to: String, in dir: URL) throws {
    let url = dir.appendingPathComponent("PoseSpec.json")
    var text = try String(contentsOf: url, encoding: .utf8)
    let at = try #require(text.range(of: "\"id\": \"\(cue)\""))
    let r = try #require(text.range(of: from, range: at.upperBound..<text.endIndex))
    text.replaceSubrange(r, with: to)
    try text.write(to: url, atomically: true, encoding: .utf8)
  }

  @Test("two culprits in the range: each recording that differs at BAD is named with its own first bad commit (issue 37)")
  func twoCulprits() throws {
    let dir = try Self.makeRepo()
    defer { try? FileManager.default.removeItem(at: dir) }
    try Self.seedBuildCache(dir)
    try Self.commit(dir, "c2 spec: FRAME_MOVE_LEFT persistFrames 4 → 5") { try Self.leftPersistFramesToFive(in: dir) }
    try Self.commit(dir, "c3 notes") { try Self.append("notes\n", to: dir.appendingPathComponent("NOTES.md")) }
    try Self.commit(dir, "c4 spec: HEAD_LEVEL persistFrames 3 → 6") {
      try Self.editCue("HEAD_LEVEL", #""persistFrames": 3"#, #""persistFrames": 6"#, in: dir)
    }
    try Self.commit(dir, "c5 readme") { try Self.append("readme\n", to: dir.appendingPathComponent("README.md")) }
    let r = try CLI.run(["bisect", "commits", "--good", "HEAD~4"], cwd: dir)
    #expect(r.code == 0, "\(r.stdout)\n\(r.stderr)")
    let c2 = try Self.git(["rev-parse", "HEAD~3"], in: dir)
    let c4 = try Self.git(["rev-parse", "HEAD~1"], in: dir)
    #expect(r.stdout.contains("first bad commit: \(c2.prefix(12)) c2 spec"), "\(r.stdout)")
    #expect(r.stdout.contains("first bad commit of s05-head-level-flicker: \(c4.prefix(12)) c4 spec"), "\(r.stdout)")
    #expect(r.stdout.contains("every recording that differs at BAD, with its first bad commit:"))
    #expect(r.stdout.contains("\n  s04-frame-left-enter: \(c2.prefix(12)) c2 spec"))
    #expect(r.stdout.contains("\n  s05-head-level-flicker: \(c4.prefix(12)) c4 spec"))
    #expect(!r.stderr.contains("building jpreplay"), "data-only commits reuse the seeded build")
    #expect(try Self.git(["status", "--porcelain"], in: dir).isEmpty)
  }

  @Test("the checkout's own .build/release is reused for a commit with the same build inputs: a data-only commit builds nothing (issue 37)")
  func checkoutReleaseReused() throws {
    let dir = try Self.makeRepo(recordings: ["gate-probe-hold-vs-frames"])
    defer { try? FileManager.default.removeItem(at: dir) }
    // The test's jpreplay stands in for the checkout's release build of these sources (built
    // after the last source edit; .build is ignored by git, so the checkout is clean).
    let release = dir.appendingPathComponent(".build/release/jpreplay")
    try FileManager.default.createDirectory(at: release.deletingLastPathComponent(), withIntermediateDirectories: true)
    try CLI.copyBinary(to: release)
    try FileManager.default.setAttributes([.modificationDate: Date.distantFuture], ofItemAtPath: release.path)
    try Self.commit(dir, "c2 spec: FRAME_MOVE_LEFT persistFrames 4 → 5") { try Self.leftPersistFramesToFive(in: dir) }
    let r = try CLI.run(["minimize", "Recordings/gate-probe-hold-vs-frames.jprec", "--against", "HEAD~1", "-o", "/dev/null"], cwd: dir)
    #expect(r.code == 0 || r.code == 2, "\(r.stderr)")
    #expect(r.stderr.contains("reusing the checkout's .build/release/jpreplay"), "\(r.stderr)")
    #expect(!r.stderr.contains("building jpreplay"), "\(r.stderr)")
    #expect(FileManager.default.isExecutableFile(atPath: try Self.cachedBinary(dir).path), "copied into the cache")
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

  @Test("a gate bug in a Swift commit: --minimize prints the culprit with its table and writes a repro its parent verifies clean and the culprit does not (issue 28.1, 28.2)")
  func gateBugMinimized() throws {
    let dir = try Self.makeRepo(recordings: ["gate-probe-hold-vs-frames", "s04-frame-left-enter"])
    defer { try? FileManager.default.removeItem(at: dir) }
    try Self.seedBuildCache(dir)
    try Self.commit(dir, "c2 notes") { try Self.append("notes\n", to: dir.appendingPathComponent("NOTES.md")) }
    try Self.commit(dir, "c3 gate: hold the shown cue longer") {
      try Self.append("// the gate holds longer now\n", to: dir.appendingPathComponent("Sources/JustPhotoEngine/Cues/AntiJitterGate.swift"))
    }
    // The culprit's build, seeded in the cache: an engine whose gate holds HEAD_LEVEL 5000 ms
    // instead of 3000 (standing in for a release build of c3, which would take minutes).
    let scratch = dir.appendingPathComponent(".build/test")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    let buggy = try Self.cachedBinary(dir)
    _ = try MinimizeTests.engine(at: buggy, spec: try MinimizeTests.holdTooLongSpec(in: scratch))
    try Self.commit(dir, "c4 readme") { try Self.append("readme\n", to: dir.appendingPathComponent("README.md")) }
    let r = try CLI.run(["bisect", "commits", "--good", "HEAD~3", "--minimize", "gate-probe-hold-vs-frames", "s04-frame-left-enter"], cwd: dir)
    try #require(r.code == 0, "\(r.stdout)\n\(r.stderr)")
    let c3 = try Self.git(["rev-parse", "HEAD~1"], in: dir)
    #expect(r.stdout.contains("first bad commit: \(c3.prefix(12)) c3 gate: hold the shown cue longer"))
    #expect(r.stdout.contains("Sources/JustPhotoEngine/Cues/AntiJitterGate.swift | 1 +"), "\(r.stdout)")
    #expect(r.stdout.contains("first divergence: at t=3200 golden has cue_display CHIN_UP/hard, replay has none"))
    // The metric table at the culprit (min hold 5000) and at its parent (3000).
    #expect(r.stdout.contains("why, at the culprit \(c3.prefix(10)) (CHIN_UP"))
    #expect(r.stdout.contains("HEAD_LEVEL") || r.stdout.contains("CHIN_UP  thresholds"))
    #expect(r.stdout.contains("why, at its parent"))
    #expect(!r.stdout.contains("bisect spec"), "code changed: no bisect spec hint")
    #expect(r.stderr.contains("bisect: step 1"))
    // The repro: the parent's build matches its golden, the culprit's does not.
    let repro = dir.appendingPathComponent(".build/bisect/repro")
    let corpus = ["--recordings-dir", repro.appendingPathComponent("Recordings").path, "--golden-dir", repro.appendingPathComponent("Golden").path]
    #expect(FileManager.default.fileExists(atPath: repro.appendingPathComponent("Recordings/gate-probe-hold-vs-frames-min.jprec").path))
    #expect(r.stdout.contains("minimized gate-probe-hold-vs-frames to a repro of the regression"))
    #expect(try CLI.run(["verify"] + corpus, cwd: dir).code == 0)
    let bad = try CLI.run(["verify"] + corpus, cwd: dir, executable: buggy)
    #expect(bad.code == 1, "\(bad.stdout)")
    let header = try CLI.run(["cat", repro.appendingPathComponent("Recordings/gate-probe-hold-vs-frames-min.jprec").path]).stdout
    #expect(header.contains(#""shows":"nothing at t=3200""#) && header.contains("c3 gate: hold the shown cue longer"))
    #expect(try Self.git(["status", "--porcelain"], in: dir).isEmpty)
  }

  @Test("minimize --against REV takes REV's build from the cache and runs it with REV's PoseSpec; two engines that agree are bad input")
  func againstRevision() throws {
    let dir = try Self.makeRepo(recordings: ["gate-probe-hold-vs-frames"])
    defer { try? FileManager.default.removeItem(at: dir) }
    try Self.seedBuildCache(dir)
    // This build with HEAD's own spec: the same engine as HEAD's cached build.
    let same = try CLI.run(["minimize", "Recordings/gate-probe-hold-vs-frames.jprec", "--against", "HEAD", "-o", "/dev/null"], cwd: dir)
    #expect(same.code == 2)
    #expect(same.stderr.contains("cached build"), "\(same.stderr)")
    #expect(same.stderr.contains("replay it identically (commit "))
    let nothing = try CLI.run(["minimize", "Recordings/gate-probe-hold-vs-frames.jprec", "--against", "no-such-rev"], cwd: dir)
    #expect(nothing.code == 2)
    #expect(nothing.stderr.contains("'no-such-rev' is not a commit"))
    #expect(try Self.git(["status", "--porcelain"], in: dir).isEmpty)
  }
}
