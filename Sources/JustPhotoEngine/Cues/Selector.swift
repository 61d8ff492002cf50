import PoseSpec

/// A cue competing for the single display slot (ENGINE §3.7): an active cue with its sticky
/// level and current error, or the fallback cue (level warn, no severity). `@unchecked
/// Sendable`: `source` points at a `CuePlan`, which is immutable and `Sendable`.
struct CueCandidate: Equatable, @unchecked Sendable {
  /// The cue's id (its plan's, for a candidate made from one).
  var id: String { sourcePlan?.id ?? names?.id ?? "" }
  var level: CueLevel
  var error: Double?
  /// `abs(error) / hardAbs`; nil when the cue has no hard threshold (or it is 0).
  var severity: Double?
  var priority: Int
  var mutexGroup: String { sourcePlan?.mutexGroup ?? names?.mutexGroup ?? "" }
  /// The plan a candidate of the engine's evaluation was made from, unretained: its id and
  /// mutex group are read from it when asked, not copied into every candidate of every
  /// evaluation. The engine's plans outlive its candidates, which every evaluation rebuilds
  /// (and a spec reload clears).
  ///
  /// An opaque pointer, not an `unowned(unsafe)` reference: with Swift 6.3.1 a struct whose
  /// only field with spare bit patterns is an `unowned(unsafe)` optional reads its own nil
  /// wrong in debug builds (`[].first == nil` is false; docs/PERFORMANCE.md, eighth round).
  private let source: UnsafeRawPointer?
  /// The id and mutex group of a candidate made without a plan (the selector's tests), in one
  /// box: nil for the engine's candidates, so copying or dropping one costs a nil reference,
  /// not two strings' retains and releases per candidate, ranking and frame.
  private let names: Names?

  final class Names: Sendable {
    let id: String
    let mutexGroup: String
    init(id: String, mutexGroup: String) {
      self.id = id
      self.mutexGroup = mutexGroup
    }
  }

  /// Made from one of the engine's plans (`plan` is then its index in them).
  var fromPlan: Bool { source != nil }

  /// The plan behind `source`.
  @inline(__always) private var sourcePlan: CuePlan? {
    source.map { Unmanaged<CuePlan>.fromOpaque($0).takeUnretainedValue() }
  }

  /// `priority` boosted by severity (§3.7), filled in by `CueSelector`.
  var effectivePriority: Int
  /// The cue's index in the engine's plans (-1 when unknown): saves an id look-up per frame.
  var plan: Int
  /// The cue's place in the spec ordered by (mutexGroup, id) in byte order (`CuePlan.tieRank`;
  /// -1 when unknown): the last two tie-breakers as one integer comparison.
  var tieRank: Int

  init(
    id: String, level: CueLevel, error: Double?, severity: Double?, priority: Int, mutexGroup: String, plan: Int = -1,
    tieRank: Int = -1
  ) {
    self.plan = plan
    self.tieRank = tieRank
    source = nil
    names = Names(id: id, mutexGroup: mutexGroup)
    self.level = level
    self.error = error
    self.severity = severity
    self.priority = priority
    effectivePriority = priority
  }

  /// A candidate of cue `plan` (the `index`-th of the engine's plans), its id, mutex group,
  /// priority and tie rank the plan's.
  init(_ plan: CuePlan, index: Int, level: CueLevel, error: Double?, severity: Double?) {
    self.plan = index
    tieRank = plan.tieRank
    source = UnsafeRawPointer(Unmanaged.passUnretained(plan).toOpaque())
    names = nil
    self.level = level
    self.error = error
    self.severity = severity
    priority = plan.priority
    effectivePriority = plan.priority
  }

  static func == (a: CueCandidate, b: CueCandidate) -> Bool {
    a.id == b.id && a.level == b.level && a.error == b.error && a.severity == b.severity && a.priority == b.priority
      && a.mutexGroup == b.mutexGroup && a.effectivePriority == b.effectivePriority && a.plan == b.plan
      && a.tieRank == b.tieRank
  }
}

/// CueSelector of ENGINE §3.7 (`pickOneCue`): effectivePriority desc → severity desc (nil
/// lowest) → priority desc → mutexGroup asc → cue id asc (byte order). Mutex groups do not
/// suppress each other beyond this ordering.
enum CueSelector {
  /// All candidates, best first, with `effectivePriority` filled in.
  static func rank(_ candidates: [CueCandidate], policy: SelectionPolicy) -> [CueCandidate] {
    candidates.map { c in
      var c = c
      c.effectivePriority = policy.effectivePriority(priority: c.priority, severity: c.severity)
      return c
    }
    .sorted(by: precedes)
  }

  /// Ranks `candidates` in place (the same order as ``rank(_:policy:)``, without a new array).
  /// `reverseTies` and `boost: false` are planted faults (``PlantedFault``). `bestOnly`: only
  /// the first place is settled (the best moved to the front, the others in no set order), for
  /// a caller that reads no further: one pass instead of a sort (the order is total, so the
  /// best is the same).
  static func rank(
    _ candidates: inout [CueCandidate], policy: SelectionPolicy, reverseTies: Bool = false, boost: Bool = true,
    bestOnly: Bool = false
  ) {
    @inline(__always) func order(_ a: CueCandidate, _ b: CueCandidate) -> Bool {
      guard reverseTies else { return precedes(a, b) }
      var a2 = a, b2 = b
      (a2.tieRank, b2.tieRank) = (b.tieRank, a.tieRank)
      return precedes(a2, b2)
    }
    // Through the buffer: the array's subscripts copied a candidate per read, and its generic
    // `swapAt` cost ~230 instructions per evaluation (issue 38).
    candidates.withUnsafeMutableBufferPointer { c in
      for i in c.indices {
        c[i].effectivePriority =
          boost ? policy.effectivePriority(priority: c[i].priority, severity: c[i].severity) : c[i].priority
      }
      guard bestOnly else {
        c.sort(by: order)
        return
      }
      guard c.count > 1 else { return }
      var best = 0
      for i in 1..<c.count where order(c[i], c[best]) { best = i }
      if best != 0 { c.swapAt(0, best) }
    }
  }

  /// The selected cue, or nil when there is no candidate.
  static func select(_ candidates: [CueCandidate], policy: SelectionPolicy) -> CueCandidate? {
    rank(candidates, policy: policy).first
  }

  /// The strict total order of the tie-breakers.
  @inline(__always) static func precedes(_ a: CueCandidate, _ b: CueCandidate) -> Bool {
    if a.effectivePriority != b.effectivePriority { return a.effectivePriority > b.effectivePriority }
    let sa = a.severity ?? -.infinity
    let sb = b.severity ?? -.infinity
    if sa != sb { return sa > sb }
    if a.priority != b.priority { return a.priority > b.priority }
    if a.tieRank >= 0, b.tieRank >= 0 { return a.tieRank < b.tieRank }
    if a.mutexGroup != b.mutexGroup { return a.mutexGroup.utf8.lexicographicallyPrecedes(b.mutexGroup.utf8) }
    return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
  }
}
