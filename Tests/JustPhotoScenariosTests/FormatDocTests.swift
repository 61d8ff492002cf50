import CanonicalJSON
import Foundation
@testable import JustPhotoScenarios
import Testing


/// docs/FORMAT.md documents every header key a scenario can put into a recording: the
/// top-level scenario keys the parser accepts (`Scenario.topKeys`), the `initial` keys
/// (`Scenario.initialKeys` = `JustPhotoIO.InitialState.keys`, which the parser enforces) and every
/// key of a generated header. A key added to the parser without a row in the docs fails here,
/// and so does a row for a key the parser refuses.
@Suite("FORMAT.md documents the scenario and header keys")
struct FormatDocTests {
  static let formatDoc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("docs/FORMAT.md")

  /// The backquoted names in the first column of the tables under `heading` (up to the next
  /// heading of any level).
  static func firstColumn(under heading: String) throws -> [String] {
    let text = try String(contentsOf: formatDoc, encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0 == heading }) else {
      Issue.record("docs/FORMAT.md has no heading \"\(heading)\"")
      return []
    }
    let cell = try Regex(#"`([a-z_0-9]+)`"#)
    var keys: [String] = []
    for line in lines[(start + 1)...] {
      if line.hasPrefix("#") { break }
      guard line.hasPrefix("| `") else { continue }
      let first = line.dropFirst().prefix { $0 != "|" }
      for m in first.matches(of: cell) { if let k = m.output[1].substring { keys.append(String(k)) } }
    }
    return keys
  }

  @Test("every top-level scenario key has a row under \"### Scenario keys\", and no other")
  func scenarioKeys() throws {
    let documented = try Self.firstColumn(under: "### Scenario keys")
    #expect(Set(documented) == Set(Scenario.topKeys), "documented \(documented), accepted \(Scenario.topKeys)")
    #expect(documented.count == Set(documented).count, "a key is documented twice: \(documented)")
  }

  @Test("every initial key has a row under \"### `initial` keys\", and no other — camera_ready among them")
  func initialKeys() throws {
    let documented = try Self.firstColumn(under: "### `initial` keys")
    #expect(Set(documented) == Set(Scenario.initialKeys), "documented \(documented), accepted \(Scenario.initialKeys)")
    #expect(documented.contains("camera_ready"))
  }

  @Test("the parser accepts the documented initial keys and refuses another one at its line")
  func initialKeysEnforced() throws {
    var text = "name: t\nduration_ms: 100\nseed: 1\nframes: none\ninitial:\n"
    for k in Scenario.initialKeys where k != "posespec" && k != "scene" { text += "  \(k): null\n" }
    let s = try Scenario.parse(bytes: Array(text.utf8), file: "Recordings/t.scenario.yaml")
    #expect(s.initial.members.map(\.key) == Scenario.initialKeys.filter { $0 != "posespec" && $0 != "scene" })
    do {
      _ = try Scenario.parse(bytes: Array((text + "  camera_redy: false\n").utf8), file: "Recordings/t.scenario.yaml")
      Issue.record("an unknown initial key was accepted")
    } catch {
      #expect(error.line == Scenario.initialKeys.count + 4, "\(error)")
      #expect(error.message.contains("did you mean \"camera_ready\""), "\(error)")
    }
  }

  @Test("every key of a generated header (all optional scenario keys set) has a row under \"## Header (line 1)\"")
  func generatedHeaderKeys() throws {
    let text = """
      name: t
      duration_ms: 1000
      seed: 1
      fps: 10
      scene: cafe
      wall_start_ms: 1770860000000
      options: {angleFix: "on"}
      initial: {camera_ready: false}
      notes: every optional header key
      budgets: {maxCueChangesPerMinute: 16}
      frames: none
      truth: [{cue: FRAME_MOVE_LEFT, from: 0, to: 500}]

      """
    let s = try Scenario.parse(bytes: Array(text.utf8), file: "Recordings/t.scenario.yaml")
    let header = try s.generate().reader().header
    let documented = Set(try Self.firstColumn(under: "## Header (line 1)"))
    let keys = header.members.map(\.key)
    #expect(keys.contains("labels") && keys.contains("budgets") && keys.contains("notes"))
    let missing = keys.filter { !documented.contains($0) }
    #expect(missing.isEmpty, "header keys without a row in docs/FORMAT.md: \(missing)")
  }
}
