import CanonicalJSON
import EngineIO
import EngineSeam
import Recording
import Replay

/// What an engine's budget judge says about one recording's golden trace.
public struct BudgetJudgement: Equatable, Sendable {
  /// The console text: a line, and one more per breach.
  public var line: String
  /// Whether every budget holds.
  public var passed: Bool

  /// A judgement.
  public init(line: String, passed: Bool) {
    self.line = line
    self.passed = passed
  }
}

/// `verify --budgets`: the budgets judged on the golden trace of every recording that passed.
/// What a budget is belongs to the engine (Just Photo's prompt budgets: `BudgetLimits.judge`
/// in JustPhotoPlugin); this is the walk, the choice of judge by the header's `engine`, the
/// summary line and the verdict.
public enum VerifyBudgets {
  /// One engine's budgets on one recording: its name, golden trace text and header (nil when
  /// the recording cannot be opened here).
  public typealias Judge = (_ name: String, _ trace: String, _ header: JSONObject?) throws(BadInputError) -> BudgetJudgement

  /// Judges each passed case of `report` with the judge of the engine its header names (Just
  /// Photo when it names none or cannot be read), saying each judgement as it comes, then the
  /// summary line; a recording of an engine without a judge is said to have no budgets and
  /// counts as within. True when every recording is within its budgets; a judge's error (a
  /// recording's own budgets that do not parse) stops the walk: bad input, exit 2.
  /// `definitions`: those of a recording whose header names no engine (what opens it).
  public static func check(
    _ report: VerifyReport, store: GoldenStore, say: (String) -> Void, judges: [String: Judge],
    definitions: any EventDefinitions.Type
  ) throws(BadInputError) -> Bool {
    var breached = 0
    for c in report.cases where c.passed {
      guard let trace = try? store.readGolden(c.name, .trace) else { continue }
      let header = try? RecordingFiles.open(store.recordingURL(c.name).path, definitions: definitions).header
      let engine = header.flatMap { EngineName.of(header: $0) } ?? justPhotoEngineName
      guard let judge = judges[engine] else {
        say("budgets \(c.name): none (no budgets for \(engine) recordings)")
        continue
      }
      let judgement = try judge(c.name, trace, header)
      say(judgement.line)
      if !judgement.passed { breached += 1 }
    }
    say("budgets: \(breached == 0 ? "all within limits" : "\(breached) recording(s) over budget")")
    return breached == 0
  }
}
