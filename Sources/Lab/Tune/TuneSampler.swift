import Foundation
import JustPhotoScenarios
import ScenarioYAML

package enum TuneSamplerKind: String, Sendable, CaseIterable {
  case grid, random, tpe, nsga2
}

/// How a trial ended: `ok` (all constraints kept), `infeasible` (a constraint broken, or the
/// trial's spec invalid), `failed` (the replay itself failed).
package enum TrialStatus: String, Sendable, Equatable {
  case ok, infeasible, failed
}

/// One finished trial as stored in a study.
package struct TrialResult: Sendable, Equatable {
  package var index: Int
  package var values: [TuneValue]
  package var status: TrialStatus
  package var objectives: [String: Double]
  package var reason: String?

  package init(index: Int, values: [TuneValue], status: TrialStatus, objectives: [String: Double], reason: String?) {
    self.index = index
    self.values = values
    self.status = status
    self.objectives = objectives
    self.reason = reason
  }
}

/// Why a study stopped before its trial count: the space has no untried point left (every
/// distinct point of a finite space tried), or ``TuneSampler/redrawsMax`` re-draws of one trial
/// all repeated earlier points.
package struct TuneExhaustion: Sendable, Equatable, Error {
  /// The first trial index that could not be given a new point.
  package var index: Int
  package var reason: String
}

