import Foundation
import Testing

/// Issue 26: a deliberate bug in the PixScan engine — undo that forgets the delete queue — is
/// found by `jpreplay bisect commits` in a temporary git repository built from this one, as
/// `BisectCommitsTests` does for Just Photo. The culprit commit is a real edit of the undo code;
/// its release build (minutes) is stood in for by this jpreplay with the planted fault
/// `pix-undo-forgets-queue` (the hidden `--plant-fault`), which behaves as that edit does.
@Suite("bisect commits: PixScan", .serialized)
struct PixScanBisectTests {
  typealias B = BisectCommitsTests
  static let fault = "pix-undo-forgets-queue"

  /// A repository with the sources and spec of this one and PixScan recordings with their
  /// goldens where this repository keeps them (Recordings/pixscan, Golden/pixscan).
  static func makeRepo(recordings: [String]) throws -> URL {
    let dir = try CLI.tempDir("pixbisect")
    let fm = FileManager.default
    for f in ["Package.swift", "Sources", "PoseSpec.json", ".gitignore"] {
      try fm.copyItem(at: CLI.repoRoot.appendingPathComponent(f), to: dir.appendingPathComponent(f))
    }
    for sub in ["Recordings/pixscan", "Golden/pixscan"] {
      try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    for n in recordings {
      for f in ["Recordings/pixscan/\(n).jprec", "Recordings/pixscan/\(n).yaml", "Golden/pixscan/\(n).trace.jsonl"] {
        try fm.copyItem(at: CLI.repoRoot.appendingPathComponent(f), to: dir.appendingPathComponent(f))
      }
    }
    try B.git(["init", "-q"], in: dir)
    try B.git(["add", "-A"], in: dir)
    try B.git(["commit", "-qm", "c1 base"], in: dir)
    return dir
  }

  /// The regression as a person would write it: undo's block that takes the undone photo out
  /// of the delete queue (decision D3) is deleted from the engine's undo code.
  static func dropUndoQueueRevert(in dir: URL) throws {
    let url = dir.appendingPathComponent("Sources/PixScanEngine/PixScanEngine+Triage.swift")
    var text = try String(contentsOf: url, encoding: .utf8)
    let undo = try #require(text.range(of: "mutating func undo("))
    let block = try #require(text.range(of: "    if u.queued,", range: undo.upperBound..<text.endIndex))
    let end = try #require(text.range(of: "\n    }\n", range: block.upperBound..<text.endIndex))
    #expect(text[block.lowerBound..<end.upperBound].contains("store.queue.removeAll"))
    text.removeSubrange(block.lowerBound..<end.upperBound)
    try text.write(to: url, atomically: true, encoding: .utf8)
  }

  /// An executable that runs this jpreplay with `fault` planted: the culprit's engine.
  static func faultyEngine(at url: URL, fault: String = fault) throws {
    try CLI.writeExecutable(Data("#!/bin/sh\nexec '\(CLI.binary.path)' \"$@\" --plant-fault \(fault)\n".utf8), to: url)
  }

  @Test("names the commit that edited PixScan's undo, with its diffstat and the first divergence; the working tree is untouched")
  func findsTheUndoRegression() throws {
    let dir = try Self.makeRepo(recordings: ["undo-edges", "completion", "date-ties"])
    defer { try? FileManager.default.removeItem(at: dir) }
    try B.seedBuildCache(dir)
    try B.commit(dir, "c2 notes") { try B.append("notes\n", to: dir.appendingPathComponent("NOTES.md")) }
    try B.commit(dir, "c3 pixscan: undo") { try Self.dropUndoQueueRevert(in: dir) }
    // c3 changed Sources/: its own build key, where the faulty engine stands in for its build.
    try Self.faultyEngine(at: try B.cachedBinary(dir))
    try B.commit(dir, "c4 readme") { try B.append("readme\n", to: dir.appendingPathComponent("README.md")) }
    let r = try CLI.run(["bisect", "commits", "--good", "HEAD~3"], cwd: dir)
    try #require(r.code == 0, "\(r.stdout)\n\(r.stderr)")
    let c3 = try B.git(["rev-parse", "HEAD~1"], in: dir)
    #expect(r.stdout.contains("first bad commit: \(c3.prefix(12)) c3 pixscan: undo"), "\(r.stdout)")
    #expect(r.stdout.contains("Sources/PixScanEngine/PixScanEngine+Triage.swift | "), "\(r.stdout)")
    // The watched recordings came from Recordings/pixscan by default; undo-edges undoes a
    // delete at t=1500 (its script), the first place the regression shows.
    #expect(r.stdout.contains("pixscan/undo-edges: differs"), "\(r.stdout)")
    #expect(r.stdout.contains("first divergence: at t=1500"), "\(r.stdout)")
    #expect(r.stdout.contains("queue_removed"), "\(r.stdout)")
    // date-ties never undoes: it is judged and the same at the culprit (not listed), never skipped.
    #expect(!r.stdout.contains("pixscan/date-ties: differs") && !r.stdout.contains("date-ties: not at this commit"))
    // No Just Photo cue tables and no `bisect spec` hint: the culprit changed code.
    #expect(!r.stdout.contains("why, at the culprit"))
    #expect(!r.stdout.contains("bisect spec"))
    #expect(r.stderr.contains("bisect: step 1"))
    #expect(r.stderr.contains("cached build"))
    #expect(try B.git(["status", "--porcelain"], in: dir).isEmpty)
    #expect(try B.git(["log", "-1", "--format=%s"], in: dir) == "c4 readme")
  }

  @Test("named recordings: pixscan/NAME or its path; one that never undoes finds nothing (exit 1)")
  func namedRecordings() throws {
    let dir = try Self.makeRepo(recordings: ["undo-edges", "date-ties"])
    defer { try? FileManager.default.removeItem(at: dir) }
    try B.seedBuildCache(dir)
    try B.commit(dir, "c2 pixscan: undo") { try Self.dropUndoQueueRevert(in: dir) }
    try Self.faultyEngine(at: try B.cachedBinary(dir))
    let found = try CLI.run(["bisect", "commits", "--good", "HEAD~1", "Recordings/pixscan/undo-edges.jprec"], cwd: dir)
    #expect(found.code == 0, "\(found.stdout)\n\(found.stderr)")
    #expect(found.stdout.contains("first bad commit: "))
    let nothing = try CLI.run(["bisect", "commits", "--good", "HEAD~1", "pixscan/date-ties"], cwd: dir)
    #expect(nothing.code == 1, "\(nothing.stdout)\n\(nothing.stderr)")
    #expect(nothing.stdout.contains("the same as the reference"))
    #expect(try B.git(["status", "--porcelain"], in: dir).isEmpty)
  }

  @Test("the fault for real: an undo recording replayed with it differs from its golden, without it matches; verify never writes a golden with it")
  func faultChangesTheUndoTrace() throws {
    let dir = try CLI.tempDir("pixfault")
    defer { try? FileManager.default.removeItem(at: dir) }
    let recording = "Recordings/pixscan/undo-edges.jprec"
    let golden = try String(contentsOf: CLI.repoRoot.appendingPathComponent("Golden/pixscan/undo-edges.trace.jsonl"), encoding: .utf8)
    let clean = try CLI.run(["replay", recording])
    #expect(clean.code == 0)
    #expect(clean.stdout == golden)
    #expect(!clean.stderr.contains("WARNING"))
    let faulty = try CLI.run(["replay", recording, "--plant-fault", Self.fault])
    #expect(faulty.code == 0, "\(faulty.stderr)")
    #expect(faulty.stdout != golden)
    #expect(faulty.stderr.contains("WARNING: planted fault \(Self.fault) is ON"))
    // D3 broken: the undo of the delete at t=1500 leaves the photo queued.
    #expect(golden.contains(#""queue_removed":true"#))
    let undo1500 = faulty.stdout.split(separator: "\n").first { $0.contains(#""out":"undo""#) && $0.contains(#""t":1500"#) }
    #expect(undo1500?.contains(#""queue_removed":false"#) == true, "\(undo1500 ?? "no undo line at t=1500")")
    // The other faults change this recording too; an unknown name is bad input.
    #expect(try CLI.run(["replay", recording, "--plant-fault", "pix-undo-forgets-position"]).stdout != golden)
    let unknown = try CLI.run(["replay", recording, "--plant-fault", "gate-min-hold-ignored"])
    #expect(unknown.code == 2)
    #expect(unknown.stderr.contains("not a PixScan planted fault"))
    // A Just Photo recording is refused: the faults are PixScan's.
    let jp = try CLI.run(["replay", "Recordings/s04-frame-left-enter.jprec", "--plant-fault", Self.fault])
    #expect(jp.code == 2)
    #expect(jp.stderr.contains("Just Photo recording"))
    // verify in a copy of the corpus: the fault fails it and writes nothing.
    let fm = FileManager.default
    for sub in ["Recordings", "Golden"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    for f in ["Recordings/pixscan/undo-edges.jprec", "Golden/pixscan/undo-edges.trace.jsonl"] {
      try fm.copyItem(at: CLI.repoRoot.appendingPathComponent(f), to: dir.appendingPathComponent(f.replacingOccurrences(of: "pixscan/", with: "")))
    }
    let corpus = ["--recordings-dir", dir.appendingPathComponent("Recordings").path, "--golden-dir", dir.appendingPathComponent("Golden").path]
    #expect(try CLI.run(["verify"] + corpus).code == 0)
    let failed = try CLI.run(["verify", "--plant-fault", Self.fault] + corpus, env: ["JPREPLAY_UPDATE": "always"], removeEnv: ["CI"])
    #expect(failed.code == 1, "\(failed.stdout)\n\(failed.stderr)")
    #expect(failed.stderr.contains("WARNING: planted fault"))
    let written = try fm.contentsOfDirectory(atPath: dir.appendingPathComponent("Golden").path).sorted()
    #expect(written == ["undo-edges.trace.jsonl"], "PixScan writes no A.13 lines: no A.13 golden")
    #expect(try String(contentsOf: dir.appendingPathComponent("Golden/undo-edges.trace.jsonl"), encoding: .utf8) == golden)
    for mode in ["new", "always"] {
      let refused = try CLI.run(["verify", "--plant-fault", Self.fault, "--update", mode] + corpus)
      #expect(refused.code == 2)
      #expect(refused.stderr.contains("never becomes a golden"))
    }
    // Hidden: not on the help pages.
    for cmd in ["replay", "verify"] { #expect(!(try CLI.run([cmd, "--help"]).stdout.contains("plant-fault"))) }
  }

  @Test("a PixScan recording GOOD's jpreplay cannot replay is left unwatched by default (bad input when named); the Just Photo culprit is still found")
  func olderGoodWithoutPixScan() throws {
    let dir = try Self.makeRepo(recordings: ["undo-edges"])
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    for k in ["Recordings/s04-frame-left-enter.jprec", "Golden/s04-frame-left-enter.trace.jsonl", "Golden/s04-frame-left-enter.a13.jsonl"] {
      try fm.copyItem(at: CLI.repoRoot.appendingPathComponent(k), to: dir.appendingPathComponent(k))
    }
    try B.git(["add", "-A"], in: dir)
    try B.git(["commit", "-qm", "c1b the Just Photo recording"], in: dir)
    // An older jpreplay, before the PixScan plug-in: it refuses every engine: pixscan recording.
    let old = try B.cachedBinary(dir)
    let script = """
      #!/bin/sh
      case "$2" in Recordings/pixscan/*) echo "header: engine: unknown engine pixscan" >&2; exit 2;; esac
      exec '\(CLI.binary.path)' "$@"

      """
    try CLI.writeExecutable(Data(script.utf8), to: old)
    try B.commit(dir, "c2 spec: FRAME_MOVE_LEFT persistFrames 4 → 5") { try B.leftPersistFramesToFive(in: dir) }
    let r = try CLI.run(["bisect", "commits", "--good", "HEAD~1"], cwd: dir)
    #expect(r.code == 0, "\(r.stdout)\n\(r.stderr)")
    #expect(r.stdout.contains("c2 spec: FRAME_MOVE_LEFT persistFrames 4 → 5"))
    #expect(r.stderr.contains("pixscan/undo-edges is unreadable at GOOD (header: engine: unknown engine pixscan); not watched"), "\(r.stderr)")
    let named = try CLI.run(["bisect", "commits", "--good", "HEAD~1", "pixscan/undo-edges"], cwd: dir)
    #expect(named.code == 2)
    #expect(named.stderr.contains("pixscan/undo-edges is unreadable at GOOD"))
    #expect(try B.git(["status", "--porcelain"], in: dir).isEmpty)
  }

  @Test("faults --recordings Recordings/pixscan: PixScan's rules against its planted faults; Just Photo's options refused there")
  func faultsOnThePixScanCorpus() throws {
    let r = try CLI.run(["faults", "--recordings", "Recordings/pixscan", "--fault", Self.fault])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("faults (PixScan): 1 on "), "\(r.stdout)")
    #expect(r.stdout.contains("caught   \(Self.fault): undo forgets the delete queue (D3)"))
    // Its examples are rules of the scenarios that undo a delete.
    #expect(
      r.stdout.contains("undo-delete-then-keep: Recordings/pixscan/undo-delete-then-keep.yaml:")
        || r.stdout.contains("undo-edges: Recordings/pixscan/undo-edges.yaml:"), "\(r.stdout)")
    #expect(try CLI.run(["faults", "--list"]).stdout.contains("\(Self.fault): "))
    let mutants = try CLI.run(["faults", "--recordings", "Recordings/pixscan", "--mutants"])
    #expect(mutants.code == 2)
    let wrongCorpus = try CLI.run(["faults", "--fault", Self.fault])
    #expect(wrongCorpus.code == 2)
    #expect(wrongCorpus.stderr.contains("--recordings Recordings/pixscan"))
  }
}
