import PoseSpec

/// The withRef Match of ENGINE §3.13(c)–(f): "match" is exit equivalence on every required
/// dimension, each held for its cue's persistFrames, with mirror evaluation.
///
/// A value type holding one exit counter per requirement. Build one per (scene, PoseSpec)
/// (`cacheKey`), call `evaluate` once per Match evaluation (each accepted T0 result with
/// `matchEvalCadence=t0`), and `reset()` when the session changes. A PoseSpec reload or a
/// scene change builds a new decider (new requirements, counters at 0).
public struct MatchDecider: Equatable, Sendable {
  /// The ten strong metrics of §3.13c, in the order the spec lists them.
  public static let strongMetrics = [
    "centerXOffset", "centerYOffset", "headroom", "bottomMargin", "bboxHeight", "shoulderAngleDeg", "hipAngleDeg",
    "torsoLeanAngleDeg", "eyeLineAngleDeg", "noseToChinRatio",
  ]

  public let scene: String
  /// `<scene>|<fingerprint>` (§3.13d).
  public let cacheKey: String
  /// Required cues in PoseSpec order.
  public let requirements: [MatchRequirement]
  /// Exit counters, aligned with `requirements`.
  private var exitCounters: [Int]
  /// The indices of `requirements` by dimension group (§3.13e step 4), groups in ascending key
  /// order (`MatchOrder.less`), each group's members in PoseSpec order: the groups, and their
  /// order, depend on the requirements only, so they are sorted once here, not at every
  /// evaluation (``result(_:)``).
  private let groups: [[Int]]
  /// Per requirement, where its `mirrorMode=scalar` mirrored value comes from: the metric
  /// whose live sample it reads (its own, or its pair's in `MatchMirror.swappedMetrics`) and
  /// whether it is negated (`MatchMirror.negatedMetrics`), as `MatchMirror.scalarMirrored`.
  private let scalarMirrors: [(source: String, negated: Bool)]
  /// Per requirement, the index of the first requirement with the same metric: the slot of its
  /// live sample in ``evaluate(samples:mirroredSamples:targets:options:)``.
  let metricSlots: [Int]
  /// Per requirement, the slot of the metric its `scalar` mirror reads (`scalarMirrors`), nil
  /// when no requirement has that metric (no sample of it is given).
  private let scalarMirrorSlots: [Int?]
  /// The engine's cache of where each requirement's live metric comes from (its cue's plan
  /// and that plan's assignment of the metric; nil: none). Valid for the plans the decider was
  /// built with: a PoseSpec reload builds new plans and a new decider, a scene change a new
  /// decider for the same plans. Not part of the decider's value (`==`).
  var planInputs: [(plan: Int, assignment: Int)?]?

  public init(spec: PoseSpecDocument, scene: String) {
    self.init(
      requirements: Self.requirements(spec: spec, scene: scene), scene: scene,
      cacheKey: Self.cacheKey(spec: spec, scene: scene))
  }

  public init(requirements: [MatchRequirement], scene: String = "", cacheKey: String = "") {
    self.scene = scene
    self.cacheKey = cacheKey
    self.requirements = requirements
    exitCounters = Array(repeating: 0, count: requirements.count)
    groups = Self.groups(requirements)
    let mirrors = requirements.map { MatchMirror.scalarMirrorSource(of: $0.metric) }
    scalarMirrors = mirrors
    let metrics = requirements.map(\.metric)
    metricSlots = metrics.map { m in metrics.firstIndex(of: m)! }
    scalarMirrorSlots = mirrors.map { metrics.firstIndex(of: $0.source) }
  }

  /// Two deciders are equal when their requirements, scene, key and exit counters are (the
  /// groups and mirror sources follow from the requirements).
  public static func == (a: MatchDecider, b: MatchDecider) -> Bool {
    a.scene == b.scene && a.cacheKey == b.cacheKey && a.requirements == b.requirements
      && a.exitCounters == b.exitCounters
  }

  /// `requirements`' indices grouped by dimension key, groups in ascending key order, members
  /// in PoseSpec order (what ``result(_:)`` walks).
  static func groups(_ requirements: [MatchRequirement]) -> [[Int]] {
    var keys: [String] = []
    for r in requirements where !keys.contains(r.dimensionKey) { keys.append(r.dimensionKey) }
    keys.sort(by: MatchOrder.less)
    return keys.map { key in requirements.indices.filter { requirements[$0].dimensionKey == key } }
  }

  /// The decider cache key of §3.13d: `<scene>|<prdVersion>|<marker>|cues=<count>`.
  public static func cacheKey(spec: PoseSpecDocument, scene: String) -> String { "\(scene)|\(spec.fingerprint)" }

