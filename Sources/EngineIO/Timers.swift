/// Names a timer the engine asked for. Re-scheduling an id replaces its due time.
public struct TimerID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The name, dotted by owner, e.g. `tier.t1_tick` or `praise.timeout`; two ids are the same
  /// timer exactly when their names are equal.
  public var name: String
  /// The timer called `name`.
  public init(_ name: String) { self.name = name }
  /// Orders by name, so a list of timers (those still pending, say) reads the same in every run.
  /// Firing order is not this: the replayer fires timers due at the same instant in the order
  /// they were scheduled.
  public static func < (a: TimerID, b: TimerID) -> Bool { a.name < b.name }
  /// The name.
  public var description: String { name }
}

/// A request to the replayer's (or the device shell's) clock.
public enum TimerRequest: Equatable, Sendable {
  /// Fire `id` at absolute virtual time `at` (replaces an earlier schedule of the same id).
  case schedule(TimerID, at: Millis)
  /// Forget the pending schedule of this id; cancelling an id that is not scheduled does nothing.
  case cancel(TimerID)
}
