import Foundation
import JustPhotoScenarios
import Testing

/// `jpreplay record` and `verify`'s stale check on hostile scenario files (issue 12: C4, H2):
/// exit 2 with the file, the line:column and the bound, and no recording written.
@Suite struct ScenarioLimitsCLITests {
  /// A folder with `Recordings/<name>.scenario.yaml` holding `text`.
  static func corpus(_ name: String, _ text: String) throws -> (dir: URL, scenario: URL) {
    let dir = try CLI.tempDir("scenario-limits")
    let recordings = dir.appendingPathComponent("Recordings")
    try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("Golden"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    let scenario = recordings.appendingPathComponent("\(name).scenario.yaml")
    try Data(text.utf8).write(to: scenario)
    return (dir, scenario)
  }

  static func expectRefused(
    _ name: String, _ text: String, place: String, bound: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let (dir, _) = try corpus(name, text)
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try CLI.run(["record", name, "--recordings-dir", "Recordings"], cwd: dir)
    #expect(r.code == 2, "\(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderr.contains("Recordings/\(name).scenario.yaml:\(place)"), "\(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderr.contains(bound), "\(r.stderr)", sourceLocation: sourceLocation)
    let written = dir.appendingPathComponent("Recordings/\(name).jprec")
    #expect(!FileManager.default.fileExists(atPath: written.path), sourceLocation: sourceLocation)
    // verify's stale check reads the same file: the same refusal, exit 2.
    let v = try CLI.run(["verify", "--recordings-dir", "Recordings", "--golden-dir", "Golden"], cwd: dir)
    #expect(v.code == 2, "\(v.stdout)\(v.stderr)", sourceLocation: sourceLocation)
    #expect((v.stdout + v.stderr).contains(bound), "\(v.stdout)\(v.stderr)", sourceLocation: sourceLocation)
  }

  @Test func aTenYearDurationIsExit2() throws {
    try Self.expectRefused(
      "ten-years", "name: ten-years\nduration_ms: 315360000000\nseed: 1\n", place: "2:14:", bound: "ScenarioLimits.durationMsMax")
  }

  @Test func aFullFrame4096LumaIsExit2() throws {
    try Self.expectRefused(
      "big-luma", "name: big-luma\nduration_ms: 12000\nseed: 1\nluma: {every: 1, w: 4096, h: 4096}\n", place: "4:7:",
      bound: "ScenarioLimits.lumaPixelsMax")
  }

  @Test func billionLaughsIsExit2AtItsFirstAnchor() throws {
    var text = "name: lol\nduration_ms: 100\nseed: 1\ninitial:\n  l0: &l0 lol\n"
    for i in 1...9 { text += "  l\(i): &l\(i) [" + Array(repeating: "*l\(i - 1)", count: 10).joined(separator: ",") + "]\n" }
    let (dir, _) = try Self.corpus("lol", text)
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try CLI.run(["record", "lol", "--recordings-dir", "Recordings"], cwd: dir)
    #expect(r.code == 2, "\(r.stderr)")
    #expect(r.stderr.contains("Recordings/lol.scenario.yaml:5:7: YAML anchor &l0"), "\(r.stderr)")
  }
}
