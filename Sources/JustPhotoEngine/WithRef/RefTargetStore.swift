/// Session-scoped withRef targets (ENGINE §3.13a–b, §3.14, §8 G-33): numbers only, one
/// snapshot per reference id, the selected reference's snapshot being the live targets.
///
/// The [C] store guard (`RefTargetSessionStore`) applies only to a re-extraction of the
/// same `ref_id` [D]: with a non-empty snapshot for that reference, a new map with 0 values,
/// fewer than 5, or fewer than the snapshot's is ignored. Another reference always replaces
/// the targets. `clear()` on session reset; at most 10 reference copies per session.
public struct RefTargetStore: Equatable, Sendable {
  /// Fewest values a re-extraction of the same reference must have to replace its snapshot.
  public static let minimumReExtractionCount = 5
  /// Reference copies allowed per session (§3.14, PRD §5.2).
  public static let maxReferenceCopies = 10

  /// The selected reference, nil when none.
  public private(set) var selectedRefId: String?
  /// Reference ids with a snapshot, in the order they were first stored (for `ref_switch`).
  public private(set) var refOrder: [String] = []
  /// Reference copies made in this session.
  public private(set) var referenceCopies = 0
  private var snapshots: [String: [String: Double]] = [:]
  /// The selected reference's targets by metric name (empty when none): its snapshot, kept
  /// here whenever the selection or its snapshot changes (read several times per T0
  /// evaluation; looking the snapshot up by reference id each time hashed the id).
  public private(set) var targets: [String: Double] = [:]

  public init() {}

  /// The targets sorted by metric name (byte order), for logs and traces.
  public var sortedTargets: [(name: String, value: Double)] {
    targets.sorted { MatchOrder.less($0.key, $1.key) }.map { (name: $0.key, value: $0.value) }
  }

  /// withRef is active iff a reference is selected and its targets are non-empty (§3.13a;
  /// the gates are checked before `store`).
  public var isActive: Bool { !targets.isEmpty }

  /// The snapshot stored for `refId`, if any.
  public func snapshot(for refId: String) -> [String: Double]? { snapshots[refId] }

  /// Stores the targets extracted from reference `refId` and selects it. Only finite values
  /// are kept. A re-extraction of a reference that has a non-empty snapshot is subject to the
  /// guard; the reference is selected in both outcomes (a skipped re-extraction keeps its
  /// existing snapshot).
  @discardableResult
  public mutating func store(refId: String, metrics: [String: Double]) -> RefTargetStoreOutcome {
    let values = metrics.filter { $0.value.isFinite }
    if let existing = snapshots[refId], !existing.isEmpty {
      let reason: RefTargetSkipReason? =
        if values.isEmpty {
          .emptyTargetsKeepExisting
        } else if values.count < Self.minimumReExtractionCount {
          .lowMetricsKeepExisting
        } else if values.count < existing.count {
          .downgradeKeepExisting
        } else {
          nil
        }
      if let reason {
        selectedRefId = refId
        targets = existing
        return .skipped(reason: reason, newCount: values.count, existingCount: existing.count)
      }
    }
    let previous = selectedRefId
    if snapshots[refId] == nil { refOrder.append(refId) }
    snapshots[refId] = values
    selectedRefId = refId
    targets = values
    return .stored(refId: refId, count: values.count, replacedRefId: previous == refId ? nil : previous)
  }

  /// `store` from MatchDecider-style samples: unavailable and non-finite samples are dropped.
  @discardableResult
  public mutating func store(refId: String, samples: [String: MetricSample]) -> RefTargetStoreOutcome {
    store(refId: refId, metrics: samples.compactMapValues(\.finiteValue))
  }

  /// Selects an already stored reference (`ref_switch`); false when `refId` has no snapshot.
  @discardableResult
  public mutating func select(refId: String) -> Bool {
    guard let snapshot = snapshots[refId] else { return false }
    selectedRefId = refId
    targets = snapshot
    return true
  }

  /// Whether another reference may be copied in this session.
  public var canCopyReference: Bool { referenceCopies < Self.maxReferenceCopies }

  /// Counts one reference copy; refused (count unchanged) past the session limit.
  @discardableResult
  public mutating func recordReferenceCopy() -> RefCopyOutcome {
    guard canCopyReference else { return .limitReached(limit: Self.maxReferenceCopies) }
    referenceCopies += 1
    return .copied(count: referenceCopies)
  }

  /// Forgets every reference, target and copy (session reset, §3.13a).
  public mutating func clear() {
    self = RefTargetStore()
  }
}

/// The outcome of `RefTargetStore.store`.
public enum RefTargetStoreOutcome: Equatable, Sendable {
  /// The values became `refId`'s snapshot; `replacedRefId` is the previously selected
  /// reference when it was another one.
  case stored(refId: String, count: Int, replacedRefId: String?)
  /// A re-extraction of the same reference was ignored by the guard (the reference is
  /// selected with its existing snapshot).
  case skipped(reason: RefTargetSkipReason, newCount: Int, existingCount: Int)
}

/// Why a re-extraction was ignored ([C] `RefTargetStoreSkipped` log reasons).
public enum RefTargetSkipReason: String, Sendable {
  case emptyTargetsKeepExisting = "empty_targets_keep_existing"
  case lowMetricsKeepExisting = "low_metrics_keep_existing"
  case downgradeKeepExisting = "downgrade_keep_existing"
}

/// The outcome of `RefTargetStore.recordReferenceCopy`.
public enum RefCopyOutcome: Equatable, Sendable {
  case copied(count: Int)
  /// The 11th copy: [D] L3 `ref_limit_reached` (§8 G-38).
  case limitReached(limit: Int)
}
