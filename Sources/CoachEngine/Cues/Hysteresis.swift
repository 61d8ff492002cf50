import PoseSpec

/// Per-cue hysteresis of ENGINE §3.5: warn/hard activate a cue, the dead-band keeps it,
/// `persistFrames` consecutive exit observations clear it with an `exit_crossed` event.
///
/// | From | Observation | To / action |
/// |---|---|---|
/// | inactive | warn, hard, enter | active(level, 0) |
/// | inactive | none, exit | stay |
/// | active | warn, hard | sticky = level, exitCount = 0 |
/// | active | none, enter | exitCount = 0 |
/// | active | exit | exitCount += 1; ≥ persistFrames → inactive + exit_crossed |
/// | any | unavailable | inactive (no exit_crossed); fallback if it was active |
struct CueHysteresis: Equatable, Sendable {
  enum State: Equatable, Sendable {
    case inactive
    case active(sticky: CueLevel, exitCount: Int)
  }

  /// What an observation did, for praise (later) and `cue_eval`.
  enum Event: String, Equatable, Sendable {
    case entered
    /// Cleared through persistFrames exit observations: the praise trigger of §3.12.
    case exitCrossed = "exit_crossed"
    /// Cleared because the cue became unavailable: requests the fallback cue (§3.4.3).
    case deactivated
  }

  private(set) var state: State = .inactive

  var isActive: Bool { if case .active = state { true } else { false } }
  var stickyLevel: CueLevel? { if case .active(let l, _) = state { l } else { nil } }
  var exitCount: Int { if case .active(_, let n) = state { n } else { 0 } }

  /// Applies one level observation; `persistFrames` is clamped to ≥ 1.
  mutating func observe(_ level: CueLevel, persistFrames: Int) -> Event? {
    switch (state, level) {
    case (.inactive, .warn), (.inactive, .hard), (.inactive, .enter):
      state = .active(sticky: level, exitCount: 0)
      return .entered
    case (.inactive, _):
      return nil
    case (.active, .warn), (.active, .hard):
      state = .active(sticky: level, exitCount: 0)
      return nil
    case (.active(let sticky, _), .none), (.active(let sticky, _), .enter):
      state = .active(sticky: sticky, exitCount: 0)
      return nil
    case (.active(let sticky, let n), .exit):
      if n + 1 >= max(1, persistFrames) {
        state = .inactive
        return .exitCrossed
      }
      state = .active(sticky: sticky, exitCount: n + 1)
      return nil
    }
  }

  /// The cue's inputs are unavailable this evaluation.
  mutating func markUnavailable() -> Event? {
    defer { state = .inactive }
    return isActive ? .deactivated : nil
  }

  /// Mode switch, scene change, session reset, PoseSpec reload: back to inactive, silently.
  mutating func reset() { state = .inactive }
}
