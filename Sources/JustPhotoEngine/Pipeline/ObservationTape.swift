import EngineIO

/// The cue observations (T0 evaluations and T1 ticks) of one replay of a recording, kept for
/// later replays of the same events (issue 38 item 2): a `tune` study replays every recording
/// once per trial, and a trial that moves only what is read *after* an observation
/// (anti-jitter, thresholds, the gate and noise-gate options) observes exactly the same errors
/// on every frame. Formula evaluation was about half of a trial's replays.
///
/// Which configurations may share a tape is the caller's to decide (the lab keys tapes by the
/// spec and options with those fields taken out, `ObservationKey`); the engine checks the rest
/// as it goes. Each evaluation's entry records what its observations depend on besides the
/// configuration — for a T0 evaluation the landmark event (compared whole) and its ordinal
/// among the replay's `landmarks` events, the subject, the mode and the withRef targets; for a
/// T1 tick its number and time, the luma plane and scalars it reads — and a replay reads the
/// tape only while every evaluation so far matched entry for entry: the landmark filter and the subject lock, whose state comes from the frames
/// evaluated before, are then the same too. At the first difference (or a `posespec_reload`)
/// the replay computes every later observation itself, so a tape changes no output, only the
/// work (`ObservationTapeTests`).
///
/// Written by one engine (``isRecording``), then ``finish()``ed into an immutable form read by
/// any number of engines on any threads: that is what makes the unchecked `Sendable` true.
/// Each entry keeps only the observations its replay made, in the order it made them (16 bytes
/// each, no reference count): a later replay evaluates the same cues in the same order, so it
/// reads a row front to back.
public final class ObservationTape: @unchecked Sendable {
  /// One evaluation's signature. A T0 evaluation: its event (in `events`), the event's
  /// ordinal, the subject, the mode. A T1 tick: its number and time, the T0 entry whose frame
  /// it reads, its luma plane and scalars (in `ticks`), the mode.
  struct Entry {
    /// Index into `events` (T0) or `ticks` (T1).
    var side: Int
    /// T0: the landmark ordinal; T1: the tick.
    var ordinal: Int
    /// T0: the subject (-1: none); T1: the entry of the last T0 evaluation (-1: none).
    var subject: Int
    var withRef: Bool
    /// Index into `targetSets` (withRef evaluations), else -1.
    var targets: Int32
    /// A T1 tick's entry (with its time `t`).
    var isTick = false
    var t: Millis = 0
    /// Where the entry's row starts in `stored` (it ends where the next one starts).
    var start = 0
  }

  /// What a T1 tick reads besides the last T0 frame (a copy of the plane shares its pixels).
  struct Tick {
    var luma: LumaFrame?
    var scalars: [String: Double]
  }

  /// One observation in 16 bytes, without a reference count: its value, its reason (an index
  /// into `reasons`), its slot and flags (unavailable, withRef, mirrored, target missing).
  struct Stored {
    var value: Double = 0
    var reason: UInt32 = 0
    var slot: UInt16 = 0
    var flags: UInt8 = 0
  }

  /// The finished tape, immutable (read without exclusivity checks).
  final class Frozen: Sendable {
    let entries: [Entry]
    let stored: [Stored]
    /// T0 entries' events: copies that share the recording's arrays, so comparing one with the
    /// same event is a pointer check per array (and holding them keeps those arrays, unchanged,
    /// for the check).
    let events: [LandmarkFrame]
    let ticks: [Tick]
    let reasons: [String]
    let targetSets: [[String: Double]]

    /// Copies of the recorded arrays at their exact size (a growing array holds up to twice its
    /// count).
    init(
      entries: [Entry], stored: [Stored], events: [LandmarkFrame], ticks: [Tick], reasons: [String],
      targetSets: [[String: Double]]
    ) {
      self.entries = entries.withUnsafeBufferPointer { Array($0) }
      self.stored = stored.withUnsafeBufferPointer { Array($0) }
      self.events = events.withUnsafeBufferPointer { Array($0) }
      self.ticks = ticks.withUnsafeBufferPointer { Array($0) }
      (self.reasons, self.targetSets) = (reasons, targetSets)
    }

    /// Whether entry `k` is this T0 evaluation. Compared in place: copying an entry retained
    /// its event's arrays, which every parallel replay of the recording shares.
    func matches(
      _ k: Int, event: LandmarkFrame, ordinal: Int, subject: Int, withRef: Bool, targets: [String: Double],
      _ same: inout SameTargets
    ) -> Bool {
      entries.withUnsafeBufferPointer { p in
        guard k < p.count, p[k].ordinal == ordinal, p[k].subject == subject, p[k].withRef == withRef, !p[k].isTick
        else { return false }
        let i = p[k].side
        guard events.withUnsafeBufferPointer({ $0[i] == event }) else { return false }
        return !withRef || same.targets(p[k].targets, targets, targetSets)
      }
    }

