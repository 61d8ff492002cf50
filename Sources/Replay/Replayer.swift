import EngineIO
import EngineSeam
import Recording

/// Settings of one replay that are not engine options.
public struct ReplayOptions: Sendable, Equatable {
  /// Strict effect correlation (ENGINE §1.6). nil = the recording's `options.strictEffects`
  /// (default true); set it to apply `--set strictEffects=…`.
  public var strictEffects: Bool?
  /// Lenient replay: a request without a recorded result is answered with a success result
  /// this many ms after the request (default 50 ms, a typical PhotoKit / thumbnail callback).
  public var effectLatencyMs: Millis
  /// Stop once the clock would pass this time, skipping the end-of-recording checks
  /// (explanations replay only up to the moment they look at).
  public var stopAfterMs: Millis?
  /// Bound on timer firings at one instant: more means the engine re-arms a timer for "now"
  /// forever, reported as a harness error instead of hanging.
  public var maxFiringsPerInstant: Int
  /// Bound on events read from the source (labels included): `RecordingLimits.eventsMax`
  /// (tests lower it to reach the bound cheaply).
  public var eventsMax: Int

  /// Options (the recording's strictness unless set, the shipped bounds).
  public init(
    strictEffects: Bool? = nil, effectLatencyMs: Millis = 50, stopAfterMs: Millis? = nil,
    maxFiringsPerInstant: Int = 10_000, eventsMax: Int = RecordingLimits.eventsMax
  ) {
    self.strictEffects = strictEffects
    self.effectLatencyMs = effectLatencyMs
    self.stopAfterMs = stopAfterMs
    self.maxFiringsPerInstant = maxFiringsPerInstant
    self.eventsMax = eventsMax
  }
}

/// A timer still scheduled when the replay ended (not an error).
public struct PendingTimer: Equatable, Sendable {
  /// The timer.
  public var id: TimerID
  /// When it would have fired.
  public var due: Millis
  /// A pending timer.
  public init(id: TimerID, due: Millis) {
    self.id = id
    self.due = due
  }
}

/// What a replay did, besides its outputs.
public struct ReplaySummary: Equatable, Sendable {
  /// Nothing done yet.
  public init() {}
  /// The end of the replay: `duration_ms`, else the last input's t.
  public var endMs: Millis = 0
  /// Recorded inputs handed to the engine.
  public var inputs = 0
  /// `label` events skipped (the engine never sees them).
  public var labelsSkipped = 0
  /// Timer firings delivered to the engine.
  public var timersFired = 0
  /// Lenient replay: effect results made up for requests the recording does not answer.
  public var synthesizedResults = 0
  /// Outputs the engine made.
  public var outputs = 0
  /// A.13 diagnostic lines the engine made.
  public var diagnostics = 0
  /// Timers due after the end, in firing order.
  public var pendingTimers: [PendingTimer] = []
  /// Lenient-replay findings (synthesized or dropped results, unmatched results).
  public var notes: [HarnessIssue] = []
  /// True when `stopAfterMs` cut the replay short.
  public var stoppedEarly = false
}

/// Runs a recording through an engine on a virtual clock (ENGINE §1.3), as fast as the CPU
/// allows: `start()` at t = 0, then every timer and input in queue order until the end.
///
/// The end is the header's `duration_ms` if present, else the last input's t. Timers due at or
/// before the end fire; later ones are reported in ``ReplaySummary/pendingTimers``.
///
/// With a ``sessionStore`` the replay persists like the app (DESIGN §1): after each engine
/// call whose step's `persist` is set the snapshot is saved to the store, and the launch event
/// after a kill (for Just Photo `app_launch` after `app_lifecycle terminated`; the engine's
/// vocabulary says which) reaches the engine through `relaunch(_:restoring:)` with the store's
/// content (the recorded event is not rewritten). Without a store nothing changes. A store
/// read back only after a kill (``SessionStorePort/wantsEverySnapshot`` false) of an engine
/// that can hand over its state on demand (``SeamEngine/snapshotOnDemand``) is saved only
/// before a kill, before that load and at the end: the same snapshots it would hold.
///
/// `E` is any engine on the seam (``SeamEngine``); the replay is specialized per engine, and
/// everything engine-specific (which events are inputs, effect correlation, rendering) comes
/// from `E.Vocabulary`.
public struct Replayer<E: ReplayableEngine> {
  /// The engine being replayed.
  public var engine: E
  /// How the replay runs.
  public var options: ReplayOptions
  /// Where persisted state goes during the replay and comes back from at `app_launch`.
  public var sessionStore: (any SessionStorePort<E.Step.Snapshot>)?

  /// A replayer of `engine`.
  ///
  /// - Parameters:
  ///   - engine: the engine, freshly made.
  ///   - options: how the replay runs.
  ///   - sessionStore: the store it persists to and restores from; nil = none.
  public init(
    engine: E, options: ReplayOptions = ReplayOptions(),
    sessionStore: (any SessionStorePort<E.Step.Snapshot>)? = nil
  ) {
    self.engine = engine
    self.options = options
    self.sessionStore = sessionStore
  }

