import CanonicalJSON
import Replay
import Verify

extension BudgetLimits {
  /// Just Photo's judge for `verify --budgets` (`VerifyBudgets.check`): these limits, then
  /// the recording header's own `budgets`, on a golden trace. Own budgets that do not parse
  /// are bad input naming the recording.
  public func judge(name: String, trace: String, header: JSONObject?) throws(BadInputError) -> BudgetJudgement {
    var own = (limits: self, settings: [String]())
    if let header {
      do { own = try applying(header: header) } catch {
        throw BadInputError(message: "\(name): header budgets: \(error.message)")
      }
    }
    let records: [TraceRecord]
    do { records = try GoldenTrace.records(trace) } catch {
      throw BadInputError(message: "\(name): golden trace line \(error.line): \(error.message)")
    }
    var r = BudgetCheck.check(name: name, records: records, limits: own.limits)
    if !own.settings.isEmpty { r.name += " (own limits \(own.settings.joined(separator: ", ")))" }
    return BudgetJudgement(line: r.line, passed: r.passed)
  }
}
