import ScenarioYAML
import CanonicalJSON
import EngineIO

/// The realistic-noise keys of a scenario's `noise:` mapping (issue 15.2, the tuning corpus):
/// what a phone's pose detector and a live scene add to the subject the scenario describes.
/// Every one of them is a nuisance — the ground-truth labels are the author's declared intent
/// (`ScenarioIntent`), which never mentions them, so the coach is judged on whether it *ignores*
/// these and follows the timeline's true changes.
///
/// ```yaml
/// noise:
///   landmark_sigma: 0.003                    # i.i.d. per coordinate (Scenario.Noise)
///   dropouts: {per_min: 2, min_ms: 130, max_ms: 700}      # tracker lost: no body, no face, people 0
///   occlusions: {per_min: 3, min_ms: 300, max_ms: 2000, parts: [face, left_arm, legs]}
///   passersby: {per_min: 1, min_ms: 1500, max_ms: 4000}   # one more person in view
///   drift: {sigma: 0.01, tau_ms: 20000}      # slow wander of the whole subject (x and y)
///   sway: {amplitude: 0.004, period_ms: 4000}             # postural sway in x, seeded phase
/// ```
///
/// Episodes (dropouts, occlusions, passers-by) are a Poisson process per kind: the gap after
/// an episode's end is exponential with mean 60 000 / per_min ms, its length uniform in
/// [min_ms, max_ms]; an occlusion hides one of `parts` (chosen uniformly). Each kind draws from
/// its own SplitMix64 seeded from the scenario's `seed`, so adding a key never moves the other
/// noise (and a scenario without these keys keeps its bytes). Bounds: `ScenarioLimits`
/// `nuisancePerMinuteMax`, `nuisanceEpisodeMsMax`, `driftSigmaMax`, `driftTauMs`,
/// `swayAmplitudeMax`, `swayPeriodMs`.
public struct Nuisance: Sendable, Equatable {
  /// A Poisson process of episodes of random length.
  public struct Episodes: Sendable, Equatable {
    public var perMinute: Double
    public var minMs: Int64
    public var maxMs: Int64
  }

  /// A body region an occlusion hides.
  public enum Part: String, CaseIterable, Sendable {
    /// no face observation, and the body's nose, eyes and ears missing (a hand, a cup)
    case face
    /// the subject's left elbow and wrist (image right)
    case left_arm
    /// the subject's right elbow and wrist
    case right_arm
    /// knees and ankles (a table, a passer-by's legs)
    case legs

    var joints: [Joint] {
      switch self {
      case .face: [.nose, .leftEye, .rightEye, .leftEar, .rightEar]
      case .left_arm: [.leftElbow, .leftWrist]
      case .right_arm: [.rightElbow, .rightWrist]
      case .legs: [.leftKnee, .rightKnee, .leftAnkle, .rightAnkle]
      }
    }
  }

  public var dropouts: Episodes?
  public var occlusions: Episodes?
  public var occlusionParts: [Part] = Part.allCases
  public var passersby: Episodes?
  /// Ornstein–Uhlenbeck wander of x and y: stationary standard deviation and time constant.
  public var drift: (sigma: Double, tauMs: Double)?
  /// x += amplitude · sin(2π t / period + φ), φ from the seed.
  public var sway: (amplitude: Double, periodMs: Double)?

  public init() {}

  public var isEmpty: Bool { self == Nuisance() }

  public static func == (a: Nuisance, b: Nuisance) -> Bool {
    a.dropouts == b.dropouts && a.occlusions == b.occlusions && a.occlusionParts == b.occlusionParts
      && a.passersby == b.passersby && a.drift?.sigma == b.drift?.sigma && a.drift?.tauMs == b.drift?.tauMs
      && a.sway?.amplitude == b.sway?.amplitude && a.sway?.periodMs == b.sway?.periodMs
  }

  /// The keys this type reads inside `noise:`.
  public static let keys = ["dropouts", "occlusions", "passersby", "drift", "sway"]

