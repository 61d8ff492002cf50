import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoPlugin
import Lab
import PoseSpec
import Recording
import JustPhotoScenarios
import Testing

/// Latency that sees lag (issue 35 item 4): onset latency from the start of the declared
/// movement, clear latency after the subject returned, and a planted 1 s display delay that
/// shows as ≈ 1 s more of both.
@Suite("Lag latency")
struct LagLatencyTests {
  typealias Change = LabelTrack.Change
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static func priority(_ cue: String) -> Int { ["A": 10, "B": 5, "C": 1][cue] ?? 0 }

  static func evaluate(_ displays: [(t: Millis, cue: String?)], _ labels: LabelTrack) -> RecordingObjectives {
    ScoreRules.evaluate(
      displays: displays, labels: labels, praises: 0, durationMs: labels.endMs, windows: ScoreWindows(), priority: priority)
  }

  @Test("onset: from the start of the movement, not the arrival; clear: what stays on after the return")
  func rules() {
    // B wanted from 10 000 (arrival), moving since 8 500; unwanted from 20 000 (returned), moving back since 19 000.
    let l = LabelTrack(
      changes: [Change(t: 10_000, cue: "B", holds: true, since: 8_500), Change(t: 20_000, cue: "B", holds: false, since: 19_000)],
      endMs: 40_000)
    // Shown during the movement: the arrival-based latency is 0, onset sees the 1 100 ms.
    let o = Self.evaluate([(9_600, "B"), (21_500, nil)], l)
    #expect(o.latencies == [0])
    #expect(o.onsetLatencies == [1_100])
    #expect(o.clearLatencies == [1_500])
    // The same coach 1 s late: +1 s of both (the arrival-based latency sees only 600 ms).
    let late = Self.evaluate([(10_600, "B"), (22_500, nil)], l)
    #expect(late.latencies == [600])
    #expect(late.onsetLatencies == [2_100])
    #expect(late.clearLatencies == [2_500])
    // Cleared during the return: 0; never cleared: until the end of the recording.
    #expect(Self.evaluate([(9_600, "B"), (19_500, nil)], l).clearLatencies == [0])
    #expect(Self.evaluate([(9_600, "B")], l).clearLatencies == [20_000])
    // Never displayed: no sample (misses carry that cost).
    #expect(Self.evaluate([], l).onsetLatencies.isEmpty && Self.evaluate([], l).clearLatencies.isEmpty)
  }

  @Test("onset: hidden by a higher-priority cue is not lag; clear stops where the cue is wanted again; an open interval has no clear")
  func rulesEdges() {
    let l = LabelTrack(
      changes: [
        Change(t: 1_000, cue: "B", holds: true), Change(t: 5_000, cue: "B", holds: false),
        Change(t: 6_000, cue: "B", holds: true, since: 5_800), Change(t: 9_000, cue: "C", holds: true),
      ],
      endMs: 20_000)
    // A (priority 10) shown 0…2 000 hides B; B at 2 300: onset 300. B stays on across 5 000 …
    // wanted again from 5 800 (the second movement's start): clear 800. The second B interval
    // finds B already shown (0); C, hidden by B (priority 5) until 12 000, shows at 12 500 (500).
    let o = Self.evaluate([(0, "A"), (2_000, nil), (2_300, "B"), (12_000, nil), (12_500, "C")], l)
    #expect(o.onsetLatencies.sorted() == [0, 300, 500])
    #expect(o.clearLatencies == [800])
    let t = CorpusScore.totals([o])
    #expect(t.onsetP90 == 500 && t.onsetSamples == 3 && t.clearP50 == 800)
    #expect(t.dictionary["onset_p90_ms"] == 500 && t.dictionary["clear_p90_ms"] == 800)
  }

  /// A subject that steps right (FRAME_MOVE_LEFT wanted) and steps back, twice: keyframes, so
  /// the movement starts when the label changes and the shipped coach clears after the return.
  static let probe = """
    name: lag-probe
    scene: outdoor
    fps: 15
    duration_ms: 30000
    seed: 7
    options: {angleFix: "on"}
    initial: {camera_auth: authorized, voiceover: false, thermal: nominal, camera_facing: back}
    noise: {landmark_sigma: 0.003, conf_sigma: 0.006}
    timeline:
      - {at: 0, intent: none}
      - {at: 2000, subject: {x: 0.68}, intent: FRAME_MOVE_LEFT}
      - {at: 8000, subject: {x: 0.5}, intent: none}
      - {at: 16000, subject: {x: 0.68}, intent: FRAME_MOVE_LEFT}
      - {at: 22000, subject: {x: 0.5}, intent: none}
    """

  static func probeScorer() throws -> CorpusScorer {
    let scenario = try Scenario.parse(bytes: Array(probe.utf8), file: "lag-probe.scenario.yaml")
    let reader = try GeneratedRecording(scenario: scenario).reader()
    let rec = try CorpusScorer.load(reader: reader, path: "lag-probe.jprec", eventsBudget: 100_000, eventsMax: 100_000)
    return CorpusScorer(recordings: [rec])
  }

  @Test("a planted 1 s display delay shows as 1 s more onset and clear latency (within one frame), p50 and p90")
  func plantedLag() throws {
    var scorer = try Self.probeScorer()
    let spec = try Harness.loadSpec(path: Self.root.appendingPathComponent("PoseSpec.json").path)
    let on = try scorer.score(spec: spec).recordings[0].objectives
    scorer.plantedDisplayDelayMs = 1_000
    let late = try scorer.score(spec: spec).recordings[0].objectives
    let frame: Millis = 1000 / 15 + 1
    // Two intervals displayed and cleared after the return: two samples of each.
    #expect(on.onsetLatencies.count == 2 && on.clearLatencies.count == 2)
    #expect(late.onsetLatencies.count == 2 && late.clearLatencies.count == 2)
    for (a, b) in zip(on.onsetLatencies, late.onsetLatencies) { #expect(b - a >= 1_000 && b - a <= 1_000 + frame, "onset \(a) → \(b)") }
    for (a, b) in zip(on.clearLatencies, late.clearLatencies) { #expect(b - a >= 1_000 && b - a <= 1_000 + frame, "clear \(a) → \(b)") }
    // The shipped coach clears after the subject is back (exit frames, then the hold).
    #expect(on.clearLatencies.allSatisfy { $0 > 0 })
    let (t0, t1) = (CorpusScore.totals([on]).dictionary, CorpusScore.totals([late]).dictionary)
    for key in ["onset_p50_ms", "onset_p90_ms", "clear_p50_ms", "clear_p90_ms"] {
      let d = t1[key]! - t0[key]!
      #expect(d >= 1_000 && d <= Double(1_000 + frame), "\(key): \(t0[key]!) → \(t1[key]!)")
    }
    // Nothing else about the replay moved: the same changes, later.
    #expect(on.cueChanges == late.cueChanges)
  }
}
