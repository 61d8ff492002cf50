import Foundation
import Testing

import ScenarioYAML
@testable import JustPhotoScenarios

/// Every size, count and duration a scenario asks for has a named bound (`ScenarioLimits`),
/// checked while parsing — before a frame is generated or a buffer allocated — and refused
/// with the file, the line:column and the bound (issue 12, C4).
@Suite("scenario limits")
struct ScenarioLimitsTests {
  static let file = "Recordings/t.scenario.yaml"

  static func error(_ text: String) -> ScenarioError? {
    do {
      _ = try Scenario.parse(bytes: Array(text.utf8), file: file)
      return nil
    } catch { return error }
  }

  static func head(duration: String = "12000") -> String { "name: t\nduration_ms: \(duration)\nseed: 1\n" }

  /// A refusal at `line` whose message names `bound`; the description starts file:line:col.
  static func expectRefused(_ text: String, line: Int, bound: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let e = error(text) else {
      Issue.record("accepted: \(text.prefix(200))", sourceLocation: sourceLocation)
      return
    }
    #expect(e.line == line, "\(e)", sourceLocation: sourceLocation)
    #expect(e.message.contains(bound), "\(e)", sourceLocation: sourceLocation)
    #expect(e.description.hasPrefix("\(file):\(line):"), "\(e)", sourceLocation: sourceLocation)
  }

  @Test func aTenYearOrInt64MaxDurationIsRefused() {
    let tenYears = Int64(10) * 365 * 24 * 3600 * 1000
    Self.expectRefused(Self.head(duration: "\(tenYears)"), line: 2, bound: "ScenarioLimits.durationMsMax")
    Self.expectRefused(Self.head(duration: "\(Int64.max)"), line: 2, bound: "ScenarioLimits.durationMsMax")
    // The bound itself is accepted (no frames: nothing is generated at parse time).
    #expect(Self.error(Self.head(duration: "\(ScenarioLimits.durationMsMax)") + "frames: none\n") == nil)
    Self.expectRefused(
      Self.head(duration: "\(ScenarioLimits.durationMsMax + 1)") + "frames: none\n", line: 2,
      bound: "ScenarioLimits.durationMsMax")
  }

  @Test func a4096SquareLumaPlaneOnEveryFrameIsRefusedBeforeAllocation() {
    // A legal 12 s at 15 fps, but 16.7 Mpixel planes on all 181 frames: refused at `luma`.
    Self.expectRefused(Self.head() + "luma: {every: 1, w: 4096, h: 4096}\n", line: 4, bound: "ScenarioLimits.lumaPixelsMax")
    Self.expectRefused(Self.head() + "luma: {every: 1, w: 5000, h: 10}\n", line: 4, bound: "ScenarioLimits.lumaSideMax")
    // 1024×1024 is within the per-plane bound; over 12 h at 15 fps the total is not.
    Self.expectRefused(
      Self.head(duration: "43200000") + "luma: {every: 1, w: 1024, h: 1024}\n", line: 4,
      bound: "ScenarioLimits.lumaPixelsTotalMax")
    #expect(Self.error(Self.head() + "luma: {every: 1, w: 1024, h: 1024}\n") == nil)
  }

