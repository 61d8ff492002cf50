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
  /// `app_launch` after a kill, with what the session store holds (the typed relaunch entry;
  /// the recorded event is handed over unchanged).
  mutating func relaunch(_ event: InputEvent, restoring stored: StoreSnapshot) -> Effects
}

extension ReplayableEngine {
  /// Engines without persistence relaunch like any launch.
  public mutating func relaunch(_ event: InputEvent, restoring stored: StoreSnapshot) -> Effects { handle(event) }
}

extension Engine: ReplayableEngine {}
