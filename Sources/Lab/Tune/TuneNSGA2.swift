import Foundation
import JustPhotoScenarios
import ScenarioYAML

/// NSGA-II (Deb et al. 2002) with constraint domination, as Optuna's `NSGAIISampler`: trials run
/// in generations of `tpeBatch`; generation 0 is random; the parent population of generation g
/// is the elite of population g−1 and generation g−1 (non-dominated sorting, then crowding
/// distance); each child takes two parents by binary tournament, uniform crossover (probability
/// 0.9, each parameter from either parent with probability 0.5) and resamples each parameter
/// with probability 1/parameters. A feasible trial dominates an infeasible one; of two
/// infeasible trials the smaller total violation wins; a failed trial, or one infeasible for
/// another reason than a constraint (an invalid spec), has infinite violation.
struct NSGA2 {
  static let crossoverProbability = 0.9
  static let swappingProbability = 0.5

  var sampler: TuneSampler
  /// The parent population: indices into `history`, with rank and crowding distance.
  var population: [Int]
  var rank: [Int: Int]
  var crowding: [Int: Double]
  var history: [TrialResult]

  /// `history`: every trial before the current generation, sorted by index.
  init(sampler: TuneSampler, history: [TrialResult]) {
    self.sampler = sampler
    self.history = history
    let n = sampler.tpeBatch
    let costs = history.map { Self.cost($0, sampler) }
    var pop: [Int] = []
    var g = 0
    while g * n < history.count {
      let generation = Array((g * n)..<min(history.count, (g + 1) * n))
      pop = Self.select(pop + generation, count: n, costs: costs).chosen
      g += 1
    }
    let last = Self.select(pop, count: pop.count, costs: costs)
    population = last.chosen
    rank = last.rank
    crowding = last.crowding
  }

  /// A trial's objectives (missing: +∞) and its constraint violation.
  struct Cost {
    var values: [Double]
    var violation: Double
  }

  static func cost(_ t: TrialResult, _ s: TuneSampler) -> Cost {
    let values = s.objectives.map { k -> Double in
      guard let v = t.objectives[k], v.isFinite else { return .infinity }
      return v
    }
    switch t.status {
    case .ok: return Cost(values: values, violation: 0)
    case .failed: return Cost(values: values, violation: .infinity)
    case .infeasible:
      var v = 0.0
      for c in s.constraints { if let x = t.objectives[c.name], x > c.max { v += x - c.max } }
      return Cost(values: values, violation: v > 0 ? v : .infinity)
    }
  }

  /// Constraint domination (Deb): feasible beats infeasible, smaller violation beats larger,
  /// two feasible trials compare by Pareto domination.
  static func dominates(_ a: Cost, _ b: Cost) -> Bool {
    if a.violation == 0 && b.violation > 0 { return true }
    if a.violation > 0 && b.violation == 0 { return false }
    if a.violation > 0 { return a.violation < b.violation }
    var strictly = false
    for (x, y) in zip(a.values, b.values) {
      if x > y { return false }
      if x < y { strictly = true }
    }
    return strictly
  }

  /// The `count` best of `candidates` (front by front; the last front by crowding distance,
  /// largest first, ties by index), with every candidate's rank and crowding distance.
  static func select(_ candidates: [Int], count: Int, costs: [Cost]) -> (chosen: [Int], rank: [Int: Int], crowding: [Int: Double]) {
    var rank: [Int: Int] = [:]
    var crowding: [Int: Double] = [:]
    var chosen: [Int] = []
    var rest = candidates
    var r = 0
    while !rest.isEmpty {
      let front = rest.filter { a in !rest.contains { b in b != a && dominates(costs[b], costs[a]) } }
      rest.removeAll { front.contains($0) }
      let d = distances(front, costs: costs)
      for i in front {
        rank[i] = r
        crowding[i] = d[i] ?? 0
      }
      if chosen.count < count {
        if chosen.count + front.count <= count {
          chosen += front
        } else {
          let byCrowding = front.sorted { (d[$0] ?? 0, -$0) > (d[$1] ?? 0, -$1) }
          chosen += byCrowding.prefix(count - chosen.count)
        }
      }
      r += 1
    }
    return (chosen, rank, crowding)
  }

  /// Crowding distance in objective space (boundary points: +∞).
  static func distances(_ front: [Int], costs: [Cost]) -> [Int: Double] {
    var d: [Int: Double] = [:]
    for i in front { d[i] = 0 }
    guard front.count > 2, let m = front.first.map({ costs[$0].values.count }) else {
      for i in front { d[i] = .infinity }
      return d
    }
    for k in 0..<m {
      let sorted = front.sorted { (costs[$0].values[k], $0) < (costs[$1].values[k], $1) }
      let lo = costs[sorted.first!].values[k]
      let hi = costs[sorted.last!].values[k]
      d[sorted.first!] = .infinity
      d[sorted.last!] = .infinity
      let span = hi - lo
      guard span.isFinite, span > 0 else { continue }
      for j in 1..<(sorted.count - 1) {
        let gap = costs[sorted[j + 1]].values[k] - costs[sorted[j - 1]].values[k]
        d[sorted[j]]! += gap.isFinite ? gap / span : .infinity
      }
    }
    return d
  }

  /// Binary tournament: the lower rank, then the larger crowding distance, then the lower index.
  func tournament(_ r: inout SplitMix64) -> Int {
    let a = population[Int(r.next() % UInt64(population.count))]
    let b = population[Int(r.next() % UInt64(population.count))]
    let ka = (rank[a] ?? 0, -(crowding[a] ?? 0), a)
    let kb = (rank[b] ?? 0, -(crowding[b] ?? 0), b)
    return ka <= kb ? a : b
  }

  /// One child from the stream `rng` (the trial's own, or a re-draw's).
  func offspring(rng: SplitMix64) -> [TuneValue] {
    var r = rng
    guard !population.isEmpty else { return sampler.domains.map { TuneSampler.draw($0, &r) } }
    let a = history[tournament(&r)].values
    let b = history[tournament(&r)].values
    let cross = r.unit() < Self.crossoverProbability
    let mutation = 1 / Double(max(1, sampler.domains.count))
    var child: [TuneValue] = []
    for p in sampler.domains.indices {
      let fromB = cross && r.unit() < Self.swappingProbability
      var v = fromB ? (p < b.count ? b[p] : .inactive) : (p < a.count ? a[p] : .inactive)
      let fresh = TuneSampler.draw(sampler.domains[p], &r)
      // A parent's blank (its condition was false) takes a fresh value, as a mutation does.
      if r.unit() < mutation || v == .inactive { v = fresh }
      child.append(v)
    }
    return child
  }
}
