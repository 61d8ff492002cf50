import CanonicalJSON
import Foundation
import Testing

@testable import Scenarios

/// The scenario's semantic hash (staleness, DESIGN §8) and its `expect:` block (issue 15).
@Suite struct ScenarioSemanticsTests {
  static func sha(_ text: String) throws -> String { try ScenarioTests.parse(text).sha256 }

  static let text = """
    name: t
    duration_ms: 1000
    seed: 7
    noise: {landmark_sigma: 0.002, conf_sigma: 0.004}
    timeline:
      - {from: 100, to: 500, subject: {x: 0.6}}

    """

  @Test func commentsFormattingAndKeyOrderDoNotChangeTheHash() throws {
    let a = try Self.sha(Self.text)
    let b = try Self.sha(
      """
      # a comment
      seed: 7      # trailing
      name: "t"
      duration_ms: 1000.0

      noise:
        conf_sigma: 0.004
        landmark_sigma: 0.0020
      timeline:
        - from: 100
          subject: {x: 0.60}
          to: 500
      """)
    #expect(a == b)
  }

  @Test(arguments: [("seed: 7", "seed: 8"), ("x: 0.6", "x: 0.61"), ("to: 500", "to: 501"), ("duration_ms: 1000", "duration_ms: 1001")])
  func aChangedValueChangesTheHash(from: String, to: String) throws {
    #expect(try Self.sha(Self.text) != Self.sha(Self.text.replacingOccurrences(of: from, with: to)))
  }

  @Test func theExpectBlockIsNotPartOfTheHash() throws {
    let with = Self.text + "expect:\n  - {praise: {at_most: 1}}\n"
    let s = try ScenarioTests.parse(with)
    #expect(s.sha256 == (try Self.sha(Self.text)))
    #expect(s.expectations.count == 1)
    #expect(s.header["generator_sha256"] == .string(s.sha256))
  }

  @Test func aDerivedSpecsContentIsPartOfTheHash() throws {
    let dir = try ScenarioFixtureDir()
    defer { dir.remove() }
    let text = ScenarioTests.base + "initial: {posespec: {from: base.json, set: {prdVersion: v0.0.0}}}\n"
    try #"{"prdVersion":"v1","cues":[]}"#.write(to: dir.url.appendingPathComponent("base.json"), atomically: true, encoding: .utf8)
    let a = try ScenarioTests.parse(text, file: dir.file).sha256
    try #"{"prdVersion":"v1","cues":[],"x":1}"#.write(to: dir.url.appendingPathComponent("base.json"), atomically: true, encoding: .utf8)
    let b = try ScenarioTests.parse(text, file: dir.file).sha256
    #expect(a != b)
  }
}

