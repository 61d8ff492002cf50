import JustPhotoEngine
import PoseSpec

/// One cue's entry of a `cue_eval` output as values: what its object in the trace record holds
/// (`CueEvalRender`), read from the typed output without rendering the record. `export --mcap`
/// writes one metric message per entry.
public struct CueMetricEntry: Sendable {
  public var id: String
  /// The level observed this evaluation (`none`, `enter`, `warn`, `hard`, `exit`).
  public var level: String
  public var error: Double?
  public var severity: Double?
  public var state: String
  /// The thresholds the level was judged against, each level's rule as the trace writes it;
  /// nil when the entry carries none.
  public var rules: CueMetricRules?
}

/// A cue's thresholds as rule texts (`>0.12`, `between[0.36,0.42]`, several joined by `|`), per
/// level; nil where the level has no threshold (the trace's `null`).
public struct CueMetricRules: Equatable, Sendable {
  public var hard: String?
  public var warn: String?
  public var enter: String?
  public var exit: String?

  public init(hard: String?, warn: String?, enter: String?, exit: String?) {
    (self.hard, self.warn, self.enter, self.exit) = (hard, warn, enter, exit)
  }

  init(_ set: ThresholdSet) {
    self.init(
      hard: CueEvalRender.ruleText(set.hard), warn: CueEvalRender.ruleText(set.warn),
      enter: CueEvalRender.ruleText(set.enter), exit: CueEvalRender.ruleText(set.exit))
  }
}

/// Reads the cue entries of `cue_eval` outputs (T0 evaluations and T1 ticks) as
/// ``CueMetricEntry`` values. A cue's rule texts are rendered once and reused while its
/// thresholds stay the same, so an entry costs no allocation.
public struct CueMetricReader {
  /// Per cue, the thresholds last seen and their rule texts.
  private var rules: [String: (set: ThresholdSet, rules: CueMetricRules)] = [:]

  public init() {}

  /// Calls `body` with each cue entry of `output`, in the record's order, and returns true
  /// when `output` is a `cue_eval`; any other output returns false without calling `body`.
  public mutating func forEachEntry(of output: EngineOutput, _ body: (CueMetricEntry) throws -> Void) rethrows -> Bool {
    guard case .cueEval(let e) = output else { return false }
    switch e {
    case .t0(let t0): for entry in t0.entries { try body(metric(entry)) }
    case .t1(_, _, let entries): for entry in entries { try body(metric(entry)) }
    }
    return true
  }

  private mutating func metric(_ e: CueEvalEntry) -> CueMetricEntry {
    CueMetricEntry(
      id: e.id, level: e.level.rawValue, error: e.error, severity: e.severity, state: e.state,
      rules: e.thresholds.map { rules(of: e.id, $0) })
  }

  private mutating func rules(of id: String, _ set: ThresholdSet) -> CueMetricRules {
    if let known = rules[id], known.set == set { return known.rules }
    let r = CueMetricRules(set)
    rules[id] = (set, r)
    return r
  }
}
