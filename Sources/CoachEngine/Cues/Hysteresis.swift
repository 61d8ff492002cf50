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

  /// The inputs of one cue's hysteresis.
  enum Action: Equatable, Sendable {
    /// One level observation; `persistFrames` is clamped to ≥ 1.
    case observe(CueLevel, persistFrames: Int)
    /// The cue's inputs are unavailable this evaluation.
    case unavailable
    /// Mode switch, scene change, session reset, PoseSpec reload: back to inactive, silently.
    case reset
  }

  /// The transition function (table above). A decider: its event is read by the evaluation
  /// (fallback requests, praise triggers); it has no outputs of its own.
  @inline(__always)
  mutating func step(_ action: Action) -> Event? {
    let was = state
    let event: Event?
    switch action {
    case .observe(let level, let persistFrames): event = observe(level, persistFrames: persistFrames)
    case .unavailable: event = markUnavailable()
    case .reset:
      state = .inactive
      event = nil
    }
    checkInvariants(after: action, from: was, event)
    return event
  }

  /// What every transition keeps: an active cue's sticky level is one that activates
  /// (warn, hard, enter), its exit count is below persistFrames, and each event comes from the
  /// transition that produces it.
  @inline(__always)
  func checkInvariants(after action: Action, from was: State, _ event: Event?) {
    if case .active(let sticky, let n) = state {
      EngineInvariant.check(sticky == .warn || sticky == .hard || sticky == .enter, "hysteresis: sticky level \(sticky)")
      if case .observe(_, let persist) = action {
        EngineInvariant.check(n >= 0 && n < max(1, persist), "hysteresis: exit count \(n) of \(persist)")
      }
    }
    switch event {
    case nil: break
    case .entered: EngineInvariant.check(was == .inactive && isActive, "hysteresis: entered from \(was)")
    case .exitCrossed, .deactivated:
      EngineInvariant.check(was != .inactive && !isActive, "hysteresis: \(event!) from \(was) to \(state)")
    }
  }

  /// A state no observation reaches (test-only: shows the invariants firing).
  init(testOnlyState state: State) { self.state = state }
  init() {}

  private mutating func observe(_ level: CueLevel, persistFrames: Int) -> Event? {
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

  private mutating func markUnavailable() -> Event? {
    defer { state = .inactive }
    return isActive ? .deactivated : nil
  }

}