    /// Whether entry `k` is this T1 tick.
    func matches(
      _ k: Int, tick: Int, at t: Millis, lastT0: Int, luma: LumaFrame?, scalars: [String: Double], withRef: Bool,
      targets: [String: Double], _ same: inout SameTargets
    ) -> Bool {
      entries.withUnsafeBufferPointer { p in
        guard k < p.count, p[k].ordinal == tick, p[k].t == t, p[k].subject == lastT0, p[k].withRef == withRef,
          p[k].isTick
        else { return false }
        let i = p[k].side
        guard ticks.withUnsafeBufferPointer({ $0[i].luma == luma && $0[i].scalars == scalars }) else { return false }
        return !withRef || same.targets(p[k].targets, targets, targetSets)
      }
    }

    /// The end of entry `k`'s row.
    func end(_ k: Int) -> Int {
      entries.withUnsafeBufferPointer { p in k + 1 < p.count ? p[k + 1].start : stored.count }
    }

    func observation(_ s: Stored) -> CueObservation {
      let observation: MetricObservation = s.flags & 1 != 0 ? .unavailable(reasons[Int(s.reason)]) : .value(s.value)
      return CueObservation(
        observation: observation, withRef: s.flags & 2 != 0, mirrored: s.flags & 4 != 0, targetMissing: s.flags & 8 != 0)
    }
  }

  /// Observations a tape keeps at most (16 bytes each, so 64 MB): past it the recording replay
  /// stops adding evaluations, and later replays compute the rest.
  public static let observationsMax = 4_000_000

  /// The most evaluations this tape takes.
  public let evaluationsMax: Int
  public var isRecording: Bool { frozen == nil }
  private(set) var frozen: Frozen?
  private var entries: [Entry] = []
  private var stored: [Stored] = []
  private var events: [LandmarkFrame] = []
  private var ticks: [Tick] = []
  private var reasons: [String] = []
  private var reasonIndex: [String: UInt32] = [:]
  private var targetSets: [[String: Double]] = []

  /// Observations granted by `reserve` so far (asked for ``reserveStep`` at a time).
  private var granted = 0
  private let reserve: (@Sendable (Int) -> Bool)?
  /// Observations asked of `reserve` at a time.
  public static let reserveStep = 4096

  /// A tape to record, keeping at most `evaluationsMax` evaluations and ``observationsMax``
  /// observations; with `reserve`, also only as many observations as it grants, asked for
  /// before they are kept (a caller's budget shared by many tapes).
  public init(evaluationsMax: Int, reserve: (@Sendable (Int) -> Bool)? = nil) {
    self.evaluationsMax = max(0, evaluationsMax)
    self.reserve = reserve
  }

  /// Ends the recording: from now on the tape is only read.
  public func finish() {
    guard frozen == nil else { return }
    frozen = Frozen(
      entries: entries, stored: stored, events: events, ticks: ticks, reasons: reasons, targetSets: targetSets)
    (entries, stored, events, ticks, reasons, reasonIndex, targetSets) = ([], [], [], [], [], [:], [])
  }

  /// Evaluations and observations kept (tests and bench: work done).
  public var evaluations: Int { frozen?.entries.count ?? entries.count }
  public var observationsKept: Int { frozen?.stored.count ?? stored.count }

  /// Records an evaluation (`entry` with `targets` for a withRef one, and its `event` or `tick`);
  /// nil when the tape is full.
  func append(_ entry: Entry, targets: [String: Double], event: LandmarkFrame? = nil, tick: Tick? = nil) -> Int? {
    guard frozen == nil, entries.count < evaluationsMax, stored.count < Self.observationsMax else { return nil }
    var e = entry
    if let event {
      e.side = events.count
      events.append(event)
    }
    if let tick {
      e.side = ticks.count
      ticks.append(tick)
    }
    if e.withRef {
      if targetSets.last != targets { targetSets.append(targets) }
      e.targets = Int32(targetSets.count - 1)
    }
    e.start = stored.count
    entries.append(e)
    return entries.count - 1
  }

  /// Keeps `o` as the observation of `slot` in the last entry (the one being recorded).
  func keep(_ slot: Int, _ o: CueObservation) {
    guard frozen == nil, slot <= Int(UInt16.max), stored.count < Self.observationsMax else { return }
    if let reserve, stored.count >= granted {
      guard reserve(Self.reserveStep) else { return }
      granted += Self.reserveStep
    }
    var s = Stored(slot: UInt16(slot))
    switch o.observation {
    case .value(let v): s.value = v
    case .unavailable(let why):
      s.flags |= 1
      if let i = reasonIndex[why] {
        s.reason = i
      } else {
        s.reason = UInt32(reasons.count)
        reasonIndex[why] = s.reason
        reasons.append(why)
      }
    }
    if o.withRef { s.flags |= 2 }
    if o.mirrored { s.flags |= 4 }
    if o.targetMissing { s.flags |= 8 }
    stored.append(s)
  }
}

