import CanonicalJSON
import Foundation
import Recording
@testable import JustPhotoScenarios
import ScenarioYAML
import Testing


/// The generator streams (issue 12, C4/R1): events are made one frame at a time, the subject
/// state is walked forward instead of re-evaluating the whole timeline per frame, labels are
/// merged as the stream goes — and the numbers and the order are those of the whole-recording
/// generator the corpus was recorded with.
@Suite("streaming generator")
struct StreamingGeneratorTests {
  static let file = "Recordings/t.scenario.yaml"

  static func parse(_ text: String) throws -> Scenario { try Scenario.parse(bytes: Array(text.utf8), file: file) }

  /// Overlapping keyframes, ramps (one cut short by a keyframe, one by another ramp, one
  /// starting at a keyframe's time) and oscillations starting out of file order.
  static let busy = """
    name: t
    duration_ms: 4000
    seed: 3
    fps: 30
    subject: {x: 0.45, face_w: 0.12}
    timeline:
      - {from: 2500, to: 3900, oscillate: {x: {amplitude: 0.01, period_ms: 300}}}
      - {from: 100, to: 2000, subject: {x: 0.7, top: 0.35}}
      - {at: 900, subject: {x: 0.5, people: 2}}
      - {from: 900, to: 1800, subject: {top: 0.2, face_w: 0.2}}
      - {from: 1200, to: 3000, subject: {face_w: 0.09}}
      - {from: 0, to: 3000, oscillate: {x: {amplitude: 0.02, period_ms: 700}, hip: {amplitude: 0.01, period_ms: 450}}}
      - {at: 2000, subject: {hip: 0.7}}
      - {from: 2000, to: 2600, subject: {hip: 0.6, x: 0.3}}

    """

  /// The whole-timeline evaluation the generator used before streaming: every step with
  /// start ≤ t applied from the baseline, then the oscillations in file order.
  static func bruteForce(_ s: Scenario, _ tr: Scenario.Track, at t: Int64) -> SubjectState {
    var st = s.subject
    for (start, step) in tr.steps where start <= t {
      switch step {
      case .keyframe(let p): st.apply(p)
      case .ramp(let to, let targets):
        for (p, target, v0) in targets {
          st[p] = t >= to ? target : v0 + (target - v0) * (Double(t - start) / Double(to - start))
        }
      }
    }
    for (from, to, o) in tr.oscillations where from <= t && t < to {
      st[o.param] += o.amplitude * _sin(2 * Double.pi * Double(t - from) / o.periodMs)
    }
    return st
  }

  @Test func theCursorGivesTheBitsOfTheWholeTimelineEvaluation() throws {
    let s = try Self.parse(Self.busy)
    let tr = s.track()
    var cursor = SubjectCursor(baseline: s.subject, track: tr)
    var checked = 0
    for t in s.frameTimes {
      let a = cursor.state(at: t)
      let b = Self.bruteForce(s, tr, at: t)
      #expect(a == b, "t=\(t): \(a.values) vs \(b.values)")
      checked += 1
    }
    #expect(checked == 121)
    // The ramp from 900 starts where the earlier ramp is at 900 (top) and at the baseline
    // (face_w): the keyframe at 900 does not touch either.
    let ramps = tr.steps.compactMap { step -> [Double]? in
      if step.start == 900, case .ramp(_, let targets) = step.step { return targets.map(\.2) }
      return nil
    }
    #expect(ramps == [[0.3 + (0.35 - 0.3) * (Double(800) / Double(1900)), 0.12]])
  }

  @Test func theStreamIsTheStableSortOfFramesEventsAndReferences() throws {
    let text = """
      name: t
      duration_ms: 400
      seed: 1
      frames: {every_ms: 100}
      luma: {every: 2, w: 4, h: 4}
      timeline:
        - {at: 200, event: {kind: thermal, state: fair}}
        - {at: 50, event: {kind: thermal, state: serious}}
        - {at: 200, event: {kind: thermal, state: nominal}}
      references:
        - {at: 200, ref_id: r1}
        - {at: 0, ref_id: r0}

      """
    var stream = try Self.parse(text).events()
    var got: [String] = []
    while let e = stream.next() {
      let kind = e.line["kind"]?.stringValue ?? "?"
      let tag = e.line["state"]?.stringValue ?? e.line["ref_id"]?.stringValue ?? ""
      got.append("\(e.t) \(kind)\(tag.isEmpty ? "" : " " + tag)")
    }
    #expect(
      got == [
        "0 luma", "0 landmarks", "0 ref_analysis r0", "50 thermal serious", "100 landmarks",
        "200 luma", "200 landmarks", "200 thermal fair", "200 thermal nominal", "200 ref_analysis r1",
        "300 landmarks", "400 luma", "400 landmarks",
      ])
  }

  @Test func labelsGoAfterEveryEventOfTheirTime() throws {
    let s = try Self.parse("name: t\nduration_ms: 300\nseed: 1\nframes: {every_ms: 100}\n")
    let marks = [(0, 0), (100, 1), (250, 2), (300, 3)].map { GeneratedLabels.Mark(t: Int64($0.0), cue: Int32($0.1), holds: true) }
    let labels = GeneratedLabels(cueIDs: ["A", "B", "C", "D"], marks: marks)
    let g = GeneratedRecording(scenario: s, labels: labels)
    let lines = g.lines
    #expect(try JSONParser.parse(lines[0])["labels"] == "intent")
    let order = try lines.dropFirst().map { line -> String in
      let o = try JSONParser.parse(line)
      return "\(o["t"]?.int64Value ?? -1) \(o["cue_id"]?.stringValue ?? o["kind"]?.stringValue ?? "")"
    }
    #expect(order == ["0 landmarks", "0 A", "100 landmarks", "100 B", "200 landmarks", "250 C", "300 landmarks", "300 D"])
    // Declared but empty labels still mark the recording labelled; no labels: no key.
    let none = GeneratedLabels(cueIDs: [], marks: [])
    #expect(try JSONParser.parse(GeneratedRecording(scenario: s, labels: none).lines[0])["labels"] == "intent")
    #expect(try JSONParser.parse(GeneratedRecording(scenario: s, labels: nil).lines[0])["labels"] == nil)
    // A label line is the JSONL event import reads.
    #expect(labels.line(2) == #"{"t":250,"kind":"label","cue_id":"C","holds":true}"#)
  }

  @Test func aLongRecordingIsWrittenAndComparedStreaming() throws {
    // 5 minutes at 15 fps with luma: 4,501 frames, written and compared event by event.
    let s = try Self.parse("name: t\nduration_ms: 300000\nseed: 5\nluma: {every: 15}\nnoise: {landmark_sigma: 0.002}\n")
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("t.jprec").path
    let n = try s.generate().writeRecording(to: path)
    #expect(n == 4_501 + 301)
    let same = s.generate().compare(withRecordingAt: path)
    #expect(same.difference == nil && same.events == n, "\(String(describing: same.difference))")
    // Another seed changes the noise: found.
    var other = s
    other.seed = 6
    #expect(other.generate().difference(fromRecordingAt: path)?.contains("differs") == true)
  }
}
