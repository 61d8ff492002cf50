@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Testing

/// The gate's two engine options (ENGINE §3.9, G-58), off by default (the app's gate):
/// `gatePersistByCue` counts a new cue's frames at any level, `gateReleaseOnExit` ends the
/// shown cue's hold when the subject has crossed its exit.
@Suite("gate options (ENGINE §3.9, G-58)")
struct GateOptionsTests {
  typealias F = Fixture
  static let warnA = GateSignal(id: "A", level: .warn)
  static let hardA = GateSignal(id: "A", level: .hard)

  static func run(_ inputs: [(Millis, GateSignal, exited: Bool)], persistByCue: Bool) -> [AntiJitterGate.Result] {
    var gate = AntiJitterGate()
    return inputs.map { t, input, exited in
      var p = GateParameters(persistFrames: 3, minHoldMs: 3000, cooldownMs: 800)
      p.persistByCue = persistByCue
      p.currentExited = exited
      return gate.filter(input, at: t, p)
    }
  }

  @Test("a cue whose level flips between warn and hard each frame: never shown by the app's gate; shown on its 3rd frame when counted by cue")
  func levelFlipsRestartTheAppsCount() {
    let inputs = (0..<20).map { k in (Millis(k * 100), k % 2 == 0 ? Self.warnA : Self.hardA, exited: false) }
    #expect(Self.run(inputs, persistByCue: false).allSatisfy { $0.output == .empty && $0.reason == .frames })
    let byCue = Self.run(inputs, persistByCue: true)
    #expect(byCue.firstIndex(where: \.changed) == 2)
    #expect(byCue[2].output == Self.warnA)  // the level of the frame that completes the count
  }

  @Test("counted by cue, a level change of the shown cue still needs its frames at the new level: no level flicker after the hold")
  func levelChangesOfTheShownCueStillPersist() {
    var inputs = (0..<3).map { k in (Millis(k * 100), Self.hardA, exited: false) }
    inputs += (3..<60).map { k in (Millis(k * 100), k % 2 == 0 ? Self.warnA : Self.hardA, exited: false) }
    let r = Self.run(inputs, persistByCue: true)
    #expect(r.filter(\.changed).count == 1)
    #expect(r.dropFirst(3).allSatisfy { $0.output == Self.hardA })
    #expect(r.dropFirst(33).contains { $0.reason == .frames })
  }

  @Test("released on exit: nothing after a crossed exit clears once persistFrames nil inputs are seen, not after the 3000 ms hold")
  func releaseOnExit() {
    let shown = (0..<3).map { k in (Millis(k * 100), Self.hardA, exited: false) }
    let cleared = (3..<40).map { k in (Millis(k * 100), GateSignal.empty, exited: true) }
    let released = Self.run(shown + cleared, persistByCue: false)
    #expect(released.enumerated().filter { $0.element.changed }.map { Millis($0.offset * 100) } == [200, 500])
    // Without the exit (the cue merely unavailable, or the option off) the hold stands.
    let held = Self.run(shown + cleared.map { ($0.0, $0.1, exited: false) }, persistByCue: false)
    #expect(held.enumerated().filter { $0.element.changed }.map { Millis($0.offset * 100) } == [200, 3200])
    #expect(held[5].reason == .hold)
  }

  @Test("hysteresis remembers an exit crossing until the cue enters again, turns unavailable or is reset")
  func hysteresisExited() {
    var h = CueHysteresis()
    _ = h.step(.observe(.hard, persistFrames: 2))
    #expect(!h.exited)
    _ = h.step(.observe(.exit, persistFrames: 2))
    #expect(!h.exited && h.isActive)
    #expect(h.step(.observe(.exit, persistFrames: 2)) == .exitCrossed)
    #expect(h.exited && !h.isActive)
    _ = h.step(.observe(.none, persistFrames: 2))
    #expect(h.exited)
    _ = h.step(.unavailable)
    #expect(!h.exited)
    _ = h.step(.observe(.warn, persistFrames: 1))
    _ = h.step(.observe(.exit, persistFrames: 1))
    #expect(h.exited)
    _ = h.step(.reset)
    #expect(!h.exited && h == CueHysteresis())
  }

  /// FRAME_MOVE_LEFT shown, then the subject centres: the exit's praise comes with the cue still
  /// shown by the app's hold; with `gateReleaseOnExit` the display clears within the cue's
  /// persistFrames of the exit.
  @Test("engine: gateReleaseOnExit clears a fixed cue at its exit, the default holds it 3000 ms")
  func engineReleaseOnExit() {
    let events = F.frames(0..<90) { k in k < 21 ? F.subject(dx: 0.15) : F.subject() }
    func displays(_ options: [String: String]) -> [(Millis, String)] {
      F.runWithTimers(F.engine(options: options), events, until: 6000).filter { $0.out == "cue_display" }
        .map { ($0.t, $0.fields["cue_id"]?.stringValue ?? "nil") }
    }
    let plain = displays([:])
    let released = displays(["gateReleaseOnExit": "true"])
    let praise = F.runWithTimers(F.engine(options: ["gateReleaseOnExit": "true"]), events, until: 6000)
      .first { $0.out == "praise" }?.t
    #expect(plain.map(\.1) == ["FRAME_MOVE_LEFT", "nil"] && released.map(\.1) == ["FRAME_MOVE_LEFT", "nil"])
    #expect(plain[0].0 == released[0].0)
    #expect(plain[1].0 >= plain[0].0 + 3000, "\(plain)")
    let exit = try! #require(praise)
    #expect(released[1].0 > exit && released[1].0 <= exit + 4 * 67, "\(released), praise at \(exit)")
  }

  @Test("both options are off by default and parse as booleans")
  func options() throws {
    #expect(!EngineSettings(EngineOptions()).gateReleaseOnExit && !EngineSettings(EngineOptions()).gatePersistByCue)
    var o = EngineOptions()
    try o.set("gateReleaseOnExit", "true")
    try o.set("gatePersistByCue", "true")
    #expect(EngineSettings(o).gateReleaseOnExit && EngineSettings(o).gatePersistByCue)
    #expect(throws: (any Error).self) { try o.set("gatePersistByCue", "yes") }
  }
}
