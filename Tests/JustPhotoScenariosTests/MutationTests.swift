import Foundation
import Mutants
import Recording
@testable import JustPhotoScenarios
import Testing


/// Robustness of the scenario parser (issue 12 "Fuzzing"): seeded mutants of committed
/// scenario files each parse or throw a `ScenarioError` naming the file — never a trap or a
/// hang — and a scenario that parses generates a recording that reads back, when its size is
/// within ``framesMax`` (oversized scenarios are issue 12's streaming-record work).
@Suite struct ScenarioMutationTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  /// Landmark frames a parsed mutant may generate here (keeps the test short).
  static let framesMax: Int64 = 600
  /// Luma bytes a parsed mutant may generate here.
  static let lumaBytesMax = 4 << 20

  /// The landmark frames `generate()` would make, computed without generating.
  static func frameCount(_ s: Scenario) -> Int64 {
    switch s.frames {
    case .none: return 0
    case .times(let t): return Int64(t.count)
    case .every(let ms): return ms > 0 ? s.durationMs / ms + 1 : .max
    case .fps:
      let (n, overflow) = (s.durationMs / 1000 + 1).multipliedReportingOverflow(by: Int64(s.fps))
      return overflow ? .max : n
    }
  }

  /// Parses `bytes` as `file`; when small enough, generates and reads back every event.
  static func parseAndGenerate(_ bytes: [UInt8], file: String) throws {
    let s = try Scenario.parse(bytes: bytes, file: file)
    let frames = frameCount(s)
    guard frames <= framesMax else { return }
    if let every = s.lumaEvery {
      let (plane, o1) = s.lumaW.multipliedReportingOverflow(by: s.lumaH)
      let (total, o2) = plane.multipliedReportingOverflow(by: Int(frames) / every + 1)
      guard !o1, !o2, total <= lumaBytesMax else { return }
    }
    let reader = try s.generate().reader()
    while try reader.next() != nil {}
  }

  /// Mutants of `name` (a committed scenario) parsed from its own path.
  func check(_ name: String, count: Int, seed: UInt64) throws -> MutationReport {
    let url = Self.repoRoot.appendingPathComponent("Recordings/\(name).scenario.yaml")
    let bytes = [UInt8](try Data(contentsOf: url))
    try Self.parseAndGenerate(bytes, file: url.path)
    let report = MutationRun.run(bytes, count: count, seed: seed, file: url.path) { b in
      try Self.parseAndGenerate(b, file: url.path)
    }
    print("scenario \(name) mutants: \(report.summary)")
    return report
  }

  @Test func scenarioMutantsParseOrThrowNamingTheFile() throws {
    // A landmark scenario with options, initial state and a subject; an app-side scenario
    // with a timeline of events; one deriving its spec from ../PoseSpec.json.
    for (name, count, seed) in [
      ("s04-frame-left-enter", 250, UInt64(0x5943_4E31)), ("s29-fetch-retry", 200, 0x5943_4E32),
      ("s02-posespec-alias", 60, 0x5943_4E33),
    ] {
      let report = try check(name, count: count, seed: seed)
      #expect(report.accepted > 0, "\(name)")
      #expect(report.refused > count / 5, "\(name)")
      #expect(report.unnamed == [], "\(name)")
    }
  }
}
