import CanonicalJSON
import JustPhotoEngine
import EngineIO
import Foundation
import JustPhotoIO
import JustPhotoPlugin
import PoseSpec
import Replay

/// Keeps what the objectives need from a replay, as it comes: the displayed cue per
/// `cue_display`, praise grants, and the canonical lines of `cue_display` and `prompt` records
/// (the input of the guidance budgets, `BudgetCheck`). With `keepRecords` it also keeps those
/// and every other record but `cue_eval` (for an expectation checker: `expect:` rules may
/// judge any trace kind). Diagnostics are dropped.
struct ScoreOutput: ReplayOutput {
  var displays: [(t: Millis, cue: String?)] = []
  var praises = 0
  var budgetRecords: [TraceRecord] = []
  var keepRecords = false
  var records: [TraceRecord] = []

  init(keepRecords: Bool = false) { self.keepRecords = keepRecords }

  mutating func emit(_ output: EngineOutput, at t: Millis) {
    switch output {
    case .cueDisplay(let d):
      displays.append((t, d.cueId))
      budgetRecords.append(TraceRecord(output, at: t))
    case .prompt:
      budgetRecords.append(TraceRecord(output, at: t))
    case .praise(let p):
      if p.state == .on { praises += 1 }
    case .cueEval: return
    default: break
    }
    if keepRecords { records.append(TraceRecord(output, at: t)) }
  }

  mutating func emit(_ line: DiagnosticLine) {}
}

/// The session store of an in-memory replay (DESIGN §1 semantics without SQLite): `save`
/// keeps the last snapshot, `load` returns it. Scoring replays many times a second; a file
/// per replay would dominate.
final class MemorySessionStore: SessionStorePort {
  var snapshot = StoreSnapshot(session: nil)
  func save(_ snapshot: StoreSnapshot) { self.snapshot = snapshot }
  func load() -> StoreSnapshot { snapshot }
}

/// The budget limits a recording is held to: `base`, then the recording header's own
/// `budgets: {name: value}` (as `verify --budgets` does).
enum ScoreBudgets {
  static func limits(header: JSONObject, base: BudgetLimits, path: String) throws(HarnessFailure) -> BudgetLimits {
    var local = base
    for m in header["budgets"]?.objectValue?.members ?? [] {
      let setting = "\(m.key)=\(m.value.int64Value.map(String.init) ?? m.value.stringValue ?? "")"
      do { try local.set(setting) } catch { throw .badInput("\(path): header budgets: \(error.message)") }
    }
    return local
  }
}