  /// The required list of §3.13c, in PoseSpec order: cues of base ∪ `scene` whose
  /// `trigger.withRef` is an object with an `error` that, spaces removed, reads exactly
  /// `M-target.M` for a strong metric M.
  public static func requirements(spec: PoseSpecDocument, scene: String) -> [MatchRequirement] {
    spec.cues(inScene: scene).compactMap { cue in
      guard let withRef = cue.trigger.withRef, let error = withRef.error, let m = strongMetric(inError: error) else {
        return nil
      }
      return MatchRequirement(
        cueId: cue.id, metric: m, thresholds: withRef, persistFrames: max(1, cue.antiJitter.persistFrames),
        dimensionKey: cue.mutexGroup.isEmpty ? "metric:\(m)" : "mutex:\(cue.mutexGroup)",
        rawExitSource: withRef.exit.contains { $0.op == .between })
    }
  }

  /// M when `error` (spaces removed) is exactly `M-target.M` and M is strong, else nil.
  static func strongMetric(inError error: String) -> String? {
    let compact = error.filter { $0 != " " }
    guard let r = compact.firstRange(of: "-target.") else { return nil }
    let left = String(compact[..<r.lowerBound])
    guard left == String(compact[r.upperBound...]), strongMetrics.contains(left) else { return nil }
    return left
  }

  /// The exit counter of `cueId` (0 for an unknown cue).
  public func stableExitFrames(of cueId: String) -> Int {
    requirements.firstIndex { $0.cueId == cueId }.map { exitCounters[$0] } ?? 0
  }

  /// Sets every exit counter to 0 (session change; §3.13d).
  public mutating func reset() {
    for i in exitCounters.indices { exitCounters[i] = 0 }
  }
}

extension MatchDecider {
  /// One Match evaluation (§3.13e steps 1–5).
  ///
  /// - Parameters:
  ///   - live: the live value of each strong metric M by name, computed from the current
  ///     result (or why it is unavailable). Unused names are ignored.
  ///   - targets: the reference targets by metric name (`RefTargetStore.targets`).
  ///   - options: mirror mode and missing-target policy.
  ///   - mirroredLive: for `mirrorMode=points` only, the same metrics recomputed by the
  ///     caller from the subject's landmarks mirrored as x' = 1 − x (labels kept, §3.13f);
  ///     without it no mirrored error is considered. Ignored with `mirrorMode=scalar`, where
  ///     the mirror is `MatchMirror.scalarMirrored(live)`.
  public mutating func evaluate(
    live: [String: MetricSample], targets: [String: Double], options: MatchOptions = MatchOptions(),
    mirroredLive: [String: MetricSample]? = nil
  ) -> MatchResult {
    let (requirements, mirrors) = (self.requirements, scalarMirrors)
    return evaluate(
      targets: targets, options: options, live: { live[requirements[$0].metric] },
      // With `scalar`, read from `live` as `MatchMirror.scalarMirrored(live)` would hold it
      // (no mirrored map is built).
      mirrored: { i in
        switch options.mirrorMode {
        case .scalar:
          guard let v = live[mirrors[i].source]?.finiteValue else { return nil }
          return mirrors[i].negated ? -v : v
        case .points: return mirroredLive?[requirements[i].metric]?.finiteValue
        }
      })
  }

  /// ``evaluate(live:targets:options:mirroredLive:)`` with the live samples by slot, not by
  /// name (the engine's per-frame call: no dictionary of samples built or hashed):
  /// `samples[metricSlots[i]]` is the sample of requirement i's metric, nil when there is
  /// none, and `mirroredSamples` likewise for `mirrorMode=points`. The same result as the
  /// maps `[metric of requirement j: samples[j]]` (first requirements of each metric) given by
  /// name.
  mutating func evaluate(
    samples: [MetricSample?], mirroredSamples: [MetricSample?]?, targets: [String: Double], options: MatchOptions
  ) -> MatchResult {
    precondition(samples.count == requirements.count, "MatchDecider.evaluate: one sample slot per requirement")
    let (slots, mirrorSlots, mirrors) = (metricSlots, scalarMirrorSlots, scalarMirrors)
    return evaluate(
      targets: targets, options: options, live: { samples[slots[$0]] },
      mirrored: { i in
        switch options.mirrorMode {
        case .scalar:
          guard let slot = mirrorSlots[i], let v = samples[slot]?.finiteValue else { return nil }
          return mirrors[i].negated ? -v : v
        case .points: return mirroredSamples?[slots[i]]?.finiteValue
        }
      })
  }