  @Test func frameCountsAreBoundedWhateverTheFramePlan() {
    // 24 h at 1000 fps: 86.4 M frames, refused at `fps`.
    Self.expectRefused(Self.head(duration: "86400000") + "fps: 1000\n", line: 4, bound: "ScenarioLimits.framesMax")
    // every_ms: 1 over 24 h, refused at `frames`.
    Self.expectRefused(
      Self.head(duration: "86400000") + "frames: {every_ms: 1}\n", line: 4, bound: "ScenarioLimits.framesMax")
    // The default 15 fps over 24 h (1.3 M frames) passes the frame bound of old but not what a
    // recording may hold: refused at parse time, not after generating 2^20 events (88 s).
    Self.expectRefused(Self.head(duration: "86400000"), line: 2, bound: "ScenarioLimits.framesMax")
    // 12 h at 15 fps (648,001 frames) is within both.
    #expect(Self.error(Self.head(duration: "43200000")) == nil)
    // Frames within the bound, but frames + luma planes are not: refused at `luma`'s sizing key.
    let e = Self.error(Self.head(duration: "43200000") + "luma: {every: 1, w: 8, h: 8}\n")
    #expect(e?.message.contains("ScenarioLimits.eventsMax") == true, "\(String(describing: e))")
    let s = try? Scenario.parse(bytes: Array((Self.head(duration: "200") + "fps: 16\n").utf8), file: Self.file)
    // The bound used before generating is never below the real count (here 4: 0, 62, 125, 188).
    #expect(s.flatMap(\.frameCountBound).map { $0 >= 4 } == true)
  }

  @Test func intentLabelsCountTowardsTheEventBoundBeforeGenerating() {
    // 12 h at 24 fps: 1,036,801 frames, within the bound; 6,000 truth intervals add 12,000 label
    // marks, which are not. Refused while parsing, naming the labels.
    let truth = (0..<6000).map { "  - {cue: FRAME_MOVE_LEFT, from: \($0 * 7000), to: \($0 * 7000 + 1000)}\n" }.joined()
    let e = Self.error(Self.head(duration: "43200000") + "fps: 24\ntruth:\n" + truth)
    #expect(e?.message.contains("ScenarioLimits.eventsMax") == true, "\(String(describing: e))")
    #expect(e?.message.contains("12000 of them intent labels") == true, "\(String(describing: e))")
    // Without the labels the same frames are accepted.
    #expect(Self.error(Self.head(duration: "43200000") + "fps: 24\n") == nil)
  }

  @Test func countsOfEntriesReferencesAndFacesAreBounded() {
    let entries = (0...ScenarioLimits.timelineEntriesMax).map { _ in "  - {at: 0, subject: {x: 0.5}}\n" }.joined()
    Self.expectRefused(Self.head() + "timeline:\n" + entries, line: 5, bound: "ScenarioLimits.timelineEntriesMax")
    let refs = (0...ScenarioLimits.referencesMax).map { "  - {at: 0, ref_id: r\($0)}\n" }.joined()
    Self.expectRefused(Self.head() + "references:\n" + refs, line: 5, bound: "ScenarioLimits.referencesMax")
    let faces = Array(repeating: "{conf: 0.5}", count: ScenarioLimits.referenceFacesMax + 1).joined(separator: ", ")
    Self.expectRefused(
      Self.head() + "references:\n  - {at: 0, ref_id: r, faces: [\(faces)]}\n", line: 5,
      bound: "ScenarioLimits.referenceFacesMax")
    let osc = (0...ScenarioLimits.oscillationsMax).map { _ in "  - {from: 0, to: 10, oscillate: {x: {amplitude: 0.1, period_ms: 5}}}\n" }
    Self.expectRefused(Self.head() + "timeline:\n" + osc.joined(), line: 5, bound: "ScenarioLimits.oscillationsMax")
  }

  @Test func peopleAndSubjectMagnitudesAreBounded() {
    Self.expectRefused(Self.head() + "subject: {people: 101}\n", line: 4, bound: "ScenarioLimits.peopleMax")
    Self.expectRefused(Self.head() + "subject: {x: 1e300}\n", line: 4, bound: "ScenarioLimits.subjectValueMagnitudeMax")
    Self.expectRefused(
      Self.head() + "subject: {joints: {leftWrist: [0.5, -1e9]}}\n", line: 4, bound: "ScenarioLimits.subjectValueMagnitudeMax")
    Self.expectRefused(
      Self.head() + "timeline:\n  - {from: 0, to: 100, oscillate: {x: {amplitude: 1e20, period_ms: 50}}}\n", line: 5,
      bound: "ScenarioLimits.subjectValueMagnitudeMax")
    // A sub-millisecond period would overflow the phase to infinity.
    let e = Self.error(Self.head() + "timeline:\n  - {from: 0, to: 100, oscillate: {x: {amplitude: 0.1, period_ms: 1e-300}}}\n")
    #expect(e?.line == 5 && e?.message.contains("period ≥ 1 ms") == true, "\(String(describing: e))")
  }

