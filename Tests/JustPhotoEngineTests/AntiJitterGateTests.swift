@testable import JustPhotoEngine
import EngineIO
import Testing


/// AntiJitterGate (ENGINE §3.9): the three worked timelines, reproduced exactly.
@Suite("AntiJitterGate (ENGINE §3.9)")
struct AntiJitterGateTests {
  static let A = GateSignal(id: "A", level: .hard)
  static let B = GateSignal(id: "B", level: .hard)
  static let nothing = GateSignal.empty

  struct Step: Equatable, CustomStringConvertible {
    var t: Millis
    var input: GateSignal
    var output: GateSignal
    var reason: GateReason
    var changed: Bool
    var holdMs: Millis
    static func name(_ s: GateSignal) -> String { s.id.map { "\($0)/\(s.level.rawValue)" } ?? "<nil>" }
    /// The MEMO m6.14 harness log format.
    var description: String {
      "t=\(t) in=\(Self.name(input)) out=\(Self.name(output)) reason=\(reason.rawValue)"
        + (reason == .hold ? " holdMs=\(holdMs)" : "")
    }
  }

  func run(_ inputs: [(Millis, GateSignal)], persist: Int, hold: Int = 3000, cooldown: Int = 800) -> (
    steps: [Step], gate: AntiJitterGate
  ) {
    var gate = AntiJitterGate()
    let p = GateParameters(persistFrames: persist, minHoldMs: hold, cooldownMs: cooldown)
    let steps = inputs.map { t, input in
      let held = t - gate.lastOutputChangeMs
      let r = gate.filter(input, at: t, p)
      return Step(t: t, input: input, output: r.output, reason: r.reason, changed: r.changed, holdMs: held)
    }
    return (steps, gate)
  }

  @Test("§3.9 timeline 1 ([C] simulateHoldVsFrames, persist 3): A@200, B held until B@3200")
  func holdVersusFrames() {
    let inputs: [(Millis, GateSignal)] =
      [0, 100, 200, 300].map { ($0, Self.A) } + [800, 900, 1000, 3200, 3300].map { ($0, Self.B) }
    let steps = run(inputs, persist: 3).steps
    #expect(
      steps.map(\.output) == [Self.nothing, Self.nothing, Self.A, Self.A, Self.A, Self.A, Self.A, Self.B, Self.B])
    #expect(steps.map(\.reason) == [.frames, .frames, .none, .none, .hold, .hold, .hold, .none, .none])
    #expect(steps.filter(\.changed).map(\.t) == [200, 3200])
  }

  @Test("§3.9 timeline 2 (15 Hz, persist 4): flicker suppressed, A@867, nil@3867 after hold, cooldown until A@4667")
  func flickerHoldAndCooldown() {
    var inputs: [(Millis, GateSignal)] = []
    for k in 0..<10 { inputs.append((Fixture.t15(k), k % 2 == 0 ? Self.A : Self.nothing)) }
    for k in 10..<21 { inputs.append((Fixture.t15(k), Self.A)) }
    for k in 21..<60 { inputs.append((Fixture.t15(k), Self.nothing)) }
    for k in 60..<75 { inputs.append((Fixture.t15(k), Self.A)) }
    let (steps, gate) = run(inputs, persist: 4)
    #expect(
      steps.filter(\.changed).map { "\($0.t) \(Step.name($0.output))" } == ["867 A/hard", "3867 <nil>", "4667 A/hard"])
    #expect(steps[0..<10].allSatisfy { $0.output == Self.nothing })
    #expect(steps[10..<13].allSatisfy { $0.reason == .frames })
    #expect(steps[21..<58].allSatisfy { $0.reason == .hold })  // t 1400 … 3800
    #expect(steps[58].t == 3867 && steps[58].changed)
    #expect(steps[60..<70].allSatisfy { $0.reason == .cooldown })  // t 4000 … 4600
    #expect(steps[70].t == 4667 && steps[70].changed)  // boundary exclusive: allowed at t == until
    #expect(gate.cooldownUntil["A"] == 4667)
  }

  @Test("§3.9 timeline 3 (MEMO m6.14 harness log)")
  func harnessLog() {
    let inputs: [(Millis, GateSignal)] =
      [0, 100, 200, 300].map { ($0, Self.A) } + [800, 900, 1000, 3200].map { ($0, Self.B) }
    let log = run(inputs, persist: 3).steps.map(\.description)
    #expect(log[0] == "t=0 in=A/hard out=<nil> reason=frames")
    #expect(log[2] == "t=200 in=A/hard out=A/hard reason=none")
    #expect(log[4] == "t=800 in=B/hard out=A/hard reason=hold holdMs=600")
    #expect(log[7] == "t=3200 in=B/hard out=B/hard reason=none")
  }

  @Test("§3.9: a level change of the shown cue is a switch — hold and frames apply, cooldown does not")
  func levelChange() {
    let warn = GateSignal(id: "A", level: .warn)
    let inputs: [(Millis, GateSignal)] =
      [0, 67, 133, 200].map { ($0, Self.A) } + [267, 333, 400, 3200].map { ($0, warn) }
    let steps = run(inputs, persist: 2).steps
    #expect(steps.filter(\.changed).map(\.t) == [67, 3200])
    #expect(steps[4].reason == .hold)
    #expect(steps[7].output == warn)
  }

  @Test("§3.9: clearing to nil needs persistFrames nil inputs after the hold and starts the cooldown")
  func clearing() {
    let inputs: [(Millis, GateSignal)] = [
      (0, Self.A), (3000, Self.nothing), (3100, Self.nothing), (3200, Self.nothing), (3300, Self.B),
    ]
    let (steps, gate) = run(inputs, persist: 1, cooldown: 500)
    #expect(steps.map(\.reason) == [.none, .none, .none, .none, .none])
    #expect(steps.map(\.output) == [Self.A, Self.nothing, Self.nothing, Self.nothing, Self.B])
    #expect(gate.cooldownUntil["A"] == 3500)
  }
}