  /// Steps 1–3 for every requirement, then ``result(_:)``: `live(i)` is the live sample of
  /// requirement i's metric, `mirrored(i)` its finite mirrored value (§3.13f) or nil.
  private mutating func evaluate(
    targets: [String: Double], options: MatchOptions, live: (Int) -> MetricSample?,
    mirrored mirroredValue: (Int) -> Double?
  ) -> MatchResult {
    func target(_ metric: String) -> Double? { targets[metric].flatMap { $0.isFinite ? $0 : nil } }
    // `exclude` never empties the required list: if no requirement has its target, they all
    // block (so that `blocked_by` stays non-empty whenever match is false, §3.13g) [D].
    let exclude = options.missingTargetPolicy == .exclude && requirements.contains { target($0.metric) != nil }

    var states: [MatchCueState] = []
    states.reserveCapacity(requirements.count)
    // Each requirement's fields are read in place (a copy of each requirement per evaluation
    // retained and released its strings and thresholds).
    let requirements = self.requirements
    requirements.withUnsafeBufferPointer { r in
      for i in r.indices {
        var state = MatchCueState(
          cueId: r[i].cueId, dimensionKey: r[i].dimensionKey, status: .missingData, level: .none, error: nil,
          mirrored: false, stableFrames: 0, persisted: false, missing: nil)
        guard let t = target(r[i].metric) else {
          exitCounters[i] = 0
          var info = MatchMissingInfo.missingTarget(r[i].metric)
          if !exclude, case .unavailable(let why)? = live(i) {
            info = MatchMissingInfo(reason: info.reason, missing: info.missing + why.missing)
          }
          state.status = exclude ? .excluded : .missingData
          state.missing = info
          states.append(state)
          continue
        }
        switch live(i) {
        case nil:
          state.missing = MatchMissingInfo(reason: "metric_unavailable", missing: [r[i].metric])
        case .unavailable(let why)?:
          state.missing = why
        case .value(let x)? where !x.isFinite:
          state.missing = MatchMissingInfo(reason: "non_finite", missing: [r[i].metric])
        case .value(let v)?:
          let chosen = MatchMirror.chooseError(normal: v - t, mirrored: mirroredValue(i).map { $0 - t })
          let level = r[i].thresholds.level(of: chosen.error)
          let isExit = level == .exit || (r[i].rawExitSource && r[i].thresholds.exit.contains { $0.matches(v) })
          exitCounters[i] = isExit ? exitCounters[i] + 1 : 0
          state.status = .evaluated
          state.level = isExit ? .exit : level
          state.error = chosen.error
          state.mirrored = chosen.mirrored
          state.stableFrames = exitCounters[i]
          state.persisted = isExit && exitCounters[i] >= r[i].persistFrames
          states.append(state)
          continue
        }
        exitCounters[i] = 0
        states.append(state)
      }
    }
    return result(states)
  }

  /// Steps 4–5 on `states` (one per requirement, in order): the same result as
  /// ``result(_:)-swift.type.method``, walking the groups sorted at init and comparing states
  /// in place (no key sort, no filtered copies per group).
  func result(_ states: [MatchCueState]) -> MatchResult {
    precondition(states.count == requirements.count, "MatchDecider.result: one state per requirement")
    var blockedBy: [String] = []
    var firstMissingReason: String?
    states.withUnsafeBufferPointer { s in
      for group in groups {
        guard let b = Self.blocker(in: group, s) else { continue }
        blockedBy.append(s[b].cueId)
        if s[b].status == .missingData, firstMissingReason == nil { firstMissingReason = s[b].missing?.reason }
      }
    }
    var required: [String] = []
    required.reserveCapacity(states.count)
    var excluded: [String] = []
    var mirrorApplied = false
    var missingReason: String?
    var anyMissing = false
    for s in states {
      if s.status == .excluded {
        excluded.append(s.cueId)
      } else {
        required.append(s.cueId)
        if s.status == .evaluated && s.mirrored { mirrorApplied = true }
      }
      if s.status != .evaluated {
        anyMissing = true
        if missingReason == nil { missingReason = s.missing?.reason }
      }
    }
    var fallback: MatchMissingInfo?
    if anyMissing {
      var missing: [String] = []
      for s in states where s.status != .evaluated { missing += s.missing?.missing ?? [] }
      fallback = MatchMissingInfo(reason: firstMissingReason ?? missingReason ?? "missing_target", missing: missing)
    }
    return MatchResult(
      match: !required.isEmpty && blockedBy.isEmpty, required: required, blockedBy: blockedBy,
      mirrorApplied: mirrorApplied, excluded: excluded, fallback: fallback, cues: states)
  }

