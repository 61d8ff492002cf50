import Foundation
import Scenarios

public enum TuneSamplerKind: String, Sendable, CaseIterable {
  case grid, random, tpe
}

/// How a trial ended: `ok` (all constraints kept), `infeasible` (a constraint broken, or the
/// trial's spec invalid), `failed` (the replay itself failed).
public enum TrialStatus: String, Sendable, Equatable {
  case ok, infeasible, failed
}

/// One finished trial as stored in a study.
public struct TrialResult: Sendable, Equatable {
  public var index: Int
  public var values: [TuneValue]
  public var status: TrialStatus
  public var objectives: [String: Double]
  public var reason: String?

  public init(index: Int, values: [TuneValue], status: TrialStatus, objectives: [String: Double], reason: String?) {
    self.index = index
    self.values = values
    self.status = status
    self.objectives = objectives
    self.reason = reason
  }
}

/// Parameter values of trial `i`. They depend only on the seed and `i` — and, for TPE, on the
/// trials of the batches before `i`'s (`tpeBatch` trials per batch), so a resumed or
/// repeated study proposes the same values.
public struct TuneSampler: Sendable {
  public var kind: TuneSamplerKind
  public var domains: [TuneDomain]
  public var seed: UInt64
  public var tpeBatch: Int
  /// The objective TPE minimises (infeasible and failed trials rank last).
  public var objective: String

  public init(kind: TuneSamplerKind, domains: [TuneDomain], seed: UInt64, tpeBatch: Int = 32, objective: String) {
    self.kind = kind
    self.domains = domains
    self.seed = seed
    self.tpeBatch = max(1, tpeBatch)
    self.objective = objective
  }

  /// The number of grid points, nil when a domain is continuous or the product overflows.
  public var gridSize: Int? {
    var n = 1
    for d in domains {
      guard let c = d.count else { return nil }
      let (m, overflow) = n.multipliedReportingOverflow(by: c)
      guard !overflow else { return nil }
      n = m
    }
    return n
  }

  /// The trials `values(for: i, …)` reads: those before the start of `i`'s batch (TPE only).
  public func historyBound(for i: Int) -> Int { kind == .tpe ? (i / tpeBatch) * tpeBatch : 0 }

  /// Values of trial `i`. `history` is every finished trial (only those before
  /// `historyBound(for: i)` are read).
  public func values(for i: Int, history: [TrialResult]) -> [TuneValue] {
    switch kind {
    case .grid: return grid(i)
    case .random: return random(i)
    case .tpe:
      let bound = historyBound(for: i)
      let past = history.filter { $0.index < bound }.sorted { $0.index < $1.index }
      guard bound > 0, past.count >= tpeBatch else { return random(i) }
      return TPE(sampler: self, history: past).propose(rng: rng(i))
    }
  }

  func grid(_ i: Int) -> [TuneValue] {
    var rest = i
    var out = [TuneValue](repeating: .number(0), count: domains.count)
    for p in domains.indices.reversed() {
      guard case .choices(let c) = domains[p] else { continue }
      out[p] = c[rest % c.count]
      rest /= c.count
    }
    return out
  }

  func random(_ i: Int) -> [TuneValue] {
    var r = rng(i)
    return domains.map { Self.draw($0, &r) }
  }

  func rng(_ i: Int) -> SplitMix64 {
    var r = SplitMix64(seed: seed ^ (UInt64(i) &* 0xD1B5_4A32_D192_ED03))
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
  var history: [TrialResult]
  var good: [Int]
  var bad: [Int]
  static let candidates = 24
  static let gamma = 0.25

  init(sampler: TuneSampler, history: [TrialResult]) {
    self.sampler = sampler
    self.history = history
    let s = history.map { t in
      guard t.status == .ok, let v = t.objectives[sampler.objective], v.isFinite else { return Double.infinity }
      return v
    }
    scores = s
    let order = history.indices.sorted { (s[$0], $0) < (s[$1], $1) }
    let n = max(1, Int((Self.gamma * Double(history.count)).rounded(.up)))
    good = Array(order.prefix(n))
    bad = Array(order.dropFirst(n))
  }

  func propose(rng: SplitMix64) -> [TuneValue] {
    var r = rng
    return sampler.domains.indices.map { p in
      switch sampler.domains[p] {
      case .choices(let c): return categorical(p, c, &r)
      case .range(let lo, let hi, let q): return .number(TuneSampler.quantize(lo + continuous(p, lo, hi, &r) * (hi - lo), lo, hi, q))
      }
    }
  }

  func categorical(_ p: Int, _ choices: [TuneValue], _ r: inout SplitMix64) -> TuneValue {
    func weights(_ set: [Int]) -> [Double] {
      var w = [Double](repeating: 1, count: choices.count)
      for t in set { if let k = choices.firstIndex(of: history[t].values[p]) { w[k] += 1 } }
      let sum = w.reduce(0, +)
      return w.map { $0 / sum }
    }
    let l = weights(good)
    let g = weights(bad)
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
  func continuous(_ p: Int, _ lo: Double, _ hi: Double, _ r: inout SplitMix64) -> Double {
    func unit(_ t: Int) -> Double {
      guard case .number(let v) = history[t].values[p], hi > lo else { return 0.5 }
      return (v - lo) / (hi - lo)
    }
    let gs = good.map(unit)
    let bs = bad.map(unit)
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
