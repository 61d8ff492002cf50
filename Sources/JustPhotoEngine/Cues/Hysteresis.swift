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
///
/// With `activateFrames` N > 1 (engine option, G-56; default 1, the app) an inactive cue
/// counts consecutive activating observations (warn, hard, enter) and turns active on the N-th,
/// at that observation's level; none, exit, unavailable or a reset start the count again.
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
  /// Consecutive activating observations seen while inactive (0 when active; below
  /// `activateFrames`).
  private(set) var activating = 0
  /// The last change of state was an exit crossing (`exit_crossed`): the cue was cleared by
  /// the subject, not by unavailability or a reset. Read by `gateReleaseOnExit` (§3.9, G-58).
  private(set) var exited = false

  var isActive: Bool { if case .active = state { true } else { false } }
  var stickyLevel: CueLevel? { if case .active(let l, _) = state { l } else { nil } }
  var exitCount: Int { if case .active(_, let n) = state { n } else { 0 } }

  /// The inputs of one cue's hysteresis.
  enum Action: Equatable, Sendable {
    /// One level observation; `persistFrames` and `activateFrames` are clamped to ≥ 1.
    case observe(CueLevel, persistFrames: Int, activateFrames: Int = 1)
    /// The cue's inputs are unavailable this evaluation.
    case unavailable
    /// Mode switch, scene change, session reset, PoseSpec reload: back to inactive, silently.
    case reset
  }

  /// The transition function (table above). A decider: its event is read by the evaluation
  /// (fallback requests, praise triggers); it has no outputs of its own. Invariants, checked
  /// where a transition keeps part of the state: a kept sticky level is one that activates
  /// (warn, hard, enter), an exit count stays in 0..<persistFrames.
  @inline(__always)
  mutating func step(_ action: Action) -> Event? {
    switch action {
    case .observe(let level, let persistFrames, let activateFrames):
      return observe(level, persistFrames: persistFrames, activateFrames: activateFrames)
    case .unavailable:
      defer { (state, activating, exited) = (.inactive, 0, false) }
      return isActive ? .deactivated : nil
    case .reset:
      (state, activating, exited) = (.inactive, 0, false)
      return nil
    }
  }

  /// A state no observation reaches (test-only: shows the invariants firing).
  init(testOnlyState state: State) { self.state = state }
  init() {}

  @inline(__always)
  private mutating func observe(_ level: CueLevel, persistFrames: Int, activateFrames: Int) -> Event? {
    switch (state, level) {
    case (.inactive, .warn), (.inactive, .hard), (.inactive, .enter):
      activating += 1
      guard activating >= activateFrames else { return nil }
      (state, activating, exited) = (.active(sticky: level, exitCount: 0), 0, false)
      return .entered
    case (.inactive, _):
      activating = 0
      return nil
    case (.active, .warn), (.active, .hard):
      state = .active(sticky: level, exitCount: 0)
      return nil
    case (.active(let sticky, _), .none), (.active(let sticky, _), .enter):
      Self.checkSticky(sticky)
      state = .active(sticky: sticky, exitCount: 0)
      return nil
    case (.active(let sticky, let n), .exit):
      if n + 1 >= max(1, persistFrames) {
        (state, exited) = (.inactive, true)
        return .exitCrossed
      }
      Self.checkSticky(sticky)
      EngineInvariant.check(n >= 0, "hysteresis: exit count \(n + 1) of \(persistFrames)")
      state = .active(sticky: sticky, exitCount: n + 1)
      return nil
    }
  }

  @inline(__always)
  static func checkSticky(_ sticky: CueLevel) {
    EngineInvariant.check(sticky == .warn || sticky == .hard || sticky == .enter, "hysteresis: sticky level \(sticky)")
  }
}
