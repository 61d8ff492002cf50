import JustPhotoIO
import PoseSpec
import Testing

@testable import JustPhotoEngine

/// The noise gate (engine option `noiseGate`, ENGINE §3.4.7, G-57): a cue whose error changes,
/// in the median of its last N frame-to-frame changes, by more than `noiseGateRatio` times its
/// hysteresis band is unavailable (`noisy`).
@Suite("noise gate (§3.4.7, G-57)")
struct NoiseGateTests {
  @Test("the band runs from the activating threshold to the nearest exit bound, in the error's units")
  func band() {
    // HEAD_LEVEL noRef: abs> 7 activates, abs<= 4 exits.
    #expect(LevelRule.band(activating: Threshold(.absGreater, 7), exit: Threshold(.absLessOrEqual, 4)) == 3)
    // CHIN_DOWN: < 0.34 activates, between [0.36, 0.42] exits: the nearer bound.
    let chin = LevelRule.band(activating: Threshold(.less, 0.34), exit: Threshold(.between, 0.36, 0.42))
    #expect(abs((chin ?? 0) - 0.02) < 1e-12)
    // FRAME_MOVE_RIGHT noRef: < -0.07 activates, >= -0.04 exits.
    let frame = LevelRule.band(activating: Threshold(.less, -0.07), exit: Threshold(.greaterOrEqual, -0.04))
    #expect(abs((frame ?? 0) - 0.03) < 1e-12)
    // No exit, no activating threshold, or a zero band: no band, never gated.
    #expect(LevelRule.band(activating: Threshold(.less, 1), exit: nil) == nil)
    #expect(LevelRule.band(activating: nil, exit: Threshold(.less, 1)) == nil)
    #expect(LevelRule.band(activating: Threshold(.less, 1), exit: Threshold(.greaterOrEqual, 1)) == nil)
    // A set's band: warn first, else enter, else hard.
    let set = ThresholdSet(hard: [Threshold(.absGreater, 12)], warn: [Threshold(.absGreater, 7)], exit: [Threshold(.absLessOrEqual, 4)])
    #expect(LevelRule(set).noiseBand == 3)
    let hardOnly = ThresholdSet(hard: [Threshold(.absGreater, 12)], exit: [Threshold(.absLessOrEqual, 4)])
    #expect(LevelRule(hardOnly).noiseBand == 8)
  }

  /// Feeds `errors` to cue 0 and returns, for each, whether the gate held the cue.
  static func run(_ gate: inout NoiseGate, _ errors: [Double], withRef: Bool = false, band: Double? = 3) -> [Bool] {
    errors.map { gate.judge(0, error: $0, withRef: withRef, band: band) == .noisy }
  }

  @Test("off (0, the default): never gated, whatever the error does")
  func off() {
    var gate = NoiseGate(window: 0, ratio: 1, cues: 2)
    #expect(!gate.isOn)
    #expect(Self.run(&gate, [0, 20, -20, 20, -20, 20]) == Array(repeating: false, count: 6))
    #expect(EngineOptions().noiseGate == 0)
    #expect(EngineSettings(EngineOptions()).noiseGate == 0)
  }

  @Test("a steady error passes once two changes are seen; a detector's noise past the band is gated")
  func steadyAndNoisy() {
    var gate = NoiseGate(window: 6, ratio: 1, cues: 1)
    // Settling: the first observation has no change, the second one change.
    #expect(Self.run(&gate, [1.0, 1.5, 2.0, 2.5, 2.0, 1.0]) == [true, true, false, false, false, false])
    // Noise of ±10 (changes of 20) against a band of 3: gated once the median is past 3.
    let noisy = Self.run(&gate, [10, -10, 10, -10, 10, -10, 10])
    #expect(noisy.suffix(4) == [true, true, true, true])
    // Steady again: the gate opens when the changes ≤ 3 are the median of the last six.
    let calm = Self.run(&gate, [1, 1, 1, 1, 1, 1, 1])
    #expect(calm.last == false)
    #expect(calm.first == true)
  }

  @Test("one outlier frame (two large changes) does not gate a steady cue: the median, not the mean")
  func outlier() {
    var gate = NoiseGate(window: 6, ratio: 1, cues: 1)
    _ = Self.run(&gate, [1, 1.2, 1, 1.2, 1, 1.2, 1])
    #expect(Self.run(&gate, [30, 1, 1.2, 1]) == [false, false, false, false])
    // Twice the band allowed by the ratio: changes of 5 pass at ratio 2, not at 1.
    var loose = NoiseGate(window: 4, ratio: 2, cues: 1)
    #expect(Self.run(&loose, [0, 5, 0, 5, 0, 5]).suffix(3) == [false, false, false])
    var strict = NoiseGate(window: 4, ratio: 1, cues: 1)
    #expect(Self.run(&strict, [0, 5, 0, 5, 0, 5]).suffix(3) == [true, true, true])
  }

