import PoseSpec

/// CueStabilityLayer of ENGINE §3.8 (`INF/PoseSpec/CueStabilityLayer.swift`), inserted
/// between the selector and the anti-jitter gate only with `useStabilityLayer=true` (§1.8,
/// G-40: stacking it on the gate's persistFrames adds a frame and flips none → hard).
///
/// A hard or exit level is confirmed only on its second consecutive equal input; until then
/// the layer repeats the previous cue and level (or, the very first time, the input cue with
/// the previous level `none`). warn / enter / none pass through.
struct CueStabilityLayer: Equatable, Sendable {
  static let hardStableFrames = 2
  private(set) var prevCueId: String?
  private(set) var prevLevel: CueLevel = .none
  private(set) var stableFrameCount = 0

  enum State: String, Sendable { case confirmed, unstable }

  mutating func filter(_ input: GateSignal) -> (output: GateSignal, state: State) {
    let same = input.id == prevCueId && input.level == prevLevel
    stableFrameCount = prevCueId == nil ? 0 : (same ? stableFrameCount + 1 : 0)
    var result = (output: input, state: State.confirmed)
    if input.level == .hard || input.level == .exit {
      let confirmed = same && stableFrameCount >= Self.hardStableFrames - 1
      if !confirmed {
        result = (GateSignal(id: prevCueId ?? input.id, level: prevLevel), .unstable)
      }
    }
    if input.id != prevCueId { stableFrameCount = 0 }
    prevCueId = input.id
    prevLevel = input.level
    return result
  }
}
