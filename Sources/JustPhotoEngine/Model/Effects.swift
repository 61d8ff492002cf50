import CanonicalJSON
import EngineIO
import JustPhotoIO

/// What one call into the engine produced, in generation order. Every output and A.13 line
/// belongs to the time of the call.
public struct Effects: Equatable, Sendable {
  public var outputs: [EngineOutput] = []
  public var diagnostics: [DiagnosticLine] = []
  public var timers: [TimerRequest] = []
  /// The persisted state after this call when it changed (a flush, ENGINE §5.1 Persistence);
  /// the replay adapter writes it to the SQLite store. nil = nothing to flush.
  public var persist: StoreSnapshot? {
    get { persistBox?.snapshot }
    set { persistBox = newValue.map(PersistBox.init) }
  }
  /// The snapshot behind a reference: a session snapshot is large, few calls carry one, and
  /// every `Effects` value is moved several times per frame (it was a memmove of the whole
  /// snapshot each time).
  private var persistBox: PersistBox?

  final class PersistBox: Sendable {
    let snapshot: StoreSnapshot
    init(_ snapshot: StoreSnapshot) { self.snapshot = snapshot }
  }

  /// Set when the engine refused the input event: its fields do not match its kind's
  /// definition (a recording that bypassed `import`). Nothing else is set then; the replayer
  /// reports it as bad input naming the recording and the event's time.
  public var refused: EventDecodingError?

  public static func == (a: Effects, b: Effects) -> Bool {
    a.outputs == b.outputs && a.diagnostics == b.diagnostics && a.timers == b.timers && a.persist == b.persist
      && a.refused == b.refused
  }
  /// The effects of a refused input event: nothing but the refusal.
  public init(refused: EventDecodingError) {
    self.refused = refused
  }
  public init(outputs: [EngineOutput] = [], diagnostics: [DiagnosticLine] = [], timers: [TimerRequest] = []) {
    self.outputs = outputs
    self.diagnostics = diagnostics
    self.timers = timers
  }
  public var isEmpty: Bool { outputs.isEmpty && diagnostics.isEmpty && timers.isEmpty && persist == nil && refused == nil }
  public mutating func append(_ other: Effects) {
    outputs += other.outputs
    diagnostics += other.diagnostics
    timers += other.timers
    if let p = other.persist { persist = p }
  }
}
