import CoachEngine
import EngineIO

/// The calls a replay makes into an engine. `CoachEngine.Engine` conforms; tests drive the
/// replayer with scripted fakes.
public protocol ReplayableEngine {
  /// Called once at t = 0 before any event.
  mutating func start() -> Effects
  /// Feeds one recorded input event at its time `event.t`.
  mutating func handle(_ event: InputEvent) -> Effects
  /// Fires a timer the engine scheduled earlier.
  mutating func fire(_ timer: TimerID, at now: Millis) -> Effects
}

extension Engine: ReplayableEngine {}