  @Test func aFileLargerThanTheBoundIsRefusedUnread() throws {
    let big = Self.head() + "notes: \"" + String(repeating: "x", count: ScenarioLimits.documentBytesMax) + "\"\n"
    let e = try #require(Self.error(big))
    #expect(e.message.contains("ScenarioLimits.documentBytesMax"), "\(e)")
    // From disk: only documentBytesMax + 1 bytes are read.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("t.scenario.yaml").path
    try Data(big.utf8).write(to: URL(fileURLWithPath: path))
    #expect(throws: ScenarioError.self) { try Scenario.load(path: path) }
  }

  @Test func hugeSubjectCoordinatesNeverTrapTheLumaPainter() {
    // The largest accepted values, oscillated on top: finite, clamped into the plane.
    var s = SubjectState()
    s[.x] = 2 * ScenarioLimits.subjectValueMagnitudeMax
    s[.face_w] = ScenarioLimits.subjectValueMagnitudeMax
    #expect(SubjectModel.lumaPlane(s, w: 8, h: 8).count == 64)
    s[.x] = .nan
    #expect(SubjectModel.lumaPlane(s, w: 8, h: 8).count == 64)
    #expect(SubjectModel.index(.infinity, 8) == 8 && SubjectModel.index(-.infinity, 8) == 0 && SubjectModel.index(.nan, 8) == 0)
    #expect(SubjectModel.index(3, 8) == 3)
  }
}

extension ScenarioLimitsTests {
  @Test func aHugeUnknownKeyIsRefusedQuickly() throws {
    // The "did you mean" search must not run an edit distance over a near-1 MiB key.
    let key = String(repeating: "k", count: ScenarioLimits.documentBytesMax - 100)
    // An explicit key (`? …`): a plain one is limited to 1024 characters by YAML itself.
    let e = try #require(Self.error(Self.head() + "? " + key + "\n: 1\n"))
    #expect(e.line == 4 && e.message.contains("unknown key"), "\(e.message.prefix(100))")
    // No suggestion for it: every known key differs in length by more than 2, so no edit
    // distance is computed (the work is bounded by the key list, not the key's length).
    #expect(closest(key, in: Scenario.topKeys) == nil)
    #expect(!e.message.contains("did you mean"), "\(e.message.suffix(100))")
    // Suggestions still work for near misses.
    #expect(closest("subjet", in: Scenario.topKeys) == "subject")
    #expect(closest("FPS", in: Scenario.topKeys) == "fps")
  }
}

/// `posespec: {from: …}` reads a file named by the scenario: only a regular file within the
/// PoseSpec size bound (a `/dev/zero` must not hang or fill memory; found by reading the code
/// during the fuzzing work of issue 12).
@Suite("scenario posespec source")
struct ScenarioPoseSpecSourceTests {
  static func scenario(from path: String) -> String {
    """
    name: t
    duration_ms: 1000
    seed: 1
    frames: none
    initial: {posespec: {from: "\(path)"}}

    """
  }

  @Test("a device file or a folder as `from` is refused at once, naming the place")
  func notARegularFile() throws {
    for path in ["/dev/zero", "/tmp"] {
      do {
        _ = try Scenario.parse(bytes: Array(Self.scenario(from: path).utf8), file: "Recordings/t.scenario.yaml")
        Issue.record("accepted from: \(path)")
      } catch {
        #expect(error.message.contains("not a regular file"), "\(error)")
        #expect(error.line == 5, "\(error)")
      }
    }
  }
}
