import Foundation
import Testing

/// Issue 24.4: an unmet `expect:` rule is a behavioural failure everywhere — `verify --bisect`
/// says "bad" (1), `review` warns and `accept` refuses (without --force) a golden whose
/// recording's rules are unmet.
@Suite struct RuleEnforcementTests {
  typealias Scratch = GroundTruthStabilityTests.Scratch
  static let name = "s04-frame-left-enter"

  /// A scratch corpus whose s04 scenario claims LEFT at 133 (ENGINE §7 S04 says 200): the
  /// goldens match, one rule is unmet.
  static func broken() throws -> Scratch {
    let s = try Scratch([name])
    let url = s.scenario(name)
    let text = try String(contentsOf: url, encoding: .utf8)
    try text.replacingOccurrences(of: "at: 200, within_ms: 0", with: "at: 133, within_ms: 0")
      .write(to: url, atomically: true, encoding: .utf8)
    return s
  }

  @Test("verify --bisect exits 1 (bad), not 125 (skip), on an unmet rule; 0 when the rules hold")
  func bisectCallsAnUnmetRuleBad() throws {
    let good = try Scratch([Self.name])
    defer { try? FileManager.default.removeItem(at: good.root) }
    let ok = try good.run(["verify", "--bisect", Self.name])
    #expect(ok.code == 0, "\(ok.stdout)\(ok.stderr)")
    let s = try Self.broken()
    defer { try? FileManager.default.removeItem(at: s.root) }
    let r = try s.run(["verify", "--bisect", Self.name])
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("bisect: bad") && r.stdout.contains("expect[1]"), "\(r.stdout)")
  }

  /// A pending `.new` equal to the golden: its replay is the one the broken rule judges.
  static func pending(_ s: Scratch) throws {
    let golden = s.root.appendingPathComponent("Golden/\(name).trace.jsonl")
    try FileManager.default.copyItem(at: golden, to: golden.appendingPathExtension("new"))
  }

  @Test("accept refuses a golden whose rules are unmet (exit 1, nothing accepted) unless --force")
  func acceptRefusesUnlessForced() throws {
    let s = try Self.broken()
    defer { try? FileManager.default.removeItem(at: s.root) }
    try Self.pending(s)
    let newFile = s.root.appendingPathComponent("Golden/\(Self.name).trace.jsonl.new")
    let r = try s.run(["accept", Self.name])
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("breaks 1 expect: rule") && r.stderr.contains("expect[1]") && r.stderr.contains("--force"), "\(r.stderr)")
    #expect(FileManager.default.fileExists(atPath: newFile.path))
    let all = try s.run(["accept", "--all"])
    #expect(all.code == 1 && FileManager.default.fileExists(atPath: newFile.path), "\(all.stderr)")
    let forced = try s.run(["accept", Self.name, "--force"])
    #expect(forced.code == 0, "\(forced.stderr)")
    #expect(forced.stderr.contains("warning:") && forced.stdout.contains("accepted"), "\(forced.stdout)\(forced.stderr)")
    #expect(!FileManager.default.fileExists(atPath: newFile.path))
  }

  @Test("accept takes a golden whose rules hold without a word")
  func acceptTakesAGoodGolden() throws {
    let s = try Scratch([Self.name])
    defer { try? FileManager.default.removeItem(at: s.root) }
    try Self.pending(s)
    let r = try s.run(["accept", Self.name])
    #expect(r.code == 0 && !r.stderr.contains("expect:"), "\(r.stdout)\(r.stderr)")
  }

  @Test("review names the unmet rules before the recording's first pending file")
  func reviewWarns() throws {
    let s = try Self.broken()
    defer { try? FileManager.default.removeItem(at: s.root) }
    try Self.pending(s)
    let r = try s.run(["review", "--reject-all"])
    #expect(!r.stdout.contains("warning:"), "rejecting needs no warning: \(r.stdout)")
    try Self.pending(s)
    let ask = try CLI.run(["review"], cwd: s.root, env: ["CI": "true"], stdin: "s\n")
    #expect(ask.stdout.contains("warning: \(Self.name): the pending golden breaks 1 expect: rule"), "\(ask.stdout)")
    #expect(ask.stdout.contains("expect[1]"), "\(ask.stdout)")
  }
}
