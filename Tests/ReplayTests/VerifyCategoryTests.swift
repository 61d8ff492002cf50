import Foundation
import Replay
import Testing
import Verify

/// verify's categories (passed, failed, missing, stale, orphan, updated, error), update modes
/// and name globs, on a small temporary corpus (never the repository's Golden/).
@Suite("verify categories and update modes")
struct VerifyCategoryTests {
  func accepted(_ names: [String], _ label: String = #function) throws -> TestCorpus { try .accepted(names, label) }

  func verifier(_ c: TestCorpus, variant: String = "a", update: UpdateMode,
    unreferenced: UnreferencedPolicy = .fail, names: [String]? = nil) -> Verifier
  {
    Verifier(
      store: c.store,
      options: VerifyOptions(names: names, update: update, unreferenced: unreferenced),
      driver: c.driver(variant: variant))
  }

  @Test func theUpdateModeComesFromTheFlagThenTheEnvironmentThenCIAndExploration() throws {
    #expect(try UpdateMode.resolve(flag: .always, exploring: true, environment: ["CI": "1"]) == .always)
    #expect(try UpdateMode.resolve(flag: nil, exploring: true, environment: ["JPREPLAY_UPDATE": "new"]) == .new)
    #expect(try UpdateMode.resolve(flag: nil, exploring: false, environment: ["CI": "true"]) == .no)
    #expect(try UpdateMode.resolve(flag: nil, exploring: false, environment: ["CI": "false"]) == .new)
    #expect(try UpdateMode.resolve(flag: nil, exploring: true, environment: [:]) == .no)
    #expect(try UpdateMode.resolve(flag: nil, exploring: false, environment: [:]) == .new)
    #expect(throws: BadInputError.self) {
      try UpdateMode.resolve(flag: nil, exploring: false, environment: ["JPREPLAY_UPDATE": "yes"])
    }
  }

  @Test func updateAlwaysOverwritesTheGoldenRemovesTheNewFileAndPasses() throws {
    let c = try accepted(["walk"])
    _ = try verifier(c, variant: "b", update: .new).run()
    #expect(c.goldenFiles().contains("walk.trace.jsonl.new"))
    let report = try verifier(c, variant: "b", update: .always).run()
    #expect(report.exitCode == .ok)
    #expect(report.cases[0].category == .updated)
    #expect(report.cases[0].updated.map(\.file) == [.trace])
    #expect(c.goldenFiles() == ["walk.a13.jsonl", "walk.trace.jsonl"])
    #expect(try c.store.readGolden("walk", .trace)?.contains(#""level":"hard""#) == true)
    #expect(report.summaryLine == "0 passed, 0 failed, 1 updated")
    #expect(try verifier(c, variant: "b", update: .no).run().exitCode == .ok)
  }

  @Test func updateNoWritesNothingAndSaysSo() throws {
    let c = try accepted(["walk"])
    let report = try verifier(c, variant: "b", update: .no).run()
    #expect(report.exitCode == .difference)
    #expect(c.goldenFiles() == ["walk.a13.jsonl", "walk.trace.jsonl"])
    #expect(report.render().contains("nothing written (update mode no)"))
  }

  @Test func aStaleRecordingIsItsOwnCategoryCountedTruthfullyAndWritesNothing() throws {
    let c = try accepted(["fresh", "old"])
    var v = verifier(c, update: .new)
    v.scenarioNames = ["old", "unrecorded"]
    v.scenarioCheck = { name in
      name == "fresh" ? nil : ScenarioFinding(message: "stale: run jpreplay record \(name)")
    }
    let report = try v.run()
    #expect(report.cases.map(\.name) == ["fresh", "old", "unrecorded"])
    #expect(report.cases.map(\.category) == [.passed, .stale, .stale])
    #expect(report.exitCode == .difference)
    // The old one-liner said "N passed, 0 failed" and exited 1; now every case is counted.
    #expect(report.summaryLine == "1 passed, 0 failed, 2 stale")
    #expect(report.render().contains("STALE   old: stale: run jpreplay record old"))
    let changed = try {
      var w = verifier(c, variant: "b", update: .new)
      w.scenarioNames = ["old"]
      w.scenarioCheck = { _ in ScenarioFinding(message: "stale") }
      return try w.run()
    }()
    #expect(changed.cases.map(\.category) == [.failed, .stale])
    #expect(c.goldenFiles().filter { $0.hasPrefix("old") } == ["old.a13.jsonl", "old.trace.jsonl"])
  }

  @Test func anUnreadableScenarioIsBadInput() throws {
    let c = try accepted(["walk"])
    var v = verifier(c, update: .no)
    v.scenarioNames = ["walk"]
    v.scenarioCheck = { _ in ScenarioFinding(message: "walk.scenario.yaml:3: bad", unreadable: true) }
    let report = try v.run()
    #expect(report.cases[0].category == .error)
    #expect(report.exitCode == .badInput)
    #expect(report.summaryLine == "0 passed, 0 failed, 1 error (bad input)")
  }

