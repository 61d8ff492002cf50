import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import Testing

@testable import Lab

/// Issue 35 item 5: no repeated proposals (or the study says the space is exhausted),
/// conditional parameters (`when:`), and the NSGA-II sampler.
@Suite("tune: a sampler that explores")
struct TuneExploreTests {
  static let quad: [TuneDomain] = (0..<4).map { _ in .choices((0...5).map { .number(Double($0)) }) }

  /// A synthetic study: each batch proposed from the finished ones, scored by `f` at once.
  static func study(_ sampler: TuneSampler, trials: Int, f: ([TuneValue]) -> [String: Double], feasible: ([String: Double]) -> Bool = { _ in true })
    -> (trials: [TrialResult], exhausted: TuneExhaustion?)
  {
    var done: [TrialResult] = []
    var start = 0
    while start < trials {
      let b = start == 0 || !sampler.isModelBased ? sampler.sequence(count: min(trials, start + sampler.tpeBatch)) : sampler.batch(containing: start, history: done)
      let points = start == 0 || !sampler.isModelBased ? Array(b.points.dropFirst(start)) : b.points
      for (k, p) in points.prefix(min(sampler.tpeBatch, trials - start)).enumerated() {
        let o = f(p)
        done.append(TrialResult(index: start + k, values: p, status: feasible(o) ? .ok : .infeasible, objectives: o, reason: nil))
      }
      if let e = b.exhausted, e.index < trials, done.count < min(trials, start + sampler.tpeBatch) { return (done, e) }
      start += sampler.tpeBatch
    }
    return (done, nil)
  }

  static func number(_ v: TuneValue) -> Double { if case .number(let d) = v { d } else { 0 } }

  @Test func aFourHundredTrialTPEStudyNeverRepeatsAPoint() {
    // Four 6-valued parameters (1,296 points) and a bowl at (2, 2, 2, 2): the old TPE proposed
    // the bowl's bottom again and again once it had learned it.
    let s = TuneSampler(kind: .tpe, domains: Self.quad, seed: 22, tpeBatch: 32, objective: "flicker_per_min")
    let run = Self.study(s, trials: 400) { p in ["flicker_per_min": p.map { (Self.number($0) - 2) * (Self.number($0) - 2) }.reduce(0, +)] }
    #expect(run.exhausted == nil)
    #expect(run.trials.count == 400)
    #expect(Set(run.trials.map(\.values)).count == 400)
    // Still a model: the learned batches sit nearer the bowl than random's first batch.
    func mean(_ t: ArraySlice<TrialResult>) -> Double { t.map { $0.objectives["flicker_per_min"]! }.reduce(0, +) / Double(t.count) }
    #expect(mean(run.trials[32..<96]) < mean(run.trials[0..<32]))
    // The same seed gives the same study.
    let again = Self.study(s, trials: 400) { p in ["flicker_per_min": p.map { (Self.number($0) - 2) * (Self.number($0) - 2) }.reduce(0, +)] }
    #expect(again.trials == run.trials)
  }

  @Test(arguments: [TuneSamplerKind.random, .tpe, .nsga2, .grid])
  func aTinyFiniteSpaceIsReportedExhausted(kind: TuneSamplerKind) {
    let domains: [TuneDomain] = [.choices([.string("a"), .string("b")]), .choices([.number(1), .number(2)])]
    let s = TuneSampler(kind: kind, domains: domains, seed: 3, tpeBatch: 2, objective: "flicker_per_min")
    let run = Self.study(s, trials: 10) { p in ["flicker_per_min": Self.number(p[1])] }
    #expect(run.trials.count == 4)
    #expect(Set(run.trials.map(\.values)).count == 4)
    #expect(run.exhausted?.index == 4)
    #expect(run.exhausted?.reason.contains("4 distinct points") == true, "\(run.exhausted?.reason ?? "none")")
  }

