/// Names a timer the engine asked for. Re-scheduling an id replaces its due time.
public struct TimerID: Hashable, Comparable, Sendable, CustomStringConvertible {
  public var name: String
  public init(_ name: String) { self.name = name }
  public static func < (a: TimerID, b: TimerID) -> Bool { a.name < b.name }
  public var description: String { name }
}

/// A request to the replayer's (or the device shell's) clock.
public enum TimerRequest: Equatable, Sendable {
  /// Fire `id` at absolute virtual time `at` (replaces an earlier schedule of the same id).
  case schedule(TimerID, at: Millis)
  case cancel(TimerID)
}
