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
  /// The previous input: its cue (`prevCueId`) and level (`prevLevel`).
  private(set) var previous = GateSignal.empty
  var prevCueId: String? { previous.id }
  var prevLevel: CueLevel { previous.level }
  private(set) var stableFrameCount = 0

  enum State: String, Sendable { case confirmed, unstable }

  mutating func filter(_ input: GateSignal) -> (output: GateSignal, state: State) {
    let same = input == previous
    stableFrameCount = previous.isNone ? 0 : (same ? stableFrameCount + 1 : 0)
    var result = (output: input, state: State.confirmed)
    if input.level == .hard || input.level == .exit {
      let confirmed = same && stableFrameCount >= Self.hardStableFrames - 1
      if !confirmed {
        // The previous cue (else the input's) at the previous level.
        result = ((previous.isNone ? input : previous).at(previous.level), .unstable)
      }
    }
    if !input.sameCue(as: previous) { stableFrameCount = 0 }
    previous = input
    return result
  }
}
