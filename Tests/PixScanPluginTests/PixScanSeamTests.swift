import CanonicalJSON
import EngineIO
import Foundation
import PixScanEngine
import PixScanPlugin
import PixScanScenarios
import Replay
import Testing

/// A session store in memory for PixScan's snapshot.
final class MemoryPixStore: SessionStorePort {
  var stored = PixStore()
  var saves = 0
  func save(_ snapshot: PixStore) throws {
    stored = snapshot
    saves += 1
  }
  func load() throws -> PixStore { stored }
}

/// PixScan through the harness's own replayer (strict effect checking, the session store,
/// kill and relaunch) gives the same trace as the direct run of the scenario tests.
@Suite("PixScan on the engine seam")
struct PixScanSeamTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let dir = root.appendingPathComponent("Recordings/pixscan")
  static func files() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
  }

  static func source(_ s: PixScenario) -> InMemoryEventSource {
    InMemoryEventSource(
      header: ["engine": "pixscan", "duration_ms": .number(Double(s.durationMs))],
      events: s.events.map { InputEvent(t: $0.t, payload: .named(NamedEvent(kind: $0.kind, fields: $0.fields))) })
  }

  static func replay(_ s: PixScenario, strict: Bool = true) throws -> (trace: String, summary: ReplaySummary, saves: Int) {
    var source = source(s)
    var output = TraceOutput(trace: MemoryLineSink(), a13: MemoryLineSink(), vocabulary: PixScanVocabulary.self)
    let store = MemoryPixStore()
    var replayer = Replayer(engine: PixScanSeamEngine(), options: ReplayOptions(strictEffects: strict), sessionStore: store)
    let summary = try replayer.run(&source, into: &output, recording: s.name)
    return (output.trace.text, summary, store.saves)
  }

  @Test("each scenario replays through the seam exactly as the direct run", arguments: PixScanSeamTests.files())
  func seamEqualsDirectRun(_ name: String) throws {
    let text = try String(contentsOf: Self.dir.appendingPathComponent(name), encoding: .utf8)
    let s = try PixScenario.parse(yaml: text, file: name)
    let direct = try PixDirectRun.run(s.events).map(\.line).joined(separator: "\n") + "\n"
    let r = try Self.replay(s)
    #expect(r.trace == direct)
    #expect(r.summary.notes.isEmpty, "\(r.summary.notes)")
    #expect(r.saves == direct.components(separatedBy: "\"out\":\"store\"").count - 1)
    // The rules hold on the harness's trace text too.
    let read = try GoldenTrace.records(r.trace).map { PixTraceRecord(t: $0.t, kind: $0.out, fields: $0.fields) }
    #expect(PixExpectations.check(s.expectations, records: read).isEmpty)
  }

  @Test("a recorded event the decoder refuses stops the replay with its field named")
  func rejection() throws {
    var source = InMemoryEventSource(
      header: ["engine": "pixscan"],
      events: [
        InputEvent(t: 0, payload: .named(NamedEvent(kind: "app_launch", fields: ["permission": "authorized"]))),
        InputEvent(t: 10, payload: .named(NamedEvent(kind: "swipe", fields: ["direction": "sideways"]))),
      ])
    var output = TraceOutput(trace: MemoryLineSink(), a13: MemoryLineSink(), vocabulary: PixScanVocabulary.self)
    var replayer = Replayer(engine: PixScanSeamEngine())
    #expect {
      _ = try replayer.run(&source, into: &output, recording: "x")
    } throws: { "\($0)".contains("swipe.direction") && "\($0)".contains("sideways") }
  }

  @Test("vocabulary: kinds, effect rules and the snapshot agree with the engine")
  func vocabulary() throws {
    #expect(PixScanVocabulary.kinds.map(\.name) == PixInputKind.allCases.map(\.rawValue))
    #expect(PixScanVocabulary.kinds.filter(\.launches).map(\.name) == ["app_launch"])
    #expect(PixScanVocabulary.effectCall(.effect(.ocr(photo: "p")))?.fields == ["photo": "p"])
    #expect(PixScanVocabulary.effectCall(.effect(.prefetch(["p"]))).map { PixScanVocabulary.rule(forRequest: $0.kind) } == .some(nil))
    let s = PixStore(onboarded: true, processed: ["a"], nextBatch: 4)
    #expect(try PixScanVocabulary.snapshot(json: PixScanVocabulary.snapshotJSON(s)) == s)
    #expect(throws: (any Error).self) { try PixScanVocabulary.snapshot(json: ["bogus": 1]) }
  }
}

extension PixScanSeamTests {
  /// Issue 38 item 4: PixScan answers `launches` and `isEngineInput` from short lists made of
  /// its `kinds` (asked of every replayed event) instead of the default search of `kinds`; the
  /// answers are the default's for every kind, an unknown one and a non-named event.
  @Test("launches and isEngineInput: the default's answers from the kinds' lists")
  func launchAndInputLists() {
    typealias V = PixScanVocabulary
    var names = V.kinds.map(\.name)
    names.append("no_such_kind")
    for name in names {
      let event = InputEvent(t: 0, payload: .named(NamedEvent(kind: name, fields: [:])))
      let info = V.kind(named: name)
      #expect(V.launches(event) == (info?.launches ?? false), "\(name)")
      #expect(V.isEngineInput(event) == (info?.role != .label), "\(name)")
    }
    // Not vacuous: the launch kind launches, and the other kinds do not.
    #expect(V.launches(InputEvent(t: 0, payload: .named(NamedEvent(kind: "app_launch", fields: [:])))))
    #expect(V.kinds.filter(\.launches).count == 1 && V.kinds.count > 10)
  }
}
