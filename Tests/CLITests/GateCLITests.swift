import CanonicalJSON
import Foundation
import Testing

/// Issue 34.3: one gate. `accept NAME`, `accept --all`, `accept --decisions`, interactive
/// `review`, `review --group` and `tune promote` run the same checks (stale recording, unmet
/// expect: rules, the SHA-256 of the pending file the decider saw, the trial's feasibility),
/// each refusing unless --force; rules naming unknown cue ids are bad input.
@Suite("One gate (CLI)")
struct GateCLITests {
  typealias Scratch = GroundTruthStabilityTests.Scratch
  static let name = RuleEnforcementTests.name

  static func newFile(_ s: Scratch, _ kind: String = "trace") -> URL {
    s.root.appendingPathComponent("Golden/\(name).\(kind).jsonl.new")
  }

  /// A decisions file accepting `name`, pinning `pending` (kind → SHA-256).
  static func decisions(_ s: Scratch, pending: [String: String]) throws -> URL {
    let pins = JSONValue.object(JSONObject(pending.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) }))
    let decision: JSONValue = .object(["recording": .string(name), "decision": .string("accept"), "pending": pins])
    let doc: JSONValue = .object(["format": .string("jpreplay-decisions"), "version": .number(1), "decisions": .array([decision])])
    let url = s.root.appendingPathComponent("decisions.json")
    try JSONWriter.write(doc).write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  static func sha(_ url: URL) throws -> String { SHA256.hex([UInt8](try Data(contentsOf: url))) }

  @Test("accept --decisions refuses a decision that carries no SHA-256 of the pending file")
  func decisionWithoutSHAIsRefused() throws {
    let s = try Scratch([Self.name])
    defer { try? FileManager.default.removeItem(at: s.root) }
    try RuleEnforcementTests.pending(s)
    let file = try Self.decisions(s, pending: [:])
    let r = try s.run(["accept", "--decisions", file.path])
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("carries no SHA-256") && r.stderr.contains("(seen)"), "\(r.stderr)")
    #expect(FileManager.default.fileExists(atPath: Self.newFile(s).path), "nothing accepted")
    // With the SHA the page carries, the same decision applies.
    let pinned = try Self.decisions(s, pending: ["trace": try Self.sha(Self.newFile(s))])
    let ok = try s.run(["accept", "--decisions", pinned.path])
    #expect(ok.code == 0 && ok.stdout.contains("accepted \(Self.name).trace.jsonl.new"), "\(ok.stdout)\(ok.stderr)")
  }

  @Test("accept --decisions checks the scenario's expect: rules as accept does (exit 1 unless --force)")
  func decisionsCheckTheRules() throws {
    let s = try RuleEnforcementTests.broken()
    defer { try? FileManager.default.removeItem(at: s.root) }
    try RuleEnforcementTests.pending(s)
    let file = try Self.decisions(s, pending: ["trace": try Self.sha(Self.newFile(s))])
    let r = try s.run(["accept", "--decisions", file.path])
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("breaks 1 expect: rule") && r.stderr.contains("expect[1]") && r.stderr.contains("--force"), "\(r.stderr)")
    #expect(FileManager.default.fileExists(atPath: Self.newFile(s).path), "nothing accepted")
    let forced = try s.run(["accept", "--decisions", file.path, "--force"])
    #expect(forced.code == 0 && forced.stderr.contains("warning:"), "\(forced.stdout)\(forced.stderr)")
    #expect(!FileManager.default.fileExists(atPath: Self.newFile(s).path))
  }

  @Test("review refuses to accept a golden that breaks its rules, as accept does; --force accepts it")
  func reviewRefusesBrokenRules() throws {
    let s = try RuleEnforcementTests.broken()
    defer { try? FileManager.default.removeItem(at: s.root) }
    try RuleEnforcementTests.pending(s)
    let ask = try CLI.run(["review"], cwd: s.root, env: ["CI": "true"], stdin: "a\n")
    #expect(ask.code == 1, "\(ask.stdout)\(ask.stderr)")
    #expect(ask.stdout.contains("refusing \(Self.name).trace.jsonl.new") && ask.stdout.contains("(rules)"), "\(ask.stdout)")
    #expect(ask.stdout.contains("--force"), "\(ask.stdout)")
    #expect(FileManager.default.fileExists(atPath: Self.newFile(s).path), "still pending")
    let all = try s.run(["review", "--accept-all"])
    #expect(all.code == 1 && FileManager.default.fileExists(atPath: Self.newFile(s).path), "\(all.stdout)")
    let group = try CLI.run(["review", "--group"], cwd: s.root, env: ["CI": "true"], stdin: "a\n")
    #expect(group.code == 1 && group.stdout.contains("refusing"), "\(group.stdout)")
    #expect(FileManager.default.fileExists(atPath: Self.newFile(s).path), "still pending")
    let forced = try CLI.run(["review", "--force"], cwd: s.root, env: ["CI": "true"], stdin: "a\n")
    #expect(forced.code == 0 && forced.stdout.contains("accepted \(Self.name).trace.jsonl.new"), "\(forced.stdout)")
    #expect(!FileManager.default.fileExists(atPath: Self.newFile(s).path))
  }

  @Test("accept and review refuse a pending golden of a stale recording (exit 1 unless --force)")
  func staleRecordingIsRefused() throws {
    let s = try Scratch([Self.name])
    defer { try? FileManager.default.removeItem(at: s.root) }
    let url = s.recordings.appendingPathComponent("\(Self.name).scenario.yaml")
    let text = try String(contentsOf: url, encoding: .utf8)
    try text.replacingOccurrences(of: "  x: 0.65\n", with: "  x: 0.66\n").write(to: url, atomically: true, encoding: .utf8)
    try RuleEnforcementTests.pending(s)
    let r = try s.run(["accept", Self.name])
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("stale recording") && r.stderr.contains("jpreplay record") && r.stderr.contains("(stale)"), "\(r.stderr)")
    #expect(FileManager.default.fileExists(atPath: Self.newFile(s).path))
    let review = try CLI.run(["review"], cwd: s.root, env: ["CI": "true"], stdin: "a\n")
    #expect(review.code == 1 && review.stdout.contains("refusing"), "\(review.stdout)")
    let forced = try s.run(["accept", Self.name, "--force"])
    #expect(forced.code == 0 && forced.stderr.contains("warning:"), "\(forced.stderr)")
  }

  @Test("an expect: rule naming a cue the spec does not have is bad input with a did-you-mean")
  func unknownCueIsBadInput() throws {
    let s = try Scratch([Self.name])
    defer { try? FileManager.default.removeItem(at: s.root) }
    let url = s.recordings.appendingPathComponent("\(Self.name).scenario.yaml")
    let text = try String(contentsOf: url, encoding: .utf8)
    try text.replacingOccurrences(of: "  - {praise: {at_most: 0}}\n", with: "  - {praise: {at_most: 0}}\n  - {not_displayed: FRAME_MOVE_LFET, from: 0, to: 100}\n")
      .write(to: url, atomically: true, encoding: .utf8)
    let r = try s.run(["verify", Self.name])
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    let out = r.stdout + r.stderr
    #expect(out.contains("\(Self.name).scenario.yaml:") && out.contains("expect[3]"), "\(out)")
    #expect(out.contains("unknown cue id \"FRAME_MOVE_LFET\"") && out.contains("did you mean \"FRAME_MOVE_LEFT\""), "\(out)")
    // The gate refuses to bless it too.
    try RuleEnforcementTests.pending(s)
    let accept = try s.run(["accept", Self.name])
    #expect(accept.code == 2 && accept.stderr.contains("unknown cue id"), "\(accept.stderr)")
  }

  @Test("a Just Photo rule naming a field trace lines do not have is bad input with a did-you-mean, as PixScan's are")
  func unknownFieldIsBadInput() throws {
    let s = try Scratch([Self.name])
    defer { try? FileManager.default.removeItem(at: s.root) }
    let url = s.recordings.appendingPathComponent("\(Self.name).scenario.yaml")
    let text = try String(contentsOf: url, encoding: .utf8)
    // Misspelt, the never: rule would hold whatever the prompts are.
    try text.replacingOccurrences(of: "  - {praise: {at_most: 0}}\n", with: "  - {praise: {at_most: 0}}\n  - {never: prompt, with: {kye: write_failed_block}}\n")
      .write(to: url, atomically: true, encoding: .utf8)
    let r = try s.run(["verify", Self.name])
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    let out = r.stdout + r.stderr
    #expect(out.contains("\(Self.name).scenario.yaml:") && out.contains("unknown field \"kye\" of prompt lines (did you mean \"key\"?)"), "\(out)")
  }
}
