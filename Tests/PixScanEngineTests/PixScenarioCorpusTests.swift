import CanonicalJSON
import Foundation
import PixScanEngine
import PixScanScenarios
import Testing

/// Every scenario of Recordings/pixscan runs straight through the engine (events in time
/// order, effect results as the script wrote them) and meets all its `expect:` rules; the
/// rules come from docs/PIXSCAN.md and the scenario's intent, never from engine output.
@Suite("PixScan scenario corpus")
struct PixScenarioCorpusTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let dir = root.appendingPathComponent("Recordings/pixscan")

  static func files() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
  }

  static func load(_ name: String) throws -> PixScenario {
    let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
    return try PixScenario.parse(yaml: text, file: "Recordings/pixscan/\(name)")
  }

  @Test("the corpus has at least 15 scenarios, one of 5,000 photos")
  func corpusSize() throws {
    let names = Self.files()
    #expect(names.count >= 15, "\(names)")
    let sizes = try names.map { try Self.load($0).library.count }
    #expect(sizes.contains { $0 >= 5_000 })
  }

  @Test("each scenario meets its expect: rules", arguments: PixScenarioCorpusTests.files())
  func scenarioMeetsRules(_ name: String) throws {
    let s = try Self.load(name)
    #expect(s.name + ".yaml" == name, "name: must equal the file name")
    #expect(!s.expectations.isEmpty, "\(name) has no expect: rules")
    let run = try PixDirectRun.checked(s.events)
    #expect(run.correlationIssues.isEmpty, "every request answered once, no result without one: \(run.correlationIssues)")
    let failures = PixExpectations.check(s.expectations, records: run.records)
    #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
  }
}

extension PixScenarioCorpusTests {
  /// The rules read records, never trace text (the seam's replay hands them its records;
  /// a golden is read by the one reader, `GoldenTrace`, in Replay).
  @Test("rules judged on the records; a trace missing the batch result breaks them")
  func rulesOnRecords() throws {
    let s = try Self.load("delete-ok.yaml")
    let records = try PixDirectRun.run(s.events)
    #expect(PixExpectations.check(s.expectations, records: records).isEmpty)
    let cut = records.filter { $0.t < 4000 }
    #expect(!PixExpectations.check(s.expectations, records: cut).isEmpty)
  }
}