  /// Replays `source` to its end, sending outputs to `output`. `recording` names the source in
  /// error messages.
  @inlinable
  public mutating func run<S: EventSource, O: ReplayOutput>(
    _ source: inout S, into output: inout O, recording: String? = nil
  ) throws(ReplayError) -> ReplaySummary where O.Output == E.Step.Output {
    let header = RecordingHeader(source.header)
    let strict: Bool
    if let s = options.strictEffects {
      strict = s
    } else {
      do { strict = try header.strictEffects(for: E.Vocabulary.self) } catch {
        var e = error
        e.recording = recording
        throw .badInput(e)
      }
    }
    var run = ReplayRun(
      engine: engine, source: source, output: output, options: options, header: header,
      ledger: EffectLedger(strict: strict, latencyMs: options.effectLatencyMs), recording: recording
    )
    run.store = sessionStore
    run.snapshotsOnDemand = sessionStore.map { !$0.wantsEverySnapshot } == true && engine.snapshotOnDemand != nil
    defer {
      engine = run.engine
      sessionStore = run.store
      source = run.source
      output = run.output
    }
    return try run.go()
  }
}

/// The state of one replay in progress.
@usableFromInline
struct ReplayRun<E: ReplayableEngine, S: EventSource, O: ReplayOutput> where O.Output == E.Step.Output {
  @usableFromInline var engine: E
  @usableFromInline var source: S
  @usableFromInline var output: O
  @usableFromInline let options: ReplayOptions
  @usableFromInline let header: RecordingHeader
  /// The header's `duration_ms`, read once (a look-up by name in the header per event was
  /// ~300 instructions of each event's replay).
  @usableFromInline let durationMs: Millis?
  @usableFromInline var ledger: EffectLedger<E.Vocabulary>
  @usableFromInline let recording: String?
  @usableFromInline var store: (any SessionStorePort<E.Step.Snapshot>)?
  /// An `app_lifecycle terminated` was replayed and no `app_launch` since.
  @usableFromInline var killed = false
  /// The store takes the engine's state when it is needed (``SeamEngine/snapshotOnDemand``)
  /// instead of every step's `persist`.
  @usableFromInline var snapshotsOnDemand = false
  /// A step persisted since the store last took the engine's state (`snapshotsOnDemand`).
  @usableFromInline var snapshotPending = false
  @usableFromInline var queue = EventQueue()
  @usableFromInline var summary = ReplaySummary()
  @usableFromInline var now: Millis = 0
  @usableFromInline var lastInputT: Millis?
  @usableFromInline var sourceDone = false
  @usableFromInline var firingsNow = 0
  /// Events read from the source (labels included), against `RecordingLimits.eventsMax`.
  @usableFromInline var eventsRead = 0

  @inlinable init(
    engine: E, source: S, output: O, options: ReplayOptions, header: RecordingHeader,
    ledger: EffectLedger<E.Vocabulary>,
    recording: String?
  ) {
    self.engine = engine
    self.source = source
    self.output = output
    self.options = options
    self.header = header
    durationMs = header.durationMs
    self.ledger = ledger
    self.recording = recording
  }

  @inlinable mutating func go() throws(ReplayError) -> ReplaySummary {
    if let d = durationMs, d < 0 { throw bad(nil, "duration_ms is negative (\(d))") }
    try checkHeaderLimits()
    try apply(engine.start())
    try pull()
    while let time = queue.peekTime() {
      if sourceDone, time > end { break }
      if let stop = options.stopAfterMs, time > stop {
        summary.stoppedEarly = true
        break
      }
      guard let item = queue.pop() else { break }
      advance(to: time)
      switch consume item {  // the event moves out of the item (no copy of its payload)
      case .timer(let id, _):
        firingsNow += 1
        if firingsNow > options.maxFiringsPerInstant {
          throw .harness(
            HarnessError(issues: [HarnessIssue(kind: .timerLoop, t: now, effect: id.name, key: "")])
          )
        }
        summary.timersFired += 1
        try apply(engine.fire(id, at: now))
      case .input(let event):
        try pull()
        guard E.Vocabulary.isEngineInput(event) else {
          summary.labelsSkipped += 1
          continue
        }
        let kill = E.Vocabulary.endsProcess(event)
        if kill { try saveSnapshot() }
        let deliver: Bool
        do { deliver = try ledger.recorded(event) } catch { throw .harness(error) }
        if deliver {
          summary.inputs += 1
          // The event moves into the engine (no copy of its payload); a rejection names it
          // by its time and kind, taken first.
          let (t, kind) = (event.t, event.kindName)
          let step = try handOver(consume event)
          if let rejection = step.rejection { throw rejected(t, kind, rejection) }
          try apply(step)
        }
        if kill {
          ledger.processKilled()
          killed = true
        }
      case .synthesized(let event):
        if ledger.synthesized(event) {
          summary.synthesizedResults += 1
          let step = engine.handle(event)
          if let rejection = step.rejection { throw rejected(event.t, event.kindName, rejection) }
          try apply(step)
        }
      }
    }
    try saveSnapshot()
    summary.endMs = summary.stoppedEarly ? now : end
    summary.pendingTimers = queue.pendingTimers.map { PendingTimer(id: $0.id, due: $0.due) }
    summary.notes = ledger.notes
    if !summary.stoppedEarly {
      let unanswered = ledger.unanswered
      if ledger.strict, !unanswered.isEmpty { throw .harness(HarnessError(issues: unanswered)) }
      summary.notes += unanswered
    }
    return summary
  }