/// The withRef targets an engine's last evaluation matched on the tape, and the tape's set
/// they matched: while the engine's targets are that same dictionary (its storage unchanged,
/// which `==` checks first), they match the same set again without comparing every metric (a
/// full compare per evaluation was ~3 % of a tune trial in `perf`).
struct SameTargets {
  var index: Int32 = -1
  var targets: [String: Double] = [:]

  /// Whether `targets` equals the tape's set `index` of `sets`.
  mutating func targets(_ index: Int32, _ targets: [String: Double], _ sets: [[String: Double]]) -> Bool {
    if index == self.index, self.targets == targets { return true }
    guard sets[Int(index)] == targets else { return false }
    (self.index, self.targets) = (index, targets)
    return true
  }
}

/// An engine's place on its ``ObservationTape``: nil tape, or off after the replay left it.
struct TapeCursor {
  let tape: ObservationTape?
  /// The finished tape this replay reads (nil: it records `tape`, or has none).
  let frozen: ObservationTape.Frozen?
  /// Reading or recording; false once the replay differs from the tape (or a spec reload).
  var on: Bool
  /// `landmarks` events handed to the engine so far (evaluated or not).
  var landmarks = 0
  /// The next entry, the current evaluation's and the last T0 evaluation's (-1: none).
  var next = 0
  var current = -1
  var lastT0 = -1
  /// The next observation of the current entry's row, and the row's end.
  var position = 0
  var end = 0
  /// Observations read from the tape (`observationTapeHits`).
  var hits = 0
  /// The targets last matched (withRef evaluations).
  var sameTargets = SameTargets()

  init(_ tape: ObservationTape?) {
    self.tape = tape
    frozen = tape?.frozen
    on = tape != nil
  }

  /// A T0 evaluation begins: its entry, recorded or matched; off at the first difference.
  mutating func begin(_ event: LandmarkFrame, subject: Int?, withRef: Bool, targets: [String: Double]) {
    guard on, let tape else { return }
    let k = next
    next += 1
    if let frozen {
      let ok = frozen.matches(
        k, event: event, ordinal: landmarks, subject: subject ?? -1, withRef: withRef, targets: targets, &sameTargets)
      enter(ok ? k : -1, frozen)
    } else {
      let entry = ObservationTape.Entry(side: 0, ordinal: landmarks, subject: subject ?? -1, withRef: withRef, targets: -1)
      current = tape.append(entry, targets: targets, event: event) ?? -1
    }
    if current < 0 { on = false }
    lastT0 = current
  }

  /// A T1 tick begins (tick `k` at `t`, reading the last T0 evaluation's frame, `luma` and `scalars`).
  mutating func beginT1(
    tick k: Int, at t: Millis, luma: LumaFrame?, scalars: [String: Double], withRef: Bool, targets: [String: Double]
  ) {
    guard on, let tape else { return }
    let e = next
    next += 1
    if let frozen {
      let ok = frozen.matches(
        e, tick: k, at: t, lastT0: lastT0, luma: luma, scalars: scalars, withRef: withRef, targets: targets,
        &sameTargets)
      enter(ok ? e : -1, frozen)
    } else {
      let entry = ObservationTape.Entry(
        side: 0, ordinal: k, subject: lastT0, withRef: withRef, targets: -1, isTick: true, t: t)
      current = tape.append(entry, targets: targets, tick: ObservationTape.Tick(luma: luma, scalars: scalars)) ?? -1
    }
    if current < 0 { on = false }
  }

  /// Reads entry `k` of `frozen` (-1: none).
  private mutating func enter(_ k: Int, _ frozen: ObservationTape.Frozen) {
    current = k
    if k >= 0 { (position, end) = (frozen.entries.withUnsafeBufferPointer { $0[k].start }, frozen.end(k)) }
  }

  /// The observation of `slot` in the current evaluation: from the tape's row (in the order it
  /// was recorded; else looked for in the row); else `compute()`'s, kept when recording.
  @inline(__always)
  mutating func observation(_ slot: Int, _ compute: () -> CueObservation) -> CueObservation {
    guard current >= 0 else { return compute() }
    guard let frozen else {
      let o = compute()
      tape?.keep(slot, o)
      return o
    }
    if position < end, Int(frozen.stored[position].slot) == slot {
      position += 1
      hits += 1
      return frozen.observation(frozen.stored[position - 1])
    }
    var i = frozen.entries.withUnsafeBufferPointer { $0[current].start }
    while i < end {
      if Int(frozen.stored[i].slot) == slot {
        hits += 1
        return frozen.observation(frozen.stored[i])
      }
      i += 1
    }
    return compute()
  }

  /// Stops reading and recording for the rest of the replay.
  mutating func stop() {
    on = false
    current = -1
  }
}

extension Engine {
  /// Observations this replay read from its ``ObservationTape`` instead of computing them.
  public var observationTapeHits: Int { tape.hits }
}
