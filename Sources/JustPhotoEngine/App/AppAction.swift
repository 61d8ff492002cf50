import CanonicalJSON
import EngineIO
import PoseSpec

/// One thing a state machine asks the engine to do: the one output convention of every machine
/// (SwiftNIO style: the machines decide, `Engine` performs). A machine's step takes one of its
/// `Action`s and returns `[MachineAction]`; the engine performs them in order (`perform`), so the
/// trace keeps the order in which the machine produced them. A stage that only decides for the
/// next stage of the same machine (hysteresis, gate, stability layer, selector) returns its
/// decision instead and has no outputs of its own. docs/ARCHITECTURE.md "Machines".
enum MachineAction: Sendable {
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

/// The app machines' name for ``MachineAction`` (the routing files still spell it so).
typealias AppAction = MachineAction

/// Camera authorization (`camera_auth`, ENGINE §5.12). The raw value is the recorded status.
enum CameraAuthorization: String, Sendable, Equatable {
  case authorized, denied, restricted, not_determined
  /// A status the engine does not know: not authorized, but entering the camera warms up (the
  /// app's default branch).
  case unrecognized

  init(status: String) { self = CameraAuthorization(rawValue: status) ?? .unrecognized }
}
