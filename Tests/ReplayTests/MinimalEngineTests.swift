import CanonicalJSON
import Foundation
import EngineIO
import EngineSeam
import JustPhotoIO
import Recording
import Replay
import Testing

/// Beep, the smallest engine the seam takes (issue 36 item 4): its vocabulary writes only the
/// output type, the name, the kinds and the trace line; its step only the outputs; the engine
/// only `start`, `handle` and `fire`. No effects, no store, no timers: the seam's defaults.
/// Rule: every `press` outputs `beep {n}`, n counting the presses; `label` is ground truth.
enum BeepVocabulary: EngineVocabulary {
  static let engineName = "beep"
  static let kinds = [
    EventKindInfo(name: "press", required: [("n", .integer)]), EventKindInfo(name: "label", channel: "label", role: .label),
  ]
  static func traceRecord(_ output: Int) -> (out: String, fields: JSONObject) { ("beep", ["n": .number(Double(output))]) }
}

struct BeepStep: EngineStep {
  var outputs: [Int] = []
}

struct BeepEngine: SeamEngine, Sendable {
  typealias Vocabulary = BeepVocabulary
  var count = 0
  mutating func start() -> BeepStep { BeepStep() }
  mutating func handle(_ event: InputEvent) -> BeepStep {
    count += 1
    return BeepStep(outputs: [count])
  }
  mutating func fire(_ timer: TimerID, at now: Millis) -> BeepStep { BeepStep() }
}

@Suite("The smallest engine on the seam")
struct MinimalEngineTests {
  /// What the defaults answer for an engine that declares none of them.
  @Test func theDefaultsDescribeAnEngineWithoutEffectsOrStore() throws {
    #expect(BeepVocabulary.effectRules.isEmpty)
    #expect(BeepVocabulary.effectCall(3) == nil)
    #expect(BeepVocabulary.outputKind(3) == "beep")
    #expect(BeepVocabulary.snapshotJSON(NoSnapshot()) == JSONObject())
    #expect(try BeepVocabulary.snapshot(json: ["anything": 1]) == NoSnapshot())
    #expect(BeepVocabulary.emptySnapshot == NoSnapshot())
    #expect(BeepVocabulary.rule(forRequest: "press") == nil)
    #expect(BeepVocabulary.outputKinds.isEmpty && BeepVocabulary.coverageFacets.isEmpty && BeepVocabulary.timeline.isEmpty)
    let label = InputEvent(t: 5, payload: .named(NamedEvent(kind: "label", fields: [:])))
    let press = InputEvent(t: 5, payload: .named(NamedEvent(kind: "press", fields: ["n": 1])))
    #expect(!BeepVocabulary.isEngineInput(label) && BeepVocabulary.isEngineInput(press))
    #expect(!BeepVocabulary.launches(press) && !BeepVocabulary.endsProcess(press))
    let step = BeepStep(outputs: [1])
    #expect(step.diagnostics.isEmpty && step.timers.isEmpty && step.persist == nil && step.rejection == nil && step.effectCalls.isEmpty)
  }

  /// A recording of Beep replays through the driver and the plug-in: one line per press, the
  /// label skipped, `--trace kinds` filtering by the default `outputKind`.
  @Test func aRecordingReplaysThroughTheDefaults() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("beep.jprec").path
    let r = try Recorder(path: path, header: ["format": "jp-replay/1", "engine": "beep", "duration_ms": 400], definitions: JustPhotoEvents.self)
    for k in BeepVocabulary.kinds { r.namedChannels[k.name] = k.channel }
    for (t, kind) in [(Millis(100), "press"), (200, "label"), (300, "press"), (350, "press")] {
      try r.append(InputEvent(t: t, payload: .named(NamedEvent(kind: kind, fields: kind == "press" ? ["n": 1] : [:]))))
    }
    try r.finish()

    let plugin = EnginePlugin(BeepEngine.self) { _ in BeepEngine() }
    #expect(plugin.name == "beep")
    let products = try plugin.products(dir.url.appendingPathComponent("beep.jprec"))
    let records = products.records
    // The records in memory are what the trace text reads back as.
    #expect(try GoldenTrace.records(products.trace) == records)
    #expect(records.map(\.t) == [100, 300, 350])
    #expect(records.map(\.out) == ["beep", "beep", "beep"])
    #expect(records.map { $0.fields["n"] } == [.number(1), .number(2), .number(3)])
    #expect(products.summary.labelsSkipped == 1)
    let none = try plugin.products(dir.url.appendingPathComponent("beep.jprec"), PluginSettings(traceKinds: ["other"]))
    #expect(none.trace.isEmpty)
  }
}
