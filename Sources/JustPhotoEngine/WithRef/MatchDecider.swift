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
    let mirrored: [String: MetricSample]? =
      switch options.mirrorMode {
      case .scalar: MatchMirror.scalarMirrored(live)
      case .points: mirroredLive
      }
    func target(_ r: MatchRequirement) -> Double? { targets[r.metric].flatMap { $0.isFinite ? $0 : nil } }
    // `exclude` never empties the required list: if no requirement has its target, they all
    // block (so that `blocked_by` stays non-empty whenever match is false, §3.13g) [D].
    let exclude = options.missingTargetPolicy == .exclude && requirements.contains { target($0) != nil }

    var states: [MatchCueState] = []
    states.reserveCapacity(requirements.count)
    for (i, r) in requirements.enumerated() {
      var state = MatchCueState(
        cueId: r.cueId, dimensionKey: r.dimensionKey, status: .missingData, level: .none, error: nil, mirrored: false,
        stableFrames: 0, persisted: false, missing: nil)
      guard let t = target(r) else {
        exitCounters[i] = 0
        var info = MatchMissingInfo.missingTarget(r.metric)
        if !exclude, case .unavailable(let why)? = live[r.metric] {
          info = MatchMissingInfo(reason: info.reason, missing: info.missing + why.missing)
        }
        state.status = exclude ? .excluded : .missingData
        state.missing = info
        states.append(state)
        continue
      }
      switch live[r.metric] {
      case nil:
        state.missing = MatchMissingInfo(reason: "metric_unavailable", missing: [r.metric])
      case .unavailable(let why)?:
        state.missing = why
      case .value(let x)? where !x.isFinite:
        state.missing = MatchMissingInfo(reason: "non_finite", missing: [r.metric])
      case .value(let v)?:
        let chosen = MatchMirror.chooseError(normal: v - t, mirrored: mirrored?[r.metric]?.finiteValue.map { $0 - t })
        let level = r.thresholds.level(of: chosen.error)
        let isExit = level == .exit || (r.rawExitSource && r.thresholds.exit.contains { $0.matches(v) })
        exitCounters[i] = isExit ? exitCounters[i] + 1 : 0
        state.status = .evaluated
        state.level = isExit ? .exit : level
        state.error = chosen.error
        state.mirrored = chosen.mirrored
        state.stableFrames = exitCounters[i]
        state.persisted = isExit && exitCounters[i] >= r.persistFrames
        states.append(state)
        continue
      }
      exitCounters[i] = 0
      states.append(state)
    }
    return Self.result(states)
  }

  /// Steps 4–5: blockers per dimension group, match, mirror flag and the fallback payload.
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
