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

  @Test("exit 1 with unaccepted hazards, 0 when all are accepted, 2 on a bad accept file; two repros show their hazard")
  func endToEnd() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("repros")
    let r = try CLI.run(["spec", "audit", "PoseSpec.json", "--json", "--jobs", "2", "--out", out.path])
    #expect(r.code == 1, "\(r.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
    let findings = try #require(json["findings"] as? [[String: Any]])
    let keys = findings.compactMap { $0["key"] as? String }
    #expect(keys.contains("inverted-advice DIST_STEP_CLOSER"))
    #expect(keys.contains("never-displayed OUT_11_CROWD_TOO_MUCH"))

    // The committed accepted-hazards file (the help example) covers every hazard: exit 0.
    let ok = try CLI.run(["spec", "audit", "--jobs", "2", "--accept", "docs/audit-accepted.txt"])
    #expect(ok.code == 0, "\(ok.stdout)")
    #expect(ok.stdout.contains("accepted unreachable-level FRAME_ADD_HEADROOM/warn"))
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
