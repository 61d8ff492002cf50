import EngineIO

/// Which cues explain a divergence, and the heading of its "why" block (`diff`, `bisect
/// commits`): the cues its records name — a clear names the cue it cleared — or, for a record
/// about no cue (shutter, praise, prompt, A.13), the cues on screen at its time.
public struct DivergenceWhy: Sendable, Equatable {
  public var t: Millis
  /// The cues whose metric tables explain it (empty: nothing to tabulate).
  public var cues: [String]
  /// How the cues were chosen, for the heading.
  public var basis: String

  public init(_ d: Divergence) {
    t = d.t
    let clear = d.clearsCue
    if !d.cueIDs.isEmpty {
      cues = d.cueIDs
      basis = clear ? "the cue that cleared" : "the cue\(d.cueIDs.count == 1 ? "" : "s") the records name"
    } else if !d.cuesOnScreen.isEmpty {
      cues = d.cuesOnScreen
      basis = "the records name no cue; the cue\(d.cuesOnScreen.count == 1 ? "" : "s") on screen at t=\(d.t)"
    } else {
      cues = []
      basis = "the records name no cue and none was on screen at t=\(d.t): no cue table"
    }
  }

  /// "why, replay side R (FRAME_MOVE_LEFT, the cue that cleared; engine metrics within 500 ms of t=8667):"
  public func heading(_ side: String) -> String {
    cues.isEmpty
      ? "why, \(side): \(basis)"
      : "why, \(side) (\(cues.joined(separator: ", ")): \(basis); engine metrics within 500 ms of t=\(t)):"
  }
}
