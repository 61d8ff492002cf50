import Recording
import EngineIO

/// Why a replay could not produce a trajectory to compare: the input was unusable, or the
/// recording and the engine disagree about effects (ENGINE §1.6).
public enum ReplayError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The recording (or the options applied to it) cannot be replayed. Exit code 2.
  case badInput(BadInputError)
  /// Strict effect correlation failed. A replay failure distinct from a golden diff; it is a
  /// behavioural finding (the engine asked for different effects than the recording answers),
  /// so `verify` counts it with the failures (exit 1).
  case harness(HarnessError)
  /// Writing an output failed (disk full, closed pipe). Exit code 2.
  case output(String)

  /// The underlying error's message (bad input and harness issues name the recording and the time).
  public var description: String {
    switch self {
    case .badInput(let e): e.description
    case .harness(let e): e.description
    case .output(let m): "cannot write replay output: \(m)"
    }
  }

  /// The process exit code this error maps to (DESIGN §5).
  public var exitCode: ExitDecision {
    switch self {
    case .badInput, .output: .badInput
    case .harness: .difference
    }
  }
}

/// The three outcomes the CLI turns into exit codes (DESIGN §5).
public enum ExitDecision: Int32, Comparable, Sendable {
  case ok = 0
  case difference = 1
  case badInput = 2

  /// Ordered by exit code: the worst decision wins.
  public static func < (a: ExitDecision, b: ExitDecision) -> Bool { a.rawValue < b.rawValue }
}

/// A recording that cannot be replayed: what is wrong and where.
public struct BadInputError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The recording (path or name) when known.
  public var recording: String?
  /// The time of the offending event, when there is one.
  public var t: Millis?
  /// What is wrong and what was expected.
  public var message: String

  /// An error.
  ///
  /// - Parameters:
  ///   - recording: the recording, when known.
  ///   - t: the offending event's time, when there is one.
  ///   - message: what is wrong.
  public init(recording: String? = nil, t: Millis? = nil, message: String) {
    self.recording = recording
    self.t = t
    self.message = message
  }

  /// `PATH: at t=T: MESSAGE`, each part when known.
  public var description: String {
    var s = recording.map { "\($0): " } ?? ""
    if let t { s += "at t=\(t): " }
    return s + message
  }
}

/// One effect-correlation problem (ENGINE §1.6).
public struct HarnessIssue: Equatable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: String, Sendable {
    /// A recorded result arrived with no pending request for its key.
    case resultWithoutRequest = "result_without_request"
    /// A request got no recorded result before the end of the recording.
    case requestWithoutResult = "request_without_result"
    /// An effect request lacks a field its correlation key needs.
    case malformedRequest = "malformed_request"
    /// Lenient only: a result was synthesized for a request (not an error).
    case synthesizedResult = "synthesized_result"
    /// Lenient only: a recorded result came after one was synthesized; it was dropped.
    case lateResultDropped = "late_result_dropped"
    /// The engine kept re-arming timer `effect` for the same instant (runaway loop).
    case timerLoop = "timer_loop"
  }
  /// What went wrong.
  public var kind: Kind
  /// When: the result's time, or the request's time for `requestWithoutResult`.
  public var t: Millis
  /// The event or effect kind concerned (`photokit_write_result`, `capture_photo`, …).
  public var effect: String
  /// The correlation key, e.g. `shot=2,attempt=1` (empty for keyless effects).
  public var key: String

  /// An issue at `t` for the effect `effect` with correlation key `key`.
  public init(kind: Kind, t: Millis, effect: String, key: String) {
    self.kind = kind
    self.t = t
    self.effect = effect
    self.key = key
  }

  /// `at t=T: …` naming the effect and its key, e.g. `at t=400: effect ocr {photo=p3} got no recorded result before the end`.
  public var description: String {
    let k = key.isEmpty ? "" : " {\(key)}"
    switch kind {
    case .resultWithoutRequest:
      return "at t=\(t): recorded \(effect)\(k) answers no pending request"
    case .requestWithoutResult:
      return "at t=\(t): effect \(effect)\(k) got no recorded result before the end"
    case .malformedRequest: return "at t=\(t): effect \(effect) lacks its key field(s) \(key)"
    case .synthesizedResult: return "at t=\(t): synthesized \(effect)\(k) (no recorded result)"
    case .lateResultDropped:
      return "at t=\(t): recorded \(effect)\(k) dropped (a result was already synthesized)"
    case .timerLoop: return "at t=\(t): timer \(effect) keeps firing without the clock advancing"
    }
  }
}

/// Strict replay found effects that the recording and the engine do not agree on.
public struct HarnessError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Every disagreement, in time order.
  public var issues: [HarnessIssue]
  /// The error of `issues`.
  public init(issues: [HarnessIssue]) { self.issues = issues }
  /// One line per issue.
  public var description: String {
    "harness error (strict effect correlation, ENGINE §1.6): "
      + issues.map(\.description).joined(separator: "; ")
      + " — re-record the session, or replay with --set strictEffects=false to synthesize missing results"
  }
}

extension ReplayError {
  /// A failed write of the replay's output with the system's reason ("No space left on
  /// device"), never an error's debug description.
  public static func output(writing error: any Error) -> ReplayError { .output(SystemReason.of(error)) }
}