  /// The end of the replay; meaningful once the source is exhausted.
  @inlinable var end: Millis { durationMs ?? lastInputT ?? 0 }

  @inlinable mutating func advance(to t: Millis) {
    if t > now {
      now = t
      firingsNow = 0
    }
  }

  /// Keeps one look-ahead input in the queue.
  @inlinable mutating func pull() throws(ReplayError) {
    guard !sourceDone else { return }
    var next: InputEvent?
    do { next = try source.next() } catch {
      // The one wrap of a reader's error: this message names the recording already, so a
      // reader error about the same file keeps only its place ("line 7", "chunk 3 (…)").
      let what = error.file == recording ? error.withoutFile : error.description
      throw bad(lastInputT, "cannot read the next event: \(what)")
    }
    // Taken out of the optional, then into the queue: never copied (a copy retains the
    // payload's arrays, written by the reader thread).
    guard let event = next.take() else {
      sourceDone = true
      return
    }
    if event.t < 0 { throw bad(event.t, "negative time") }
    try checkEventLimits(event)
    if let last = lastInputT, event.t < last {
      throw bad(
        event.t,
        "event \(event.kindName) goes back in time (previous event at t=\(last)); events must be sorted by t"
      )
    }
    if let d = durationMs, event.t > d {
      throw bad(event.t, "event \(event.kindName) is after the header's duration_ms=\(d)")
    }
    lastInputT = event.t
    queue.push(input: event)
  }

  /// Hands `event` to the engine; the `app_launch` after a kill (`app_lifecycle terminated`)
  /// goes through the typed relaunch entry with the session store's content. A first launch is
  /// the header's business (`session_restore`).
  @inlinable mutating func handOver(_ event: consuming InputEvent) throws(ReplayError) -> E.Step {
    guard E.Vocabulary.launches(event) else { return engine.handle(event) }
    defer { killed = false }
    guard store != nil, killed else { return engine.handle(event) }
    try saveSnapshot()
    let stored: E.Step.Snapshot
    do { stored = try store!.load() } catch { throw bad(event.t, "\(error)") }
    return engine.relaunch(event, restoring: stored)
  }

  /// The engine could not take the event of kind `kind` at `t` (its plug-in failed to decode
  /// it): exit 2 naming it. Engines that never reject (Just Photo: `rejection` is always nil)
  /// never get here.
  @inlinable func rejected(_ t: Millis, _ kind: String, _ rejection: String) -> ReplayError {
    bad(t, "event \(kind): \(rejection)")
  }

  @inlinable mutating func apply(_ effects: E.Step) throws(ReplayError) {
    if let rejection = effects.rejection { throw bad(now, rejection) }
    // The step's flush first: almost no step has one, and comparing the optional existential
    // `store` with nil copied and dropped it, every step.
    if effects.persist != nil, store != nil {
      if snapshotsOnDemand {
        snapshotPending = true
      } else if let snapshot = effects.persist {
        do { try store!.save(snapshot) } catch { throw bad(now, "\(error)") }
      }
    }
    for engineOutput in effects.outputs {
      do { try output.emit(engineOutput, at: now) } catch { throw .output(writing: error) }
      summary.outputs += 1
      if let call = E.Vocabulary.effectCall(engineOutput) {
        let synthetic: InputEvent?
        do { synthetic = try ledger.request(call, at: now) } catch { throw .harness(error) }
        if let synthetic { queue.push(synthesized: synthetic) }
      }
    }
    for call in effects.effectCalls {
      let synthetic: InputEvent?
      do { synthetic = try ledger.request(call, at: now) } catch { throw .harness(error) }
      if let synthetic { queue.push(synthesized: synthetic) }
    }
    for line in effects.diagnostics {
      do { try output.emit(line) } catch { throw .output(writing: error) }
      summary.diagnostics += 1
    }
    for request in effects.timers {
      switch request {
      case .schedule(let id, let due): queue.schedule(id, at: due)
      case .cancel(let id): queue.cancel(id)
      }
    }
  }

  /// Saves the engine's state (``SeamEngine/snapshotOnDemand``) when a step persisted since
  /// the store last took it: before a kill, before a relaunch reads the store, at the end.
  @inlinable mutating func saveSnapshot() throws(ReplayError) {
    guard snapshotPending else { return }
    snapshotPending = false
    guard let snapshot = engine.snapshotOnDemand else { return }
    do { try store!.save(snapshot) } catch { throw bad(now, "\(error)") }
  }

  @inlinable func bad(_ t: Millis?, _ message: String) -> ReplayError {
    .badInput(BadInputError(recording: recording, t: t, message: message))
  }
}