/// Parameter values of trial `i`. They depend only on the seed and `i` — and, for TPE and
/// NSGA-II, on the trials of the batches before `i`'s (`tpeBatch` trials per batch), so a
/// resumed or repeated study proposes the same values.
///
/// No point is proposed twice: a proposal equal (after inactive conditional parameters are
/// blanked) to a point of an earlier trial is drawn again from a stream of the seed, `i` and the
/// attempt (at most ``redrawsMax`` times); a finite space then takes the first untried grid
/// point from a seeded offset. When none is left the study is exhausted (``TuneExhaustion``).
/// Grid and random points never read results, so every shard computes the same sequence.
package struct TuneSampler: Sendable {
  package var kind: TuneSamplerKind
  package var domains: [TuneDomain]
  package var seed: UInt64
  package var tpeBatch: Int
  /// The objective TPE minimises (infeasible and failed trials rank last).
  package var objective: String
  /// Per parameter: when it is active (nil: always). A condition reads an earlier parameter.
  package var conditions: [TuneCondition?]
  /// NSGA-II's objectives (each minimised); default `[objective]`.
  package var objectives: [String]
  /// NSGA-II's constraint domination: objective ≤ max (violation = the sum of the excesses).
  package var constraints: [(name: String, max: Double)]

  /// Draws of one trial before a finite space is scanned (or an infinite one exhausted).
  package static let redrawsMax = 64
  /// Of those, the first ones ask the model (TPE, NSGA-II) again from another stream and redraw
  /// one parameter of its point at random (a neighbour of where the model points: a converged
  /// TPE proposes the same point from every stream, its categorical choice being the best-ratio
  /// category and a range's often a bound); the rest are uniform random draws.
  package static let modelAttempts = 8
  /// The largest grid the exhaustion scan walks (larger finite spaces end after the re-draws).
  package static let scanMax = 2_000_000

  package init(
    kind: TuneSamplerKind, domains: [TuneDomain], seed: UInt64, tpeBatch: Int = 32, objective: String,
    conditions: [TuneCondition?]? = nil, objectives: [String]? = nil, constraints: [(name: String, max: Double)] = []
  ) {
    self.kind = kind
    self.domains = domains
    self.seed = seed
    self.tpeBatch = max(1, tpeBatch)
    self.objective = objective
    self.conditions = conditions ?? Array(repeating: nil, count: domains.count)
    self.objectives = objectives ?? [objective]
    self.constraints = constraints
  }

  /// TPE and NSGA-II learn from earlier batches.
  package var isModelBased: Bool { kind == .tpe || kind == .nsga2 }

  /// The number of grid points (every combination), nil when a domain is continuous or the
  /// product overflows.
  package var gridSize: Int? {
    var n = 1
    for d in domains {
      guard let c = d.count else { return nil }
      let (m, overflow) = n.multipliedReportingOverflow(by: c)
      guard !overflow else { return nil }
      n = m
    }
    return n
  }

  /// The number of distinct points (combinations differing only in inactive parameters are one
  /// point): `gridSize` without conditions; counted when conditions blank some, nil when the
  /// grid is larger than ``scanMax`` or continuous.
  package var distinctPoints: Int? {
    guard let size = gridSize else { return nil }
    guard conditions.contains(where: { $0 != nil }) else { return size }
    guard size <= Self.scanMax else { return nil }
    var seen = Set<[TuneValue]>()
    for k in 0..<size { seen.insert(mask(rawGrid(k))) }
    return seen.count
  }

  /// The trials `values(for: i, …)` reads: those before the start of `i`'s batch (TPE and
  /// NSGA-II only).
  package func historyBound(for i: Int) -> Int { isModelBased ? (i / tpeBatch) * tpeBatch : 0 }

  /// Values of trial `i` (nil when the space is exhausted at or before `i`). `history` is every
  /// finished trial (only those before `historyBound(for: i)` are read).
  package func values(for i: Int, history: [TrialResult]) -> [TuneValue]? {
    guard isModelBased, historyBound(for: i) > 0 else {
      let s = sequence(count: i + 1)
      return i < s.points.count ? s.points[i] : nil
    }
    let b = batch(containing: i, history: history)
    let k = i - historyBound(for: i)
    return k < b.points.count ? b.points[k] : nil
  }

  /// Points of trials 0..<count of a sampler that never reads results (grid, random; the first
  /// batch of TPE and NSGA-II), and the exhaustion that stopped it early, if any.
  package func sequence(count: Int) -> (points: [[TuneValue]], exhausted: TuneExhaustion?) {
    var seen = Set<[TuneValue]>()
    var out: [[TuneValue]] = []
    out.reserveCapacity(count)
    if kind == .grid {
      // Mixed radix order; combinations that blank to an earlier point are passed over.
      let size = gridSize ?? 0
      var k = 0
      while out.count < count {
        guard k < size else { return (out, TuneExhaustion(index: out.count, reason: "every one of the grid's \(seen.count) distinct points has been tried")) }
        let p = mask(rawGrid(k))
        k += 1
        if seen.insert(p).inserted { out.append(p) }
      }
      return (out, nil)
    }
    for i in 0..<count {
      switch fresh(i, seen: &seen, draw: { random(i, attempt: $0) }) {
      case .success(let p): out.append(p)
      case .failure(let e): return (out, e)
      }
    }
    return (out, nil)
  }

  /// Points of the model-based batch holding trial `i` (its first index is `historyBound`).
  /// Every trial before the batch must be in `history`; they are the points already tried.
  package func batch(containing i: Int, history: [TrialResult]) -> (points: [[TuneValue]], exhausted: TuneExhaustion?) {
    let bound = historyBound(for: i)
    let past = history.filter { $0.index < bound }.sorted { $0.index < $1.index }
    var seen = Set(past.map { mask($0.values) })
    var out: [[TuneValue]] = []
    let tpe = kind == .tpe ? TPE(sampler: self, history: past) : nil
    let nsga = kind == .nsga2 ? NSGA2(sampler: self, history: past) : nil
    for j in bound..<(bound + tpeBatch) {
      let r = fresh(j, seen: &seen) { a in
        if let tpe { return tpe.propose(rng: rng(j, attempt: a)) }
        if let nsga { return nsga.offspring(rng: rng(j, attempt: a)) }
        return random(j, attempt: a)
      }
      switch r {
      case .success(let p): out.append(p)
      case .failure(let e): return (out, e)
      }
    }
    return (out, nil)
  }

  /// A point of trial `i` not in `seen` (and then in it): attempt 0 is the sampler's own
  /// proposal, the next ``modelAttempts`` − 1 its proposal from another stream with one
  /// parameter redrawn, the rest uniform draws; a finite space then walks its grid from a
  /// seeded offset.
  func fresh(_ i: Int, seen: inout Set<[TuneValue]>, draw: (Int) -> [TuneValue]) -> Result<[TuneValue], TuneExhaustion> {
    for a in 0..<Self.redrawsMax {
      var candidate: [TuneValue]
      if a == 0 {
        candidate = draw(0)
      } else if a < Self.modelAttempts, !domains.isEmpty {
        candidate = draw(a)
        var r = rng(i, attempt: a)
        _ = r.next()
        let k = Int(r.next() % UInt64(domains.count))
        candidate[k] = Self.draw(domains[k], &r)
      } else {
        candidate = random(i, attempt: a)
      }
      let p = mask(candidate)
      if seen.insert(p).inserted { return .success(p) }
    }
    guard let size = gridSize, size <= Self.scanMax else {
      return .failure(
        TuneExhaustion(
          index: i, reason: "\(Self.redrawsMax) draws of trial \(i) all repeated one of the \(seen.count) points already tried (the space is too small, or the sampler has converged)"))
    }
    var r = rng(i, attempt: Self.redrawsMax)
    let start = Int(r.next() % UInt64(size))
    for k in 0..<size {
      let p = mask(rawGrid((start + k) % size))
      if seen.insert(p).inserted { return .success(p) }
    }
    return .failure(TuneExhaustion(index: i, reason: "every one of the space's \(seen.count) distinct points has been tried"))
  }

  /// `values` with every parameter whose condition is false (or reads an inactive parameter)
  /// set to ``TuneValue/inactive``: such a parameter is not sampled, applied or compared.
  package func mask(_ values: [TuneValue]) -> [TuneValue] {
    var out = values
    for p in out.indices where p < conditions.count {
      guard let c = conditions[p] else { continue }
      if !c.holds(out) { out[p] = .inactive }
    }
    return out
  }

  func rawGrid(_ i: Int) -> [TuneValue] {
    var rest = i
    var out = [TuneValue](repeating: .number(0), count: domains.count)
    for p in domains.indices.reversed() {
      guard case .choices(let c) = domains[p] else { continue }
      out[p] = c[rest % c.count]
      rest /= c.count
    }
    return out
  }

  func random(_ i: Int, attempt: Int = 0) -> [TuneValue] {
    var r = rng(i, attempt: attempt)
    return domains.map { Self.draw($0, &r) }
  }

  /// The stream of trial `i`'s attempt `attempt` (attempt 0: the stream samplers always used).
  func rng(_ i: Int, attempt: Int = 0) -> SplitMix64 {
    var s = seed ^ (UInt64(i) &* 0xD1B5_4A32_D192_ED03)
    if attempt > 0 { s ^= UInt64(attempt) &* 0x8CB9_2BA7_2F3D_8DD7 }
    var r = SplitMix64(seed: s)
    _ = r.next()
    return r
  }

  static func draw(_ d: TuneDomain, _ r: inout SplitMix64) -> TuneValue {
    switch d {
    case .choices(let c): return c[Int(r.next() % UInt64(c.count))]
    case .range(let lo, let hi, let q): return .number(quantize(lo + r.unit() * (hi - lo), lo, hi, q))
    }
  }

  static func quantize(_ x: Double, _ lo: Double, _ hi: Double, _ q: Double) -> Double {
    TuneSpace.roundTo(min(hi, max(lo, (x / q).rounded() * q)), quantum: q)
  }
}

