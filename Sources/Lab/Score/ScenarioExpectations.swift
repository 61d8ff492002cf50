import Foundation
import Recording
import Replay
import JustPhotoPlugin
import JustPhotoScenarios

// The scorer's view of the corpus's expect: rules (score's `expect` column, tune's hard
// constraint): ``ExpectationChecker`` is the lab's, so these stay beside it.

extension ScenarioCorpus {
  /// `CorpusScorer.expectations` (score's `expect` column, tune's hard constraint): the
  /// `expect:` rules of the scenario beside each recording (`<dir>/<name>.scenario.yaml`)
  /// checked against that replay's records; none for a recording without a scenario.
  /// `scope`: whether the replays run the committed configuration (`Expectations.judge`).
  package static func scoreExpectations(_ scope: MarkerScope) -> ExpectationChecker { { rec, records in
    let dir = Paths.parent(rec.path)
    guard let all = try? expectations(of: rec.name, recordingsDir: dir.isEmpty ? "." : dir), case let rules = Expectations.traceOnly(all),
      !rules.isEmpty
    else {
      return ([], [])
    }
    var trace = ExpectationTrace()
    for r in records.lazy.map(TraceFormat.canonical) { trace.add(t: r.t, out: r.out, fields: r.fields) }
    return ScenarioCorpus.verdictLines(Expectations.judge(rules, trace: trace, draw: rec.draw, scope: scope))
  } }

  /// A verdict as the scorer keeps it: failures and known misses, one line each.
  static func verdictLines(_ v: ExpectationVerdict) -> (failures: [String], known: [String]) {
    (v.failures.map(\.description), v.knownMisses.map(\.knownDescription))
  }
}

extension ScenarioCorpus {
  /// `scoreExpectations` for a fixed corpus with each recording's rules read once (`tune`
  /// replays every recording per trial); nil when none of `names` has an `expect:` rule (the
  /// scorer then keeps no records).
  package static func preloadedExpectations(
    recordingsDir: String, names: [String], scope: MarkerScope = .other
  ) throws(ScenarioError) -> ExpectationChecker? {
    var rules: [String: [ScenarioExpectation]] = [:]
    for n in names {
      let r = Expectations.traceOnly(try expectations(of: n, recordingsDir: recordingsDir))
      if !r.isEmpty { rules[n] = r }
    }
    guard !rules.isEmpty else { return nil }
    let frozen = rules
    return { rec, records in
      guard let r = frozen[rec.name] else { return ([], []) }
      var trace = ExpectationTrace()
      for x in records.lazy.map(TraceFormat.canonical) { trace.add(t: x.t, out: x.out, fields: x.fields) }
      return ScenarioCorpus.verdictLines(Expectations.judge(r, trace: trace, draw: rec.draw, scope: scope))
    }
  }
}

