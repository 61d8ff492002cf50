import CameraCoachEngine
import CameraCoachPlugin
import CameraCoachScenarios
import CanonicalJSON
import EngineIO
import Foundation
import Replay
import Testing

/// Camera Coach through the harness's own replayer gives the same trace as the direct run, and
/// the harness stops on an event the decoder refuses.
@Suite("Camera Coach on the engine seam")
struct CCSeamTests {
  static func replay(_ s: CCScenario) throws -> String {
    var source = InMemoryEventSource(
      header: ["engine": "cameracoach", "duration_ms": .number(Double(s.durationMs))],
      events: s.events.map { InputEvent(t: $0.t, payload: .named(NamedEvent(kind: $0.kind, fields: $0.fields))) })
    var output = TraceOutput(trace: MemoryLineSink(), a13: MemoryLineSink(), vocabulary: CameraCoachVocabulary.self)
    var replayer = Replayer(engine: CameraCoachSeamEngine())
    _ = try replayer.run(&source, into: &output, recording: s.name)
    return output.trace.text
  }

  @Test("each scenario replays through the seam exactly as the direct run", arguments: CCScenarioCorpusTests.files())
  func seamEqualsDirectRun(_ name: String) throws {
    let s = try CCScenarioCorpusTests.load(name)
    let direct = try CCDirectRun.run(s.events).map(\.line).joined(separator: "\n") + "\n"
    let trace = try Self.replay(s)
    #expect(trace == direct)
    let read = try GoldenTrace.records(trace).map { CCTraceRecord(t: $0.t, kind: $0.out, fields: $0.fields) }
    #expect(CCExpectations.judge(s.expectations, records: read).isEmpty)
  }

  @Test("a recorded event the decoder refuses stops the replay with its field named")
  func rejection() throws {
    var source = InMemoryEventSource(
      header: ["engine": "cameracoach"],
      events: [
        InputEvent(t: 0, payload: .named(NamedEvent(kind: "session_start", fields: ["camera": "back", "band": 0]))),
        InputEvent(t: 10, payload: .named(NamedEvent(kind: "thermal_sample", fields: ["state": "molten"]))),
      ])
    var output = TraceOutput(trace: MemoryLineSink(), a13: MemoryLineSink(), vocabulary: CameraCoachVocabulary.self)
    var replayer = Replayer(engine: CameraCoachSeamEngine())
    #expect {
      _ = try replayer.run(&source, into: &output, recording: "x")
    } throws: { "\($0)".contains("thermal_sample.state") && "\($0)".contains("molten") }
  }

  @Test("the vocabulary lists the engine's kinds, session_start launches, nothing is an effect")
  func vocabulary() {
    #expect(CameraCoachVocabulary.kinds.map(\.name) == CCInputKind.allCases.map(\.rawValue))
    #expect(CameraCoachVocabulary.kinds.filter(\.launches).map(\.name) == ["session_start"])
    #expect(CameraCoachVocabulary.effectRules.isEmpty)
    #expect(CameraCoachVocabulary.outputKinds == CCOutputKind.allCases.map(\.rawValue))
    #expect(Set(CCTelemetry.allCases.map(\.rawValue)) == [
      "session_start", "session_stop", "hint_shown", "hint_adopted", "shutter", "photo_kept", "fps_sample", "thermal_sample",
      "consent_changed",
    ])
  }
}
