import Foundation
import Replay
import Testing
import Verify

@Suite("Review of pending goldens")
struct ReviewTests {
  /// A corpus with accepted goldens for a, b, c, then a behaviour change leaving three
  /// pending trace files.
  func pendingCorpus(_ label: String = #function) throws -> TestCorpus {
    let c = try TestCorpus(label)
    for name in ["a", "b", "c"] { try c.addRecording(name, times: [100, 200]) }
    _ = try c.verifier().run()
    _ = try c.store.accept(names: nil)
    _ = try c.verifier(variant: "b").run()
    return c
  }

  func session(_ c: TestCorpus, answers: [String], mode: ReviewSession.Mode = .ask) -> (
    ReviewSession, Transcript
  ) {
    let transcript = Transcript(answers: answers)
    let s = ReviewSession(
      store: c.store, mode: mode, readLine: { transcript.nextAnswer() },
      write: { transcript.output += $0 })
    return (s, transcript)
  }

  @Test func scriptedAnswersAcceptRejectAndSkip() throws {
    let c = try pendingCorpus()
    let (s, t) = session(c, answers: ["a", "what?", "r", "s"])
    let outcome = try s.run()
    #expect(outcome.accepted.map(\.name) == ["a"])
    #expect(outcome.rejected.map(\.name) == ["b"])
    #expect(outcome.skipped.map(\.name) == ["c"])
    #expect(outcome.exitCode == .difference)
    #expect(t.output.contains("please answer a (accept)"))
    #expect(t.output.contains("[1/3] a — trace"))
    #expect(
      t.output.contains(
        "-"
          + TraceFormat.line(
            record(100, "cue_display", ["cue_id": "FRAME_MOVE_LEFT", "level": "warn", "reason": "none", "mode": "noRef"]))))
    #expect(
      t.output.contains(
        "+"
          + TraceFormat.line(
            record(100, "cue_display", ["cue_id": "FRAME_MOVE_LEFT", "level": "hard", "reason": "none", "mode": "noRef"]))))
    #expect(t.output.contains("first divergence: trace: at t=100 cue_display differs"))
    #expect(t.output.contains("timeline: jpreplay plot \(c.store.recordingURL("a").path) --from 0 --to 3100 -o a.timeline.svg"))
    #expect(!t.output.contains("\u{1B}["))
    #expect(try c.store.readGolden("a", .trace)?.contains(#""level":"hard""#) == true)
    #expect(try c.store.readGolden("b", .trace)?.contains(#""level":"warn""#) == true)
    #expect(try c.store.pending().map(\.name) == ["c"])
  }

  @Test func endOfInputSkipsTheRest() throws {
    let c = try pendingCorpus()
    let (s, t) = session(c, answers: ["accept"])
    let outcome = try s.run()
    #expect(outcome.accepted.count == 1)
    #expect(outcome.skipped.map(\.name) == ["b", "c"])
    #expect(t.output.contains("end of input"))
  }

  @Test func acceptAllAndRejectAllNeedNoInput() throws {
    let c = try pendingCorpus()
    let (reject, _) = session(c, answers: [], mode: .rejectAll)
    #expect(try reject.run().rejected.count == 3)
    #expect(try c.store.pending().isEmpty)
    _ = try c.verifier(variant: "b").run()
    let (accept, _) = session(c, answers: [], mode: .acceptAll)
    #expect(try accept.run().accepted.count == 3)
    #expect(try c.verifier(variant: "b").run().exitCode == .ok)
  }

  @Test func aNewGoldenIsShownAgainstNothing() throws {
    let c = try TestCorpus()
    try c.addRecording("fresh", times: [5])
    _ = try c.verifier().run()
    let (s, t) = session(c, answers: ["q"])
    let outcome = try s.run()
    #expect(outcome.skipped.count == 2)
    #expect(t.output.contains("new golden (no \(c.store.goldenDir.path)/fresh.trace.jsonl yet)"), "\(t.output)")
    #expect(t.output.contains("@@ -0,0 +1,1 @@"))
  }
}

