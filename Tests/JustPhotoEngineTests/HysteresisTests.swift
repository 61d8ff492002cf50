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