/// Tree-structured Parzen estimator (Bergstra et al. 2011), one parameter at a time: the best
/// quarter of past trials is "good", the rest "bad"; each parameter takes, among candidates
/// drawn from the good density, the one with the largest good/bad density ratio.
struct TPE {
  var sampler: TuneSampler
  var scores: [Double]
  var good: [Int]
  var bad: [Int]
  /// Per parameter, computed once (a batch proposes, and re-draws, many times from one
  /// history): a list domain's good and bad category weights, a range's good and bad points
  /// (normalised to [0, 1]; only trials where the parameter was active).
  var weights: [(l: [Double], g: [Double])?] = []
  var points: [(gs: [Double], bs: [Double])?] = []
  static let candidates = 24
  static let gamma = 0.25

  init(sampler: TuneSampler, history: [TrialResult]) {
    self.sampler = sampler
    let s = history.map { t in
      guard t.status == .ok, let v = t.objectives[sampler.objective], v.isFinite else { return Double.infinity }
      return v
    }
    scores = s
    let order = history.indices.sorted { (s[$0], $0) < (s[$1], $1) }
    let n = max(1, Int((Self.gamma * Double(history.count)).rounded(.up)))
    let good = Array(order.prefix(n))
    let bad = Array(order.dropFirst(n))
    self.good = good
    self.bad = bad
    for p in sampler.domains.indices {
      switch sampler.domains[p] {
      case .choices(let choices):
        func categoryWeights(_ set: [Int]) -> [Double] {
          var w = [Double](repeating: 1, count: choices.count)
          for t in set where p < history[t].values.count { if let k = choices.firstIndex(of: history[t].values[p]) { w[k] += 1 } }
          let sum = w.reduce(0, +)
          return w.map { $0 / sum }
        }
        weights.append((categoryWeights(good), categoryWeights(bad)))
        points.append(nil)
      case .range(let lo, let hi, _):
        // Only trials where the parameter was active (a number) say anything about it.
        func unit(_ t: Int) -> Double? {
          guard p < history[t].values.count, case .number(let v) = history[t].values[p] else { return nil }
          return hi > lo ? (v - lo) / (hi - lo) : 0.5
        }
        weights.append(nil)
        points.append((good.compactMap(unit), bad.compactMap(unit)))
      }
    }
  }

