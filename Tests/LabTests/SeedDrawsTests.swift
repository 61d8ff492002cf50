import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import JustPhotoPlugin
import PoseSpec
import Recording
import JustPhotoScenarios
import Testing
import Verify

@testable import Lab

/// A fit evaluator whose draws differ: one per draw index, known values (issue 35 item 2 on
/// figures that can be checked by hand). Draw k adds `noise[k]` to flicker (the same for
/// every trial: a paired difference cancels it) and `latencyShift · k` per frame of persistFrames
/// away from 4 to latency (a difference that varies by draw).
struct DrawnFormulaEvaluator: TrialEvaluator, Sendable {
  var noise: [Double]
  var latencyShift: Double = 0
  func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double] {
    let persist = specJSON["cues"]?.arrayValue?.first?["antiJitter"]?["persistFrames"]?.doubleValue ?? 0
    var out: [String: Double] = [:]
    var sums: [String: Double] = [:]
    for (k, n) in noise.enumerated() {
      let d: [String: Double] = [
        "flicker_per_min": (persist - 4) * (persist - 4) + n, "latency_p90_ms": persist * 100 + latencyShift * Double(k) * (persist - 4),
        "budget_violations": 0,
      ]
      for (key, v) in d {
        out[SeedDraws.key(key, draw: k)] = v
        sums[key, default: 0] += v
      }
    }
    for (key, v) in sums { out[key] = v / Double(noise.count) }
    return out
  }
}

