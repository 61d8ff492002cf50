import EngineIO
import ScenarioYAML

/// A scenario's `Nuisance` walked forward frame by frame (times must not decrease): flat
/// memory whatever the duration — one pending episode per kind, two drift values, one phase.
/// Deterministic from the scenario's seed: each kind has its own SplitMix64, advanced only by
/// that kind, so the stream's bytes do not depend on which other keys are present.
struct NuisanceStream {
  /// The current or next episode of one kind.
  struct EpisodeClock {
    let spec: Nuisance.Episodes
    var rng: SplitMix64
    var start: Int64 = 0
    var end: Int64 = 0
    /// A uniform draw made per episode (which part an occlusion hides).
    var pick: UInt64 = 0

    init(_ spec: Nuisance.Episodes, seed: UInt64) {
      self.spec = spec
      rng = SplitMix64(seed: seed)
      schedule(after: 0)
    }

    /// The episode after `t`: an exponential gap (mean 60 000 / per_min ms), then a length
    /// uniform in [min_ms, max_ms]. Rates of 0 never start one.
    mutating func schedule(after t: Int64) {
      guard spec.perMinute > 0 else {
        (start, end) = (.max, .max)
        return
      }
      let mean = 60_000 / spec.perMinute
      // 1 − u is in (0, 1]: the log is finite; gaps past ~30 years are clamped (no overflow).
      let gap = min(-mean * _log(1 - rng.unit()), 1e15).rounded(.toNearestOrEven)
      let span = UInt64(spec.maxMs - spec.minMs + 1)
      let length = spec.minMs + Int64(rng.next() % span)
      pick = rng.next()
      start = t.plusChecked(Int64(gap)) ?? .max
      end = start.plusChecked(length) ?? .max
    }

    /// Whether an episode covers `t` (start ≤ t < end).
    mutating func active(at t: Int64) -> Bool {
      while t >= end, end != .max { schedule(after: end) }
      return t >= start && t < end
    }
  }

  let nuisance: Nuisance
  var dropouts: EpisodeClock?
  var occlusions: EpisodeClock?
  var passersby: EpisodeClock?
  var driftRNG: SplitMix64
  var drift = (x: 0.0, y: 0.0)
  var lastT: Int64?
  /// The sway's phase in radians.
  let swayPhase: Double

  /// Seeds per kind: SplitMix64 of (seed XOR a per-kind constant), so kinds are independent.
  static func seed(_ seed: UInt64, _ salt: UInt64) -> UInt64 {
    var r = SplitMix64(seed: seed ^ salt)
    return r.next()
  }

  init(_ n: Nuisance, seed: UInt64) {
    nuisance = n
    dropouts = n.dropouts.map { EpisodeClock($0, seed: Self.seed(seed, 0xD0_0001)) }
    occlusions = n.occlusions.map { EpisodeClock($0, seed: Self.seed(seed, 0x0CC1_0002)) }
    passersby = n.passersby.map { EpisodeClock($0, seed: Self.seed(seed, 0x9A55_0003)) }
    driftRNG = SplitMix64(seed: Self.seed(seed, 0xD21F_0004))
    var phase = SplitMix64(seed: Self.seed(seed, 0x5A4A_0005))
    swayPhase = 2 * Double.pi * phase.unit()
  }

  /// One Ornstein–Uhlenbeck step per frame (AR(1) with a = 1 − dt/τ and the innovation
  /// scaled so the stationary standard deviation is exactly `sigma`); starts at 0.
  mutating func stepDrift(to t: Int64) {
    defer { lastT = t }
    guard let d = nuisance.drift, let last = lastT, t > last else { return }
    let a = max(0, 1 - Double(t - last) / d.tauMs)
    let s = d.sigma * (1 - a * a).squareRoot()
    drift.x = a * drift.x + driftRNG.gaussian(sigma: s)
    drift.y = a * drift.y + driftRNG.gaussian(sigma: s)
  }

  /// Applies the nuisances at `t` to the subject; returns whether the detector lost the
  /// frame (a dropout: no body, no face, people 0).
  mutating func apply(to s: inout SubjectState, at t: Int64) -> Bool {
    stepDrift(to: t)
    var dx = drift.x
    if let sw = nuisance.sway {
      dx += sw.amplitude * _sin(2 * Double.pi * Double(t) / sw.periodMs + swayPhase)
    }
    if dx != 0 { s[.x] += dx }
    if drift.y != 0 {
      for p in [SubjectParam.top, .hip, .ankle, .nose] { s[p] += drift.y }
    }
    if var o = occlusions {
      if o.active(at: t) {
        let parts = nuisance.occlusionParts
        let part = parts[Int(o.pick % UInt64(parts.count))]
        if part == .face { s.noFace = true }
        for j in part.joints where !s.drop.contains(j) { s.drop.append(j) }
      }
      occlusions = o
    }
    if var p = passersby {
      if p.active(at: t), !s.absent { s.people += 1 }
      passersby = p
    }
    if var d = dropouts {
      let lost = d.active(at: t)
      dropouts = d
      return lost
    }
    return false
  }
}