  func propose(rng: SplitMix64) -> [TuneValue] {
    var r = rng
    return sampler.domains.indices.map { p in
      switch sampler.domains[p] {
      case .choices(let c): return categorical(p, c, &r)
      case .range(let lo, let hi, let q): return .number(TuneSampler.quantize(lo + continuous(p, &r) * (hi - lo), lo, hi, q))
      }
    }
  }

  func categorical(_ p: Int, _ choices: [TuneValue], _ r: inout SplitMix64) -> TuneValue {
    let (l, g) = weights[p]!
    var best = 0
    var bestRatio = -1.0
    for _ in 0..<Self.candidates {
      var u = r.unit()
      var k = 0
      while k < l.count - 1, u >= l[k] {
        u -= l[k]
        k += 1
      }
      let ratio = l[k] / g[k]
      if ratio > bestRatio {
        best = k
        bestRatio = ratio
      }
    }
    return choices[best]
  }

  /// A point in [0, 1] (the range normalised).
  func continuous(_ p: Int, _ r: inout SplitMix64) -> Double {
    let (gs, bs) = points[p]!
    guard !gs.isEmpty else { return r.unit() }
    let hGood = max(0.05, 0.5 / Double(gs.count).squareRoot())
    let hBad = max(0.05, 0.5 / Double(max(bs.count, 1)).squareRoot())
    func density(_ x: Double, _ pts: [Double], _ h: Double) -> Double {
      var s = 1.0  // a uniform prior counted as one point
      for c in pts { s += exp(-0.5 * ((x - c) / h) * ((x - c) / h)) / (h * 2.506_628_274_631) }
      return s / Double(pts.count + 1)
    }
    var best = 0.5
    var bestRatio = -1.0
    for _ in 0..<Self.candidates {
      let centre = gs[Int(r.next() % UInt64(gs.count))]
      let x = min(1, max(0, centre + r.gaussian(sigma: hGood)))
      let ratio = density(x, gs, hGood) / density(x, bs, hBad)
      if ratio > bestRatio {
        best = x
        bestRatio = ratio
      }
    }
    return best
  }
}
