import CanonicalJSON
import EngineIO
import JustPhotoIO

/// What one call into the engine produced, in generation order. Every output and A.13 line
/// belongs to the time of the call.
public struct Effects: Equatable, Sendable {
  /// Everything a call produced, in one box made when the first thing is recorded (copied on
  /// write): most calls produce nothing, and an `Effects` is built, moved and dropped several
  /// times per frame. With its five fields inline that was five retains and five releases per
  /// copy and drop, and the optimizer left a copy and a drop in every inlined initializer
  /// (issue 38); an empty `Effects` is now one nil reference.
  private var box: Box?

  /// The fields. A box that is shared (two `Effects` copies) is never written: `unique()`
  /// copies it first, so its contents cannot change under a reader on another thread.
  final class Box: @unchecked Sendable {
    var outputs: [EngineOutput] = []
    var diagnostics: [DiagnosticLine] = []
    var timers: [TimerRequest] = []
    var persist: PersistBox? = nil
    var refused: EventDecodingError? = nil

    init() {}
    init(copying other: Box) {
      outputs = other.outputs
      diagnostics = other.diagnostics
      timers = other.timers
      persist = other.persist
      refused = other.refused
    }
  }

  /// The box, made or copied so that this value alone holds it.
  private mutating func unique() -> Box {
    guard let b = box else {
      let made = Box()
      box = made
      return made
    }
    if isKnownUniquelyReferenced(&box) { return b }
    let copy = Box(copying: b)
    box = copy
    return copy
  }

  public var outputs: [EngineOutput] {
    get { box?.outputs ?? [] }
    _modify {
      let b = unique()
      yield &b.outputs
    }
  }
  public var diagnostics: [DiagnosticLine] {
    get { box?.diagnostics ?? [] }
    _modify {
      let b = unique()
      yield &b.diagnostics
    }
  }
  public var timers: [TimerRequest] {
    get { box?.timers ?? [] }
    _modify {
      let b = unique()
      yield &b.timers
    }
  }
  /// The persisted state after this call when it changed (a flush, ENGINE §5.1 Persistence);
  /// the replay adapter writes it to the SQLite store. nil = nothing to flush.
  public var persist: StoreSnapshot? {
    get { box?.persist?.snapshot }
    set {
      guard newValue != nil || box?.persist != nil else { return }
      unique().persist = newValue.map(PersistBox.init)
    }
  }

  /// The snapshot behind a reference: a session snapshot is large and few calls carry one.
  final class PersistBox: Sendable {
    let snapshot: StoreSnapshot
    init(_ snapshot: StoreSnapshot) { self.snapshot = snapshot }
  }

  /// Set when the engine refused the input event: its fields do not match its kind's
  /// definition (a recording that bypassed `import`). Nothing else is set then; the replayer
  /// reports it as bad input naming the recording and the event's time.
  public var refused: EventDecodingError? {
    get { box?.refused }
    set {
      guard newValue != nil || box?.refused != nil else { return }
      unique().refused = newValue
    }
  }

  public static func == (a: Effects, b: Effects) -> Bool {
    a.outputs == b.outputs && a.diagnostics == b.diagnostics && a.timers == b.timers && a.persist == b.persist
      && a.refused == b.refused
  }
  /// Nothing (no arrays to pass in and drop: most calls produce nothing).
  public init() {}
  /// The effects of a refused input event: nothing but the refusal.
  public init(refused: EventDecodingError) {
    self.refused = refused
  }
  public init(outputs: [EngineOutput] = [], diagnostics: [DiagnosticLine] = [], timers: [TimerRequest] = []) {
    // No box for nothing (the common case).
    guard !outputs.isEmpty || !diagnostics.isEmpty || !timers.isEmpty else { return }
    let b = Box()
    b.outputs = outputs
    b.diagnostics = diagnostics
    b.timers = timers
    box = b
  }
  public var isEmpty: Bool { outputs.isEmpty && diagnostics.isEmpty && timers.isEmpty && persist == nil && refused == nil }
  public mutating func append(_ other: Effects) {
    guard let o = other.box else { return }
    append(outputs: o.outputs, diagnostics: o.diagnostics, timers: o.timers)
    if let p = o.persist { unique().persist = p }
  }
  /// Appends the lists; an empty one is skipped (`effects.outputs += []` would make a box for
  /// nothing, an allocation on a quiet frame).
  public mutating func append(
    outputs: [EngineOutput] = [], diagnostics: [DiagnosticLine] = [], timers: [TimerRequest] = []
  ) {
    if !outputs.isEmpty { self.outputs += outputs }
    if !diagnostics.isEmpty { self.diagnostics += diagnostics }
    if !timers.isEmpty { self.timers += timers }
  }
}