  @Test func orphanGoldensFailAreIgnoredOrDeletedAsAsked() throws {
    let c = try accepted(["gone", "kept"])
    try c.store.writePending("gone", .trace, "x\n")
    try FileManager.default.removeItem(at: c.store.recordingURL("gone"))
    let fail = try verifier(c, update: .no).run()
    #expect(fail.cases[0].status == .orphanGolden)
    #expect(fail.exitCode == .difference)
    #expect(fail.summaryLine == "1 passed, 0 failed, 1 orphan")
    let ignore = try verifier(c, update: .no, unreferenced: .ignore).run()
    #expect(ignore.cases[0].category == .orphan && ignore.exitCode == .ok)
    #expect(c.goldenFiles().count == 5)
    let delete = try verifier(c, update: .no, unreferenced: .delete).run()
    #expect(
      delete.cases[0].status
        == .orphanDeleted(["gone.trace.jsonl", "gone.trace.jsonl.new", "gone.a13.jsonl"]))
    #expect(delete.exitCode == .ok)
    #expect(c.goldenFiles() == ["kept.a13.jsonl", "kept.trace.jsonl"])
  }

  @Test func globsSelectNamesAndAGlobMatchingNothingIsBadInput() throws {
    let c = try TestCorpus()
    for n in ["cov-a", "cov-b", "s01"] { try c.addRecording(n, times: [1]) }
    let cov = try verifier(c, update: .no, names: ["cov-*", "Recordings/s0?.jprec"]).run()
    #expect(cov.cases.map(\.name) == ["cov-a", "cov-b", "s01"])
    let none = try verifier(c, update: .no, names: ["zz-*"]).run()
    #expect(none.exitCode == .badInput)
    #expect(none.cases[0].message.contains("no recording or golden matches 'zz-*'"))
    #expect(GoldenStore.glob("s[0-1]*", matches: "s10") && !GoldenStore.glob("s[2]*", matches: "s10"))
  }

  @Test func colourIsOnlyAddedWhenAsked() throws {
    let c = try accepted(["walk"])
    let report = try verifier(c, variant: "b", update: .no).run()
    #expect(!report.render().contains("\u{1B}["))
    #expect(report.render(color: true).contains("\u{1B}[31mFAIL"))
  }

  @Test func defaultJobsIsTheCoreCount() {
    #expect(VerifyOptions.defaultJobs == min(ProcessInfo.processInfo.activeProcessorCount, 64))
    #expect(VerifyOptions(ci: true).update == .no && VerifyOptions().update == .new)
  }
}

/// Issue 15: a scenario's `expect:` rules are judged apart from the goldens.
@Suite struct UnmetExpectationTests {
  @Test func aBrokenRuleIsUnmetWhileTheGoldensMatch() throws {
    let c = try TestCorpus("unmet")
    try c.addRecording("a", times: [100, 200])
    try c.addRecording("b", times: [100, 200])
    _ = try c.verifier().run()
    _ = try c.store.accept(names: nil)
    var v = Verifier(store: c.store, options: VerifyOptions(names: nil, update: .no), driver: c.driver(variant: "a"))
    v.scenarioNames = ["a", "b"]
    v.expectationCheck = { name, trace in
      // The checker sees the fresh trace text of the replay.
      name == "a" && !trace.trace.isEmpty ? ["a.scenario.yaml:9: expect[0] (X displayed at t=0): not met"] : []
    }
    let report = try v.run()
    let a = try #require(report.cases.first { $0.name == "a" })
    #expect(a.category == .unmet && a.exitCode == .difference && !a.passed)
    #expect(a.message.contains("1 expectation not met") && a.details == ["expect: a.scenario.yaml:9: expect[0] (X displayed at t=0): not met"])
    #expect(report.cases.first { $0.name == "b" }?.category == .passed)
    #expect(report.count(.unmet) == 1 && report.exitCode == .difference)
    #expect(report.summaryLine == "1 passed, 0 failed, 1 unmet")
    #expect(JUnitReport.render(report).contains(#"type="expectation_failed""#))
    #expect(VerifyJSONReport.render(report).contains(#""expectations":["a.scenario.yaml:9: expect[0]"#))
  }

  /// Issue 37: a failed (or missing) recording that also breaks its rules kept the broken
  /// rules out of the summary and the JUnit type.
  @Test func aFailedRecordingThatAlsoBreaksItsRulesSaysBoth() throws {
    let rule = "a.scenario.yaml:9: expect[0] (X displayed at t=0): not met"
    var failed = VerifyCase(name: "a", status: .failed([GoldenProblem(file: .trace, kind: .missing, message: "no golden")]))
    failed.unmet = [rule]
    var unmet = VerifyCase(name: "b", status: .passed)
    unmet.unmet = [rule]
    let both = VerifyReport(cases: [failed, unmet], update: .no)
    #expect(failed.category == .missing)
    #expect(both.summaryLine == "0 passed, 0 failed, 1 missing, 1 unmet (+1 of the failed, missing or stale)")
    let alone = VerifyReport(cases: [failed], update: .no)
    #expect(alone.summaryLine == "0 passed, 0 failed, 1 missing, 0 unmet (+1 of the failed, missing or stale)")
    let junit = JUnitReport.render(alone)
    #expect(junit.contains(#"type="missing_golden+expectation_failed""#), "\(junit)")
    #expect(VerifyReport(cases: [unmet], update: .no).summaryLine == "0 passed, 0 failed, 1 unmet")
  }
}

/// Issue 24.4: under `verify --bisect` an unmet rule of a recording that is not stale is "bad".
@Suite struct BisectUnmetTests {
  @Test func anUnmetRuleIsBadAStaleOneSkips() {
    var unmet = VerifyCase(name: "a", status: .passed)
    unmet.unmet = ["a.scenario.yaml:9: expect[0] (X displayed at t=0): not met"]
    #expect(BisectVerdict(VerifyReport(cases: [unmet], update: .no)) == .bad)
    var stale = unmet
    stale.scenario = ScenarioFinding(message: "stale", unreadable: false)
    #expect(BisectVerdict(VerifyReport(cases: [stale], update: .no)) == .skip)
    #expect(BisectVerdict(VerifyReport(cases: [VerifyCase(name: "a", status: .passed)], update: .no)) == .good)
  }
}
