import JustPhotoEngine
import Foundation
import JustPhotoPlugin
import Replay
import Testing

@Suite("Explaining a divergence with metric tracing")
struct ExplainTests {
  @Test func cueEvalLinesAroundTheDivergenceForTheCuesInvolved() throws {
    let c = try TestCorpus()
    try c.addRecording("walk", times: Array(stride(from: Int64(0), through: 3000, by: 100)))
    let driver = ReplayDriver(
      options: ReplayOptions(),
      open: { url in try JSONLTestSource(url: url) },
      makeEngine: { _ in
        var e = ScriptedEngine()
        e.onHandle = { ev in
          Effects(outputs: [
            .cueEval(.t1(tick: 0, scene: "cafe", entries: [CueEvalEntry(id: "FRAME_MOVE_LEFT", level: .warn, error: 0.1)])),
            .cueEval(.t1(tick: 0, scene: "cafe", entries: [CueEvalEntry(id: "CHIN_UP", level: .none)])),
            .cueDisplay(CueDisplay(cueId: "FRAME_MOVE_LEFT", level: .warn, reason: .none, mode: .noRef)),
          ])
        }
        return e
      })
    let lines = try driver.cueEvals(
      c.store.recordingURL("walk"), around: 1600, cues: ["FRAME_MOVE_LEFT"])
    #expect(lines.map(\.t) == Array(stride(from: Int64(1100), through: 2100, by: 100)))
    #expect(lines.allSatisfy { $0.out == "cue_eval" && $0.fields["cues"]?["FRAME_MOVE_LEFT"] != nil })
    let all = try driver.cueEvals(c.store.recordingURL("walk"), around: 0, cues: [], windowMs: 100)
    #expect(all.count == 4)
  }

  @Test func replayingAFileStreamsCanonicalLinesToDisk() throws {
    let c = try TestCorpus()
    try c.addRecording("walk", times: [100, 200, 300])
    let traceURL = c.root.appendingPathComponent("out.trace.jsonl")
    let a13URL = c.root.appendingPathComponent("out.a13.jsonl")
    var output = CanonicalOutput(
      trace: try FileLineSink(creating: traceURL), a13: try FileLineSink(creating: a13URL))
    let summary = try c.driver().replay(c.store.recordingURL("walk"), into: &output)
    try output.trace.finish()
    try output.a13.finish()
    #expect(summary.inputs == 3 && summary.endMs == 300)
    let products = try c.driver().canonicalProducts(c.store.recordingURL("walk"))
    #expect(try String(contentsOf: traceURL, encoding: .utf8) == products.trace)
    #expect(try String(contentsOf: a13URL, encoding: .utf8) == products.a13)
  }

  @Test func aMissingRecordingFileIsBadInputNamingIt() {
    let driver = ReplayDriver(
      open: { url in try JSONLTestSource(url: url) }, makeEngine: { _ in ScriptedEngine() })
    #expect {
      try driver.canonicalProducts(URL(fileURLWithPath: "/nonexistent/x.jprec"))
    } throws: { error in
      guard case .badInput(let e) = error as? ReplayError else { return false }
      return e.recording == "/nonexistent/x.jprec"
    }
  }
}
