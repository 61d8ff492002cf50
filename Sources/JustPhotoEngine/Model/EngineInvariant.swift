/// Invariants of the engine's own state (TigerBeetle style): cheap checks, in debug and release
/// builds, of what must hold whatever the input — a transition a machine allows, a counter that
/// only grows, a level or window in its range, timestamps that do not go back.
///
/// They check the engine's truths, never the input's validity: bad input is rejected before the
/// engine (exit code 2) or handled as the spec says, so no recording can make one fail. A failed
/// invariant is an engine bug; the engine stops at the first wrong state (`preconditionFailure`,
/// naming the invariant) instead of writing a trace from it. Replays are deterministic, so the
/// recording that stopped it reproduces it. Tests install a `handler` (a task-local value) to
/// see violations without stopping the process.
enum EngineInvariant {
  /// Receives the message of a violated invariant instead of stopping; nil (the default) stops.
  @TaskLocal static var handler: (@Sendable (String) -> Void)? = nil

  /// Checks `condition`; the message is built only when it fails, out of line (so a check
  /// costs its comparison and a branch, and does not weigh on the caller's inlining).
  @inline(__always)
  static func check(
    _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
  ) {
    if _slowPath(!condition) { fail(message, file: file, line: line) }
  }

  @inline(never)
  static func fail(_ message: () -> String, file: StaticString, line: UInt) {
    let text = "engine invariant: \(message()) (\(file):\(line))"
    if let handler { return handler(text) }
    preconditionFailure(text, file: file, line: line)
  }
}
