import CanonicalJSON
import Foundation
import Mutants
import PoseSpec
import Testing

/// Robustness of the PoseSpec loader (issue 12 "Fuzzing"): seeded mutants of the project spec
/// each load or throw a `PoseSpecValidationError` naming the file (ENGINE §2.3) — never a
/// trap or a hang.
@Suite struct PoseSpecMutationTests {
  static let projectURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("PoseSpec.json")
  /// Cues kept in the seed: the full spec (122 KB, 50 cues) makes each mutant slow to load in
  /// a debug build, and most edits would land in cues alike.
  static let seedCuesMax = 6

  /// The project spec with its first ``seedCuesMax`` cues, as bytes.
  static func seed() throws -> [UInt8] {
    var root = try #require(JSONParser.parse(bytes: [UInt8](Data(contentsOf: projectURL))).objectValue)
    let cues = try #require(root["cues"]?.arrayValue)
    root["cues"] = .array(Array(cues.prefix(seedCuesMax)))
    return Array(JSONWriter.write(.object(root)).utf8)
  }

  @Test func specMutantsLoadOrThrowNamingTheFile() throws {
    let seed = try Self.seed()
    let file = "mutant.json"
    #expect(try PoseSpecLoader.load(bytes: seed, fileName: file).cues.count == Self.seedCuesMax)
    let report = MutationRun.run(seed, count: 500, seed: 0x5053_5045, file: file) { bytes in
      _ = try PoseSpecLoader.load(bytes: bytes, fileName: file)
    }
    print("PoseSpec mutants: \(report.summary)")
    #expect(report.accepted > 20)
    #expect(report.refused > 100)
    #expect(report.unnamed == [])
  }
}