@Suite("Seed draws")
struct SeedDrawsTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static func path(_ rel: String) -> String { root.appendingPathComponent(rel).path }

  @Test("derived seeds: draw 0 is the scenario's seed; draw k a pure function of (name, seed, k), distinct per k and name")
  func derivedSeeds() {
    #expect(SeedDraws.seed(7, name: "a", draw: 0) == 7)
    let s = (1...8).map { SeedDraws.seed(7, name: "a", draw: $0) }
    #expect(Set(s).count == 8 && !s.contains(7))
    #expect(s == (1...8).map { SeedDraws.seed(7, name: "a", draw: $0) })
    #expect(SeedDraws.seed(7, name: "b", draw: 1) != s[0])
    #expect(SeedDraws.key("flicker_per_min", draw: 2) == "flicker_per_min@2")
    let split = SeedDraws.split("val.latency_p90_ms@11")
    #expect(split?.key == "val.latency_p90_ms" && split?.draw == 11)
    #expect(SeedDraws.split("flicker_per_min") == nil)
    #expect(throws: HarnessFailure.self) { try SeedDraws.check(0) }
    #expect(throws: HarnessFailure.self) { try SeedDraws.check(SeedDraws.drawsMax + 1) }
  }

  @Test("a corpus drawn again in memory: draw 0 is the committed file, draw 1 other frames with the same labels, the same bytes twice")
  func drawsInMemory() throws {
    let paths = [Self.path("Recordings/drift-left-and-back.jprec")]
    let d0 = try CorpusScorer(paths: paths, draw: 0).recordings[0]
    let file = try CorpusScorer(paths: paths).recordings[0]
    let d1 = try CorpusScorer(paths: paths, draw: 1).recordings[0]
    let again = try CorpusScorer(paths: paths, draw: 1).recordings[0]
    #expect(d0.events.count == file.events.count && d0.name == "drift-left-and-back" && d1.name == d0.name)
    #expect(d1.labels == d0.labels, "labels come from the declared intent alone")
    let line0 = d0.events.map { JSONLEventEncoder.line($0) }
    let line1 = d1.events.map { JSONLEventEncoder.line($0) }
    #expect(line0 != line1, "another seed, other noise")
    #expect(line1 == again.events.map { JSONLEventEncoder.line($0) }, "deterministic")
    #expect(d1.header["seed"]?.doubleValue == Double(SeedDraws.seed(7, name: "drift-left-and-back", draw: 1)))
  }

  @Test("SeededScorer: one draw is the corpus scorer itself; K draws give KEY@k and the mean; replays grow as K × recordings")
  func seededScorer() throws {
    let paths = [Self.path("Recordings/drift-left-and-back.jprec")]
    let spec = try Harness.loadSpec(path: Self.path("PoseSpec.json"))
    let one = try CorpusScorer(paths: paths)
    let single = SeededScorer(draws: [one])
    #expect(try single.objectives(specJSON: spec.raw, options: EngineOptions()) == one.objectives(specJSON: spec.raw, options: EngineOptions()))
    let three = SeededScorer(draws: try (0..<3).map { try CorpusScorer(paths: paths, draw: $0) })
    #expect(three.replaysPerTrial == 3 * single.replaysPerTrial && single.replaysPerTrial == 1)
    let o = try three.objectives(specJSON: spec.raw, options: EngineOptions())
    for key in CorpusScore.objectiveKeys {
      let v = (0..<3).map { o[SeedDraws.key(key, draw: $0)]! }
      #expect(abs(o[key]! - v.reduce(0, +) / 3) < 1e-9, "\(key)")
    }
    #expect(o.count == CorpusScore.objectiveKeys.count * 4)
  }

  @Test("intervals: mean ± t·s/√K; one draw has none; a paired difference worse beyond noise, or not excluding worse")
  func intervals() {
    let i = DrawInterval([1, 2, 3])
    #expect(i.mean == 2 && abs(i.high - (2 + 4.303 / 3.0.squareRoot())) < 1e-9 && abs(i.low - (2 - 4.303 / 3.0.squareRoot())) < 1e-9)
    #expect(DrawInterval([5]).low == 5 && DrawInterval([5]).high == 5 && DrawInterval([5]).worse)
    #expect(DrawInterval([0, 0]).excludesWorse && !DrawInterval([0, 0]).worse)
    let noisy = DrawInterval([-1, 2, 0.5])
    #expect(!noisy.worse && !noisy.excludesWorse)
    let d = SeedDraws.pairedDifference(
      "x", trial: ["x@0": 3, "x@1": 4, "x@2": 5], shipped: ["x@0": 1, "x@1": 2, "x@2": 3.2], draws: 3)!
    #expect(d.worse, "2, 2, 1.8 more on the same draws: worse beyond noise, though the unpaired ranges overlap")
    #expect(SeedDraws.pairedDifference("x", trial: ["x@0": 1], shipped: ["x@0": 1, "x@1": 2], draws: 2) == nil)
  }

  static func study(_ name: String, noise: [Double], latencyShift: Double = 0, draws: Int, settings: String = "") throws -> TuneStudy {
    let path = TuneTests.tempStudy(name)
    let space = try TuneTests.space(settings + "cues[*].antiJitter.persistFrames: [3..5]\n")
    let sampler = TuneSampler(kind: .grid, domains: space.parameters.map(\.domain), seed: 1, objective: "flicker_per_min")
    var r = TuneRunner(
      space: space, sampler: sampler, trials: 3, jobs: 1, baseSpec: TuneTests.spec,
      evaluator: DrawnFormulaEvaluator(noise: noise, latencyShift: latencyShift),
      validator: DrawnFormulaEvaluator(noise: noise.reversed(), latencyShift: latencyShift))
    r.draws = draws
    let study = try TuneStudy.open(path, create: true)
    try study.bind(r.studyMeta(specSHA256: "x", corpus: ["c"], validation: ["v"]))
    try r.run(study: study)
    return study
  }

  @Test("tune report: means with intervals, paired differences, generalises only when every objective's interval excludes worse")
  func report() throws {
    let study = try Self.study("r.sqlite", noise: [0, 0.5, 1], draws: 3)
    let report = try TuneReport(study: study, objectives: ["flicker_per_min"], asked: [2])
    #expect(report.draws == 3)
    // Trials: persistFrames 3, 4 (shipped), 5. Latency +100 per frame on every draw.
    let t = Dictionary(uniqueKeysWithValues: report.trials.map { ($0.index, $0) })
    #expect(report.generalisation(t[1]!)!.generalises)
    let g0 = report.generalisation(t[0]!)!
    #expect(g0.reasons == ["validation flicker_per_min +1 [+1, +1] vs shipped on 3 draws: worse beyond noise"], "\(g0.reasons)")
    let g2 = report.generalisation(t[2]!)!
    #expect(g2.reasons.count == 2 && g2.reasons[1].hasPrefix("validation latency_p90_ms +100 [+100, +100]"), "not flicker alone: \(g2.reasons)")
    // The gate's reasons: worse beyond noise, on validation.
    #expect(report.worseThanShipped(t[2]!).count == 2 && report.worseThanShipped(t[1]!).isEmpty)
    let text = report.text(limit: 0)
    #expect(text.contains("Scored on 3 detector draws"), "\(text)")
    #expect(text.contains("Paired differences with the shipped spec"), "\(text)")
    #expect(text.contains("1.5 ["), "a mean with its interval: \(text)")
    let json = report.json
    #expect(json.contains("\"draws\":3") && json.contains("\"paired_differences\":{") && json.contains("\"intervals\":{"))
    #expect(!json.contains("@0"), "per-draw keys stay out of objectives")
  }

  @Test("noise on the paired difference: may be worse (does not generalise) but not worse beyond noise (the gate lets it pass)")
  func noisyDifference() throws {
    // Trial #2 (persistFrames 5) against shipped (4): latency +100, 0, −100 on draws 0, 1, 2;
    // flicker +1 on every draw (its noise is common to both: the pairing removes it).
    let study = try Self.study("n.sqlite", noise: [0, 3, 2], latencyShift: -100, draws: 3)
    let report = try TuneReport(study: study, objectives: ["flicker_per_min"])
    let t2 = try #require(report.trials.first { $0.index == 2 })
    let worse = report.worseThanShipped(t2)
    #expect(worse == ["validation flicker_per_min +1 [+1, +1] vs shipped on 3 draws"], "\(worse)")
    let g = try #require(report.generalisation(t2))
    #expect(g.reasons.contains { $0.hasPrefix("validation latency_p90_ms 0 [-") && $0.hasSuffix(": may be worse") }, "\(g.reasons)")
  }

  @Test("tolerate: a declared non-inferiority margin: worse by no more than it is no worse, past it the gate refuses and says so")
  func tolerance() throws {
    // Trial #2 is +100 ms of validation latency p90 on every draw, and +1 flicker.
    let within = try TuneReport(
      study: try Self.study("t1.sqlite", noise: [0, 0.5, 1], draws: 3, settings: "tolerate: {latency_p90_ms: 150}\n"),
      objectives: ["flicker_per_min"])
    let t2 = try #require(within.trials.first { $0.index == 2 })
    #expect(within.tolerance("latency_p90_ms") == 150 && within.tolerance("flicker_per_min") == 0)
    #expect(within.worseThanShipped(t2) == ["validation flicker_per_min +1 [+1, +1] vs shipped on 3 draws"], "\(within.worseThanShipped(t2))")
    #expect(!(within.generalisation(t2)?.reasons.contains { $0.contains("latency_p90_ms") } ?? true))
    #expect(within.text(limit: 0).contains("latency_p90_ms +150 counts as no worse"))
    #expect(within.json.contains("\"tolerate\":{\"latency_p90_ms\":150}"))
    let past = try TuneReport(
      study: try Self.study("t2.sqlite", noise: [0, 0.5, 1], draws: 3, settings: "tolerate: {latency_p90_ms: 50}\n"),
      objectives: ["flicker_per_min"])
    let p2 = try #require(past.trials.first { $0.index == 2 })
    #expect(past.worseThanShipped(p2).contains("validation latency_p90_ms +100 [+100, +100] vs shipped on 3 draws, past the tolerated +50"), "\(past.worseThanShipped(p2))")
    // A negative margin is refused at its place.
    #expect(throws: HarnessFailure.self) { try TuneTests.space("tolerate: {latency_p90_ms: -1}\ncues[*].antiJitter.persistFrames: [3..5]\n") }
    #expect(throws: HarnessFailure.self) { try TuneTests.space("tolerate: {nonsense: 1}\ncues[*].antiJitter.persistFrames: [3..5]\n") }
  }

  @Test("a study records its draws and seed derivation: a rerun, --extend or merge with another count is refused naming it")
  func identity() throws {
    let path = TuneTests.tempStudy("i.sqlite")
    var r = try TuneTests.runner(.random, trials: 2)
    r.draws = 3
    let study = try TuneStudy.open(path, create: true)
    try study.bind(r.studyMeta(specSHA256: "x", corpus: ["c"]))
    #expect(try study.meta()["draws"] == "3")
    #expect(try study.meta()["seed_derivation"] == SeedDraws.derivation)
    r.draws = 1
    do {
      try study.bind(r.studyMeta(specSHA256: "x", corpus: ["c"]))
      Issue.record("a study of 3 draws continued with 1")
    } catch { #expect(error.message.contains("draws = 3, not 1"), "\(error.message)") }
    var more = r.studyMeta(specSHA256: "x", corpus: ["c"])
    more = more.map { $0.0 == "trials" ? ("trials", "5") : $0 }
    do {
      try study.extend(more)
      Issue.record("extended with another draw count")
    } catch { #expect(error.message.contains("draws = 3, not 1"), "\(error.message)") }
    // A study made before draws existed reads as one draw, the present derivation.
    #expect(TuneStudy.identity([:], "draws") == "1" && TuneStudy.identity([:], "seed_derivation") == SeedDraws.derivation)
    // Merge: shards of 1 and 3 draws do not merge.
    let a = TuneTests.tempStudy("a.sqlite")
    let sa = try TuneStudy.open(a, create: true)
    try sa.bind(r.studyMeta(specSHA256: "x", corpus: ["c"]))
    do {
      _ = try TuneStudy.merge([a, path], into: TuneTests.tempStudy("m.sqlite"))
      Issue.record("merged studies of different draws")
    } catch { #expect(error.message.contains("draws = 3 differs"), "\(error.message)") }
  }

  @Test("the gate: a trial worse beyond noise is refused by the generalises check (exit 2, --force warns), beside feasible")
  func gate() {
    let gate = GoldenGate(store: GoldenStore(root: FileManager.default.temporaryDirectory), engines: [])
    let worse = gate.check([], trial: GoldenGate.Trial(index: 3, infeasibility: nil, worse: ["validation latency_p90_ms +200 [+50, +350] vs shipped on 5 draws"]))
    #expect(worse.map(\.check) == [.generalises] && worse[0].exitCode == 2)
    #expect(worse[0].message == "trial #3 does not generalise: validation latency_p90_ms +200 [+50, +350] vs shipped on 5 draws")
    #expect(GoldenGate.verdict(worse, force: true).warned.count == 1)
    let both = gate.check([], trial: GoldenGate.Trial(index: 3, infeasibility: "infeasible (x)", worse: ["y"]))
    #expect(both.map(\.check) == [.feasible, .generalises] && GoldenGate.verdict(both, force: false).exitCode == 2)
    #expect(gate.check([], trial: GoldenGate.Trial(index: 3, infeasibility: nil)).isEmpty)
  }

  @Test("score --seeds: the rules that fail on some draws, with the draws")
  func ruleFailures() {
    func score(_ failures: [String]) -> CorpusScore {
      var o = RecordingObjectives()
      o.expectationFailures = failures
      return CorpusScore(recordings: [RecordingScore(name: "r", objectives: o)])
    }
    let draws = DrawsScore(draws: [
      score([]), score(["r.scenario.yaml:9 (displayed X at 2500 within 1000): not met; shown at 3700"]),
      score(["r.scenario.yaml:9 (displayed X at 2500 within 1000): not met; shown at 3900", "r.scenario.yaml:4 (praise ≤ 1): not met; 2"]),
    ])
    #expect(
      draws.ruleFailures == [
        .init(recording: "r", rule: "r.scenario.yaml:4 (praise ≤ 1)", draws: [2]),
        .init(recording: "r", rule: "r.scenario.yaml:9 (displayed X at 2500 within 1000)", draws: [1, 2]),
      ])
    #expect(draws.text().contains("expect: rules failing on some draws but not all: 2 (on every draw: 0)"))
    #expect(draws.text().contains("r: r.scenario.yaml:9 (displayed X at 2500 within 1000): fails on draws 1, 2 of 3"))
    // --details: what each failing draw saw, in its own words.
    #expect(
      draws.details()
        == "r: r.scenario.yaml:4 (praise ≤ 1)\n  draw 2: 2\nr: r.scenario.yaml:9 (displayed X at 2500 within 1000)\n  draw 1: shown at 3700\n  draw 2: shown at 3900\n")
  }
}
