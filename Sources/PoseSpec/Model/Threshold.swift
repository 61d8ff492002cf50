import CanonicalJSON

/// A level a cue's error can reach (ENGINE §3.3). `enter` is supported but unused by PS.
public enum CueLevel: String, Sendable, CaseIterable {
  case none, enter, warn, hard, exit

  /// Rank for "worse" comparisons (hard 4 > warn 3 > enter 2 > none 1; exit 0).
  @inlinable public var rank: Int {
    switch self {
    case .hard: 4
    case .warn: 3
    case .enter: 2
    case .none: 1
    case .exit: 0
    }
  }
}

/// A threshold operator of ENGINE §3.1 (`CueThresholdOp` in the original code).
public enum ThresholdOp: String, Sendable, CaseIterable {
  case greater = ">"
  case greaterOrEqual = ">="
  case less = "<"
  case lessOrEqual = "<="
  case absGreater = "abs>"
  case absGreaterOrEqual = "abs>="
  case absLess = "abs<"
  case absLessOrEqual = "abs<="
  case between
}

/// One threshold: `{op: a}` or `{between: [a, b]}`.
public struct Threshold: Equatable, Sendable, CustomStringConvertible {
  public var op: ThresholdOp
  public var a: Double
  /// The second bound of `between`; nil for every other operator.
  public var b: Double?

  public init(_ op: ThresholdOp, _ a: Double, _ b: Double? = nil) {
    self.op = op
    self.a = a
    self.b = b
  }

  /// Whether `value` satisfies the threshold (`between` is inclusive, bounds in any order).
  @inlinable public func matches(_ value: Double) -> Bool {
    switch op {
    case .greater: value > a
    case .greaterOrEqual: value >= a
    case .less: value < a
    case .lessOrEqual: value <= a
    case .absGreater: abs(value) > a
    case .absGreaterOrEqual: abs(value) >= a
    case .absLess: abs(value) < a
    case .absLessOrEqual: abs(value) <= a
    case .between:
      if let b { value >= min(a, b) && value <= max(a, b) } else { false }
    }
  }

  /// The magnitude used for severity normalization (§3.7): abs of the number, or for
  /// `between` the larger abs bound.
  @inlinable public var magnitude: Double {
    if op == .between, let b { return max(abs(a), abs(b)) }
    return abs(a)
  }

  public var description: String {
    if op == .between, let b { return "between[\(JSONWriter.shortest(a)),\(JSONWriter.shortest(b))]" }
    return op.rawValue + JSONWriter.shortest(a)
  }
}

/// One threshold object of a cue's trigger (`trigger.noRef` / `trigger.withRef`, ENGINE §2.2).
///
/// Each level holds a list (PS always has one entry; the original code accepts several and
/// uses the first match). A level that is `null` or absent is an empty list: not evaluated.
public struct ThresholdSet: Equatable, Sendable {
  /// The explicit `error` expression, if any (e.g. "centerXOffset - target.centerXOffset").
  public var error: String?
  public var hard: [Threshold]
  public var warn: [Threshold]
  public var enter: [Threshold]
  public var exit: [Threshold]

  public init(
    error: String? = nil, hard: [Threshold] = [], warn: [Threshold] = [], enter: [Threshold] = [],
    exit: [Threshold] = []
  ) {
    self.error = error
    self.hard = hard
    self.warn = warn
    self.enter = enter
    self.exit = exit
  }

  /// The level of `value`: the first of hard → warn → enter → exit whose threshold matches,
  /// else `none`; a non-finite or missing value is `none` (ENGINE §3.1, §3.3).
  @inlinable public func level(of value: Double?) -> CueLevel {
    guard let value, value.isFinite else { return .none }
    if hard.contains(where: { $0.matches(value) }) { return .hard }
    if warn.contains(where: { $0.matches(value) }) { return .warn }
    if enter.contains(where: { $0.matches(value) }) { return .enter }
    if exit.contains(where: { $0.matches(value) }) { return .exit }
    return .none
  }

  /// `hardAbs` of §3.7: the magnitude of the first hard threshold; nil when there is no hard
  /// threshold or it is 0 (severity is then nil).
  @inlinable public var hardMagnitude: Double? {
    guard let first = hard.first, first.magnitude != 0, first.magnitude.isFinite else { return nil }
    return first.magnitude
  }

  /// Severity of §3.7: `abs(error) / hardAbs`, nil when `hardMagnitude` is nil or the error is
  /// not finite.
  @inlinable public func severity(of value: Double?) -> Double? {
    guard let value, value.isFinite, let h = hardMagnitude else { return nil }
    return abs(value) / h
  }
}
