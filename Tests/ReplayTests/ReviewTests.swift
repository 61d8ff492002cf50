import Foundation
import Replay
import Testing

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
    #expect(t.output.contains("new golden (no Golden/fresh.trace.jsonl yet)"))
    #expect(t.output.contains("@@ -0,0 +1,1 @@"))
  }
}

final class Transcript: @unchecked Sendable {
  var answers: [String]
  var output = ""
  init(answers: [String]) { self.answers = answers }
  func nextAnswer() -> String? { answers.isEmpty ? nil : answers.removeFirst() }
}
