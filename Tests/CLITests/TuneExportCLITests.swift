import Foundation
import Testing

/// `jpreplay tune export --optuna` read back by the Python `optuna` package and served by
/// `optuna-dashboard`'s own API (both installed by
/// `scripts/setup --tests` into .build/venv), and `tune run` stopping when the space is
/// exhausted (exit 3).
@Suite("jpreplay tune export / exhausted (CLI)")
struct TuneExportCLITests {
  /// The virtual environment `scripts/setup --tests` makes (scripts/test runs it).
  static let python = CLI.repoRoot.appendingPathComponent(".build/venv/bin/python3")

  static func scratch() throws -> URL {
    let dir = try TuneCLITests.scratch()
    return dir
  }

  @Test func anExportedStudyReadsBackInOptunaWithTheSameTrials() throws {
    // Fails, not skips: the test tools are part of the test setup.
    guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
      Issue.record("no \(Self.python.path): run scripts/setup --tests (scripts/test does) to install the optuna and optuna-dashboard packages")
      return
    }
    let dir = try Self.scratch()
    let space = """
      seed: 4
      constraints: {budget_violations: 7, expectation_failures: 0}
      objectives: [flicker_per_min, latency_p90_ms]
      cues[*].antiJitter.persistFrames: [2..6]
      options.landmarkFilter: [off, oneEuro]
      options.oneEuroBeta: {min: 0, max: 30, when: "options.landmarkFilter == oneEuro"}

      """
    try TuneCLITests.write(space, dir.appendingPathComponent("space.yaml"))
    let run = try CLI.run(
      ["tune", "run", "space.yaml", "--study", "s.sqlite", "--trials", "6", "--jobs", "1", "--corpus", "drift-*", "--no-validation"], cwd: dir)
    #expect(run.code == 0, "\(run.stderr)")
    let report = try CLI.run(["tune", "report", "s.sqlite", "--json"], cwd: dir)
    #expect(report.code == 0, "\(report.stderr)")
    let exported = try CLI.run(["tune", "export", "--optuna", "s.jsonl", "s.sqlite"], cwd: dir)
    #expect(exported.code == 0, "\(exported.stderr)")
    #expect(exported.stderr.contains("6 trials") && exported.stdout.isEmpty, "\(exported.stderr)")
    // Same bytes twice (no clock in the file).
    let again = try CLI.run(["tune", "export", "--optuna", "s2.jsonl", "s.sqlite"], cwd: dir)
    #expect(again.code == 0)
    #expect(try Data(contentsOf: dir.appendingPathComponent("s.jsonl")) == Data(contentsOf: dir.appendingPathComponent("s2.jsonl")))

    // What the study holds, from `tune report --json`, against what optuna reads.
    let script = CLI.fixtures.appendingPathComponent("optuna-readback.py").path
    let py = try CLI.run([script, "s.jsonl", "s"], cwd: dir, executable: Self.python)
    #expect(py.code == 0, "\(py.stderr)")
    let read = try #require(try JSONSerialization.jsonObject(with: Data(py.stdout.utf8)) as? [String: Any], "\(py.stdout)")
    let json = try #require(try JSONSerialization.jsonObject(with: report.stdoutData) as? [String: Any])
    let ours = try #require(json["trials"] as? [[String: Any]])
    let theirs = try #require(read["trials"] as? [[String: Any]])
    #expect(read["directions"] as? [String] == ["MINIMIZE", "MINIMIZE"])
    // optuna-dashboard serves the same study: its name, every trial, the same best trials.
    let dashboard = try #require(read["dashboard"] as? [String: Any], "\(py.stdout)")
    #expect(dashboard["studies"] as? [String] == ["s"])
    #expect(dashboard["directions"] as? [String] == ["minimize", "minimize"])
    #expect(dashboard["trials"] as? [Int] == Array(0..<ours.count))
    #expect((dashboard["best"] as? [Int]) == (read["best"] as? [Int])?.sorted())
    #expect(theirs.count == ours.count && ours.count == 6)
    for (a, b) in zip(ours, theirs) {
      #expect(a["trial"] as? Int == b["index"] as? Int)
      let status = a["status"] as? String
      #expect(b["status"] as? String == status)
      let objectives = a["objectives"] as? [String: Double] ?? [:]
      if let f = objectives["flicker_per_min"], let l = objectives["latency_p90_ms"] {
        #expect(b["state"] as? String == "COMPLETE")
        #expect(b["values"] as? [Double] == [f, l])
        #expect((b["constraints"] as? [Double])?.count == 2)
      } else {
        #expect(b["state"] as? String == "FAIL")
      }
      // Params: the active ones, with the study's values (inactive beta absent).
      let values = try #require(a["values"] as? [String: Any])
      let params = try #require(b["params"] as? [String: Any])
      for (k, v) in values {
        if v is NSNull {
          #expect(params[k] == nil, "\(k)")
        } else {
          #expect("\(params[k] ?? "missing")" == "\(v)" || (params[k] as? Double) == (v as? Double), "\(k): \(params[k] ?? "missing") vs \(v)")
        }
      }
    }
  }

  @Test func anExportRefusesADirectoryOrALinkAndAMissingStudy() throws {
    let dir = try Self.scratch()
    try TuneCLITests.write("cues[*].antiJitter.persistFrames: [2..3]\n", dir.appendingPathComponent("space.yaml"))
    let run = try CLI.run(["tune", "run", "space.yaml", "--study", "s.sqlite", "--trials", "1", "--jobs", "1", "--corpus", "drift-*", "--no-validation"], cwd: dir)
    #expect(run.code == 0, "\(run.stderr)")
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("out.jsonl"), withIntermediateDirectories: true)
    let d = try CLI.run(["tune", "export", "--optuna", "out.jsonl", "s.sqlite"], cwd: dir)
    #expect(d.code == 2, "\(d.stderr)")
    try TuneCLITests.write("keep", dir.appendingPathComponent("target"))
    try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link.jsonl").path, withDestinationPath: "target")
    let l = try CLI.run(["tune", "export", "--optuna", "link.jsonl", "s.sqlite"], cwd: dir)
    #expect(l.code == 2, "\(l.stderr)")
    #expect(try String(contentsOf: dir.appendingPathComponent("target"), encoding: .utf8) == "keep")
    let m = try CLI.run(["tune", "export", "--optuna", "x.jsonl", "missing.sqlite"], cwd: dir)
    #expect(m.code == 2 && m.stderr.contains("missing.sqlite"), "\(m.stderr)")
  }

  @Test func aStudyOfATinySpaceStopsExhaustedWithExit3AndResumesTheSame() throws {
    let dir = try Self.scratch()
    try TuneCLITests.write("seed: 2\ncues[*].antiJitter.persistFrames: [2..3]\n", dir.appendingPathComponent("space.yaml"))
    let args = ["tune", "run", "space.yaml", "--study", "s.sqlite", "--sampler", "random", "--trials", "5", "--jobs", "1", "--corpus", "drift-*", "--no-validation"]
    let r = try CLI.run(args, cwd: dir)
    #expect(r.code == 3, "\(r.stderr)")
    #expect(r.stderr.contains("exhausted at trial #2 of 5") && r.stderr.contains("2 distinct points"), "\(r.stderr)")
    #expect(r.stdout.contains("2 trials run now"), "\(r.stdout)")
    // A rerun stops at the same trial, running nothing.
    let again = try CLI.run(args, cwd: dir)
    #expect(again.code == 3)
    #expect(again.stdout.contains("0 trials run now, 2 already"), "\(again.stdout)")
  }
}
