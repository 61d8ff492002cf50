import CanonicalJSON
import Recording
import JustPhotoScenarios
import Testing

/// Ground truth declared by the author (`ScenarioIntent`, DESIGN §9): labels come from the
/// scenario text alone.
@Suite struct IntentTests {
  static let file = "/tmp/t.scenario.yaml"
  static func parse(_ text: String) throws -> Scenario { try Scenario.parse(bytes: Array(text.utf8), file: file) }

  /// `t cue holds[ since]` for each label line of the generated recording.
  static func labels(_ s: Scenario) -> [String] {
    GeneratedRecording(scenario: s).lines.dropFirst().compactMap { line -> String? in
      guard let o = try? JSONParser.parse(line), o["kind"] == "label" else { return nil }
      let since = o["since"]?.int64Value.map { " since \($0)" } ?? ""
      return "\(o["t"]!.int64Value!) \(o["cue_id"]!.stringValue!) \(o["holds"]!.boolValue! ? "on" : "off")\(since)"
    }
  }

  static let drift = """
    name: t
    duration_ms: 10000
    seed: 1
    frames: {every_ms: 500}
    timeline:
      - {at: 0, intent: none}
      - {from: 2000, to: 3000, subject: {x: 0.64}, intent: FRAME_MOVE_LEFT}
      - {at: 5000, subject: {eye_tilt: 14}, intent: [FRAME_MOVE_LEFT, HEAD_LEVEL]}
      - {from: 7000, to: 8000, subject: {x: 0.5, eye_tilt: 0}, intent: none}
    """

  @Test("a ramp's intent holds from its end, since its start; a keyframe's from its time; none clears")
  func stepsBecomeLabels() throws {
    let s = try Self.parse(Self.drift)
    #expect(
      Self.labels(s) == [
        "3000 FRAME_MOVE_LEFT on since 2000", "5000 HEAD_LEVEL on", "8000 FRAME_MOVE_LEFT off since 7000",
        "8000 HEAD_LEVEL off since 7000",
      ])
    let header = try JSONParser.parse(GeneratedRecording(scenario: s).lines[0])
    #expect(header["labels"] == "intent")
  }

  @Test("intent does not move the subject: the other events equal the scenario without intent")
  func intentIsNotAnInput() throws {
    let with = try Self.parse(Self.drift)
    let without = try Self.parse(
      Self.drift.replacingOccurrences(of: ", intent: none", with: "").replacingOccurrences(of: ", intent: FRAME_MOVE_LEFT", with: "")
        .replacingOccurrences(of: ", intent: [FRAME_MOVE_LEFT, HEAD_LEVEL]", with: "")
        .replacingOccurrences(of: "  - {at: 0}\n", with: ""))
    let a = GeneratedRecording(scenario: with).lines.dropFirst().filter { !$0.contains("\"label\"") }
    let b = GeneratedRecording(scenario: without).lines.dropFirst()
    #expect(Array(a) == Array(b))
    #expect(GeneratedRecording(scenario: without).labels == nil)
  }

  @Test("a truth block adds intervals; overlapping intervals of one cue merge; truth: [] labels a still recording")
  func truthBlock() throws {
    let s = try Self.parse(
      """
      name: t
      duration_ms: 10000
      seed: 1
      frames: none
      truth:
        - {cue: CAFE_12_CAFE_THIRDS_COMPOSE, from: 1000, to: 4000}
        - {cue: CAFE_12_CAFE_THIRDS_COMPOSE, from: 3000, to: 6000}
        - {cue: FRAME_MOVE_RIGHT, from: 7000, to: 9000}
      """)
    #expect(
      Self.labels(s) == [
        "1000 CAFE_12_CAFE_THIRDS_COMPOSE on", "6000 CAFE_12_CAFE_THIRDS_COMPOSE off", "7000 FRAME_MOVE_RIGHT on",
        "9000 FRAME_MOVE_RIGHT off",
      ])
    let still = try Self.parse("name: t\nduration_ms: 1000\nseed: 1\ntruth: []\n")
    #expect(Self.labels(still).isEmpty)
    #expect(try JSONParser.parse(GeneratedRecording(scenario: still).lines[0])["labels"] == "intent")
  }

  @Test(
    "bad intent is exit-2 material naming line and column",
    arguments: [
      ("timeline:\n  - {at: 0, intent: frame_left}\n", "5:21", "expected a cue id"),
      ("timeline:\n  - {from: 0, to: 100, oscillate: {x: {amplitude: 0.1, period_ms: 100}}, intent: none}\n", "5:", "intent goes on"),
      ("timeline:\n  - {at: 0, intent: [HEAD_LEVEL, HEAD_LEVEL]}\n", "5:34", "listed twice"),
      ("truth:\n  - {cue: HEAD_LEVEL, from: 500, to: 400}\n", "5:", "expected to > from"),
      ("truth:\n  - {cue: HEAD_LEVEL, from: 500}\n", "5:", "missing key \"to\""),
    ])
  func badIntent(tail: String, place: String, message: String) throws {
    do {
      _ = try Self.parse("name: t\nduration_ms: 1000\nseed: 1\n" + tail)
      Issue.record("parsed")
    } catch let error as ScenarioError {
      #expect(error.description.contains(message), "\(error.description)")
      #expect(error.description.contains("\(Self.file):\(place)"), "\(error.description)")
    }
  }
}
