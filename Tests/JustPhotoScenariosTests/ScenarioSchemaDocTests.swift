import Foundation
import Testing

@testable import JustPhotoScenarios

/// docs/SCENARIOS.md against the schema's one definition (`ScenarioSchema`): every key the
/// parser accepts is documented in its section, the parser takes its key lists from the schema
/// (no literal list at a `mapping(allowed:)`), and the page's complete example parses.
@Suite("scenario schema doc")
struct ScenarioSchemaDocTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func doc() throws -> String {
    try String(contentsOf: repoRoot.appendingPathComponent("docs/SCENARIOS.md"), encoding: .utf8)
  }

  /// The text of the section marked `<!-- schema: id -->`, up to the next marker.
  static func section(_ id: String, in doc: String) -> String? {
    guard let start = doc.range(of: "<!-- schema: \(id) -->") else { return nil }
    let rest = doc[start.upperBound...]
    let end = rest.range(of: "<!-- schema: ")?.lowerBound ?? rest.endIndex
    return String(rest[..<end])
  }

  @Test("every key the parser accepts is documented, as `key`, in its section of docs/SCENARIOS.md")
  func everyKeyIsDocumented() throws {
    let doc = try Self.doc()
    var missing: [String] = []
    for s in ScenarioSchema.sections {
      guard let text = Self.section(s.id, in: doc) else {
        missing.append("section \(s.id) (no <!-- schema: \(s.id) --> marker)")
        continue
      }
      for k in s.keys where !text.contains("`\(k)`") { missing.append("\(s.id).\(k)") }
    }
    #expect(missing == [])
    // The check sees what it checks: the schema has the keys the parser reads.
    #expect(ScenarioSchema.sections.first { $0.id == "top" }?.keys.contains("detector") == true)
    #expect(ScenarioSchema.sections.first { $0.id == "detector" }?.keys.contains("luma_sigma") == true)
    #expect(Self.section("budgets", in: "<!-- schema: budgets -->\n`minHoldMs`\n<!-- schema: x -->\n`maxShowsOfOneCue`")?
      .contains("`maxShowsOfOneCue`") == false)
  }

  @Test("the parser's key lists come from ScenarioSchema: no literal list at a mapping(allowed:) call")
  func parserUsesTheSchema() throws {
    let dir = Self.repoRoot.appendingPathComponent("Sources/JustPhotoScenarios")
    var offenders: [String] = []
    for f in try FileManager.default.contentsOfDirectory(atPath: dir.path) where f.hasSuffix(".swift") {
      let text = try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8)
      for line in text.split(separator: "\n") where (line.contains("allowed: [") && !line.contains("func mapping(")) || line.contains("fields(n, [") {
        offenders.append("\(f): \(line.trimmingCharacters(in: .whitespaces))")
      }
    }
    #expect(offenders == [])
    // A key outside the schema is refused (the lists are what the parser enforces).
    let bad = "name: t\nduration_ms: 100\nseed: 1\nluma: {every: 1, depth: 8}\n"
    #expect(throws: ScenarioError.self) { try Scenario.parse(bytes: Array(bad.utf8), file: "Recordings/t.scenario.yaml") }
  }

  @Test("the complete example of docs/SCENARIOS.md parses, with every section it shows")
  func completeExampleParses() throws {
    let doc = try Self.doc()
    guard let heading = doc.range(of: "## A complete example"),
      let open = doc.range(of: "```yaml\n", range: heading.upperBound..<doc.endIndex),
      let close = doc.range(of: "```", range: open.upperBound..<doc.endIndex)
    else {
      Issue.record("docs/SCENARIOS.md has no complete example")
      return
    }
    let yaml = String(doc[open.upperBound..<close.lowerBound])
    let s = try Scenario.parse(bytes: Array(yaml.utf8), file: "Recordings/schema-example.scenario.yaml")
    #expect(s.name == "schema-example" && s.durationMs == 3000 && s.seed == 7)
    #expect(s.noise.nuisance.dropouts != nil && s.noise.nuisance.drift != nil && s.noise.nuisance.sway != nil)
    #expect(s.timeline.count == 3 && s.references.count == 2 && s.expectations.count == 2)
    #expect(s.intent.truth.count == 1 && s.budgets.count == 1 && s.lumaEvery == 5)
  }
}
