import PoseSpec
import Testing

@testable import JustPhotoEngine

/// Per-cue hysteresis (ENGINE §3.5).
@Suite("Hysteresis (ENGINE §3.5)")
struct HysteresisTests {
  /// Feeds levels and returns the events (nil → "-").
  func run(_ levels: [CueLevel], persist: Int = 4, into h: inout CueHysteresis) -> [String] {
    levels.map { h.step(.observe($0, persistFrames: persist))?.rawValue ?? "-" }
  }

  @Test("§3.5: warn/hard activate; none and exit keep an inactive cue inactive")
  func entering() {
    var h = CueHysteresis()
    #expect(run([.none, .exit], into: &h) == ["-", "-"])
    #expect(!h.isActive)
    #expect(run([.hard], into: &h) == ["entered"])
    #expect(h.stickyLevel == .hard)
    #expect(run([.warn], into: &h) == ["-"])
    #expect(h.stickyLevel == .warn)
  }

  @Test("§3.5 / S07: the dead-band keeps the cue active with its sticky level and resets the exit count")
  func deadBand() {
    // FRAME_MOVE_LEFT noRef: 0.15 → hard, 0.06 → none (dead-band), 0.02 → exit.
    let t = ThresholdSet(
      hard: [Threshold(.greater, 0.12)], warn: [Threshold(.greater, 0.07)], exit: [Threshold(.lessOrEqual, 0.04)])
    var h = CueHysteresis()
    let errors = [0.15] + Array(repeating: 0.06, count: 60) + [0.02, 0.02, 0.02, 0.06, 0.02, 0.02, 0.02]
    let events = errors.map { h.step(.observe(t.level(of: $0), persistFrames: 4)) }
    #expect(events.compactMap { $0 } == [.entered])
    #expect(h.stickyLevel == .hard)
    #expect(h.exitCount == 3)  // the none at index 64 reset the count
  }

  @Test("§3.5: persistFrames consecutive exits clear the cue with exit_crossed")
  func exitCrossed() {
    var h = CueHysteresis()
    #expect(run([.hard, .exit, .exit, .exit, .exit], into: &h) == ["entered", "-", "-", "-", "exit_crossed"])
    #expect(!h.isActive)
    var quick = CueHysteresis()
    #expect(run([.warn, .exit], persist: 1, into: &quick) == ["entered", "exit_crossed"])
    // An enter observation keeps an active cue and resets its exits.
    var e = CueHysteresis()
    #expect(
      run([.warn, .exit, .exit, .enter, .exit, .exit, .exit], into: &e) == ["entered", "-", "-", "-", "-", "-", "-"])
    #expect(e.exitCount == 3)
  }

  @Test("§3.5, G-56: activateFrames N turns a cue active on the N-th consecutive activating observation, at its level")
  func activateFrames() {
    func run(_ levels: [CueLevel], activate: Int, into h: inout CueHysteresis) -> [String] {
      levels.map { h.step(.observe($0, persistFrames: 4, activateFrames: activate))?.rawValue ?? "-" }
    }
    // One outlier observation: the app's behaviour (1) shows it; 2 does not.
    var app = CueHysteresis()
    #expect(run([.none, .hard, .none, .none], activate: 1, into: &app) == ["-", "entered", "-", "-"])
    var two = CueHysteresis()
    #expect(run([.none, .hard, .none, .none], activate: 2, into: &two) == ["-", "-", "-", "-"])
    #expect(!two.isActive)
    // Two in a row: active on the second, with the second's level.
    #expect(run([.hard, .warn], activate: 2, into: &two) == ["-", "entered"])
    #expect(two.stickyLevel == .warn)
    // enter counts as activating; exit, none, unavailable and a reset start the count again.
    var three = CueHysteresis()
    #expect(run([.warn, .enter, .exit, .warn, .hard], activate: 3, into: &three) == ["-", "-", "-", "-", "-"])
    #expect(three.activating == 2)
    _ = three.step(.unavailable)
    #expect(three.activating == 0)
    #expect(run([.warn, .warn], activate: 3, into: &three) == ["-", "-"])
    _ = three.step(.reset)
    #expect(run([.warn, .warn, .hard], activate: 3, into: &three) == ["-", "-", "entered"])
    #expect(three.activating == 0)
    // Once active, the count plays no part: the exit rule is §3.5's.
    #expect(run([.exit, .exit, .exit, .exit], activate: 3, into: &three) == ["-", "-", "-", "exit_crossed"])
    // activateFrames below 1 is 1.
    var zero = CueHysteresis()
    #expect(run([.hard], activate: 0, into: &zero) == ["entered"])
  }

  @Test("§3.4.3: unavailability deactivates without exit_crossed (deactivated only when it was active)")
  func unavailable() {
    var h = CueHysteresis()
    #expect(h.step(.unavailable) == nil)
    _ = h.step(.observe(.hard, persistFrames: 4))
    _ = h.step(.observe(.exit, persistFrames: 4))
    #expect(h.step(.unavailable) == .deactivated)
    #expect(!h.isActive)
    #expect(h.exitCount == 0)
  }
}