final class Transcript: @unchecked Sendable {
  var answers: [String]
  var output = ""
  init(answers: [String]) { self.answers = answers }
  func nextAnswer() -> String? { answers.isEmpty ? nil : answers.removeFirst() }
}

/// `review --group` / `accept --group`: pending files grouped by their first divergence.
@Suite("Review by group")
struct GroupReviewTests {
  /// a, b, c accepted, then a level change (one group of three trace files) and a new
  /// recording n (a group of two new goldens).
  func corpus(_ label: String = #function) throws -> TestCorpus {
    let c = try TestCorpus(label)
    for name in ["a", "b", "c"] { try c.addRecording(name, times: [100, 200]) }
    _ = try c.verifier().run()
    _ = try c.store.accept(names: nil)
    try c.addRecording("n", times: [50])
    _ = try c.verifier(variant: "b").run()
    return c
  }

  @Test func filesAreGroupedByTheirFirstDivergence() throws {
    let c = try corpus()
    let groups = try PendingGroup.groups(try c.store.pending(), store: c.store)
    #expect(groups.map(\.files.count) == [3, 2])
    #expect(groups[0].files.map(\.description) == ["a.trace.jsonl.new", "b.trace.jsonl.new", "c.trace.jsonl.new"])
    #expect(groups[0].key.hasPrefix("FRAME_MOVE_LEFT:cue_display:"), "\(groups[0].key)")
    #expect(groups[0].title.hasPrefix("FRAME_MOVE_LEFT cue_display: ") && groups[0].title.contains("level"), "\(groups[0].title)")
    #expect(!groups[0].key.contains(" ") && !groups[0].key.contains("→"))
    #expect(groups[1].key == "new-golden" && groups[1].recordings == ["n"])
    // Keys and globs select groups; a pattern selecting nothing is named.
    let (one, none) = PendingGroup.select(groups, patterns: ["FRAME_MOVE_LEFT:*", "zzz"])
    #expect(one.map(\.key) == [groups[0].key] && none == ["zzz"])
    #expect(PendingGroup.select(groups, patterns: ["new-golden"]).selected.map(\.files.count) == [2])
    #expect(PendingGroup.select(groups, patterns: ["*"]).selected.count == 2)
  }

  @Test func oneAnswerDecidesAGroupShownWithOneExample() throws {
    let c = try corpus()
    let t = Transcript(answers: ["a", "r"])
    var s = ReviewSession(store: c.store, readLine: { t.nextAnswer() }, write: { t.output += $0 })
    s.grouped = true
    let outcome = try s.run()
    #expect(outcome.accepted.map(\.name) == ["a", "b", "c"])
    #expect(outcome.rejected.count == 2)
    #expect(Set(outcome.rejected.map(\.name)) == ["n"])
    #expect(outcome.exitCode == .ok)
    #expect(t.output.contains("5 pending files in 2 groups:"))
    #expect(t.output.contains("=== group 1/2: FRAME_MOVE_LEFT:cue_display:"))
    #expect(t.output.contains("=== group 2/2: new-golden"))
    #expect(t.output.contains("[1/3] a — trace"))
    // One example per group: b's and c's diffs are not shown.
    #expect(!t.output.contains("[2/3]") && !t.output.contains("] b — trace"))
    #expect(t.output.contains("jpreplay accept --group 'FRAME_MOVE_LEFT:cue_display:"))
    for name in ["a", "b", "c"] { #expect(try c.store.readGolden(name, .trace)?.contains(#""level":"hard""#) == true) }
    #expect(try c.store.pending().isEmpty)
    #expect(try c.store.readGolden("n", .trace) == nil)
  }

  @Test func skippingAGroupLeavesAllItsFilesPending() throws {
    let c = try corpus()
    let t = Transcript(answers: ["s"])
    var s = ReviewSession(store: c.store, readLine: { t.nextAnswer() }, write: { t.output += $0 })
    s.grouped = true
    let outcome = try s.run()
    #expect(outcome.skipped.count == 5 && outcome.accepted.isEmpty)
    #expect(outcome.exitCode == .difference)
    #expect(try c.store.pending().count == 5)
  }
}