  @Test("unavailability, a reset or a mode change forgets the changes: the cue settles again")
  func forgetting() {
    var gate = NoiseGate(window: 4, ratio: 1, cues: 3)
    _ = Self.run(&gate, [1, 1, 1, 1, 1])
    #expect(Self.run(&gate, [1]) == [false])
    gate.clear(0)
    #expect(Self.run(&gate, [1, 1, 1]) == [true, true, false])
    // A switch to withRef errors starts again (the two modes' errors are not comparable).
    #expect(Self.run(&gate, [1, 1, 1], withRef: true) == [true, true, false])
    gate.clearAll()
    #expect(Self.run(&gate, [1], withRef: true) == [true])
    // A non-finite error is no observation: it clears, and is not gated.
    #expect(Self.run(&gate, [.nan]) == [false])
    #expect(Self.run(&gate, [1, 1]) == [true, true])
    // Cues are separate; a cue without a band is never held, even while settling.
    #expect(gate.judge(1, error: 5, withRef: false, band: nil) == .pass)
    #expect(gate.judge(2, error: 5, withRef: false, band: 3) == .noisy)
    // A window of one: the last change alone, settled after one change.
    var one = NoiseGate(window: 1, ratio: 1, cues: 1)
    #expect(Self.run(&one, [0, 1, 5, 6]) == [true, false, true, false])
  }

  @Test("noiseGateMargin k: an inactive cue's crossing counts only past k median changes; an active cue is judged as the spec says")
  func margin() {
    // Changes of 1 (a median of 1) against a band of 3: never noisy.
    var gate = NoiseGate(window: 4, ratio: 1, margin: 2, cues: 1)
    for e in [0.0, 1, 0, 1, 0] { _ = gate.judge(0, error: e, withRef: false, band: 3, pastThreshold: -7) }
    // 1.5 past the threshold is within 2 median changes: demoted while inactive …
    #expect(gate.judge(0, error: 1, withRef: false, band: 3, pastThreshold: 1.5) == .demoted)
    // … judged as the spec says once active, or without a margin.
    #expect(gate.judge(0, error: 0, withRef: false, band: 3, pastThreshold: 1.5, active: true) == .pass)
    // 2.5 past it is more than 2 median changes: it counts.
    #expect(gate.judge(0, error: 1, withRef: false, band: 3, pastThreshold: 2.5) == .pass)
    // No margin (0, the default), or no measure of the distance (a between threshold): never demoted.
    var plain = NoiseGate(window: 4, ratio: 1, cues: 1)
    for e in [0.0, 1, 0, 1, 0] { _ = plain.judge(0, error: e, withRef: false, band: 3, pastThreshold: 0.1) }
    #expect(plain.judge(0, error: 1, withRef: false, band: 3, pastThreshold: 0.1) == .pass)
    #expect(gate.judge(0, error: 0, withRef: false, band: 3, pastThreshold: nil) == .pass)
    // Settling without a band: nothing is known of the noise, so an inactive cue is demoted.
    var unbanded = NoiseGate(window: 4, ratio: 1, margin: 1, cues: 1)
    #expect(unbanded.judge(0, error: 9, withRef: false, band: nil, pastThreshold: 5) == .demoted)
  }

  @Test("how far an error is past a cue's activating threshold, for each operator")
  func pastActivating() {
    func past(_ t: Threshold, _ v: Double) -> Double? {
      LevelRule(ThresholdSet(warn: [t], exit: [Threshold(.absLessOrEqual, 0)])).pastActivating(v)
    }
    #expect(past(Threshold(.absGreater, 7), -9) == 2)
    #expect(past(Threshold(.absGreater, 7), 6) == -1)
    #expect(past(Threshold(.less, 0.34), 0.30).map { abs($0 - 0.04) < 1e-12 } == true)
    #expect(past(Threshold(.greaterOrEqual, 0.1), 0.25).map { abs($0 - 0.15) < 1e-12 } == true)
    #expect(past(Threshold(.absLess, 2), 0.5) == 1.5)
    #expect(past(Threshold(.between, 1, 2), 1.5) == nil)
    #expect(past(Threshold(.less, 1), .nan) == nil)
  }

  @Test("the options: noiseGate an integer 0…30, noiseGateRatio in (0, 10], noiseGateMargin in [0, 10]; defaults off, 1, 0")
  func options() throws {
    var o = EngineOptions()
    #expect(o.noiseGate == 0 && o.noiseGateRatio == 1 && o.noiseGateMargin == 0)
    try o.set("noiseGateMargin", "2")
    #expect(o.noiseGateMargin == 2)
    #expect(throws: EngineOptionsError.self) { try o.set("noiseGateMargin", "-0.5") }
    try o.set("noiseGate", "15")
    try o.set("noiseGateRatio", "0.50")
    #expect(o.noiseGate == 15 && o["noiseGateRatio"] == "0.5")
    #expect(throws: EngineOptionsError.self) { try o.set("noiseGate", "31") }
    #expect(throws: EngineOptionsError.self) { try o.set("noiseGate", "-1") }
    #expect(throws: EngineOptionsError.self) { try o.set("noiseGateRatio", "0") }
    #expect(throws: EngineOptionsError.self) { try o.set("noiseGateRatio", "11") }
    let s = EngineSettings(o)
    #expect(s.noiseGate == 15 && s.noiseGateRatio == 0.5)
  }
}
