import ScenarioYAML
/// Detector-model randomisation (issue 35 item 6): `detector: {profile: NAME, randomise: true}`
/// draws the session's figures around the named profile, within the ranges below, from the
/// scenario's seed alone — so a recording is still a pure function of its scenario file, and a
/// scenario re-seeded in memory (K detector seeds) draws another detector as well as other
/// noise. docs/SCENARIOS.md (`detector`) and docs/CORPUS.md ("Detector profiles") list the same
/// ranges; a test keeps every draw inside them.
///
/// | draw | figures | range |
/// |---|---|---|
/// | jitter scale k (one for all four) | face, core, middle, extremity σ | profile × k, k uniform in [0.5, 1.5] |
/// | ρ | rho | profile ± 0.15, within [0, 0.95] |
/// | outlier rate | outlier_rate | profile × m, m uniform in [0.5, 2] |
/// | outlier size | outlier_min, outlier_max | each profile × [0.8, 1.2]; max raised to min if below |
/// | swap rate | swap_rate | profile × [0.5, 2] |
/// | confidence shift c (one for all four) | conf_core, conf_middle, conf_extremity, conf_face | profile + c, c uniform in [−0.05, 0.05], within [0, 1] |
/// | confidence spread | conf_sigma | profile × [0.75, 1.25] |
/// | confidence ρ | conf_rho | profile ± 0.1, within [0, 0.95] |
/// | luma noise | luma_sigma | profile × [0.5, 2] |
///
/// One jitter scale for the four σ keeps the profile's ratios between the groups (their sources
/// are ratios); one confidence shift likewise. The ten uniforms are drawn in the table's order
/// from their own SplitMix64 (`NuisanceStream.seed(seed, 0xDE7E_C706)`), every one of them
/// whether or not its figure is drawn: a figure the file sets by name (`fixed`) keeps its value
/// and moves no other figure's draw.
public enum DetectorRandomisation {
  /// The salt of the draw's stream (after the detector's five, 0xDE7E_C701…C705).
  static let salt: UInt64 = 0xDE7E_C706

  /// A multiplicative range.
  public static let jitterScale: ClosedRange<Double> = 0.5...1.5
  public static let rhoShift = 0.15
  public static let rhoMax = 0.95
  public static let outlierRateScale: ClosedRange<Double> = 0.5...2
  public static let outlierSizeScale: ClosedRange<Double> = 0.8...1.2
  public static let swapRateScale: ClosedRange<Double> = 0.5...2
  public static let confShift = 0.05
  public static let confSigmaScale: ClosedRange<Double> = 0.75...1.25
  public static let confRhoShift = 0.1
  public static let lumaSigmaScale: ClosedRange<Double> = 0.5...2

  /// The profile a session of `seed` is generated with: `base`'s figures drawn within the
  /// ranges, those in `fixed` kept.
  public static func draw(_ base: DetectorProfile, seed: UInt64, fixed: Set<DetectorProfile.Figure> = []) -> DetectorProfile {
    var rng = SplitMix64(seed: NuisanceStream.seed(seed, salt))
    func scaled(_ r: ClosedRange<Double>) -> Double { r.lowerBound + (r.upperBound - r.lowerBound) * rng.unit() }
    func shifted(_ w: Double) -> Double { (2 * rng.unit() - 1) * w }
    let k = scaled(jitterScale)
    let rho = shifted(rhoShift)
    let outlierRate = scaled(outlierRateScale)
    let outlierMin = scaled(outlierSizeScale)
    let outlierMax = scaled(outlierSizeScale)
    let swap = scaled(swapRateScale)
    let c = shifted(confShift)
    let confSigma = scaled(confSigmaScale)
    let confRho = shifted(confRhoShift)
    let luma = scaled(lumaSigmaScale)

    var p = base
    func set(_ f: DetectorProfile.Figure, _ v: Double) {
      guard !fixed.contains(f) else { return }
      let (range, _, _) = f.range
      p[f] = min(max(v, range.lowerBound), range.upperBound)
    }
    for f in [DetectorProfile.Figure.face_sigma, .core_sigma, .middle_sigma, .extremity_sigma] { set(f, base[f] * k) }
    set(.rho, min(max(base.rho + rho, 0), rhoMax))
    set(.outlier_rate, base.outlierRate * outlierRate)
    set(.outlier_min, base.outlierMin * outlierMin)
    set(.outlier_max, base.outlierMax * outlierMax)
    set(.swap_rate, base.swapRate * swap)
    for f in [DetectorProfile.Figure.conf_core, .conf_middle, .conf_extremity, .conf_face] { set(f, base[f] + c) }
    set(.conf_sigma, base.confSigma * confSigma)
    set(.conf_rho, min(max(base.confRho + confRho, 0), rhoMax))
    set(.luma_sigma, base.lumaSigma * luma)
    if p.outlierMax < p.outlierMin {
      if fixed.contains(.outlier_max) { p.outlierMin = p.outlierMax } else { p.outlierMax = p.outlierMin }
    }
    return p
  }
}
