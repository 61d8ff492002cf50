import Foundation
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `jpreplay score` and `jpreplay plot` end to end (issue 15 items 3 and 7).
@Suite("score and plot CLI")
struct ScoreCLITests {
  static let drift = "Recordings/drift-left-and-back.jprec"

  @Test("score prints a row per recording and a total; --json has every objective; the two agree")
  func scoreTableAndJSON() throws {
    let names = [Self.drift, "Recordings/s05-head-level-flicker.jprec"]
    let r = try CLI.run(["score"] + names + ["--jobs", "2"])
    #expect(r.code == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    #expect(lines.first?.hasPrefix("recording") == true)
    #expect(lines.contains { $0.hasPrefix("drift-left-and-back ") })
    #expect(lines.contains { $0.hasPrefix("s05-head-level-flicker ") })
    let total = try #require(lines.last)
    #expect(total.hasPrefix("TOTAL (2)"))
    let j = try CLI.run(["score"] + names + ["--json"])
    #expect(j.code == 0, "\(j.stderr)")
    let doc = try #require(try JSONSerialization.jsonObject(with: j.stdoutData) as? [String: Any])
    let totals = try #require(doc["total"] as? [String: Any])
    for key in [
      "flicker_per_min", "latency_p50_ms", "latency_p90_ms", "misses", "false_alarms", "praise_per_min",
      "budget_violations", "expectation_failures",
    ] {
      #expect(totals[key] is NSNumber, "\(key)")
    }
    let recs = try #require(doc["recordings"] as? [[String: Any]])
    #expect(recs.map { $0["name"] as? String } == ["drift-left-and-back", "s05-head-level-flicker"])
    // The table's total misses equal the JSON's.
    let cells = total.split(separator: " ", omittingEmptySubsequences: true)
    let misses = (totals["misses"] as? NSNumber)?.intValue ?? -1
    #expect(cells.contains(Substring("\(misses)")))
  }

  @Test("a tighter budget shows as budget breaches with --details")
  func budgetsAndDetails() throws {
    let loose = try CLI.run(["score", Self.drift, "--json"])
    let tight = try CLI.run(["score", Self.drift, "--json", "--budget", "minHoldMs=100000"])
    func breaches(_ r: CLI.Result) throws -> Double {
      let doc = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
      return try #require(((doc["total"] as? [String: Any])?["budget_violations"] as? NSNumber)?.doubleValue)
    }
    #expect(try breaches(tight) > breaches(loose))
    let d = try CLI.run(["score", Self.drift, "--details", "--budget", "minHoldMs=100000"])
    #expect(d.stdout.contains("drift-left-and-back: budget "))
  }

  @Test("bare score scores the corpus in Recordings/, as verify and coverage do")
  func bareScoreScoresTheCorpus() throws {
    let dir = try CLI.tempDir("score-corpus")
    defer { try? FileManager.default.removeItem(at: dir) }
    let recordings = dir.appendingPathComponent("Recordings")
    try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: CLI.repoRoot.appendingPathComponent(Self.drift), to: recordings.appendingPathComponent("drift-left-and-back.jprec"))
    try FileManager.default.copyItem(
      at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    let bare = try CLI.run(["score", "--json"], cwd: dir)
    let all = try CLI.run(["score", "--all", "--json"], cwd: dir)
    #expect(bare.code == 0, "\(bare.stderr)")
    #expect(bare.stdout.contains("drift-left-and-back") && bare.stdout == all.stdout, "\(bare.stdout)")
  }

  @Test("bad input exits 2 naming the problem")
  func badInput() throws {
    let missing = try CLI.run(["score", "Recordings/no-such.jprec"])
    #expect(missing.code == 2)
    #expect(missing.stderr.contains("no-such.jprec"))
    // Bare `score` scores the corpus, Recordings/; a folder without one is bad input.
    let empty = try CLI.tempDir("score-empty")
    defer { try? FileManager.default.removeItem(at: empty) }
    let none = try CLI.run(["score"], cwd: empty)
    #expect(none.code == 2 && none.stderr.contains("Recordings: no such folder"), "\(none.stderr)")
    let budget = try CLI.run(["score", Self.drift, "--budget", "nonsense=1"])
    #expect(budget.code == 2)
    #expect(budget.stderr.contains("unknown budget"))
    let cue = try CLI.run(["plot", Self.drift, "--cue", "NOT_A_CUE", "-o", "-"])
    #expect(cue.code == 2)
    #expect(cue.stderr.contains("NOT_A_CUE"))
  }

  @Test("plot writes a valid SVG file; several recordings go to a folder")
  func plotFiles() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jp-plot-\(getpid())")
    defer { try? FileManager.default.removeItem(at: dir) }
    let one = dir.appendingPathComponent("drift.svg").path
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let r = try CLI.run(["plot", Self.drift, "--from", "500", "--to", "4000", "-o", one])
    #expect(r.code == 0, "\(r.stderr)")
    let data = try Data(contentsOf: URL(fileURLWithPath: one))
    #expect(XMLParser(data: data).parse())
    let many = try CLI.run(["plot", Self.drift, "Recordings/s05-head-level-flicker.jprec", "-o", dir.appendingPathComponent("all").path])
    #expect(many.code == 0, "\(many.stderr)")
    for name in ["drift-left-and-back", "s05-head-level-flicker"] {
      let file = dir.appendingPathComponent("all/\(name).timeline.svg")
      #expect(XMLParser(data: try Data(contentsOf: file)).parse(), "\(name)")
    }
    // One recording and -o naming an existing folder: the file goes inside it, the folder stays.
    let into = try CLI.run(["plot", Self.drift, "-o", dir.path + "/"])
    #expect(into.code == 0, "\(into.stderr)")
    #expect(XMLParser(data: try Data(contentsOf: dir.appendingPathComponent("drift-left-and-back.timeline.svg"))).parse())
    let stdout = try CLI.run(["plot", Self.drift, "-o", "-"])
    #expect(stdout.stdout.hasPrefix("<?xml"))
  }
}
