import Foundation
import Testing

/// `jpreplay spec audit` end to end (issue 16): exit codes, the accepted-hazards file, and
/// repros that, recorded and replayed, show their hazard in the trace.
@Suite("spec audit CLI", .serialized)
struct SpecAuditCLITests {
  static func tempDir() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jpreplay-audit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  /// The `cue_eval` levels and displayed cues of a repro, recorded and replayed.
  static func replayRepro(_ yaml: URL, in dir: URL) throws -> (evals: [String], displays: [String]) {
    let rec = try CLI.run(["record", yaml.path])
    #expect(rec.code == 0, "\(rec.stderr)")
    let jprec = yaml.deletingLastPathComponent().appendingPathComponent(
      yaml.lastPathComponent.replacingOccurrences(of: ".scenario.yaml", with: ".jprec"))
    let out = try CLI.run(["replay", jprec.path, "--trace", "metrics"])
    #expect(out.code == 0, "\(out.stderr)")
    let lines = out.stdout.split(separator: "\n").map(String.init)
    return (lines.filter { $0.contains("\"cue_eval\"") }, lines.filter { $0.contains("\"cue_display\"") })
  }

  /// The two hazards the committed accepted-hazards file is read without (below).
  static let leftOut = ["inverted-advice DIST_STEP_CLOSER", "never-displayed OUT_11_CROWD_TOO_MUCH"]

  /// One full audit (a debug audit is about 110 CPU-seconds), read three ways: with the
  /// committed accepted-hazards file less two of its lines, exactly the hazards of those two
  /// lines are not accepted (exit 1) — so the whole file accepts every hazard (its help
  /// example's exit 0) — and their repros show them.
  @Test("exit 1 with unaccepted hazards, exactly those the accept file leaves out, 2 on a bad accept file; two repros show their hazard")
  func endToEnd() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("repros")
    let committed = try String(contentsOf: CLI.repoRoot.appendingPathComponent("docs/audit-accepted.txt"), encoding: .utf8)
    let lines = committed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for l in Self.leftOut { #expect(lines.contains(l), "docs/audit-accepted.txt no longer accepts \(l)") }
    let partial = dir.appendingPathComponent("partial.txt")
    try lines.filter { !Self.leftOut.contains($0) }.joined(separator: "\n").write(to: partial, atomically: true, encoding: .utf8)
    let r = try CLI.run(["spec", "audit", "PoseSpec.json", "--json", "--jobs", "2", "--accept", partial.path, "--out", out.path])
    #expect(r.code == 1, "\(r.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
    let findings = try #require(json["findings"] as? [[String: Any]])
    let keys = findings.compactMap { $0["key"] as? String }
    #expect(keys.contains("inverted-advice DIST_STEP_CLOSER"))
    #expect(keys.contains("never-displayed OUT_11_CROWD_TOO_MUCH"))
    // Not accepted: exactly the findings of the two lines left out (a line without a level
    // covers every level). So docs/audit-accepted.txt, those two lines included, accepts every
    // hazard: `spec audit --accept docs/audit-accepted.txt` exits 0 (its help example).
    let unaccepted = findings.filter { $0["accepted"] as? Bool == false }.compactMap { $0["key"] as? String }
    let ofLeftOut = { (key: String) in Self.leftOut.contains { key == $0 || key.hasPrefix($0 + "/") } }
    #expect(!unaccepted.isEmpty && unaccepted.allSatisfy(ofLeftOut), "\(unaccepted)")
    #expect(Set(keys.filter(ofLeftOut)) == Set(unaccepted), "\(unaccepted)")
    #expect(findings.contains { $0["key"] as? String == "unreachable-level FRAME_ADD_HEADROOM/warn" && $0["accepted"] as? Bool == true })
    let accept = dir.appendingPathComponent("accepted.txt")
    // A malformed line: exit 2 naming the file and line.
    try "never-fires\n".write(to: accept, atomically: true, encoding: .utf8)
    let bad = try CLI.run(["spec", "audit", "PoseSpec.json", "--accept", accept.path])
    #expect(bad.code == 2)
    #expect(bad.stderr.contains("accepted.txt:1"))

    // G-49: the feet-cropped repro says "step closer" to a subject who is too close.
    let inverted = try #require(findings.first { $0["key"] as? String == "inverted-advice DIST_STEP_CLOSER" })
    let feet = out.appendingPathComponent(try #require(inverted["repro"] as? String))
    let a = try Self.replayRepro(feet, in: out)
    #expect(a.evals.contains { $0.range(of: #""DIST_STEP_CLOSER":\{[^}]*"level":"(warn|hard)""#, options: .regularExpression) != nil })
    #expect(a.displays.contains { $0.contains("DIST_STEP_CLOSER") })

    // G-53: OUT_11 reaches warn in cue_eval and is never displayed.
    let crowd = try #require(findings.first { $0["key"] as? String == "never-displayed OUT_11_CROWD_TOO_MUCH" })
    let b = try Self.replayRepro(out.appendingPathComponent(try #require(crowd["repro"] as? String)), in: out)
    #expect(b.evals.contains { $0.range(of: #""OUT_11_CROWD_TOO_MUCH":\{[^}]*"level":"(warn|hard)""#, options: .regularExpression) != nil })
    #expect(!b.displays.contains { $0.contains("OUT_11") })
  }
}
