import CameraCoachEngine
import CameraCoachScenarios
import CanonicalJSON
import Foundation
import Testing

/// Every scenario of Recordings/cameracoach runs straight through the engine and meets its
/// `expect:` rules and the budget invariants; the rules come from docs/CAMERACOACH.md, never
/// from engine output. Every planted fault is caught by some rule.
@Suite("Camera Coach scenario corpus")
struct CCScenarioCorpusTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let dir = root.appendingPathComponent("Recordings/cameracoach")

  static func files() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
  }

  static func load(_ name: String) throws -> CCScenario {
    let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
    return try CCScenario.parse(yaml: text, file: "Recordings/cameracoach/\(name)")
  }

  @Test("the corpus has at least 15 scenarios, each with expect: rules")
  func corpusSize() throws {
    let names = Self.files()
    #expect(names.count >= 15, "\(names)")
    for n in names { #expect(try !Self.load(n).expectations.isEmpty, "\(n)") }
  }

  @Test("each scenario meets its expect: rules and the invariants", arguments: CCScenarioCorpusTests.files())
  func scenarioMeetsRules(_ name: String) throws {
    let s = try Self.load(name)
    #expect(s.name + ".yaml" == name, "name: must equal the file name")
    let records = try CCDirectRun.run(s.events)
    let failures = CCExpectations.judge(s.expectations, records: records)
    #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
  }

  @Test("every planted fault changes some trace and is caught by a rule or an invariant")
  func faultsCaught() throws {
    let scenarios = try Self.files().map(Self.load)
    let run = CCFaultCheck.run(scenarios)
    #expect(run.unmetClean.isEmpty, "\(run.unmetClean)")
    for o in run.outcomes {
      #expect(!o.changed.isEmpty, "\(o.name) changes no trace")
      #expect(!o.caughtBy.isEmpty, "\(o.name) is not caught")
      #expect(o.errors.isEmpty, "\(o.errors)")
    }
    #expect(run.outcomes.map(\.name) == CCPlantedFault.allCases.map(\.rawValue))
  }
}
