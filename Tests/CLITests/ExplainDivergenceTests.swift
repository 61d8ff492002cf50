import Foundation
import Testing

/// Explained divergences (issue 14): `replay --cue`, thresholds and gate counters in
/// `cue_eval`, and `diff`'s one-screen "why" with the spec edits in play.
@Suite("explained divergences")
struct ExplainDivergenceTests {
  @Test("replay --trace metrics --cue keeps one cue, with its thresholds and the gate's counters; a typo in --trace is exit 2")
  func replayCueFilter() throws {
    let r = try CLI.run(["replay", "Recordings/s04-frame-left-enter.jprec", "--trace", "metrics", "--cue", "FRAME_MOVE_LEFT"])
    try #require(r.code == 0, "\(r.stderr)")
    let evals = r.stdout.split(separator: "\n").filter { $0.contains(#""out":"cue_eval""#) }
    #expect(evals.count == 10)
    let first = try #require(evals.first)
    #expect(first.contains(#""cues":{"FRAME_MOVE_LEFT":{"#))
    #expect(!first.contains("FRAME_MOVE_RIGHT"))
    #expect(first.contains(#""thresholds":{"enter":null,"exit":"<=0.04","hard":">0.12","warn":">0.07"}"#))
    #expect(first.contains(#""persist_frames":4"#) && first.contains(#""stable_frames":1"#) && first.contains(#""min_hold_ms":3000"#))
    let typo = try CLI.run(["replay", "Recordings/s04-frame-left-enter.jprec", "--trace", "cue_dispaly"])
    #expect(typo.code == 2)
    #expect(typo.stderr.contains("unknown trace kind 'cue_dispaly'"))
  }

  @Test("diff of a persistFrames edit: the why fits on one screen, names thresholds, gate counters and the spec edit in play")
  func diffExplainsPersistFrames() throws {
    let dir = try BisectCommitsTests.makeRepo()
    defer { try? FileManager.default.removeItem(at: dir) }
    try BisectCommitsTests.leftPersistFramesToFive(in: dir)
    let r = try CLI.run(["diff", "Golden/s04-frame-left-enter.trace.jsonl", "Recordings/s04-frame-left-enter.jprec"], cwd: dir)
    #expect(r.code == 1)
    let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count <= 40, "\(r.stdout)")
    #expect(r.stdout.contains("replay has it at t=267 (+67 ms)"))
    #expect(r.stdout.contains("thresholds: warn >0.07 · hard >0.12 · exit <=0.04 · gate: persist 5 frames, min hold 3000 ms"))
    #expect(r.stdout.contains("4/5") && r.stdout.contains("5/5"))
    #expect(r.stdout.contains("spec edits in play"))
    #expect(r.stdout.contains("cues[FRAME_MOVE_LEFT].antiJitter.persistFrames 4 → 5"))
  }
}