  @Test func randomPointsDependOnlyOnTheSeedAndIndexAndNeverRepeat() {
    let s = TuneSampler(kind: .random, domains: [.choices((0..<3).map { .number(Double($0)) }), .choices([.bool(false), .bool(true)])], seed: 9, objective: "flicker_per_min")
    let all = s.sequence(count: 6)
    #expect(all.exhausted == nil && Set(all.points).count == 6)
    let backwards = (0..<6).reversed().map { s.values(for: $0, history: []) }
    #expect(Array(backwards.reversed()) == all.points.map { Optional($0) })
    #expect(s.values(for: 6, history: []) == nil)
    // A space with no collision keeps the points it always had (attempt 0 is the old stream).
    let wide = TuneSampler(kind: .random, domains: [.range(min: 0, max: 1, quantum: 1e-4)], seed: 9, objective: "flicker_per_min")
    #expect(wide.sequence(count: 5).points == (0..<5).map { wide.random($0) })
  }

  // MARK: conditional parameters

  static let conditional = """
    cues[*].antiJitter.persistFrames: [2..3]
    options.landmarkFilter: [off, oneEuro]
    options.oneEuroMinCutoff: {min: 0.2, max: 3, when: "options.landmarkFilter == oneEuro"}
    options.oneEuroBeta: {min: 0, max: 30, when: "options.landmarkFilter == oneEuro"}

    """

  @Test func aParameterWhoseConditionIsFalseIsNotSampledAppliedOrPartOfThePoint() throws {
    let space = try TuneSpace.parse(text: Self.conditional, file: "space.yaml", spec: TuneTests.spec)
    #expect(space.parameters.map { $0.condition != nil } == [false, false, true, true])
    let s = TuneSampler(
      kind: .random, domains: space.parameters.map(\.domain), seed: 4, objective: "flicker_per_min", conditions: space.parameters.map(\.condition))
    // Filter off: two points (persistFrames 2 or 3); the rest are all with the filter on.
    let run = s.sequence(count: 40)
    #expect(run.exhausted == nil)
    let off = run.points.filter { $0[1] == .string("off") }
    #expect(Set(off).count == off.count)
    #expect(off.count == 2, "\(off)")
    for p in run.points {
      #expect((p[1] == .string("oneEuro")) == (p[2] != .inactive && p[3] != .inactive), "\(p)")
    }
    // Not applied: the runner leaves the option at its default when it is inactive.
    let point = try #require(off.first)
    let runner = TuneRunner(space: space, sampler: s, trials: 1, jobs: 1, baseSpec: TuneTests.spec, evaluator: OptionEcho())
    let t = runner.evaluate(0, point)
    #expect(t.status == .ok, "\(t.reason ?? "")")
    #expect(t.objectives["flicker_per_min"] == 0)
    // Stored as null and read back as inactive.
    #expect(TuneStudy.encode(t).params.contains("null"))
  }

