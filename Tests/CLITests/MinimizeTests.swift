import Foundation
import Testing

/// `jpreplay minimize` end to end (issue 14): the result replays to the kept behaviour,
/// passes `doctor`, and the same input gives the same bytes.
@Suite("jpreplay minimize")
struct MinimizeTests {
  @Test("--expect keeps the hard FRAME_MOVE_LEFT display; doctor passes; the bytes are deterministic")
  func expectMatcher() throws {
    let dir = try CLI.tempDir("minimize")
    defer { try? FileManager.default.removeItem(at: dir) }
    var outputs: [Data] = []
    for k in 0..<2 {
      let out = dir.appendingPathComponent("m\(k).jprec").path
      let r = try CLI.run([
        "minimize", "Recordings/drift-left-and-back.jprec", "--expect", "cue_display FRAME_MOVE_LEFT/hard", "-o", out,
      ])
      try #require(r.code == 0, "\(r.stderr)")
      #expect(r.stdout.contains("before: 183 events"))
      let replay = try CLI.run(["replay", out])
      #expect(replay.stdout.contains(#""cue_id":"FRAME_MOVE_LEFT","level":"hard""#))
      #expect(try CLI.run(["doctor", out]).code == 0)
      outputs.append(try Data(contentsOf: URL(fileURLWithPath: out)))
      let info = try CLI.run(["info", out])
      #expect(info.stdout.contains("minimized_from"))
    }
    #expect(outputs[0] == outputs[1])
  }