/// A temporary folder holding `t.scenario.yaml`'s neighbours.
struct ScenarioFixtureDir {
  let url: URL
  var file: String { url.appendingPathComponent("t.scenario.yaml").path }
  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("jpreplay-sem-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// `Expectations.check(_:trace:)` (issue 15): displayed-cue states and praise counts.
@Suite struct ExpectationCheckTests {
  static func rules(_ block: String, duration: Int = 12000) throws -> [ScenarioExpectation] {
    try ScenarioTests.parse("name: t\nduration_ms: \(duration)\nseed: 1\nexpect:\n" + block).expectations
  }

  /// LEFT shown at 867, cleared at 3867, LEFT again at 4667; praise on at 1600 and 9000.
  static let trace = ExpectationTrace(events: [
    .display(t: 0, cue: nil), .display(t: 867, cue: "FRAME_MOVE_LEFT"), .praise(t: 1600, on: true),
    .display(t: 3867, cue: nil), .display(t: 4667, cue: "FRAME_MOVE_LEFT"), .praise(t: 6600, on: false),
    .praise(t: 9000, on: true),
  ])

  static func failures(_ block: String) throws -> [ExpectationFailure] {
    Expectations.check(try rules(block), trace: trace)
  }

  @Test func displayedWithinAWindow() throws {
    #expect(try Self.failures("  - {displayed: FRAME_MOVE_LEFT, at: 867, within_ms: 0}").isEmpty)
    #expect(try Self.failures("  - {displayed: FRAME_MOVE_LEFT, at: 500, within_ms: 367}").isEmpty)
    // Still displayed at 2000 (state after the records up to it).
    #expect(try Self.failures("  - {displayed: FRAME_MOVE_LEFT, at: 2000, within_ms: 0}").isEmpty)
    let late = try Self.failures("  - {displayed: FRAME_MOVE_LEFT, at: 500, within_ms: 366}")
    #expect(late.count == 1 && late[0].observed.contains("none from t=500"))
    #expect(late.first?.description.contains("Recordings/t.scenario.yaml:5: expect[0]") == true)
    #expect(try Self.failures("  - {displayed: FRAME_MOVE_RIGHT, at: 0, within_ms: 12000}").count == 1)
  }

  @Test func notDisplayedAnyOrOneCue() throws {
    #expect(try Self.failures("  - {not_displayed: any, from: 3867, to: 4666}").isEmpty)
    #expect(try Self.failures("  - {not_displayed: any, from: 3866, to: 4000}").count == 1)
    #expect(try Self.failures("  - {not_displayed: any, from: 4000, to: 4667}").count == 1)
    #expect(try Self.failures("  - {not_displayed: FRAME_MOVE_RIGHT, from: 0, to: 12000}").isEmpty)
    let left = try Self.failures("  - {not_displayed: FRAME_MOVE_LEFT, from: 0, to: 12000}")
    #expect(left.first?.observed == "displayed: FRAME_MOVE_LEFT at t=867 (and 1 more)")
  }

  @Test func praiseCounts() throws {
    #expect(try Self.failures("  - {praise: {at_most: 2}}").isEmpty)
    #expect(try Self.failures("  - {praise: {at_most: 1}}").count == 1)
    #expect(try Self.failures("  - {praise: {at_least: 1, at_most: 1}, from: 1600, to: 1600}").isEmpty)
    #expect(try Self.failures("  - {praise: {at_least: 1}, from: 1601, to: 8999}").count == 1)
    // Praise turning off is not counted.
    #expect(try Self.failures("  - {praise: {at_most: 0}, from: 6000, to: 7000}").isEmpty)
  }

  @Test func fromCanonicalTraceText() throws {
    let text = """
      {"cue_id":"FRAME_MOVE_LEFT","level":"warn","mode":"noRef","out":"cue_display","reason":"none","t":2667}
      {"cue_id":"FRAME_MOVE_LEFT","en":"Step a little to the left","frozen":false,"out":"script_card","t":2667,"variant":0,"zh":"x"}
      {"dimension":"FRAME_X","out":"praise","state":"on","t":8000,"trigger":"exit_crossed"}
      {"cue_id":null,"level":"none","mode":"noRef","out":"cue_display","reason":"none","t":8667}

      """
    #expect(
      ExpectationTrace(traceText: text).events == [
        .display(t: 2667, cue: "FRAME_MOVE_LEFT"), .praise(t: 8000, on: true), .display(t: 8667, cue: nil),
      ])
  }

  @Test func theBlockIsBounded() throws {
    let many = String(repeating: "  - {praise: {at_most: 1}}\n", count: ScenarioLimits.expectationsMax + 1)
    let e = ScenarioTests.parseError("name: t\nduration_ms: 10\nseed: 1\nexpect:\n" + many)
    #expect(e?.key == "expect" && e?.message.contains("ScenarioLimits.expectationsMax") == true, "\(String(describing: e))")
    let big = ScenarioTests.parseError("name: t\nduration_ms: 10\nseed: 1\nexpect:\n  - {praise: {at_most: 99999999}}\n")
    #expect(big?.key == "expect[0].praise.at_most" && big?.line == 5)
  }
}
