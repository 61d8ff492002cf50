import Foundation
import Testing

/// Issue 34.3, `tune promote` through the one gate: an infeasible trial is refused unless
/// --force; an in-place promote writes the trial's engine options where verify reads them and
/// verifies with them.
@Suite("tune promote through the gate (CLI)")
struct PromoteGateCLITests {
  /// A study of `space` on drift-left-and-back (grid sampler), in `TuneCLITests.scratch()`.
  static func study(_ space: String) throws -> URL {
    let dir = try TuneCLITests.scratch()
    try TuneCLITests.write(space, dir.appendingPathComponent("space.yaml"))
    let run = try CLI.run(["tune", "run", "space.yaml", "--study", "s.sqlite", "--sampler", "grid", "--corpus", "drift-*"], cwd: dir)
    #expect(run.code == 0, "\(run.stderr)")
    return dir
  }

  @Test("tune promote refuses an infeasible trial (exit 1, nothing written) unless --force")
  func promoteRefusesAnInfeasibleTrial() throws {
    // praise_per_min ≤ 1 is a constraint drift-left-and-back cannot keep (5): trial #0 is infeasible.
    let dir = try Self.study("constraints: {praise_per_min: 1}\ncues[FRAME_MOVE_*].antiJitter.persistFrames: [1]\n")
    defer { try? FileManager.default.removeItem(at: dir) }
    let shipped = try String(contentsOf: dir.appendingPathComponent("PoseSpec.json"), encoding: .utf8)
    let r = try CLI.run(["tune", "promote", "s.sqlite", "0", "--no-verify"], cwd: dir)
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("trial #0 is infeasible (praise_per_min 5 > 1)") && r.stderr.contains("(feasible)") && r.stderr.contains("--force"), "\(r.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("PoseSpec.json"), encoding: .utf8) == shipped, "nothing written")
    let forced = try CLI.run(["tune", "promote", "s.sqlite", "0", "--no-verify", "--force"], cwd: dir)
    #expect(forced.code == 0 && forced.stderr.contains("warning: trial #0 is infeasible"), "\(forced.stdout)\(forced.stderr)")
  }

  @Test("tune promote in place writes the trial's engine options where verify reads them, and verifies with them")
  func promoteWritesEngineOptionsVerifyReads() throws {
    let dir = try Self.study("options.landmarkFilter: [oneEuro]\n")
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try CLI.run(["tune", "promote", "s.sqlite", "0"], cwd: dir)
    #expect(r.code == 0, "\(r.stdout)\(r.stderr)")
    let options = dir.appendingPathComponent("options.txt")
    #expect(try String(contentsOf: options, encoding: .utf8) == "landmarkFilter=oneEuro\n", "\(r.stdout)")
    // The verify promote ran replayed with the option: its .new is the filtered replay.
    let pending = dir.appendingPathComponent("Golden/drift-left-and-back.trace.jsonl.new")
    let filtered = try CLI.run(
      ["replay", "Recordings/drift-left-and-back.jprec", "--set", "landmarkFilter=oneEuro", "-o", "filtered.jsonl"], cwd: dir, env: ["CI": "true"])
    #expect(filtered.code == 0, "\(filtered.stderr)")
    let filteredTrace = try String(contentsOf: dir.appendingPathComponent("filtered.jsonl"), encoding: .utf8)
    #expect(try String(contentsOf: pending, encoding: .utf8) == filteredTrace)
    // A later verify (CI's) reads the same file: it matches the .new, not the old golden.
    try FileManager.default.removeItem(at: pending)
    let ci = try CLI.run(["verify", "--update", "new"], cwd: dir, env: ["CI": "true"])
    #expect(ci.code == 1, "\(ci.stdout)")
    #expect(try String(contentsOf: pending, encoding: .utf8) == filteredTrace)
    // A malformed options file is bad input naming file and line.
    try TuneCLITests.write("landmarkFilter=oneEuro\nnonsense\n", options)
    let bad = try CLI.run(["verify"], cwd: dir, env: ["CI": "true"])
    #expect(bad.code == 2 && bad.stderr.contains("options.txt: line 2"), "\(bad.stdout)\(bad.stderr)")
  }
}
