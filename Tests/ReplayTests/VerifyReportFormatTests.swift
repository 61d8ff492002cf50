import CanonicalJSON
import JustPhotoPlugin
import EngineIO
import Foundation
import Replay
import Testing
import Verify

/// Every divergence per recording, grouped across the corpus; JUnit, JSON and GitHub
/// annotations list stale, missing and orphan recordings; review/accept refuse orphan `.new`s.
@Suite("verify reports")
struct VerifyReportFormatTests {
  func trace(_ records: [TraceRecord]) -> String { records.map { TraceFormat.line($0) + "\n" }.joined() }
  func cue(_ t: Millis, _ id: String, _ level: String) -> TraceRecord {
    record(t, "cue_display", ["cue_id": .string(id), "level": .string(level), "reason": "none", "mode": "noRef"])
  }

  @Test func theDifferListsEveryDivergentHunkWithContextOnlyOnTheFirst() throws {
    let golden = (0..<12).map { cue(Millis($0) * 100, "FRAME_MOVE_LEFT", "warn") }
    var replay = golden
    replay[2] = cue(233, "FRAME_MOVE_LEFT", "warn")  // moved +33 ms
    replay[9] = cue(900, "FRAME_MOVE_LEFT", "hard")  // changed
    replay.remove(at: 6)  // missing
    let r = try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(golden: trace(golden), replay: trace(replay))
    #expect(r.hunkCount == 3)
    #expect(r.divergences.map(\.t) == [200, 600, 900])
    #expect(r.divergences.map { $0.context.isEmpty } == [false, true, true])
    #expect(r.divergence == r.divergences.first)
    #expect(r.divergences[1].explanation == "at t=600 golden has cue_display FRAME_MOVE_LEFT/warn, replay has none")
    #expect(r.divergences.map(\.anchorLine) == [3, 7, 10])
    #expect(r.render().contains("divergence 3: at t=900 cue_display differs"))
  }

  /// Two recordings whose goldens differ from the replay in the same way.
  func changedCorpus(_ label: String = #function) throws -> TestCorpus {
    let c = try TestCorpus(label)
    for n in ["a", "b", "ok"] { try c.addRecording(n, times: [100, 200, 300]) }
    _ = try c.verifier().run()
    _ = try c.store.accept(names: nil)
    for n in ["a", "b"] {
      try c.store.writeGolden(
        n, .trace,
        trace([
          cue(100, "FRAME_MOVE_LEFT", "hard"), cue(200, "FRAME_MOVE_LEFT", "warn"),
          cue(333, "FRAME_MOVE_LEFT", "warn"),
        ]))
    }
    return c
  }

