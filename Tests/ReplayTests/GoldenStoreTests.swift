import Foundation
import Replay
import Testing
import Verify

@Suite("Golden store and verify")
struct GoldenStoreTests {
  @Test func aMissingGoldenWritesANewFileLocallyAndFails() throws {
    let c = try TestCorpus()
    try c.addRecording("walk", times: [100, 200])
    let report = try c.verifier().run()
    #expect(report.exitCode == .difference)
    guard case .failed(let problems) = report.cases[0].status else {
      Issue.record("expected failure")
      return
    }
    #expect(problems.map(\.kind) == [.missing, .missing])
    #expect(c.goldenFiles() == ["walk.a13.jsonl.new", "walk.trace.jsonl.new"])
    #expect(report.cases[0].written == ["walk.trace.jsonl.new", "walk.a13.jsonl.new"])
  }

  @Test func inCIAMissingGoldenFailsAndNothingIsWritten() throws {
    let c = try TestCorpus()
    try c.addRecording("walk", times: [100])
    let report = try c.verifier(ci: true).run()
    #expect(report.exitCode == .difference)
    #expect(c.goldenFiles().isEmpty)
  }

  @Test func acceptedGoldensPassAndTheNewFilesAreGone() throws {
    let c = try TestCorpus()
    try c.addRecording("walk", times: [100, 200])
    _ = try c.verifier().run()
    let resolved = try c.store.accept(names: nil)
    #expect(resolved.resolved.map(\.description) == ["walk.trace.jsonl.new", "walk.a13.jsonl.new"])
    #expect(c.goldenFiles() == ["walk.a13.jsonl", "walk.trace.jsonl"])
    let report = try c.verifier().run()
    #expect(report.exitCode == .ok)
    #expect(report.cases.map(\.passed) == [true])
    let trace = try #require(try c.store.readGolden("walk", .trace))
    #expect(
      trace.hasPrefix(#"{"cue_id":"FRAME_MOVE_LEFT","level":"warn","mode":"noRef","out":"cue_display","reason":"none","t":100}"#))
    let a13 = try #require(try c.store.readGolden("walk", .a13))
    #expect(a13.contains(#""session_id":"<SESSION_1>""#) && a13.contains(#""key":"k/100""#))
  }

  @Test func aMismatchWritesNewFilesWithTheFirstDivergenceAndCIWritesNothing() throws {
    let c = try TestCorpus()
    try c.addRecording("walk", times: [100, 200])
    _ = try c.verifier().run()
    _ = try c.store.accept(names: ["walk"])

    let ci = try c.verifier(variant: "b", ci: true).run()
    #expect(ci.exitCode == .difference)
    #expect(c.goldenFiles() == ["walk.a13.jsonl", "walk.trace.jsonl"])

    let local = try c.verifier(variant: "b").run()
    guard case .failed(let problems) = local.cases[0].status else {
      Issue.record("expected failure")
      return
    }
    #expect(problems.map(\.file) == [.trace])
    #expect(
      local.cases[0].message
        == "trace: at t=100 cue_display differs: golden cue_display FRAME_MOVE_LEFT/warn, replay cue_display FRAME_MOVE_LEFT/hard (level warn → hard)"
    )
    #expect(c.goldenFiles() == ["walk.a13.jsonl", "walk.trace.jsonl", "walk.trace.jsonl.new"])
    #expect(try c.store.readPending("walk", .trace)?.contains(#""level":"hard""#) == true)
  }

  @Test func staleNewFilesOfMatchingGoldensAreRemoved() throws {
    let c = try TestCorpus()
    try c.addRecording("walk", times: [100])
    _ = try c.verifier().run()
    _ = try c.store.accept(names: nil)
    _ = try c.verifier(variant: "b").run()
    #expect(c.goldenFiles().contains("walk.trace.jsonl.new"))
    let back = try c.verifier(variant: "a").run()
    #expect(back.exitCode == .ok)
    #expect(back.cases[0].removedStale == ["walk.trace.jsonl.new"])
    #expect(c.goldenFiles() == ["walk.a13.jsonl", "walk.trace.jsonl"])
  }

