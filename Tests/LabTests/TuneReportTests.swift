import CanonicalJSON
import Foundation
import Testing

@testable import Lab

/// `tune report`'s text and SVG (issue 28.5): the shipped row, one row per distinct front
/// point with its count, every objective and the infeasible reasons in the table, readable axes.
@Suite("tune: report text and plot")
struct TuneReportTests {
  static func t(_ i: Int, _ flicker: Double, _ p90: Double, misses: Double = 0, _ status: TrialStatus = .ok, reason: String? = nil)
    -> TrialResult
  {
    TrialResult(
      index: i, values: [], status: status,
      objectives: ["flicker_per_min": flicker, "latency_p90_ms": p90, "misses": misses], reason: reason)
  }

  /// #1, #2, #3 are one front point (#2 differs in misses); #4 is infeasible; #6 is dominated.
  static func report() throws -> TuneReport {
    let study = try TuneStudy.open(TuneTests.tempStudy("report.sqlite"), create: true)
    try study.bind(try TuneTests.runner(.random, trials: 7).studyMeta(specSHA256: "x", corpus: ["c"]))
    try study.record([
      t(0, 1, 500), t(1, 2, 200), t(2, 2, 200, misses: 3), t(3, 2, 200),
      t(4, 0, 0, .infeasible, reason: "budget_violations 1 > 0"), t(5, 4, 100), t(6, 5, 900),
    ])
    try study.setMeta(TuneStudy.shippedKey, TuneStudy.objectivesJSON(["flicker_per_min": 3, "latency_p90_ms": 700, "misses": 1]))
    return try TuneReport(study: study, objectives: ["flicker_per_min", "latency_p90_ms"])
  }

  @Test func theFrontIsOneRowPerDistinctPointBesideTheShippedRow() throws {
    let r = try Self.report()
    #expect(r.front == [0, 1, 2, 3, 5])
    #expect(r.frontPoints == [[0], [1, 2, 3], [5]])
    let text = r.text(limit: 0)
    #expect(text.contains("Pareto front over flicker_per_min, latency_p90_ms (5 trials, 3 distinct points):\n"), "\(text)")
    let front = text.components(separatedBy: "distinct points):\n")[1].components(separatedBy: "\n\n")[0].split(separator: "\n")
    #expect(front.count == 5, "header, shipped, #0, #1, #5: \(front)")
    #expect(front[0].hasPrefix("trial") && front[0].contains("same point"))
    #expect(front[1].hasPrefix("shipped") && front[1].contains("700"))
    #expect(front[3].hasPrefix("#1") && front[3].contains("×3: #1 #2 #3 (other objectives differ)"))
    #expect(!front.contains { $0.hasPrefix("#2") || $0.hasPrefix("#3") }, "one row per point")
    #expect(r.json.contains("\"pareto_points\":[[0],[1,2,3],[5]]"))
  }

  @Test func theTableHasEveryObjectiveTheReasonsAndTheShippedRow() throws {
    let text = try Self.report().text(limit: 0)
    let table = text.components(separatedBy: "\nTrials:\n")[1].split(separator: "\n")
    #expect(table[0].contains("misses") && table[0].hasSuffix("reason"), "\(table[0])")
    #expect(table[1].hasPrefix("shipped"))
    #expect(table.contains { $0.hasPrefix("#4") && $0.hasSuffix("budget_violations 1 > 0") })
    #expect(table.contains { $0.hasPrefix("#2") && $0.hasSuffix(" 3") }, "misses is a column: \(table)")
  }

  @Test func withoutAShippedRowTheReportSaysSo() throws {
    let study = try TuneStudy.open(TuneTests.tempStudy("noshipped.sqlite"), create: true)
    try study.bind(try TuneTests.runner(.random, trials: 2).studyMeta(specSHA256: "x", corpus: ["c"]))
    try study.record([Self.t(0, 1, 1)])
    let text = try TuneReport(study: study, objectives: ["flicker_per_min"]).text(limit: 0)
    #expect(text.contains("no shipped-spec row"))
  }

  @Test func theAxesHaveSeveralNiceTicksAndTheShippedSpecIsDrawn() throws {
    #expect(TuneSVG.ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1])
    #expect(TuneSVG.ticks(95, 1050) == [200, 400, 600, 800, 1000])
    #expect(TuneSVG.ticks(-0.35, 0.35) == [-0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3])
    #expect(TuneSVG.ticks(1, 1).isEmpty)
    let svg = TuneSVG.render(try Self.report())
    func labels(_ cls: String) -> [Double] {
      svg.components(separatedBy: "<text class=\"\(cls)\"").dropFirst().compactMap { part in
        part.split(separator: ">", maxSplits: 1).last.flatMap { Double($0.prefix { $0 != "<" }) }
      }
    }
    let xs = labels("xtick")
    let ys = labels("ytick")
    #expect(xs.count >= 4 && ys.count >= 4, "x \(xs) y \(ys)")
    #expect(xs == xs.sorted() && ys == ys.sorted())
    // Evenly spaced: one step between neighbours.
    let steps = Set(zip(xs, xs.dropFirst()).map { (($1 - $0) * 1000).rounded() })
    #expect(steps.count == 1, "\(xs)")
    #expect(svg.contains("<title>shipped spec: flicker_per_min 3, latency_p90_ms 700</title>"))
  }
}
