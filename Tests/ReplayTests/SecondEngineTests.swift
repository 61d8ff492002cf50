import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import JustPhotoIO
import Recording
import Replay
import Testing
import Verify

/// A second engine (Tally, Tests/ReplayTests/TallyEngine.swift) through the same code paths as
/// Just Photo: the container and JSONL readers and writers, import, the replayer (timers,
/// effect correlation, session store, relaunch), the canonical trace writer, goldens, verify
/// and the differ. Expectations come from Tally's rules (its doc comment), not from a run.
@Suite("A second engine on the seam")
struct SecondEngineTests {
  static let header: JSONObject = ["format": "jp-replay/1", "engine": "tally", "duration_ms": 2500]

  /// launch, three pushes (a flush of batch 1, answered), a label, a push lost in a kill, a
  /// relaunch, one more push.
  static let events: [(Millis, String, JSONObject)] = [
    (0, "launch", [:]), (100, "push", ["n": 1]), (200, "push", ["n": 2]), (300, "push", ["n": 3]),
    (400, "flush_result", ["batch": 1, "ok": true]), (500, "label", ["what": "three pushed"]),
    (1100, "push", ["n": 4]), (1200, "kill", [:]), (1300, "launch", [:]), (1400, "push", ["n": 5]),
  ]

  static func named(_ e: (Millis, String, JSONObject)) -> InputEvent {
    InputEvent(t: e.0, payload: .named(NamedEvent(kind: e.1, fields: e.2)))
  }

  static func jsonl(header: JSONObject = header, _ events: [(Millis, String, JSONObject)] = events) -> String {
    var text = JSONWriter.write(.object(header), sortKeys: false, numbers: .shortest) + "\n"
    for e in events { text += JSONLEventEncoder.line(named(e)) + "\n" }
    return text
  }

  static func record(_ path: String, header: JSONObject = header, _ events: [(Millis, String, JSONObject)] = events) throws {
    let r = try Recorder(path: path, header: header, definitions: TallyVocabulary.eventDefinitions)
    for k in TallyVocabulary.kinds { r.namedChannels[k.name] = k.channel }
    for e in events { try r.append(named(e)) }
    try r.finish()
  }

  static func driver(bug: Bool = false, strict: Bool? = nil, beside: Bool = false) -> ReplayDriver<TallyEngine> {
    var options = ReplayOptions()
    options.strictEffects = strict
    return ReplayDriver(
      options: options, sessionStore: .temporary,
      open: { url in try RecordingFiles.open(url.path, definitions: TallyVocabulary.eventDefinitions) },
      makeEngine: { _ in TallyEngine(bug: bug, requestsBeside: beside) })
  }

  /// (t, out) of each trace line, and the fields of the line at `index`.
  static func lines(_ trace: String) throws -> [TraceRecord] {
    try GoldenTrace.records(trace)
  }

  static let expected: [(Millis, String)] = [
    (0, "launched"), (100, "queued"), (200, "queued"), (300, "queued"), (300, "effect"), (400, "flushed"),
    (1000, "tick"), (1100, "queued"), (1300, "restored"), (1400, "queued"), (2000, "tick"),
  ]

