import CanonicalJSON
import EngineIO
import PoseSpec

/// The app process around the engine (ENGINE §5.1): killed / launched / active, and the session
/// TTL. A kill drops every in-memory state at the next `app_launch`; until then nothing runs —
/// `admits` is the one place that says so.
struct SessionLifecycle: Sendable {
  enum Input: Sendable {
    /// `app_launch`: a cold start.
    case launch
    /// `app_lifecycle {state}`.
    case lifecycle(String)
  }

  /// What the engine does for a lifecycle input, in order.
  enum Step: Sendable, Equatable {
    /// Forget everything in memory (a relaunch after a kill).
    case dropMemory
    /// Restore the stored session if there is one, else start one (cold start).
    case coldStart
    /// `active`: replace an expired session (APP `ensureFreshSession`).
    case ensureFreshSession
    /// The prompt system follows the app to the background / foreground.
    case prompts(background: Bool)
    case action(MachineAction)

    static func == (a: Step, b: Step) -> Bool {
      switch (a, b) {
      case (.dropMemory, .dropMemory), (.coldStart, .coldStart), (.ensureFreshSession, .ensureFreshSession): true
      case (.prompts(let x), .prompts(let y)): x == y
      default: false
      }
    }
  }

  /// ENGINE §5.1 TTL: restore iff `now − lastActiveAt ≤ 12 h` ([C] `isExpired` uses `>`).
  static let sessionTTLms: Int64 = 43_200_000

  /// `app_lifecycle terminated` was handled and no `app_launch` since.
  private(set) var killed = false
  /// Not `active` (§3.15 [D]: a paused engine).
  var appInactive = false

  /// Whether an input reaches the engine: a killed app runs nothing — no event but its
  /// relaunch, no timer — until `app_launch`.
  func admits(relaunch: Bool) -> Bool { !killed || relaunch }

  /// Whether a session last active at `lastActiveMs` has expired at wall time `wallMs`.
  static func expired(lastActiveMs: Int64, wallMs: Int64) -> Bool { wallMs - lastActiveMs > sessionTTLms }

  mutating func handle(_ input: Input, at t: Millis) -> [Step] {
    switch input {
    case .launch:
      guard killed else { return [.coldStart] }
      // A new process: alive and active; the engine drops the rest of its memory.
      killed = false
      appInactive = false
      return [.dropMemory, .coldStart]
    case .lifecycle("terminated"):
      // A kill: nothing more is flushed; memory is dropped at the next `app_launch`.
      killed = true
      return [.action(.output(.session(.killed)))]
    case .lifecycle("active"):
      appInactive = false
      return [.ensureFreshSession, .prompts(background: false), .action(.markDirty)]
    case .lifecycle("background"):
      appInactive = true
      return [.prompts(background: true), .action(.markDirty)]
    case .lifecycle:
      appInactive = true
      return [.action(.markDirty)]
    }
  }
}
