import Foundation
import Testing

@testable import JPReplayTesting
import Verify

/// The library app teams use from their test targets: `assertReplay` over the committed corpus
/// (never writing into Golden/), and its update modes and failure text on temporary copies.
@Suite("assertReplay")
struct AssertReplayTests {
  static let repoRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let spec = repoRoot.appendingPathComponent("PoseSpec.json")

  /// One corpus recording of each kind (luma frames, a reference photo, several people, a
  /// 15 Hz timeline, a capture, a killed session, a spec read at start (s18), a plain drift),
  /// each with its scenario beside it. Every recording of the corpus is matched against its
  /// goldens, with the scenario checks, by the same `Verifier` path in `CorpusTests`'
  /// whole-corpus `verify`; replaying and generating the whole corpus a second time here, in
  /// process, added minutes and no check.
  static let recordings = [
    "cov-cafe-light-sweep", "drift-left-and-back", "gate-timeline-15hz", "outdoor-reference-mirror",
    "kill-while-writing", "s13-multi-person", "s18-stale-decider", "s28-capture-happy-path",
  ]

  /// A sample of the package's own corpus, one test case per recording, through the public
  /// assertion.
  @Test(arguments: recordings)
  func everyCorpusRecordingMatchesItsGoldens(name: String) {
    assertReplay(
      recording: Self.repoRoot.appendingPathComponent("Recordings/\(name).jprec"),
      matchesGoldenIn: Self.repoRoot.appendingPathComponent("Golden"), spec: Self.spec,
      update: .no)
  }

