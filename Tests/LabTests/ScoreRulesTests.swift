import EngineIO
import Lab
import Testing

/// The objective rules of `jpreplay score` (issue 15 item 3) on hand-made label and display
/// traces: each test shows a case the rule counts and a near case it must not count.
@Suite("Score rules")
struct ScoreRulesTests {
  typealias Change = LabelTrack.Change
  static let windows = ScoreWindows()
  /// A has priority 10, B 5, C 1.
  static func priority(_ cue: String) -> Int { ["A": 10, "B": 5, "C": 1][cue] ?? 0 }

  static func labels(_ changes: [(Millis, String, Bool)], end: Millis = 60_000) -> LabelTrack {
    LabelTrack(changes: changes.map { Change(t: $0.0, cue: $0.1, holds: $0.2) }, endMs: end)
  }

  static func evaluate(
    _ displays: [(t: Millis, cue: String?)], _ labels: LabelTrack?, praises: Int = 0, end: Millis = 60_000
  ) -> RecordingObjectives {
    ScoreRules.evaluate(
      displays: displays, labels: labels, praises: praises, durationMs: end, windows: windows, priority: priority)
  }

  @Test("label intervals: open at the end close at the end; repeated holds are not changes")
  func labelIntervals() {
    let l = Self.labels([(1000, "A", true), (1500, "A", true), (3000, "A", false), (5000, "B", true)], end: 9000)
    #expect(l.intervals["A"] == [ScoreInterval(1000, 3000)])
    #expect(l.intervals["B"] == [ScoreInterval(5000, 9000)])
    #expect(l.changes.count == 3)
    #expect(l.holds("A", at: 2999) && !l.holds("A", at: 3000))
  }

  @Test("a ramp's intent (since < t): a reaction during the movement is explained, not false, and has latency 0")
  func reactionDuringTheMovement() {
    // B should show from 10 000 (the subject arrives); it started moving at 8 500.
    let l = LabelTrack(
      changes: [Change(t: 10_000, cue: "B", holds: true, since: 8_500), Change(t: 20_000, cue: "B", holds: false, since: 19_000)],
      endMs: 30_000)
    #expect(l.intervals["B"] == [ScoreInterval(10_000, 20_000)])
    #expect(l.allowed["B"] == [ScoreInterval(8_500, 20_000)])
    let during = Self.evaluate([(9_000, "B"), (19_500, nil)], l, end: 30_000)
    #expect(during.unexplainedChanges == 0 && during.falseAlarms.isEmpty && during.latencies == [0])
    // Before the movement began (minus the 500 ms allowance) it is neither explained nor true.
    let early = Self.evaluate([(7_000, "B"), (7_600, nil)], l, end: 30_000)
    #expect(early.unexplainedChanges == 2)
    #expect(early.falseAlarms == ["B [7000, 7600) (intended: none)"])
    // A display after the arrival: latency from the arrival.
    #expect(Self.evaluate([(10_400, "B")], l, end: 30_000).latencies == [400])
  }