  /// ``blocker(of:)`` of the group whose members are `group` (indices into `states`; excluded
  /// states are not in a group): the index of the same state, or nil when the group is matched.
  static func blocker(in group: [Int], _ states: UnsafeBufferPointer<MatchCueState>) -> Int? {
    // Each pass keeps the first of equal candidates, as `min(by:)` does.
    var best: Int?
    for i in group where states[i].status == .missingData {
      if let b = best, !MatchOrder.less(states[i].cueId, states[b].cueId) { continue }
      best = i
    }
    if let best { return best }
    for i in group where states[i].status != .excluded && states[i].level != .exit {
      if let b = best, !worse(states[i], than: states[b]) { continue }
      best = i
    }
    if let best { return best }
    for i in group where states[i].status != .excluded && !states[i].persisted {
      if let b = best {
        let (x, y) = (states[i], states[b])
        let less =
          x.stableFrames != y.stableFrames ? x.stableFrames < y.stableFrames : MatchOrder.less(x.cueId, y.cueId)
        if !less { continue }
      }
      best = i
    }
    return best
  }

  /// Whether non-exit state `a` blocks before `b`: higher level rank, then larger abs(error),
  /// then smaller id (``blocker(of:)``'s order).
  static func worse(_ a: MatchCueState, than b: MatchCueState) -> Bool {
    if a.level.rank != b.level.rank { return a.level.rank > b.level.rank }
    let ea = a.error.map(abs) ?? -.infinity
    let eb = b.error.map(abs) ?? -.infinity
    if ea != eb { return ea > eb }
    return MatchOrder.less(a.cueId, b.cueId)
  }

  /// Steps 4–5: blockers per dimension group, match, mirror flag and the fallback payload.
  /// The definition, kept as the reference the decider's ``result(_:)-swift.method`` is
  /// tested against (`MatchDeciderResultTests`).
  static func result(_ states: [MatchCueState]) -> MatchResult {
    let considered = states.filter { $0.status != .excluded }
    var keys: [String] = []
    for s in considered where !keys.contains(s.dimensionKey) { keys.append(s.dimensionKey) }
    keys.sort(by: MatchOrder.less)

    var blockedBy: [String] = []
    var firstMissingReason: String?
    for key in keys {
      let group = considered.filter { $0.dimensionKey == key }
      guard let blocker = blocker(of: group) else { continue }
      blockedBy.append(blocker.cueId)
      if blocker.status == .missingData, firstMissingReason == nil { firstMissingReason = blocker.missing?.reason }
    }

    let excluded = states.filter { $0.status == .excluded }
    let missingStates = states.filter { $0.status != .evaluated }
    var fallback: MatchMissingInfo?
    if !missingStates.isEmpty {
      let reason = firstMissingReason ?? missingStates.compactMap(\.missing?.reason).first ?? "missing_target"
      fallback = MatchMissingInfo(reason: reason, missing: missingStates.flatMap { $0.missing?.missing ?? [] })
    }
    let required = considered.map(\.cueId)
    return MatchResult(
      match: !required.isEmpty && blockedBy.isEmpty, required: required, blockedBy: blockedBy,
      mirrorApplied: considered.contains { $0.status == .evaluated && $0.mirrored }, excluded: excluded.map(\.cueId),
      fallback: fallback, cues: states)
  }

  /// The one blocker of a dimension group (§3.13e step 4), or nil when the group is matched:
  /// the first missing-data cue by id; else the worst non-exit cue (level rank, then larger
  /// abs(error), then id); else the exit cue not yet persisted with the fewest stable frames
  /// (then id).
  static func blocker(of group: [MatchCueState]) -> MatchCueState? {
    let byId: (MatchCueState, MatchCueState) -> Bool = { MatchOrder.less($0.cueId, $1.cueId) }
    if let m = group.filter({ $0.status == .missingData }).min(by: byId) { return m }
    let nonExit = group.filter { $0.level != .exit }
    if let worst = nonExit.min(by: { a, b in
      if a.level.rank != b.level.rank { return a.level.rank > b.level.rank }
      let ea = a.error.map(abs) ?? -.infinity
      let eb = b.error.map(abs) ?? -.infinity
      if ea != eb { return ea > eb }
      return byId(a, b)
    }) {
      return worst
    }
    return group.filter { !$0.persisted }.min { a, b in
      a.stableFrames != b.stableFrames ? a.stableFrames < b.stableFrames : byId(a, b)
    }
  }
}
