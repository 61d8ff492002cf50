import EngineIO
import CanonicalJSON
import Foundation
import JustPhotoIO
import Replay
import Testing
import Verify

/// What `verify` means, in the Verify module: each engine's scenario hook judges its own
/// recordings (`Verifier.judgeScenarios`), `--bisect` skips names absent at a commit, and
/// `--budgets` walks the passed recordings with the engine's judge.
@Suite("verify's hooks: scenarios per engine, bisect names, budgets")
struct VerifyHooksTests {
  func accepted(_ names: [String], _ label: String = #function) throws -> TestCorpus { try .accepted(names, label) }

  /// A hook that calls every recording of `names` stale when listed in `stale` and breaks
  /// one rule of those in `unmet`, saying which engine judged.
  func hook(_ engine: String, _ names: Set<String>, stale: Set<String> = [], unmet: Set<String> = []) -> ScenarioChecks {
    ScenarioChecks(
      engine: engine, names: names,
      staleness: { name in stale.contains(name) ? ScenarioFinding(message: "stale by \(engine)") : nil },
      expectations: { name, products in
        unmet.contains(name) && !products.trace.isEmpty ? ["\(name).yaml:4: expect[0] broken (\(engine))"] : []
      })
  }

  @Test func eachNameIsJudgedByTheEngineWhoseScenarioItHas() throws {
    let c = try accepted(["jp", "pix", "plain"])
    var v = c.verifier(ci: true)
    v.judgeScenarios(with: [hook("justphoto", ["jp"], unmet: ["pix"]), hook("pixscan", ["pix", "lost"], stale: ["lost"], unmet: ["pix"])])
    let report = try v.run()
    #expect(report.cases.map(\.name) == ["jp", "lost", "pix", "plain"])
    #expect(report.cases.map(\.category) == [.passed, .stale, .unmet, .passed])
    #expect(report.cases[1].message == "stale by pixscan")
    #expect(report.cases[2].unmet == ["pix.yaml:4: expect[0] broken (pixscan)"])
  }

  @Test func aNameWithScenariosOfTwoEnginesIsBadInputNamingBoth() throws {
    let c = try accepted(["both"])
    var v = c.verifier(ci: true)
    v.judgeScenarios(with: [hook("justphoto", ["both"]), hook("pixscan", ["both"])])
    let report = try v.run()
    #expect(report.cases[0].category == .error)
    #expect(report.cases[0].message == "both: scenario files of justphoto and pixscan both name this recording; keep one")
  }

  @Test func bisectJudgesOnlyTheNamesPresentAtTheCommit() throws {
    let c = try accepted(["here"])
    let (present, absent) = BisectVerdict.judgeable(["here", "gone", "h*", c.store.recordingURL("here").path], store: c.store)
    #expect(present == ["here", "h*", c.store.recordingURL("here").path])
    #expect(absent == ["gone"])
    let step = BisectVerdict.stepOptions(VerifyOptions(names: ["here"], jobs: 3, update: .always, unreferenced: .delete))
    #expect(step.update == .no && step.unreferenced == .ignore && step.jobs == 3 && step.names == ["here"])
  }

  @Test func budgetsJudgeEveryPassedRecordingsGoldenAndCountTheBreaches() throws {
    let c = try accepted(["a", "b", "c"])
    try FileManager.default.removeItem(at: c.store.goldenURL("c", .trace))
    let report = try c.verifier(ci: true).run()
    var said: [String] = []
    var seen: [String] = []
    let judge: VerifyBudgets.Judge = { (name: String, trace: String, header: JSONObject?) throws(BadInputError) -> BudgetJudgement in
      seen.append("\(name):\(trace.split(separator: "\n").count):\(header?["wall_start_ms"] != nil)")
      return BudgetJudgement(line: "budgets \(name)", passed: name != "b")
    }
    let within = try VerifyBudgets.check(report, store: c.store, say: { said.append($0) }, judges: ["justphoto": judge], definitions: JustPhotoEvents.self)
    #expect(!within)
    // c has no golden trace: it did not pass. The test corpus keeps JSONL text under .jprec
    // names, which RecordingFiles cannot open: the judge gets no header (and no error).
    #expect(seen == ["a:2:false", "b:2:false"])
    #expect(said == ["budgets a", "budgets b", "budgets: 1 recording(s) over budget"])
    // An engine without a judge has no budgets: said, and within.
    var other: [String] = []
    #expect(try VerifyBudgets.check(report, store: c.store, say: { other.append($0) }, judges: ["pixscan": judge], definitions: JustPhotoEvents.self))
    #expect(other.first == "budgets a: none (no budgets for justphoto recordings)")
    #expect(throws: BadInputError(message: "a: header budgets: bad")) {
      let failing: VerifyBudgets.Judge = { (name: String, _: String, _: JSONObject?) throws(BadInputError) -> BudgetJudgement in
        throw BadInputError(message: "\(name): header budgets: bad")
      }
      return try VerifyBudgets.check(report, store: c.store, say: { _ in }, judges: ["justphoto": failing], definitions: JustPhotoEvents.self)
    }
  }
}
