import CanonicalJSON
import Foundation
import JustPhotoPlugin
import Testing

@testable import Lab

/// `tune report` and `tune promote`'s view of a validated study: the shipped row, the
/// validation columns, "does not generalise".
@Suite("tune: report with validation")
struct TuneGeneraliseTests {
  @Test func theShippedRowIsStoredOnceAndMergeCarriesIt() throws {
    let whole = Self.study(shard: (0, 1), "whole.sqlite")
    let a = Self.study(shard: (0, 2), "a.sqlite")
    let b = Self.study(shard: (1, 2), "b.sqlite")
    let shipped = try #require(try TuneStudy.open(whole, create: false).shipped())
    let merged = TuneTests.tempStudy("merged.sqlite")
    #expect(try TuneStudy.merge([a, b], into: merged) == 24)
    #expect(try TuneStudy.open(merged, create: false).shipped() == shipped)
    let objectives = ["flicker_per_min", "latency_p90_ms"]
    let r1 = try TuneReport(study: TuneStudy.open(whole, create: false), objectives: objectives)
    let r2 = try TuneReport(study: TuneStudy.open(merged, create: false), objectives: objectives)
    #expect(r1.json == r2.json)
    #expect(r1.json.contains("\"shipped\":{\"objectives\":{"))
    #expect(r1.json.contains("\"validation_corpus\":[\"v\"]"))
    // Repeated: the same bytes.
    let again = Self.study(shard: (0, 1), "again.sqlite")
    #expect(try TuneReport(study: TuneStudy.open(again, create: false), objectives: objectives).json == r1.json)
  }

  static func study(shard: (Int, Int), _ name: String) -> String {
    let path = TuneTests.tempStudy(name)
    _ = try! TuneValidationTests.run(try! TuneValidationTests.runner(.random, trials: 24, shard: shard), path)
    return path
  }

  @Test func aStudyWithoutValidationCorpusJudgesNoTrial() throws {
    let study = try TuneStudy.open(TuneTests.tempStudy("n.sqlite"), create: true)
    try study.bind(try TuneTests.runner(.random, trials: 1).studyMeta(specSHA256: "x", corpus: ["c"]))
    let report = try TuneReport(study: study, objectives: ["flicker_per_min"])
    #expect(report.generalisation(TrialResult(index: 0, values: [], status: .ok, objectives: [:], reason: nil)) == nil)
    #expect(report.json.contains("\"validation_corpus\":[]"))
  }

  @Test func aTrialWorseThanShippedOnValidationDoesNotGeneralise() throws {
    let path = TuneTests.tempStudy("g.sqlite")
    let space = try TuneTests.space("generalise: {latency_p90_ms: 800}\ncues[*].antiJitter.persistFrames: [2..6]\n")
    let sampler = TuneSampler(kind: .grid, domains: space.parameters.map(\.domain), seed: 1, objective: "flicker_per_min")
    let r = TuneRunner(
      space: space, sampler: sampler, trials: 5, jobs: 1, baseSpec: TuneTests.spec, evaluator: FormulaEvaluator(),
      validator: OtherFormulaEvaluator())
    let study = try TuneValidationTests.run(r, path)
    let report = try TuneReport(study: study, objectives: ["flicker_per_min"], asked: [4])
    #expect(report.budgets.map(\.name) == ["latency_p90_ms"])
    // Grid trials 0…4 take persistFrames 2…6; shipped is 4: validation flicker 1, p90 600.
    let verdicts = report.trials.map { report.generalisation($0)! }
    #expect(verdicts[0].reasons == ["validation flicker_per_min 9 > shipped 1"])
    #expect(verdicts[2].generalises)
    // Better flicker does not make up for a worse latency (issue 35 item 2: every objective).
    #expect(verdicts[3].reasons == ["validation latency_p90_ms 750 > shipped 600"])
    #expect(verdicts[4].reasons == ["validation latency_p90_ms 900 > shipped 600", "validation latency_p90_ms 900 > budget 800"])
    let text = report.text(limit: 0)
    #expect(text.contains("does not generalise: validation flicker_per_min 9 > shipped 1"))
    #expect(text.contains("Trials asked for:\ntrial"))
    let asked = text.components(separatedBy: "Trials asked for:\n")[1].split(separator: "\n")
    #expect(asked[1].hasPrefix("shipped"), "the shipped row comes first")
    #expect(asked[2].hasPrefix("#4"))
    #expect(
      report.json.contains(
        "\"generalises\":false,\"generalise_reasons\":[\"validation latency_p90_ms 900 > shipped 600\",\"validation latency_p90_ms 900 > budget 800\"]"))
    #expect(throws: HarnessFailure.self) { try TuneReport(study: study, objectives: ["flicker_per_min"], asked: [99]) }
  }
}
