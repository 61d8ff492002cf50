import CanonicalJSON
import EngineIO

/// What one engine call produced, as the replayer reads it: outputs in generation order,
/// diagnostic (A.13) lines, timer requests and, when the engine flushed, the state to persist.
///
/// Just Photo's `Effects` conforms as it is (no copy, no conversion); another engine's plug-in
/// wraps its step type. Only ``outputs`` must be written (with the two types); the rest has
/// defaults: no diagnostics, no timers, nothing to persist, no rejection, no requests beside
/// the outputs.
///
/// Example (an engine without timers or store):
/// ```swift
/// struct BeepStep: EngineStep {
///   typealias Snapshot = NoSnapshot
///   var outputs: [Int] = []
/// }
/// ```
public protocol EngineStep {
  /// The engine's typed output (rendered by its vocabulary, ``EngineVocabulary/traceRecord(_:)``).
  associatedtype Output
  /// The engine's persisted state (written to the session store, handed back at relaunch).
  associatedtype Snapshot = NoSnapshot
  /// Outputs of this call, in the order the engine made them.
  var outputs: [Output] { get }
  /// Diagnostic lines of this call (A.13); empty for engines without them.
  var diagnostics: [DiagnosticLine] { get }
  /// Timers to schedule or cancel on the virtual clock.
  var timers: [TimerRequest] { get }
  /// The state to persist after this call; nil = nothing to flush.
  var persist: Snapshot? { get }
  /// A recorded event the engine could not take (its plug-in failed to decode it), as a message
  /// naming the field; the replay stops with exit code 2. nil = the call went through.
  var rejection: String? { get }
  /// Effect requests the engine returns beside its outputs (an engine whose requests are
  /// outputs, like Just Photo's `effect` lines, names them through
  /// ``EngineVocabulary/effectCall(_:)`` instead). Correlated after the outputs' requests.
  var effectCalls: [EffectCall] { get }
}

extension EngineStep {
  /// None: an engine without A.13 lines.
  public var diagnostics: [DiagnosticLine] { [] }
  /// None: an engine without timers.
  public var timers: [TimerRequest] { [] }
  /// nil: nothing to flush.
  public var persist: Snapshot? { nil }
  /// Engines whose input is typed before the replay never reject an event.
  public var rejection: String? { nil }
  /// Engines whose requests are outputs return none beside them.
  public var effectCalls: [EffectCall] { [] }
}

/// The calls a replay makes into an engine (ENGINE §1.3: start at t = 0, then inputs and timer
/// firings in queue order). The replayer (`Replayer<E>` in Replay) is generic over it, so a
/// conforming engine's calls are specialized, not boxed. An engine writes ``start()``,
/// ``handle(_:)`` and ``fire(_:at:)``; ``relaunch(_:restoring:)`` defaults to a plain launch.
///
/// Example (a plug-in wrapping a pure engine whose input is typed):
/// ```swift
/// struct BeepSeamEngine: SeamEngine {
///   typealias Vocabulary = BeepVocabulary
///   var count = 0
///   mutating func start() -> BeepStep { BeepStep() }
///   mutating func handle(_ event: InputEvent) -> BeepStep { count += 1; return BeepStep(outputs: [count]) }
///   mutating func fire(_ timer: TimerID, at now: Millis) -> BeepStep { BeepStep() }
/// }
/// ```
public protocol SeamEngine {
  /// What a call returns.
  associatedtype Step: EngineStep
  /// The engine's vocabulary: names, kinds, effect correlation, rendering, snapshot form.
  associatedtype Vocabulary: EngineVocabulary
  where Vocabulary.Output == Step.Output, Vocabulary.Snapshot == Step.Snapshot
  /// Called once at t = 0 before any event.
  ///
  /// - Returns: what starting produced (timers to schedule, first outputs).
  ///
  /// Example: an engine with a 1 s tick returns `timers: [.schedule(TimerID("tick"), at: 1000)]`.
  mutating func start() -> Step
  /// Feeds one recorded input event at its time `event.t`.
  ///
  /// - Parameter event: a recorded event the vocabulary calls an input
  ///   (``EngineVocabulary/isEngineInput(_:)``); another engine's are `.named` (kind + fields).
  /// - Returns: what the event produced; a step with a ``EngineStep/rejection`` when the event
  ///   does not decode (the replay stops with exit 2).
  ///
  /// Example: a `swipe {direction: left}` at t = 200 gives PixScan's `swipe` and `queue` lines.
  ///
  /// `consuming`: the replayer hands over the event it read and keeps no copy, so the engine
  /// may move the payload out (a borrowed event was copied, its arrays retained, per frame).
  mutating func handle(_ event: consuming InputEvent) -> Step
  /// Fires a timer the engine scheduled earlier.
  ///
  /// - Parameters:
  ///   - timer: the timer's id, as scheduled.
  ///   - now: the virtual time it fires at (its due time).
  /// - Returns: what firing produced.
  ///
  /// Example: Camera Coach's cooldown timer ends `hint_cooldown` and outputs a `state` line.
  mutating func fire(_ timer: TimerID, at now: Millis) -> Step
  /// The launch event after a process kill (``EngineVocabulary/endsProcess(_:)``), with what
  /// the session store holds; the recorded event is handed over unchanged. Default: `handle`.
  ///
  /// - Parameters:
  ///   - event: the recorded launch event.
  ///   - stored: the snapshot the store holds (``EngineVocabulary/emptySnapshot`` when it
  ///     never saw a flush).
  /// - Returns: what relaunching produced.
  ///
  /// Example: PixScan restores its processed photos and delete queue from its `PixStore`.
  mutating func relaunch(_ event: InputEvent, restoring stored: Step.Snapshot) -> Step
  /// The state the engine's last persisting step handed over (``EngineStep/persist``), read
  /// when the replay needs it instead of kept from every step; nil (the default) when the
  /// engine cannot say, and then every `persist` is saved as it comes.
  ///
  /// An engine returns it when, from a step that persists until the next process kill
  /// (``EngineVocabulary/endsProcess(_:)``), its persisted state changes only in steps that
  /// persist it: then its state now is its last step's `persist`. A replay whose store reads a
  /// snapshot back only after a kill (a temporary store) takes it here just before the kill
  /// event, before a relaunch reads the store, and at the end — so it holds no snapshot while
  /// the engine changes its state, and an engine whose snapshot shares arrays with its own
  /// state (PixScan's `PixStore`) appends to them in place instead of copying them per change.
  ///
  /// Example: PixScan returns its current `PixStore` (every change of it sets `persist`).
  var snapshotOnDemand: Step.Snapshot? { get }
}

extension SeamEngine {
  /// Engines without persistence relaunch like any launch.
  public mutating func relaunch(_ event: InputEvent, restoring stored: Step.Snapshot) -> Step { handle(event) }
  /// nil: the replay saves every step's `persist` as it comes.
  public var snapshotOnDemand: Step.Snapshot? { nil }
}