  @Test("default property: a golden edited at one instant → the repro keeps that divergence with ≤ 10 % of the events")
  func goldenDivergence() throws {
    let dir = try CLI.tempDir("minimize")
    defer { try? FileManager.default.removeItem(at: dir) }
    let golden = dir.appendingPathComponent("Golden")
    try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
    var text = try String(contentsOf: CLI.repoRoot.appendingPathComponent("Golden/drift-left-and-back.trace.jsonl"), encoding: .utf8)
    // The hard display at 5667 one frame earlier: the replay now "diverges" there.
    text = text.replacingOccurrences(of: #""reason":"none","t":5667}"#, with: #""reason":"none","t":5600}"#)
    try text.write(to: golden.appendingPathComponent("drift-left-and-back.trace.jsonl"), atomically: true, encoding: .utf8)
    let out = dir.appendingPathComponent("d.jprec").path
    let r = try CLI.run(["minimize", "Recordings/drift-left-and-back.jprec", "--golden-dir", golden.path, "-o", out])
    try #require(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("the divergence from the golden at t=5600"))
    // The diff against the edited golden still diverges at 5600.
    let diff = try CLI.run(["diff", golden.appendingPathComponent("drift-left-and-back.trace.jsonl").path, out])
    #expect(diff.code == 1)
    #expect(diff.stdout.contains("5600") || diff.stdout.contains("5667"))
    let after = try #require(r.stdout.split(separator: "\n").first { $0.contains("after:") })
    let n = Int(after.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "") ?? Int.max
    #expect(n <= 18, "\(after)")
  }

  @Test("a property that does not hold on the input, or an unknown golden, is bad input (exit 2)")
  func refusals() throws {
    let dir = try CLI.tempDir("minimize")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("x.jprec").path
    let r = try CLI.run(["minimize", "Recordings/drift-left-and-back.jprec", "--expect", "cue_display HEAD_LEVEL/hard", "-o", out])
    #expect(r.code == 2)
    #expect(r.stderr.contains("does not hold"))
    let same = try CLI.run(["minimize", "Recordings/drift-left-and-back.jprec", "-o", out])
    #expect(same.code == 2)
    #expect(same.stderr.contains("equals its golden"))
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  /// PoseSpec.json with HEAD_LEVEL's minHoldMs 3000 → 5000: a gate that holds too long, so
  /// gate-probe-hold-vs-frames never shows CHIN_UP at 3200 (ENGINE §3.9 min hold).
  static func holdTooLongSpec(in dir: URL) throws -> URL {
    var text = try String(contentsOf: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), encoding: .utf8)
    let cue = try #require(text.range(of: #""id": "HEAD_LEVEL""#))
    let hold = try #require(text.range(of: #""minHoldMs": 3000"#, range: cue.upperBound..<text.endIndex))
    text.replaceSubrange(hold, with: #""minHoldMs": 5000"#)
    let url = dir.appendingPathComponent("hold-5000.json")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  /// An executable that runs this jpreplay with `spec` whatever spec it is given: another
  /// engine, without building one.
  static func engine(at url: URL, spec: URL) throws -> URL {
    try CLI.writeExecutable(Data("#!/bin/sh\nexec '\(CLI.binary.path)' \"$@\" --spec '\(spec.path)'\n".utf8), to: url)
    return url
  }

  @Test("--against BINARY keeps the difference between two engines: the reference matches the written golden, this build does not; verdicts in the header")
  func againstBinary() throws {
    let dir = try CLI.tempDir("minimize")
    defer { try? FileManager.default.removeItem(at: dir) }
    let bad = try Self.holdTooLongSpec(in: dir)
    let good = try Self.engine(at: dir.appendingPathComponent("good-engine"), spec: CLI.repoRoot.appendingPathComponent("PoseSpec.json"))
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("Recordings"), withIntermediateDirectories: true)
    let out = dir.appendingPathComponent("Recordings/gate-min.jprec").path
    let golden = dir.appendingPathComponent("Golden").path
    let r = try CLI.run([
      "minimize", "Recordings/gate-probe-hold-vs-frames.jprec", "--against", good.path, "--spec", bad.path, "-o", out, "--write-golden", golden,
    ])
    try #require(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("at t=3200 reference has cue_display CHIN_UP/hard, this build has none"))
    let header = try CLI.run(["cat", out]).stdout.split(separator: "\n").first.map(String.init) ?? ""
    #expect(header.contains(#""shows":"cue_display CHIN_UP/hard at t=3200""#), "\(header)")
    #expect(header.contains(#""shows":"nothing at t=3200""#))
    #expect(header.contains(#""verdict":"differs from the reference""#))
    // The good engine replays the repro to its golden; the engine under test does not.
    let trace = "\(golden)/gate-min.trace.jsonl"
    #expect(try CLI.run(["diff", trace, out]).code == 0)
    let differs = try CLI.run(["diff", trace, out, "--spec", bad.path])
    #expect(differs.code == 1)
    #expect(differs.stdout.contains("golden has cue_display CHIN_UP/hard, replay has none"))
    // verify checks the trace and the A.13 goldens together.
    let corpus = ["--recordings-dir", dir.appendingPathComponent("Recordings").path, "--golden-dir", golden]
    #expect(try CLI.run(["verify"] + corpus).code == 0)
    #expect(try CLI.run(["verify", "--spec", bad.path] + corpus).code == 1)
    // Two engines that agree leave nothing to keep: bad input.
    let same = try CLI.run(["minimize", "Recordings/gate-probe-hold-vs-frames.jprec", "--against", good.path, "-o", out, "--force"])
    #expect(same.code == 2)
    #expect(same.stderr.contains("replay it identically"))
  }

  /// The head cut on a long PixScan session (docs/PIXSCAN.md: a photo is named by its place,
  /// and strict effect checking refuses an orphaned recognition result, so ddmin alone can
  /// remove almost nothing). Expected from the recording's own notes: the delete at the end
  /// needs the launch, the library snapshot, one queued photo (a left swipe), opening the
  /// sheet, "delete all" and the delete's result.
  @Test("long-session-5000 (6,255 events) --expect 'message key=deleted': 6 events in under 100 checks; the result replays to the message and passes doctor")
  func longSessionHeadCut() throws {
    let dir = try CLI.tempDir("minimize")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("deleted-min.jprec").path
    let r = try CLI.run(["minimize", "Recordings/pixscan/long-session-5000.jprec", "--expect", "message key=deleted", "-o", out])
    try #require(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("before: 6255 events"))
    #expect(r.stdout.contains("after:  6 events"), "\(r.stdout)")
    #expect(r.stdout.contains("app_launch 1, library_snapshot 1, swipe 1, delete_sheet 2, delete_result 1"), "\(r.stdout)")
    let checks = r.stdout.split(separator: "\n").first { $0.contains("property checks") }.flatMap { line in
      line.split(separator: ",").last?.split(separator: " ").first.flatMap { Int($0) }
    }
    #expect((checks ?? Int.max) < 100, "\(r.stdout)")
    let replay = try CLI.run(["replay", out])
    #expect(replay.stdout.contains(#""key":"deleted""#))
    #expect(replay.stdout.contains(#""direction":"left""#))
    #expect(try CLI.run(["doctor", out]).code == 0)
  }
}
