@testable import JustPhotoEngine
import Testing


/// CueStabilityLayer (ENGINE §3.8) and its place before the gate (`useStabilityLayer`).
@Suite("CueStabilityLayer (ENGINE §3.8)")
struct StabilityLayerTests {
  typealias F = Fixture

  @Test("§3.8: the first X/hard is X/none unstable, the second X/hard is confirmed")
  func firstHardIsUnconfirmed() {
    var layer = CueStabilityLayer()
    let x = GateSignal(id: "X", level: .hard)
    let first = layer.filter(x)
    #expect(first.output == GateSignal(id: "X", level: .none))
    #expect(first.state == .unstable)
    let second = layer.filter(x)
    #expect(second.output == x)
    #expect(second.state == .confirmed)
    #expect(layer.filter(x).state == .confirmed)
  }

  @Test("§3.8: warn passes through; a change to another cue's hard repeats the previous output")
  func passThroughAndRepeat() {
    var layer = CueStabilityLayer()
    let warn = GateSignal(id: "A", level: .warn)
    #expect(layer.filter(warn).output == warn)
    // B/hard after A/warn: not the same input → repeats (A, warn), unstable.
    let b = GateSignal(id: "B", level: .hard)
    #expect(layer.filter(b) == (GateSignal(id: "A", level: .warn), .unstable))
    #expect(layer.filter(b).output == b)
    // nil passes.
    #expect(layer.filter(.empty).output == .empty)
  }

  @Test("§1.8 useStabilityLayer: S04 is shown one frame later (t=267 instead of 200)")
  func delaysTheGate() {
    let frames = F.frames(0..<10) { _ in F.subject(dx: 0.15) }
    let plain = F.lines(F.run(F.engine(), frames)).first
    let stacked = F.lines(F.run(F.engine(options: ["useStabilityLayer": "true"]), frames)).first
    #expect(plain == "200 cue_display FRAME_MOVE_LEFT/hard none noRef")
    #expect(stacked == "267 cue_display FRAME_MOVE_LEFT/hard none noRef")
  }
}
