import Foundation
import Testing

@testable import JustPhotoScenarios

/// Hostile YAML (issue 12, H2): anchors and aliases are refused before anything is expanded,
/// nesting and node counts are bounded before Yams composes (its composer recurses per level).
@Suite("YAML guard")
struct YAMLGuardTests {
  static let file = "Recordings/t.scenario.yaml"

  static func error(_ text: String) -> ScenarioError? {
    do {
      _ = try Scenario.parse(bytes: Array(text.utf8), file: file)
      return nil
    } catch { return error }
  }

  /// The classic billion laughs: ten levels of ten aliases, 10^9 "lol" once expanded.
  static var billionLaughs: String {
    var s = "name: t\nduration_ms: 100\nseed: 1\ninitial:\n  l0: &l0 lol\n"
    for i in 1...9 {
      s += "  l\(i): &l\(i) [" + Array(repeating: "*l\(i - 1)", count: 10).joined(separator: ",") + "]\n"
    }
    return s + "notes: done\n"
  }

  @Test func billionLaughsIsRefusedAtItsFirstAnchor() throws {
    let text = Self.billionLaughs
    #expect(text.utf8.count < 600)
    // Refused at the first anchor (line 5), before any alias is expanded.
    let e = try #require(Self.error(text))
    #expect(e.line == 5 && e.column == 7, "\(e)")
    #expect(e.message.contains("anchor &l0") && e.message.contains("not supported"), "\(e)")
    #expect(e.description.hasPrefix("\(Self.file):5:7: "), "\(e)")
  }

  @Test func anAliasWithoutAnchorAndAnAnchoredMappingAreRefused() throws {
    let alias = try #require(Self.error("name: t\nduration_ms: 100\nseed: *s\n"))
    #expect(alias.line == 3 && alias.message.contains("alias *s"), "\(alias)")
    let mapping = try #require(Self.error("name: t\nduration_ms: 100\nseed: 1\nsubject: &base {x: 0.6}\n"))
    #expect(mapping.line == 4 && mapping.message.contains("anchor &base"), "\(mapping)")
    // An & or * inside a quoted string or a comment is text, not an anchor.
    #expect(Self.error("name: t\nduration_ms: 100\nseed: 1\nnotes: \"&a *b\"  # &c *d\n") == nil)
  }

  static func nested(_ depth: Int) -> String {
    "name: t\nduration_ms: 100\nseed: 1\ninitial: {install_flags: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}\n"
  }

  @Test func nestingIsBoundedBeforeComposing() throws {
    // initial (1) + install_flags' lists: the root mapping is level 1, `initial` level 2.
    #expect(Self.error(Self.nested(ScenarioLimits.yamlDepthMax - 2)) == nil)
    let e = try #require(Self.error(Self.nested(ScenarioLimits.yamlDepthMax - 1)))
    #expect(e.line == 4 && e.message.contains("ScenarioLimits.yamlDepthMax"), "\(e)")
    // 100,000 levels would overflow the composer's stack; refused at once instead.
    let deep = try #require(Self.error(Self.nested(100_000)))
    #expect(deep.message.contains("deeper than \(ScenarioLimits.yamlDepthMax)"), "\(deep)")
    // Block nesting counts the same way.
    var block = "name: t\nduration_ms: 100\nseed: 1\ninitial:\n"
    for i in 0..<(ScenarioLimits.yamlDepthMax + 5) { block += String(repeating: " ", count: 2 * (i + 1)) + "k\(i):\n" }
    let b = try #require(Self.error(block + String(repeating: " ", count: 2 * (ScenarioLimits.yamlDepthMax + 6)) + "x\n"))
    #expect(b.message.contains("ScenarioLimits.yamlDepthMax"), "\(b)")
  }

  @Test func theNumberOfNodesIsBounded() throws {
    let many = Array(repeating: "0", count: ScenarioLimits.yamlNodesMax).joined(separator: ",")
    let e = try #require(Self.error("name: t\nduration_ms: 100\nseed: 1\ninitial: {many: [\(many)]}\n"))
    #expect(e.line == 4 && e.message.contains("ScenarioLimits.yamlNodesMax"), "\(e)")
  }

  @Test func syntaxErrorsStillComeFromTheComposerAtTheirPlace() throws {
    let e = try #require(Self.error("name: t\nduration_ms: 100\nseed: [1\n"))
    #expect(e.message.hasPrefix("YAML syntax"), "\(e)")
    #expect(e.line != nil)
  }
}
