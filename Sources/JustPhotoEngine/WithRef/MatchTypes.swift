import EngineIO
import JustPhotoIO
import PoseSpec

/// One required Match dimension cue (ENGINE §3.13c): a base/scene cue whose withRef error is
/// exactly `M - target.M` for a strong metric M.
public struct MatchRequirement: Equatable, Sendable {
  public var cueId: String
  /// The strong metric M (`centerXOffset`, `shoulderAngleDeg`, …).
  public var metric: String
  /// The cue's `trigger.withRef` thresholds (levels of the withRef error).
  public var thresholds: ThresholdSet
  /// Consecutive exit evaluations needed: `cue.antiJitter.persistFrames`, at least 1.
  public var persistFrames: Int
  /// `mutex:<mutexGroup>`, or `metric:<M>` when the cue has no mutex group.
  public var dimensionKey: String
  /// `withRef.exit` uses `between`: the exit is also tested on the raw metric (CHIN, historic).
  public var rawExitSource: Bool

  public init(
    cueId: String, metric: String, thresholds: ThresholdSet, persistFrames: Int, dimensionKey: String,
    rawExitSource: Bool
  ) {
    self.cueId = cueId
    self.metric = metric
    self.thresholds = thresholds
    self.persistFrames = persistFrames
    self.dimensionKey = dimensionKey
    self.rawExitSource = rawExitSource
  }
}

/// The live value of one metric for the MatchDecider: a number, or why it is unavailable.
public enum MetricSample: Equatable, Sendable {
  /// The metric's value (a non-finite value counts as missing data, reason `non_finite`).
  case value(Double)
  /// The metric could not be computed; `reason` uses the §3.13g vocabulary (`no_pose`,
  /// `low_confidence_hips`, …) and `missing` names what was missing (`body.leftHip`, `eyeROI`).
  case unavailable(MatchMissingInfo)

  /// An unavailable sample from an engine reason string (see `MatchMissingInfo.classify`).
  public static func unavailable(detail: String, metric: String, landmarks: [String] = []) -> MetricSample {
    .unavailable(MatchMissingInfo.classify(detail: detail, metric: metric, landmarks: landmarks))
  }

  /// The value when available and finite.
  public var finiteValue: Double? {
    if case .value(let v) = self, v.isFinite { return v }
    return nil
  }
}

/// `mirrorMode` of ENGINE §1.8 / §3.13f.
public enum MirrorMode: String, Sendable, CaseIterable {
  /// [C]: negate centerXOffset / registrationOffsetX / faceHalfDiff, swap colour temperatures.
  case scalar
  /// [P]: metrics recomputed by the caller from landmarks mirrored as x' = 1 − x.
  case points
}

/// `missingTargetPolicy` of ENGINE §1.8 / §8 G-14.
public enum MissingTargetPolicy: String, Sendable, CaseIterable {
  /// [C]: a requirement without its target is missing data and blocks Match.
  case block
  /// [D]: a requirement without its target is dropped from `required` for that evaluation.
  case exclude
}

/// The engine options the MatchDecider reads.
public struct MatchOptions: Equatable, Sendable {
  public var mirrorMode: MirrorMode
  public var missingTargetPolicy: MissingTargetPolicy

  public init(mirrorMode: MirrorMode = .scalar, missingTargetPolicy: MissingTargetPolicy = .block) {
    self.mirrorMode = mirrorMode
    self.missingTargetPolicy = missingTargetPolicy
  }

  /// The options of an engine option set (`mirrorMode`, `missingTargetPolicy`).
  public init(_ options: EngineOptions) {
    self.init(
      mirrorMode: MirrorMode(rawValue: options[.mirrorMode]) ?? .scalar,
      missingTargetPolicy: MissingTargetPolicy(rawValue: options[.missingTargetPolicy]) ?? .block)
  }
}

/// What one requirement looked like in one evaluation (for traces and tests).
public struct MatchCueState: Equatable, Sendable {
  public enum Status: String, Sendable {
    /// Target and live value present: the error was levelled.
    case evaluated
    /// Target or live value missing (§3.13e step 1): blocks its group.
    case missingData
    /// Target missing under `missingTargetPolicy=exclude`: not required this evaluation.
    case excluded
  }

  public var cueId: String
  public var dimensionKey: String
  public var status: Status
  /// The withRef level of the chosen error (`exit` also when the raw `between` exit holds);
  /// `none` unless evaluated.
  public var level: CueLevel
  /// The chosen (possibly mirrored) error; nil unless evaluated.
  public var error: Double?
  /// Whether the mirrored error was chosen.
  public var mirrored: Bool
  /// The exit counter after this evaluation.
  public var stableFrames: Int
  /// In exit for at least `persistFrames` consecutive evaluations.
  public var persisted: Bool
  /// Why data was missing (missingData / excluded).
  public var missing: MatchMissingInfo?
}

/// The Match tuple whose changes drive the `match` trace output and `withref_match_state`
/// (§1.7, §3.13g).
public struct MatchTuple: Equatable, Sendable {
  public var match: Bool
  public var required: [String]
  public var blockedBy: [String]
  public var mirrorApplied: Bool
}

/// The outcome of one MatchDecider evaluation (§3.13e).
public struct MatchResult: Equatable, Sendable {
  /// `required` non-empty and `blockedBy` empty.
  public var match: Bool
  /// Required cue ids in PoseSpec order (excluded requirements left out).
  public var required: [String]
  /// At most one cue id per dimension group, groups in ascending key order.
  public var blockedBy: [String]
  /// Some evaluated requirement used its mirrored error.
  public var mirrorApplied: Bool
  /// Requirements dropped under `missingTargetPolicy=exclude`, PoseSpec order.
  public var excluded: [String]
  /// The `withref_fallback` payload (§3.13g) when a required dimension is missing data or a
  /// requirement was excluded; nil otherwise.
  public var fallback: MatchMissingInfo?
  /// Every requirement's state, PoseSpec order.
  public var cues: [MatchCueState]

  public var tuple: MatchTuple {
    MatchTuple(match: match, required: required, blockedBy: blockedBy, mirrorApplied: mirrorApplied)
  }
}