  @Test func aRecordingOfAnotherEngineRoundTripsThroughTheContainer() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("tally.jprec").path
    try Self.record(path)
    let reader = try RecordingFiles.open(path, definitions: TallyVocabulary.eventDefinitions)
    #expect(EngineName.of(header: reader.header) == "tally")
    var back: [InputEvent] = []
    while let e = try reader.nextEvent() { back.append(e) }
    #expect(back == Self.events.map(Self.named))
    // The kind table holds Tally's names after Just Photo's; `label` keeps its one entry.
    #expect(Doctor.check(path: path, definitions: TallyVocabulary.eventDefinitions).status == .ok)
  }

  @Test func replayRunsTimersEffectsTheStoreAndRelaunch() throws {
    let dir = try TemporaryDirectory()
    let url = dir.url.appendingPathComponent("tally.jprec")
    try Self.record(url.path)
    let products = try Self.driver().canonicalProducts(url)
    let records = try Self.lines(products.trace)
    #expect(records.map { ($0.t, $0.out) }.elementsEqual(Self.expected, by: ==))
    #expect(records[4].fields["batch"] == 1 && records[4].fields["count"] == 3)
    #expect(records[5].fields["total"] == 6 && records[5].fields["ok"] == true)
    // After the kill the queue (4) is lost and the store gives back what batch 1 flushed.
    #expect(records[8].fields["total"] == 6 && records[8].fields["batches"] == 1)
    #expect(records[10].fields["depth"] == 1)
    #expect(products.summary.labelsSkipped == 1)
    #expect(products.summary.pendingTimers.map(\.due) == [3000])
    #expect(products.a13 == nil, "an engine without diagnostics has no A.13 text (no golden)")
  }

  @Test func jsonlAndItsImportReplayLikeTheRecordedContainer() throws {
    let dir = try TemporaryDirectory()
    let jsonl = dir.url.appendingPathComponent("tally.jsonl")
    try Self.jsonl().write(to: jsonl, atomically: true, encoding: .utf8)
    let imported = dir.url.appendingPathComponent("imported.jprec")
    try RecordingImport.run(from: jsonl.path, to: imported.path, definitions: TallyVocabulary.eventDefinitions, kinds: TallyVocabulary.kinds)
    let recorded = dir.url.appendingPathComponent("recorded.jprec")
    try Self.record(recorded.path)
    let a = try Self.driver().canonicalProducts(jsonl).trace
    #expect(try Self.driver().canonicalProducts(imported).trace == a)
    #expect(try Self.driver().canonicalProducts(recorded).trace == a)
  }

  @Test func importChecksTheEnginesKindsAndFields() throws {
    let dir = try TemporaryDirectory()
    let jsonl = dir.url.appendingPathComponent("bad.jsonl")
    try Self.jsonl([(0, "launch", [:]), (100, "push", ["count": 1])]).write(to: jsonl, atomically: true, encoding: .utf8)
    let out = dir.url.appendingPathComponent("bad.jprec").path
    let e = #expect(throws: RecordingError.self) {
      try RecordingImport.run(from: jsonl.path, to: out, definitions: TallyVocabulary.eventDefinitions, kinds: TallyVocabulary.kinds)
    }
    #expect(e?.description.contains("bad.jsonl:3") == true)
    #expect(e?.field == "n")
    try Self.jsonl([(0, "jump", [:])]).write(to: jsonl, atomically: true, encoding: .utf8)
    let k = #expect(throws: RecordingError.self) {
      try RecordingImport.run(from: jsonl.path, to: out, definitions: TallyVocabulary.eventDefinitions, kinds: TallyVocabulary.kinds)
    }
    #expect(k?.description.contains("unknown tally event kind \"jump\"") == true)
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func anEventTheEngineCannotTakeIsBadInputNamingTheField() throws {
    let dir = try TemporaryDirectory()
    let jsonl = dir.url.appendingPathComponent("bad.jsonl")
    try Self.jsonl([(0, "launch", [:]), (100, "push", ["count": 1])]).write(to: jsonl, atomically: true, encoding: .utf8)
    do {
      _ = try Self.driver().canonicalProducts(jsonl)
      Issue.record("expected bad input")
    } catch {
      guard case .badInput(let e) = error else { throw error }
      #expect(e.description.contains("push: field \"n\""))
      #expect(e.t == 100)
    }
  }

  @Test func strictAndLenientEffectCorrelationFollowTheEnginesTable() throws {
    let dir = try TemporaryDirectory()
    let url = dir.url.appendingPathComponent("unanswered.jsonl")
    let pushes: [(Millis, String, JSONObject)] = [(100, "push", ["n": 1]), (200, "push", ["n": 2]), (300, "push", ["n": 3])]
    try Self.jsonl(pushes).write(to: url, atomically: true, encoding: .utf8)
    do {
      _ = try Self.driver().canonicalProducts(url)
      Issue.record("expected a harness error")
    } catch {
      guard case .harness(let h) = error else { throw error }
      #expect(h.issues.map(\.kind) == [.requestWithoutResult])
      #expect(h.issues.first?.effect == "flush" && h.issues.first?.key == "batch=1")
    }
    // Lenient: the rule's success result (ok: true) arrives 50 ms after the request.
    let records = try Self.lines(try Self.driver(strict: false).canonicalProducts(url).trace)
    let flushed = records.first { $0.out == "flushed" }
    #expect(flushed?.t == 350 && flushed?.fields["ok"] == true && flushed?.fields["total"] == 6)
  }

  @Test func requestsBesideTheOutputsAreCorrelatedToo() throws {
    let dir = try TemporaryDirectory()
    let url = dir.url.appendingPathComponent("tally.jprec")
    try Self.record(url.path)
    // Strict replay: the recorded flush_result answers the request made beside the outputs.
    let records = try Self.lines(try Self.driver(beside: true).canonicalProducts(url).trace)
    #expect(records.map { ($0.t, $0.out) }.elementsEqual(Self.expected.filter { $0.1 != "effect" }, by: ==))
    let unanswered = dir.url.appendingPathComponent("unanswered.jsonl")
    try Self.jsonl([(100, "push", ["n": 1]), (200, "push", ["n": 2]), (300, "push", ["n": 3])])
      .write(to: unanswered, atomically: true, encoding: .utf8)
    #expect(throws: ReplayError.self) { _ = try Self.driver(beside: true).canonicalProducts(unanswered) }
  }

  @Test func verifyKeepsAGoldenAndTheDifferFindsAPlantedBug() throws {
    let dir = try TemporaryDirectory()
    let store = GoldenStore(root: dir.url)
    try FileManager.default.createDirectory(at: store.recordingsDir, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: store.goldenDir, withIntermediateDirectories: true)
    try Self.record(store.recordingURL("counter").path)
    let first = try Verifier(store: store, options: VerifyOptions(update: .new), driver: Self.driver()).run()
    #expect(first.cases.map(\.category) == [.missing])
    _ = try store.accept(names: nil)
    let clean = try Verifier(store: store, options: VerifyOptions(update: .no), driver: Self.driver()).run()
    #expect(clean.exitCode == .ok && clean.cases.map(\.category) == [.passed])
    let buggy = try Verifier(store: store, options: VerifyOptions(update: .no), driver: Self.driver(bug: true)).run()
    #expect(buggy.exitCode == .difference && buggy.cases.map(\.category) == [.failed])
    // The flush now goes out at the second push (t = 200): the first divergence.
    let golden = try #require(try store.readGolden("counter", .trace))
    let replay = try Self.driver(bug: true).canonicalProducts(store.recordingURL("counter")).trace
    let diff = try TraceDiffer().diffTraceFiles(golden: golden, replay: replay)
    #expect(diff.divergence?.t == 200)
  }

  @Test func aJustPhotoDriverRefusesAnotherEnginesRecording() throws {
    let dir = try TemporaryDirectory()
    let url = dir.url.appendingPathComponent("tally.jsonl")
    try Self.jsonl().write(to: url, atomically: true, encoding: .utf8)
    let jp = ReplayDriver<ScriptedEngine>(open: { try RecordingFiles.open($0.path, definitions: JustPhotoEvents.self) }, makeEngine: { _ in ScriptedEngine() })
    do {
      _ = try jp.canonicalProducts(url)
      Issue.record("expected bad input")
    } catch {
      guard case .badInput(let e) = error else { throw error }
      #expect(e.description.contains("for engine \"tally\""))
    }
    // …and a Just Photo recording cannot carry a named event.
    let path = dir.url.appendingPathComponent("jp.jprec").path
    let r = try Recorder(path: path, header: ["format": "jp-replay/1"], definitions: JustPhotoEvents.self)
    #expect(throws: RecordingError.self) { try r.append(Self.named((0, "push", ["n": 1]))) }
  }

  @Test func aBadEngineNameIsRefusedNamingTheHeader() throws {
    let dir = try TemporaryDirectory()
    let url = dir.url.appendingPathComponent("bad.jsonl")
    try #"{"format":"jp-replay/1","engine":7}"#.appending("\n").write(to: url, atomically: true, encoding: .utf8)
    let e = #expect(throws: RecordingError.self) { _ = try RecordingFiles.open(url.path, definitions: JustPhotoEvents.self) }
    #expect(e?.description.contains("bad.jsonl:1") == true)
    #expect(e?.description.contains("\"engine\": expected an engine name") == true)
  }
}
