/// Mirror evaluation of withRef errors (ENGINE §3.13f; [C] `MirrorEvaluator`).
///
/// The error is computed on the live metrics and on mirrored metrics; the one with the
/// smaller absolute value wins, a tie keeps the non-mirrored error.
public enum MatchMirror {
  /// Metrics that change sign under x' = 1 − x in `mirrorMode=scalar`.
  public static let negatedMetrics = ["centerXOffset", "registrationOffsetX", "faceHalfDiff"]
  /// Left/right metric pairs swapped in `mirrorMode=scalar`.
  public static let swappedMetrics = [("colorTempLeftK", "colorTempRightK")]

  /// The `mirrorMode=scalar` mirror of a live metric map: `negatedMetrics` negated (an
  /// unavailable sample stays as it is), `swappedMetrics` exchanged (a missing side makes the
  /// other missing too, as [C]); every other metric, angles included, unchanged.
  public static func scalarMirrored(_ live: [String: MetricSample]) -> [String: MetricSample] {
    var out = live
    for (a, b) in swappedMetrics {
      out[a] = live[b]
      out[b] = live[a]
    }
    for name in negatedMetrics {
      if case .value(let v)? = live[name] { out[name] = .value(-v) }
    }
    return out
  }

  /// Where `scalarMirrored(live)[metric]` comes from: the live sample of `source` (the
  /// metric's pair in `swappedMetrics`, else the metric itself), negated when `negated` (a
  /// metric of `negatedMetrics`; the two lists share no metric). For the MatchDecider, which
  /// reads one mirrored value per requirement without building the mirrored map.
  static func scalarMirrorSource(of metric: String) -> (source: String, negated: Bool) {
    for (a, b) in swappedMetrics {
      if metric == a { return (b, false) }
      if metric == b { return (a, false) }
    }
    return (metric, negatedMetrics.contains(metric))
  }

  /// The chosen error: `mirrored` when it is finite and strictly smaller in absolute value,
  /// else `normal`. Returns the error and whether the mirrored one was chosen.
  public static func chooseError(normal: Double, mirrored: Double?) -> (error: Double, mirrored: Bool) {
    if let m = mirrored, m.isFinite, abs(m) < abs(normal) { return (m, true) }
    return (normal, false)
  }
}