  /// Reads one `noise:` member whose key is one of `keys`.
  mutating func parse(key: String, _ n: YNode) throws(ScenarioError) {
    switch key {
    case "dropouts": dropouts = try Self.episodes(n, extra: [])
    case "passersby": passersby = try Self.episodes(n, extra: [])
    case "occlusions":
      occlusions = try Self.episodes(n, extra: ScenarioSchema.occlusionExtraKeys)
      if let p = try n.mapping().first(where: { $0.key == "parts" })?.value { occlusionParts = try Self.parts(p) }
    case "drift":
      let m = try Self.fields(n, ScenarioSchema.driftKeys)
      let sigma = try Self.number(m[0], 0, ScenarioLimits.driftSigmaMax, "ScenarioLimits.driftSigmaMax", "a standard deviation")
      let tau = try Self.number(
        m[1], ScenarioLimits.driftTauMs.lowerBound, ScenarioLimits.driftTauMs.upperBound, "ScenarioLimits.driftTauMs",
        "a time constant in ms")
      drift = (sigma, tau)
    case "sway":
      let m = try Self.fields(n, ScenarioSchema.swayKeys)
      let a = try Self.number(m[0], 0, ScenarioLimits.swayAmplitudeMax, "ScenarioLimits.swayAmplitudeMax", "an amplitude")
      let p = try Self.number(
        m[1], ScenarioLimits.swayPeriodMs.lowerBound, ScenarioLimits.swayPeriodMs.upperBound, "ScenarioLimits.swayPeriodMs",
        "a period in ms")
      sway = (a, p)
    default:
      throw n.error("unknown noise key; expected one of: \(Self.keys.joined(separator: ", "))")
    }
  }

  /// The values of `names` in `n` (a mapping with exactly those keys), in that order.
  static func fields(_ n: YNode, _ names: [String]) throws(ScenarioError) -> [YNode] {
    let m = try n.mapping(allowed: names)
    var out: [YNode] = []
    for k in names {
      guard let v = m.first(where: { $0.key == k })?.value else {
        throw n.error("missing key \"\(k)\"; expected {\(names.joined(separator: ", "))}")
      }
      out.append(v)
    }
    return out
  }

  static func number(_ n: YNode, _ lo: Double, _ hi: Double, _ bound: String, _ what: String) throws(ScenarioError) -> Double {
    let v = try n.double()
    guard v.isFinite, v >= lo, v <= hi else {
      throw n.error("expected \(what) in [\(JSONWriter.shortest(lo)), \(JSONWriter.shortest(hi))] (\(bound)), found \(JSONWriter.shortest(v))")
    }
    return v
  }

  static func episodes(_ n: YNode, extra: [String]) throws(ScenarioError) -> Episodes {
    let names = ScenarioSchema.episodeKeys
    let m = try n.mapping(allowed: names + extra)
    for k in names where !m.contains(where: { $0.key == k }) {
      throw n.error("missing key \"\(k)\"; expected {\((names + extra).joined(separator: ", "))}")
    }
    func v(_ k: String) -> YNode { m.first(where: { $0.key == k })!.value }
    let rate = try number(v("per_min"), 0, ScenarioLimits.nuisancePerMinuteMax, "ScenarioLimits.nuisancePerMinuteMax", "episodes a minute")
    let longest = ScenarioLimits.nuisanceEpisodeMsMax
    let lo = try v("min_ms").int()
    guard lo >= 1, lo <= longest else {
      throw v("min_ms").error("expected an episode length 1…\(longest) ms (ScenarioLimits.nuisanceEpisodeMsMax), found \(lo)")
    }
    let hi = try v("max_ms").int()
    guard hi >= lo, hi <= longest else {
      throw v("max_ms").error(
        "expected an episode length \(lo)…\(longest) ms (≥ min_ms, ScenarioLimits.nuisanceEpisodeMsMax), found \(hi)")
    }
    return Episodes(perMinute: rate, minMs: lo, maxMs: hi)
  }

  static func parts(_ n: YNode) throws(ScenarioError) -> [Part] {
    var out: [Part] = []
    let names = Part.allCases.map(\.rawValue)
    for e in try n.sequence(max: names.count, bound: "one entry per part") {
      let s = try e.string()
      guard let p = Part(rawValue: s) else {
        var msg = "unknown part \"\(s)\""
        if let c = closest(s, in: names) { msg += " (did you mean \"\(c)\"?)" }
        throw e.error(msg + "; expected one of: \(names.joined(separator: ", "))")
      }
      guard !out.contains(p) else { throw e.error("\(s) is listed twice") }
      out.append(p)
    }
    guard !out.isEmpty else { throw n.error("expected at least one part (\(names.joined(separator: ", ")))") }
    return out
  }
}

extension ScenarioLimits {
  /// The most nuisance episodes a minute (dropouts, occlusions, passers-by), each kind.
  public static let nuisancePerMinuteMax = 60.0
  /// The longest nuisance episode, in ms.
  public static let nuisanceEpisodeMsMax: Int64 = 60_000
  /// The largest drift standard deviation (normalized image units).
  public static let driftSigmaMax = 0.2
  /// The drift time constant's range, in ms (≥ 1 s keeps the per-frame step small).
  public static let driftTauMs: ClosedRange<Double> = 1000...3_600_000
  /// The largest sway amplitude (normalized image units).
  public static let swayAmplitudeMax = 0.1
  /// The sway period's range, in ms.
  public static let swayPeriodMs: ClosedRange<Double> = 200...600_000
}
