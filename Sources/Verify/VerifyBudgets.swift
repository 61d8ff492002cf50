import CanonicalJSON
import Recording
import Replay

/// What an engine's budget judge says about one recording's golden trace.
public struct BudgetJudgement: Equatable, Sendable {
  /// The console text: a line, and one more per breach.
  public var line: String
  /// Whether every budget holds.
  public var passed: Bool

  public init(line: String, passed: Bool) {
    self.line = line
    self.passed = passed
  }
}

/// `verify --budgets`: the budgets judged on the golden trace of every recording that passed.
/// What a budget is belongs to the engine (Just Photo's prompt budgets: `BudgetLimits.judge`
/// in ReplayHarness); this is the walk, the summary line and the verdict.
public enum VerifyBudgets {
  /// Judges each passed case of `report` with `judge(name, trace, header)` (the header is nil
  /// when the recording cannot be opened here), saying each judgement as it comes, then the
  /// summary line. True when every recording is within its budgets; a judge's error (a
  /// recording's own budgets that do not parse) stops the walk: bad input, exit 2.
  public static func check(
    _ report: VerifyReport, store: GoldenStore, say: (String) -> Void,
    judge: (_ name: String, _ trace: String, _ header: JSONObject?) throws(BadInputError) -> BudgetJudgement
  ) throws(BadInputError) -> Bool {
    var breached = 0
    for c in report.cases where c.passed {
      guard let trace = try? store.readGolden(c.name, .trace) else { continue }
      let header = try? RecordingFiles.open(store.recordingURL(c.name).path).header
      let judgement = try judge(c.name, trace, header)
      say(judgement.line)
      if !judgement.passed { breached += 1 }
    }
    say("budgets: \(breached == 0 ? "all within limits" : "\(breached) recording(s) over budget")")
    return breached == 0
  }
}
