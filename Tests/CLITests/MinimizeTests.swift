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
}