  @Test("flicker: a change right after the cue's label onset is explained; A↔B swaps while both hold are not")
  func flicker() {
    let l = Self.labels([(1000, "A", true), (1000, "B", true)])
    // A shown 400 ms after the onset (explained), then B, A, B while both hold (unexplained).
    let o = Self.evaluate([(1400, "A"), (20_000, "B"), (21_000, "A"), (22_000, "B")], l)
    #expect(o.cueChanges == 4)
    #expect(o.unexplainedChanges == 3)
    #expect(o.flickerPerMinute == 3.0)
    // `score --details` lists each one with why: the nearest label change of either cue and
    // the window it explains ([since − 500, t + 3000]), and the nearest ideal-display change.
    #expect(o.flickers.count == 3)
    #expect(
      o.flickers.first
        == "t=20000 A → B: no label change of A or B explains it (nearest: A on at 1000, moving since 1000, explains [500, 4000]); the ideal display does not change there (nearest: A at 1000)")
    #expect(o.flickers.map { String($0.prefix(while: { $0 != ":" })) } == ["t=20000 A → B", "t=21000 B → A", "t=22000 A → B"])
  }

  @Test("flicker: the explanation window is 3 s before to 0.5 s after a label change")
  func flickerWindow() {
    let l = Self.labels([(10_000, "C", true)])
    #expect(Self.evaluate([(12_999, "C")], l).unexplainedChanges == 0)
    #expect(Self.evaluate([(9_500, "C")], l).unexplainedChanges == 0)
    #expect(Self.evaluate([(13_001, "C")], l).unexplainedChanges == 1)
    #expect(Self.evaluate([(9_499, "C")], l).unexplainedChanges == 1)
    #expect(Self.evaluate([(13_001, "C")], l).flickers.first?.hasPrefix(
      "t=13001 none → C: no label change of C explains it (nearest: C on at 10000, moving since 10000, explains [9500, 13000])") == true)
    #expect(Self.evaluate([(12_999, "C")], l).flickers == [])
  }

  @Test("flicker: A → none → B after A's label ends is explained by the ideal display changing")
  func flickerThroughNone() {
    let l = Self.labels([(0, "A", true), (0, "B", true), (10_000, "A", false)])
    let o = Self.evaluate([(100, "A"), (10_400, nil), (11_000, "B")], l)
    #expect(o.unexplainedChanges == 0)
    // The same blank while A still holds is flicker (twice: away and back).
    let p = Self.evaluate([(100, "A"), (20_400, nil), (21_000, "A")], l)
    #expect(p.unexplainedChanges == 2)
  }

  @Test("latency: onset → display; a display already on counts 0; masked time by a higher-priority cue is not latency")
  func latency() {
    let l = Self.labels([(1000, "C", true), (5000, "C", false), (20_000, "B", true), (30_000, "B", false)])
    // C shown 700 ms late; B is hidden by A (priority 10) until 22,000 and shown 300 ms later.
    let o = Self.evaluate([(1700, "C"), (5200, nil), (19_000, "A"), (22_000, nil), (22_300, "B")], l)
    #expect(o.latencies.sorted() == [300, 700])
    #expect(ScoreRules.percentile([700, 300, 100, 900, 500], 50) == 500)
    #expect(ScoreRules.percentile([700, 300, 100, 900, 500], 90) == 900)
    #expect(ScoreRules.percentile([], 50) == nil)
    let already = Self.labels([(0, "C", true), (4000, "C", false), (4100, "C", true), (8000, "C", false)])
    #expect(Self.evaluate([(200, "C"), (9000, nil)], already).latencies == [200, 0])
  }

  @Test("misses: a ≥ 1 s interval never shown is a miss; shorter, hidden by a higher-priority cue, or shown within the grace is not")
  func misses() {
    let l = Self.labels([
      (1000, "C", true), (2500, "C", false),  // 1.5 s, never shown: miss
      (5000, "C", true), (5900, "C", false),  // 0.9 s: too short
      (10_000, "B", true), (14_000, "B", false),  // hidden by A all along: no miss
      (20_000, "B", true), (24_000, "B", false),  // hidden by C (lower priority): miss
      (30_000, "C", true), (31_500, "C", false),  // shown 400 ms after the end: within the grace
    ])
    let displays: [(t: Millis, cue: String?)] = [
      (9_000, "A"), (15_000, nil), (19_000, "C"), (25_000, nil), (31_900, "C"), (33_000, nil),
    ]
    let o = Self.evaluate(displays, l)
    #expect(o.misses == ["B [20000, 24000)", "C [1000, 2500)"])
  }

  @Test("misses: hidden for all but 0.8 s of the interval is not a miss, for all but 1.2 s it is")
  func missAvailability() {
    let l = Self.labels([(10_000, "B", true), (14_000, "B", false)])
    #expect(Self.evaluate([(9_000, "A"), (13_200, nil)], l).misses.isEmpty)
    #expect(Self.evaluate([(9_000, "A"), (12_800, nil)], l).misses == ["B [10000, 14000)"])
  }

  @Test("false alarms: the parts of a display outside its label (less 0.5 s before, 3 s after); one inside is not")
  func falseAlarms() {
    let l = Self.labels([(1000, "A", true), (3000, "A", false), (10_000, "B", true), (12_000, "B", false)])
    let o = Self.evaluate([(1200, "A"), (3600, nil), (5000, "C"), (6000, nil), (12_400, "B"), (13_000, nil)], l)
    #expect(o.falseAlarms == ["C [5000, 6000) (intended: none)"])
    #expect(Self.evaluate([(15_600, "B"), (16_000, nil)], l).falseAlarms == ["B [15600, 16000) (intended: none)"])
    // A display that starts long before its label and outlasts it: both outside parts count.
    #expect(
      Self.evaluate([(2_000, "B"), (20_000, nil)], l).falseAlarms == [
        "B [2000, 9500) (intended: A)", "B [15000, 20000) (intended: none)",
      ])
    // Shown while another cue was intended: the conflict is named.
    #expect(Self.evaluate([(1500, "C"), (2500, nil)], l).falseAlarms == ["C [1500, 2500) (intended: A)"])
  }

  @Test("praise per minute and recordings without labels")
  func praiseAndUnlabelled() {
    let o = Self.evaluate([(1000, "A"), (2000, nil)], nil, praises: 3, end: 30_000)
    #expect(!o.labelled)
    #expect(o.praisePerMinute == 6.0)
    #expect(o.unexplainedChanges == 0 && o.misses.isEmpty && o.falseAlarms.isEmpty)
    #expect(o.cueChanges == 2)
  }

  @Test("totals: rates over summed minutes, latencies pooled, counts summed; unlabelled minutes only in praise")
  func totals() {
    var a = RecordingObjectives()
    a.durationMs = 60_000
    a.labelled = true
    a.unexplainedChanges = 6
    a.latencies = [100, 200]
    a.misses = ["x"]
    a.praises = 2
    var b = RecordingObjectives()
    b.durationMs = 120_000
    b.praises = 1
    b.budgetBreaches = ["y", "z"]
    let t = CorpusScore.totals([a, b])
    #expect(t.flickerPerMinute == 6.0)
    #expect(t.praisePerMinute == 1.0)
    #expect(t.latencyP50 == 100 && t.latencyP90 == 200)
    #expect(t.misses == 1 && t.budgetViolations == 2)
    #expect(Set(t.dictionary.keys) == Set(CorpusScore.objectiveKeys))
  }
}