  /// A temporary folder holding `drift-left-and-back.jprec` and its goldens, the trace golden
  /// with its first `cue_display` line's level changed.
  final class Copy {
    let dir: URL
    var recording: URL { dir.appendingPathComponent("drift-left-and-back.jprec") }
    var golden: URL { dir.appendingPathComponent("golden") }
    var scenario: URL { dir.appendingPathComponent("drift-left-and-back.scenario.yaml") }
    init(damage: Bool = true, scenario withScenario: Bool = false) throws {
      dir = FileManager.default.temporaryDirectory.appendingPathComponent("jpreplay-assert-\(UUID().uuidString)")
      let fm = FileManager.default
      try fm.createDirectory(at: dir.appendingPathComponent("golden"), withIntermediateDirectories: true)
      let root = AssertReplayTests.repoRoot
      try fm.copyItem(at: root.appendingPathComponent("Recordings/drift-left-and-back.jprec"), to: recording)
      if withScenario {
        try fm.copyItem(at: root.appendingPathComponent("Recordings/drift-left-and-back.scenario.yaml"), to: scenario)
      }
      for kind in ["trace", "a13"] {
        let name = "drift-left-and-back.\(kind).jsonl"
        try fm.copyItem(at: root.appendingPathComponent("Golden/\(name)"), to: golden.appendingPathComponent(name))
      }
      guard damage else { return }
      let trace = golden.appendingPathComponent("drift-left-and-back.trace.jsonl")
      var lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      let i = try #require(lines.firstIndex { $0.contains(#""level":"warn""#) && $0.contains("FRAME_MOVE_LEFT") })
      lines[i] = lines[i].replacingOccurrences(of: #""level":"warn""#, with: #""level":"hard""#)
      try lines.joined(separator: "\n").write(to: trace, atomically: true, encoding: .utf8)
    }
    deinit { try? FileManager.default.removeItem(at: dir) }
    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: golden.path)) ?? []).sorted() }
  }

  @Test func aMatchingRecordingPassesAndWritesNothing() throws {
    let c = try Copy(damage: false)
    #expect(verifyReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, update: .new) == nil)
    #expect(c.files == ["drift-left-and-back.a13.jsonl", "drift-left-and-back.trace.jsonl"])
  }

  @Test func aDifferenceFailsWithVerifysExplainedDiffAndWritesANewFile() throws {
    let c = try Copy()
    let message = try #require(
      verifyReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, update: .new))
    #expect(message.hasPrefix("FAIL    drift-left-and-back: trace: at t="))
    #expect(message.contains("level hard → warn"))
    #expect(message.contains("\n        trace:\n"))
    #expect(message.contains("  - {"))
    // The folder as it is (this one is named golden), not a fixed "Golden/".
    #expect(message.contains("wrote \(c.golden.path)/drift-left-and-back.trace.jsonl.new"), "\(message)")
    #expect(message.contains("jpreplay review"))
    #expect(c.files.contains("drift-left-and-back.trace.jsonl.new"))
  }

  @Test func theUpdateModeComesFromTheEnvironmentAndCIWritesNothing() throws {
    let c = try Copy()
    let ci = verifyReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, environment: ["CI": "true"])
    #expect(ci?.contains("nothing written (update mode no)") == true)
    #expect(!c.files.contains { $0.hasSuffix(".new") })
    let always = verifyReplay(
      recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec,
      environment: ["CI": "true", "JPREPLAY_UPDATE": "always"])
    #expect(always == nil)
    #expect(verifyReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, update: .no) == nil)
    let bad = verifyReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, environment: ["JPREPLAY_UPDATE": "maybe"])
    #expect(bad?.contains("JPREPLAY_UPDATE=maybe") == true)
  }

  /// Outside Swift Testing the failure goes to XCTFail, found by symbol at run time: the test
  /// runner loads XCTest, so the lookup must find it (a wrong mangled name would not).
  @Test func xctFailIsFoundAtRunTimeWhenXCTestIsLoaded() {
    #expect(IssueReporter.xctFail != nil)
  }

  @Test func aFailureIsRecordedAsASwiftTestingIssue() throws {
    let c = try Copy()
    #expect(IssueReporter.inSwiftTesting)
    withKnownIssue {
      assertReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, update: .no)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("level hard → warn") }
    }
    let missing = verifyReplay(
      recording: c.dir.appendingPathComponent("nope.jprec"), matchesGoldenIn: c.golden, spec: Self.spec)
    #expect(missing?.hasPrefix("no recording at ") == true)
  }

  /// Issue 24.4: the library judges a recording as `verify` does (one `Verifier` path): the
  /// scenario beside the recording makes a broken `expect:` rule and a stale recording fail,
  /// goldens matching or not.
  @Test func anUnmetRuleFailsAlthoughTheGoldensMatch() throws {
    let c = try Copy(damage: false, scenario: true)
    #expect(verifyReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, update: .no) == nil)
    // LEFT is shown in this recording (its scenario says so): claim it never is.
    try (String(contentsOf: c.scenario, encoding: .utf8) + "  - {not_displayed: FRAME_MOVE_LEFT, from: 0, to: 12000}\n")
      .write(to: c.scenario, atomically: true, encoding: .utf8)
    let message = try #require(verifyReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, update: .no))
    #expect(message.hasPrefix("UNMET   drift-left-and-back"), "\(message)")
    #expect(message.contains("drift-left-and-back.scenario.yaml:") && message.contains("not displayed in [0, 12000]"), "\(message)")
    #expect(c.files == ["drift-left-and-back.a13.jsonl", "drift-left-and-back.trace.jsonl"])
  }

  @Test func aStaleRecordingFails() throws {
    let c = try Copy(damage: false, scenario: true)
    let text = try String(contentsOf: c.scenario, encoding: .utf8)
    try text.replacingOccurrences(of: "seed: 7", with: "seed: 8").write(to: c.scenario, atomically: true, encoding: .utf8)
    let message = try #require(verifyReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, update: .new))
    #expect(message.contains("stale") && message.contains("jpreplay record"), "\(message)")
    // A stale recording's replay is not what its scenario makes: nothing is written.
    #expect(!c.files.contains { $0.hasSuffix(".new") })
  }

  @Test func theFailureTextNamesTheLibrarysOwnParameter() throws {
    let c = try Copy()
    let message = try #require(verifyReplay(recording: c.recording, matchesGoldenIn: c.golden, spec: Self.spec, update: .no))
    #expect(message.contains("update: .new") && !message.contains("--update"), "\(message)")
  }
}