  @Test func divergencesAreGroupedAcrossTheCorpusByCueAndKind() throws {
    let c = try changedCorpus()
    let report = try c.verifier(ci: true).run()
    let lines = report.groups.map(\.line)
    #expect(lines == [
      "FRAME_MOVE_LEFT cue_display: level hard → warn in 2 recordings (a, b)",
      "FRAME_MOVE_LEFT cue_display: moved -33 ms in 2 recordings (a, b)",
    ])
    let text = report.render()
    #expect(text.contains("divergences by cue (2 groups):\n  FRAME_MOVE_LEFT cue_display: level hard → warn"))
    #expect(text.contains("2 divergent hunks in trace; the others:\n          #2 at t=333 golden has"))
    #expect(text.hasSuffix("1 passed, 2 failed\nnothing written (update mode no); pass --update new to write .new files\n"))
  }

  @Test func junitCountsAndListsStaleMissingAndOrphanRecordings() throws {
    let c = try changedCorpus()
    try c.addRecording("new", times: [1])
    try c.store.writeGolden("orphan", .trace, "{\"out\":\"x\",\"t\":0}\n")
    var v = Verifier(store: c.store, options: VerifyOptions(update: .no), driver: c.driver())
    v.scenarioNames = ["ok"]
    v.scenarioCheck = { _ in ScenarioFinding(message: "stale: run jpreplay record ok") }
    let report = try v.run()
    #expect(report.summaryLine == "0 passed, 2 failed, 1 missing, 1 stale, 1 orphan")
    let xml = JUnitReport.render(report)
    // The suite's time= (measured, between errors= and skipped=) is not part of the check.
    #expect(xml.contains(#"<testsuite name="jpreplay.verify" tests="5" failures="5" errors="0" time=""#))
    #expect(xml.contains(#"" skipped="0">"#))
    #expect(xml.contains(#"<property name="stale" value="1"/>"#))
    #expect(xml.contains(#"<property name="missing" value="1"/>"#))
    #expect(xml.contains(#"type="stale_recording""#) && xml.contains(#"type="missing_golden""#))
    #expect(xml.contains(#"type="orphan_golden""#))
    var ignoring = v
    ignoring.options.unreferenced = .ignore
    let skipped = JUnitReport.render(try ignoring.run())
    #expect(skipped.contains(#"failures="4" errors="0" time=""#) && skipped.contains(#"" skipped="1">"#))
    #expect(skipped.contains(#"<skipped message="golden without recording (ignored"#))
  }

  @Test("known misses are listed under one heading before the summary and in the JSON, and never fail a case")
  func knownMissesAreReportedNotFailures() throws {
    var c = VerifyCase(name: "test-a", status: .passed)
    c.knownMisses = ["Recordings/test-a.scenario.yaml:9: expect[2] (no cue displayed in [0, 100]): known miss (G-51: why); displayed: X/warn at t=40"]
    let report = VerifyReport(cases: [c, VerifyCase(name: "b", status: .passed)])
    #expect(c.passed && report.exitCode == .ok && report.summaryLine == "2 passed, 0 failed")
    let text = report.render()
    #expect(text.contains("known misses (1; expect: rules whose known: marker names this draw — reported, not failures):\n  test-a: Recordings/test-a.scenario.yaml:9: expect[2]"), "\(text)")
    #expect(text.hasSuffix("2 passed, 0 failed\n"), "\(text)")
    #expect(VerifyReport(cases: [VerifyCase(name: "b", status: .passed)]).knownMissLines().isEmpty)
    let json = VerifyJSONReport.render(report)
    #expect(json.contains(#""known_misses":["Recordings/test-a.scenario.yaml:9: expect[2]"#), "\(json)")
  }

  @Test func theJSONReportIsCanonicalAndListsEveryCategory() throws {
    let c = try changedCorpus()
    try c.store.writeGolden("orphan", .trace, "{\"out\":\"x\",\"t\":0}\n")
    let one = try Verifier(store: c.store, options: VerifyOptions(jobs: 1, update: .no), driver: c.driver()).run()
    let two = try Verifier(store: c.store, options: VerifyOptions(jobs: 2, update: .no), driver: c.driver()).run()
    let text = VerifyJSONReport.render(one)
    #expect(text == VerifyJSONReport.render(two))
    let json = try JSONParser.parse(text)
    #expect(text == JSONWriter.write(json, sortKeys: true) + "\n")
    #expect(json["counts"]?["failed"]?.int64Value == 2)
    #expect(json["counts"]?["orphan"]?.int64Value == 1)
    #expect(json["exit_code"]?.int64Value == 1)
    let cases = try #require(json["cases"]?.arrayValue)
    #expect(cases.compactMap { $0["category"]?.stringValue } == ["failed", "failed", "passed", "orphan"])
    let divergences = try #require(cases[0]["problems"]?.arrayValue?.first?["divergences"]?.arrayValue)
    #expect(divergences.count == 2)
    #expect(divergences[1]["shape"]?.stringValue == "moved -33 ms")
    #expect(json["groups"]?.arrayValue?.count == 2)
  }

  @Test func githubAnnotationsPointAtTheGoldenLine() throws {
    let c = try changedCorpus()
    let report = try c.verifier(ci: true).run()
    let lines = GitHubAnnotations.render(report, store: c.store, base: c.root.path)
    #expect(lines.count == 2)
    #expect(lines[0].hasPrefix("::error file=Golden/a.trace.jsonl,line=1,title=jpreplay verify a::trace: at t=100"))
    #expect(lines[0].hasSuffix("(2 divergent hunks)"))
    #expect(GitHubAnnotations.isEnabled(["GITHUB_ACTIONS": "true"]) && !GitHubAnnotations.isEnabled([:]))
    let escaped = GitHubAnnotations.line(file: "a,b:c", line: nil, title: "t", message: "50%\nnext")
    #expect(escaped == "::error file=a%2Cb%3Ac,title=t::50%25%0Anext")
  }

  @Test func acceptAndReviewRefusePendingFilesWithoutARecording() throws {
    let c = try TestCorpus()
    for n in ["cov-a", "cov-b"] { try c.addRecording(n, times: [1]) }
    _ = try c.verifier().run()
    try FileManager.default.removeItem(at: c.store.recordingURL("cov-b"))
    let transcript = LockedList()
    let outcome = try ReviewSession(
      store: c.store, mode: .acceptAll, readLine: { nil }, write: { transcript.append($0) }
    ).run()
    #expect(outcome.accepted.map(\.name) == ["cov-a", "cov-a"])
    #expect(outcome.refused.map(\.description) == ["cov-b.trace.jsonl.new", "cov-b.a13.jsonl.new"])
    #expect(outcome.exitCode == .difference)
    #expect(
      transcript.items.joined().contains(
        "refusing \(c.store.goldenDir.path)/cov-b.trace.jsonl.new: no recording cov-b.jprec in \(c.store.recordingsDir.path)/"),
      "\(transcript.items.joined())")
    #expect(transcript.items.joined().contains("`jpreplay reject cov-b`"))
    let accepted = try c.store.accept(names: ["cov-*"])
    #expect(accepted.resolved.isEmpty && accepted.refused.count == 2)
    #expect(accepted.exitCode == .badInput)
    let rejected = try c.store.reject(names: ["cov-*"])
    #expect(rejected.resolved.count == 2 && rejected.exitCode == .ok)
    #expect(try c.store.pending().isEmpty)
  }
}
