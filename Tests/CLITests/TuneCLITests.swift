import Foundation
import Lab
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `jpreplay tune` end to end: bad space files, kill -9 and resume, promote into goldens.
@Suite("jpreplay tune (CLI)")
struct TuneCLITests {
  static func scratch() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tune-cli-\(getpid())-\(UUID().uuidString)")
    let fm = FileManager.default
    try fm.createDirectory(at: dir.appendingPathComponent("Recordings"), withIntermediateDirectories: true)
    try fm.createDirectory(at: dir.appendingPathComponent("Golden"), withIntermediateDirectories: true)
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    // A recording without a scenario file: verify judges it by its golden alone.
    let name = "drift-left-and-back"
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("Recordings/\(name).jprec"), to: dir.appendingPathComponent("Recordings/\(name).jprec"))
    for kind in ["trace", "a13"] {
      try fm.copyItem(
        at: CLI.repoRoot.appendingPathComponent("Golden/\(name).\(kind).jsonl"), to: dir.appendingPathComponent("Golden/\(name).\(kind).jsonl"))
    }
    return dir
  }

  static func write(_ text: String, _ url: URL) throws { try Data(text.utf8).write(to: url) }

  @Test(arguments: [
    ("cues[*].antiJitter.persistFrames: [2..6]\ncues[*].antiJitter.minHoldMs: {min: 1, max: x}\n", "space.yaml:2:"),
    ("cues[*].antiJitter.persistFrames: [2..6]\ncues[NOPE].antiJitter.persistFrames: [1]\n", "space.yaml:2:1"),
    ("trials: -3\ncues[*].antiJitter.persistFrames: [2..6]\n", "space.yaml:1:"),
    ("cues[*].trigger.noRef.exit: {min: 0.1, max: 0.2}\n", "space.yaml:1:1"),
  ])
  func aMalformedSpaceExits2NamingFileAndPlace(text: String, place: String) throws {
    let dir = try Self.scratch()
    try Self.write(text, dir.appendingPathComponent("space.yaml"))
    let r = try CLI.run(["tune", "run", "space.yaml", "--study", "s.sqlite", "--corpus", "drift-*"], cwd: dir)
    #expect(r.code == 2, "\(r.stderr)")
    #expect(r.stderr.contains(place), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("s.sqlite").path))
  }

  @Test func aKilledStudyResumesAndEqualsAnUninterruptedOne() throws {
    let dir = try Self.scratch()
    try Self.write("seed: 5\ncues[*].antiJitter.persistFrames: [2..6]\ncues[*].antiJitter.cooldownMs: {min: 400, max: 1200}\n", dir.appendingPathComponent("space.yaml"))
    let args = ["tune", "run", "space.yaml", "--trials", "48", "--jobs", "1", "--corpus", "drift-*"]
    // Kill -9 once the first chunk (16 trials) is stored, before the study is complete.
    let p = Process()
    p.executableURL = CLI.binary
    p.arguments = args + ["--study", "killed.sqlite"]
    p.currentDirectoryURL = dir
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    let studyPath = dir.appendingPathComponent("killed.sqlite").path
    var stored = 0
    for _ in 0..<2400 where stored < 16 {  // up to 2 minutes on a loaded machine
      Thread.sleep(forTimeInterval: 0.05)
      stored = (try? TuneStudy.open(studyPath, create: false).trials().count) ?? 0
    }
    kill(p.processIdentifier, SIGKILL)
    p.waitUntilExit()
    let before = try TuneStudy.open(studyPath, create: false).trials().count
    #expect(before >= 16 && before < 48, "stored \(before) before the kill")
    let resumed = try CLI.run(args + ["--study", "killed.sqlite"], cwd: dir)
    #expect(resumed.code == 0, "\(resumed.stderr)")
    #expect(resumed.stdout.contains("\(48 - before) trials run now, \(before) already"), "\(resumed.stdout)")
    let fresh = try CLI.run(args + ["--study", "fresh.sqlite"], cwd: dir)
    #expect(fresh.code == 0)
    let a = try CLI.run(["tune", "report", "killed.sqlite", "--json"], cwd: dir)
    let b = try CLI.run(["tune", "report", "fresh.sqlite", "--json"], cwd: dir)
    #expect(a.code == 0 && !a.stdout.isEmpty)
    #expect(a.stdout == b.stdout)
  }

  @Test func promoteChangesOnlyTheTunedLiteralsAndLeavesPendingGoldens() throws {
    let dir = try Self.scratch()
    try Self.write("cues[FRAME_MOVE_*].antiJitter.persistFrames: [1]\n", dir.appendingPathComponent("space.yaml"))
    let run = try CLI.run(["tune", "run", "space.yaml", "--study", "s.sqlite", "--sampler", "grid", "--corpus", "drift-*"], cwd: dir)
    #expect(run.code == 0, "\(run.stderr)")
    let before = try String(contentsOf: dir.appendingPathComponent("PoseSpec.json"), encoding: .utf8)
    let r = try CLI.run(["tune", "promote", "s.sqlite", "0"], cwd: dir)
    #expect(r.code == 0, "\(r.stderr)")
    let after = try String(contentsOf: dir.appendingPathComponent("PoseSpec.json"), encoding: .utf8)
    let a = before.split(separator: "\n", omittingEmptySubsequences: false)
    let b = after.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(a.count == b.count)
    let changed = zip(a, b).filter { $0 != $1 }
    #expect(changed.count == 4, "one line per FRAME_MOVE_* cue")
    for (o, n) in changed { #expect(o.contains("\"persistFrames\": 4") && n == o.replacingOccurrences(of: ": 4", with: ": 1")) }
    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("Golden/drift-left-and-back.trace.jsonl.new").path))
    #expect(r.stdout.contains("jpreplay review"))
  }

  @Test func reportWritesAFrontAndAValidSVG() throws {
    let dir = try Self.scratch()
    try Self.write("cues[*].antiJitter.persistFrames: [1..3]\n", dir.appendingPathComponent("space.yaml"))
    _ = try CLI.run(["tune", "run", "space.yaml", "--study", "s.sqlite", "--sampler", "grid", "--corpus", "drift-*"], cwd: dir)
    let r = try CLI.run(["tune", "report", "s.sqlite", "--svg", "f.svg"], cwd: dir)
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("Pareto front over flicker_per_min, latency_p90_ms"))
    let svg = try Data(contentsOf: dir.appendingPathComponent("f.svg"))
    let parser = XMLParser(data: svg)
    #expect(parser.parse(), "the SVG is well-formed XML")
    #expect(String(decoding: svg, as: UTF8.self).contains("Pareto front"))
  }
}
