import CanonicalJSON
import EngineIO
import PoseSpec

/// One thing an app-side state machine asks the engine to do (SwiftNIO style: the machines
/// decide, `Engine` performs). A machine's actions are performed in order, so the trace keeps
/// the order in which the machine produced them.
enum AppAction: Sendable {
  /// A trace output.
  case output(EngineOutput)
  case timer(TimerRequest)
  /// Emit a catalogue prompt (gates, throttles and slots apply, ENGINE §4).
  case prompt(PromptKey, payload: [(key: String, value: PromptPayloadValue)] = [])
  /// Emit a prompt whose definition the machine adjusted (e.g. a message with its cause).
  case promptDefinition(PromptDefinition, payload: [(key: String, value: PromptPayloadValue)] = [])
  /// The condition behind a stateOnly prompt ended.
  case conditionEnded(PromptKey)
  /// A prompt is taken back (its item or screen went away).
  case withdraw(PromptKey)
  /// An A.13 line; the engine adds ts_ms / session_id / scene.
  case diagnostic(String, [(key: String, value: String)])
  /// The persisted state changed: flush it after this call (ENGINE §5.1).
  case markDirty
}

/// Camera authorization (`camera_auth`, ENGINE §5.12). The raw value is the recorded status.
enum CameraAuthorization: String, Sendable, Equatable {
  case authorized, denied, restricted, not_determined
  /// A status the engine does not know: not authorized, but entering the camera warms up (the
  /// app's default branch).
  case unrecognized

  init(status: String) { self = CameraAuthorization(rawValue: status) ?? .unrecognized }
}