  @Test func aGoldenWithoutRecordingFailsLocallyAndInCI() throws {
    let c = try TestCorpus()
    try c.addRecording("walk", times: [100])
    _ = try c.verifier().run()
    _ = try c.store.accept(names: nil)
    try FileManager.default.removeItem(at: c.store.recordingURL("walk"))
    for ci in [false, true] {
      let report = try c.verifier(ci: ci).run()
      #expect(report.cases.map(\.status) == [.orphanGolden])
      #expect(report.exitCode == .difference)
      #expect(
        report.cases[0].message.contains(
          "restore \(c.store.recordingsDir.path)/walk.* or delete \(c.store.goldenDir.path)/walk.*.jsonl"),
        "\(report.cases[0].message)")
    }
  }

  @Test func anUnreadableRecordingIsBadInputAndOutranksDiffs() throws {
    let c = try TestCorpus()
    try c.addRecording("good", times: [100])
    try "not json\n".write(to: c.store.recordingURL("broken"), atomically: true, encoding: .utf8)
    let report = try c.verifier().run()
    #expect(report.cases.map(\.name) == ["broken", "good"])
    guard case .badInput = report.cases[0].status else {
      Issue.record("expected bad input")
      return
    }
    #expect(report.exitCode == .badInput)
    #expect(!c.goldenFiles().contains { $0.hasPrefix("broken") })
  }

  @Test func verifyGivesTheSameReportWithOneOrTwoJobs() throws {
    let c = try TestCorpus()
    for (i, name) in ["delta", "alpha", "charlie", "bravo", "echo", "foxtrot"].enumerated() {
      try c.addRecording(name, times: (0..<(20 + i * 7)).map { Int64($0 * 33) })
    }
    _ = try c.verifier().run()
    _ = try c.store.accept(names: ["alpha", "charlie", "echo"])
    try c.store.writeGolden("bravo", .trace, "{\"out\":\"x\",\"t\":0}\n")
    let one = try c.verifier(ci: true, jobs: 1).run()
    let two = try c.verifier(ci: true, jobs: 2).run()
    #expect(one == two)
    #expect(one.cases.map(\.name) == ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"])
    #expect(one.cases.map(\.passed) == [true, false, true, false, true, false])
    // Apart from the measured times (`time="…"`), the JUnit report is the same bytes.
    func untimed(_ xml: String) -> String {
      xml.replacingOccurrences(of: #" time="[0-9]+\.[0-9]{3}""#, with: "", options: .regularExpression)
    }
    #expect(JUnitReport.render(one) != untimed(JUnitReport.render(one)))
    #expect(untimed(JUnitReport.render(one)) == untimed(JUnitReport.render(two)))
  }

  @Test func progressIsReportedOncePerRecording() throws {
    let c = try TestCorpus()
    for name in ["a", "b", "c"] { try c.addRecording(name, times: [1]) }
    let seen = LockedList()
    _ = try c.verifier(jobs: 2).run { seen.append("\($0.completed)/\($0.total)") }
    #expect(seen.items.sorted() == ["1/3", "2/3", "3/3"])
  }

  @Test func namedVerificationAndShardsSelectRecordings() throws {
    let c = try TestCorpus()
    for name in ["a", "b", "c", "d"] { try c.addRecording(name, times: [1]) }
    let named = try c.verifier(names: ["Recordings/c.jprec", "a"]).run()
    #expect(named.cases.map(\.name) == ["a", "c"])
    var options = VerifyOptions(ci: true)
    options.shard = Shard("2/2")
    let shard = try Verifier(store: c.store, options: options, driver: c.driver()).run()
    #expect(shard.cases.map(\.name) == ["b", "d"])
    #expect(Shard("0/2") == nil && Shard("3/2") == nil)
    let unknown = try c.verifier(names: ["zulu"]).run()
    #expect(unknown.exitCode == .badInput)
  }

  @Test func goldenWritesLeaveNoTemporaryFiles() throws {
    let c = try TestCorpus()
    for name in ["a", "b"] { try c.addRecording(name, times: [1, 2]) }
    _ = try c.verifier(jobs: 2).run()
    try c.store.writeGolden("a", .trace, "x\n")
    try c.store.writeGolden("a", .trace, "y\n")
    #expect(try c.store.readGolden("a", .trace) == "y\n")
    #expect(c.goldenFiles().allSatisfy { !$0.hasPrefix(".") })
    #expect(c.goldenFiles().count == 5)
  }

  @Test func aFailedGoldenWriteRemovesItsTemporaryFile() throws {
    let c = try TestCorpus()
    // A directory where the golden file should go makes the final rename fail.
    try FileManager.default.createDirectory(
      at: c.store.goldenURL("x", .trace).appendingPathComponent("blocker"),
      withIntermediateDirectories: true)
    #expect(throws: (any Error).self) { try c.store.writeGolden("x", .trace, "data\n") }
    #expect(c.goldenFiles() == ["x.trace.jsonl"])
  }

  @Test func acceptAndRejectResolveOnlyTheNamedRecordings() throws {
    let c = try TestCorpus()
    for name in ["a", "b", "c"] { try c.addRecording(name, times: [1]) }
    _ = try c.verifier().run()
    let accepted = try c.store.accept(names: ["a"])
    #expect(accepted.resolved.map(\.name) == ["a", "a"])
    let rejected = try c.store.reject(names: ["Golden/b.trace.jsonl.new", "nope"])
    #expect(rejected.resolved.map(\.name) == ["b", "b"])
    #expect(rejected.unknown == ["nope"])
    #expect(rejected.exitCode == .badInput)
    #expect(try c.store.pending().map(\.name) == ["c", "c"])
    #expect(c.goldenFiles().filter { $0.hasPrefix("b") }.isEmpty)
  }

  @Test func junitHasOneTestcasePerRecordingWithTheFirstDivergence() throws {
    let c = try TestCorpus()
    try c.addRecording("ok", times: [100])
    try c.addRecording("changed", times: [100])
    _ = try c.verifier().run()
    _ = try c.store.accept(names: nil)
    try c.store.writeGolden(
      "changed", .trace,
      TraceFormat.line(
        record(100, "cue_display", ["cue_id": "FRAME_MOVE_LEFT", "level": "<hard>", "reason": "none", "mode": "noRef"])) + "\n")
    let report = try c.verifier(ci: true).run()
    let xml = JUnitReport.render(report, file: { "Recordings/\($0.name).jprec" })
    #expect(xml.components(separatedBy: "<testcase ").count - 1 == 2)
    // `time`: each case's measured seconds (3 decimals); the suite's is their sum.
    let times = report.cases.map { $0.elapsed.seconds ?? -1 }
    #expect(times.allSatisfy { $0 >= 0 }, "every replayed case is timed: \(times)")
    let total = JUnitReport.seconds(times.reduce(0, +))
    #expect(
      xml.contains(
        #"<testsuite name="jpreplay.verify" tests="2" failures="1" errors="0" time="\#(total)" skipped="0">"#), "\(xml)")
    #expect(
      xml.contains(
        #"<testcase classname="jpreplay.verify" name="ok" file="Recordings/ok.jprec" time="\#(JUnitReport.seconds(times[1]))"/>"#),
      "\(xml)")
    #expect(xml.contains(#"name="changed" file="Recordings/changed.jprec" time=""#))
    #expect(JUnitReport.seconds(0) == "0.000" && JUnitReport.seconds(1.0424) == "1.042" && JUnitReport.seconds(12.3456) == "12.346")
    #expect(JUnitReport.seconds(.nan) == "0.000" && JUnitReport.seconds(-1) == "0.000")
    #expect(
      xml.contains(
        #"<failure message="trace: at t=100 cue_display differs: golden cue_display FRAME_MOVE_LEFT/&lt;hard&gt;, replay cue_display FRAME_MOVE_LEFT/warn (level &lt;hard&gt; → warn)" type="golden_mismatch">"#
      ))
  }
}

final class LockedList: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [String] = []
  func append(_ s: String) {
    lock.lock()
    storage.append(s)
    lock.unlock()
  }
  var items: [String] {
    lock.lock()
    defer { lock.unlock() }
    return storage
  }
}