  /// flicker_per_min = 1 when a One Euro coefficient was set, else 0.
  struct OptionEcho: TrialEvaluator, Sendable {
    func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double] {
      let d = EngineOptions().values
      return ["flicker_per_min": ["oneEuroMinCutoff", "oneEuroBeta"].contains { options.values[$0] != d[$0] } ? 1 : 0]
    }
  }

  @Test(arguments: [
    ("options.landmarkFilter: [off, oneEuro]\noptions.oneEuroBeta: {min: 0, max: 30, when: \"options.nope == oneEuro\"}\n", "space.yaml:2:", "not a parameter"),
    ("options.landmarkFilter: [off, oneEuro]\noptions.oneEuroBeta: {min: 0, max: 30, when: \"options.landmarkFilter == kalman\"}\n", "space.yaml:2:", "not a value of"),
    ("options.oneEuroBeta: {min: 0, max: 30, when: \"options.landmarkFilter == oneEuro\"}\noptions.landmarkFilter: [off, oneEuro]\n", "space.yaml:1:", "written before"),
    ("options.landmarkFilter: [off, oneEuro]\noptions.oneEuroBeta: {min: 0, max: 30, when: \"options.landmarkFilter\"}\n", "space.yaml:2:", "PATH == VALUE"),
    ("cues[*].antiJitter.persistFrames: [2..6]\noptions.oneEuroBeta: {min: 0, max: 30, when: \"cues[*].antiJitter.persistFrames == 9\"}\n", "space.yaml:2:", "not a value of"),
  ])
  func aBadConditionIsExit2WithItsPlace(text: String, place: String, message: String) {
    do {
      _ = try TuneSpace.parse(text: text, file: "space.yaml", spec: TuneTests.spec)
      Issue.record("accepted: \(text)")
    } catch {
      #expect(error.code == 2)
      #expect(error.message.contains(place) && error.message.contains(message), "\(error.message)")
    }
  }

  @Test func aConditionalListUsesTheValuesForm() throws {
    let space = try TuneSpace.parse(
      text: "options.landmarkFilter: [off, oneEuro]\noptions.oneEuroBeta: {values: [0, 5, 10], when: \"options.landmarkFilter != off\"}\n",
      file: "space.yaml", spec: TuneTests.spec)
    #expect(space.parameters[1].domain == .choices([.number(0), .number(5), .number(10)]))
    let s = TuneSampler(kind: .grid, domains: space.parameters.map(\.domain), seed: 1, objective: "flicker_per_min", conditions: space.parameters.map(\.condition))
    // off (beta blank) + oneEuro × 3 betas: 4 distinct points, not 6 combinations.
    #expect(s.gridSize == 6 && s.distinctPoints == 4)
    let all = s.sequence(count: 10)
    #expect(all.points.count == 4 && all.exhausted != nil)
  }

  // MARK: NSGA-II

  /// ZDT1 (5 variables): f1 = x1, f2 = g (1 − √(x1 / g)), g = 1 + 9 mean(x2…x5); the front is
  /// g = 1. Constraint: x1 ≥ 0.1 (violation 0.1 − x1).
  static func zdt1(_ p: [TuneValue]) -> [String: Double] {
    let x = p.map(number)
    let g = 1 + 9 * x.dropFirst().reduce(0, +) / Double(x.count - 1)
    return ["f1": x[0], "f2": g * (1 - (x[0] / g).squareRoot()), "c": max(0, 0.1 - x[0])]
  }

  /// The area the feasible trials dominate up to (1.1, 4) (larger is better; the true front
  /// dominates about 4.07, random's 400 points well under 2).
  static func hypervolume(_ trials: [TrialResult]) -> Double {
    let pts = trials.filter { $0.status == .ok }.map { ($0.objectives["f1"]!, $0.objectives["f2"]!) }.filter { $0.0 < 1.1 && $0.1 < 4 }
    let sorted = pts.sorted { $0 < $1 }
    var area = 0.0
    var bestF2 = 4.0
    var front: [(Double, Double)] = []
    for p in sorted where p.1 < bestF2 {
      front.append(p)
      bestF2 = p.1
    }
    for (k, p) in front.enumerated() {
      let nextF1 = k + 1 < front.count ? front[k + 1].0 : 1.1
      area += (nextF1 - p.0) * (4 - p.1)
    }
    return area
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func nsga2BeatsRandomOnAConstrainedZDT1AtEqualBudget(seed: UInt64) {
    let domains: [TuneDomain] = (0..<5).map { _ in .range(min: 0, max: 1, quantum: 1e-4) }
    let feasible: ([String: Double]) -> Bool = { $0["c"]! <= 0 }
    let nsga = TuneSampler(kind: .nsga2, domains: domains, seed: seed, tpeBatch: 20, objective: "f1", objectives: ["f1", "f2"], constraints: [("c", 0)])
    let random = TuneSampler(kind: .random, domains: domains, seed: seed, tpeBatch: 20, objective: "f1")
    let a = Self.study(nsga, trials: 400, f: Self.zdt1, feasible: feasible)
    let b = Self.study(random, trials: 400, f: Self.zdt1, feasible: feasible)
    #expect(a.trials.count == 400 && b.trials.count == 400)
    #expect(Set(a.trials.map(\.values)).count == 400)
    let hvA = Self.hypervolume(a.trials)
    let hvB = Self.hypervolume(b.trials)
    #expect(hvA > hvB * 1.15, "nsga2 \(hvA) vs random \(hvB)")
    // And it moved: the last generation sits nearer the front than the first.
    func sum(_ t: ArraySlice<TrialResult>) -> Double { t.map { $0.objectives["f1"]! + $0.objectives["f2"]! }.reduce(0, +) / Double(t.count) }
    #expect(sum(a.trials[380..<400]) < 0.6 * sum(a.trials[0..<20]), "\(sum(a.trials[380..<400])) vs \(sum(a.trials[0..<20]))")
    // The last generation is mostly feasible (constraint domination steers away from x1 < 0.1).
    let last = a.trials.suffix(20).filter { $0.status == .ok }.count
    #expect(last >= 15, "\(last) of 20 feasible")
    // Deterministic from the seed.
    #expect(Self.study(nsga, trials: 400, f: Self.zdt1, feasible: feasible).trials == a.trials)
  }

  @Test("a random or grid study of a space smaller than --trials runs every distinct point, over several chunks, then stops exhausted")
  func anExhaustedRandomStudyRunsEveryPoint() throws {
    // 5 × 10 = 50 points, 80 trials asked; trials run in chunks of 16 (jobs 2). Before the
    // fix the study stopped after its first chunk: 16 trials (`tune run
    // docs/tune-space.example.yaml --trials 1000` ran 16 of its 220 points).
    let space = try TuneTests.space("cues[*].antiJitter.persistFrames: [2..6]\ndefaults.antiJitter.minHoldMs: {min: 1500, max: 3750, step: 250}\n")
    for kind in [TuneSamplerKind.random, .grid] {
      let sampler = TuneSampler(kind: kind, domains: space.parameters.map(\.domain), seed: 7, tpeBatch: 16, objective: "flicker_per_min")
      let runner = TuneRunner(space: space, sampler: sampler, trials: 80, jobs: 2, baseSpec: TuneTests.spec, evaluator: FormulaEvaluator())
      let study = try TuneStudy.open(TuneTests.tempStudy("exhausted.sqlite"), create: true)
      try study.bind(runner.studyMeta(specSHA256: "x", corpus: ["c"]))
      let outcome = try runner.runStudy(study: study)
      #expect(outcome.ran == 50, "\(kind)")
      #expect(outcome.exhausted?.index == 50, "\(kind)")
      let trials = try study.trials()
      #expect(trials.map(\.index) == Array(0..<50), "\(kind)")
      #expect(Set(trials.map { $0.values.map(\.description) }).count == 50, "\(kind)")
    }
  }

  @Test func constraintDominationFollowsOptuna() {
    typealias C = NSGA2.Cost
    let feasibleWorse = C(values: [9, 9], violation: 0)
    let infeasibleBetter = C(values: [0, 0], violation: 0.5)
    let infeasibleWorse = C(values: [0, 0], violation: 2)
    #expect(NSGA2.dominates(feasibleWorse, infeasibleBetter))
    #expect(!NSGA2.dominates(infeasibleBetter, feasibleWorse))
    #expect(NSGA2.dominates(infeasibleBetter, infeasibleWorse))
    #expect(NSGA2.dominates(C(values: [1, 2], violation: 0), C(values: [1, 3], violation: 0)))
    #expect(!NSGA2.dominates(C(values: [1, 3], violation: 0), C(values: [2, 2], violation: 0)))
    // A failed trial (no objectives) is infinitely infeasible.
    let s = TuneSampler(kind: .nsga2, domains: [], seed: 1, objective: "f1", objectives: ["f1"], constraints: [("c", 0)])
    let failed = NSGA2.cost(TrialResult(index: 0, values: [], status: .failed, objectives: [:], reason: "x"), s)
    #expect(failed.violation == .infinity)
    let broke = NSGA2.cost(TrialResult(index: 0, values: [], status: .infeasible, objectives: ["f1": 1, "c": 0.25], reason: "x"), s)
    #expect(broke.violation == 0.25)
  }
}
