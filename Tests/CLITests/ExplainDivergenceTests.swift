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

  /// Runs `diff` against a copy of drift-left-and-back's golden edited by `edit`.
  static func diffEdited(_ edit: (String) -> String) throws -> CLI.Result {
    let dir = try CLI.tempDir("explain")
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try String(contentsOf: CLI.repoRoot.appendingPathComponent("Golden/drift-left-and-back.trace.jsonl"), encoding: .utf8)
    let golden = dir.appendingPathComponent("drift-left-and-back.trace.jsonl")
    let edited = edit(text)
    #expect(edited != text)
    try edited.write(to: golden, atomically: true, encoding: .utf8)
    return try CLI.run(["diff", golden.path, "Recordings/drift-left-and-back.jprec"])
  }

  @Test("diff explains a clear (cue_id null) with the cue it cleared, a level change with its cue, a praise with the cue on screen (issue 28.3)")
  func everyKindIsExplained() throws {
    // The golden never clears at 8667: the replay's clear is extra, explained with FRAME_MOVE_LEFT.
    let clear = try Self.diffEdited { t in
      t.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !($0.contains(#""cue_id":null,"level":"none""#) && $0.contains(#""t":8667}"#)) }.joined(separator: "\n")
    }
    #expect(clear.code == 1)
    #expect(clear.stdout.contains("replay has cue_display none/none"), "\(clear.stdout)")
    #expect(clear.stdout.contains("why, replay side Recordings/drift-left-and-back.jprec (FRAME_MOVE_LEFT: the cue that cleared"))
    #expect(clear.stdout.contains("thresholds: warn >0.07"))
    #expect(clear.stdout.contains("8667 "))
    // hard at 5667 was warn in the golden: a level change, explained with its cue.
    let level = try Self.diffEdited {
      $0.replacingOccurrences(of: #""level":"hard","mode":"noRef","out":"cue_display","reason":"none","t":5667"#, with: #""level":"warn","mode":"noRef","out":"cue_display","reason":"none","t":5667"#)
    }
    #expect(level.code == 1)
    #expect(level.stdout.contains("level warn → hard"))
    #expect(level.stdout.contains("(FRAME_MOVE_LEFT: the cue the records name; engine metrics within 500 ms of t=5667)"))
    #expect(level.stdout.contains("5667 "))
    // A praise record names no cue: the cue on screen explains it.
    let praise = try Self.diffEdited { $0.replacingOccurrences(of: #""trigger":"exit_crossed"}"#, with: #""trigger":"other"}"#) }
    #expect(praise.code == 1)
    #expect(praise.stdout.contains("the records name no cue; the cue on screen at t=8000"), "\(praise.stdout)")
    #expect(praise.stdout.contains("thresholds: warn >0.07"))
  }
}
