import ScenarioYAML
import EngineIO

/// Every mapping key a scenario file may use, by section: the lists the parser checks keys
/// against (`YNode.mapping(allowed:)` is given one of these, never a literal), and the list
/// docs/SCENARIOS.md is checked against (JustPhotoScenariosTests' `ScenarioSchemaDocTests`: a key the
/// parser accepts that the page does not document fails the test). A new key goes here first.
public enum ScenarioSchema {
  /// One section of the schema: a mapping and the keys it allows.
  public struct Section: Sendable {
    /// The section's id, as `<!-- schema: id -->` marks it in docs/SCENARIOS.md.
    public var id: String
    public var keys: [String]
  }

  static let budgetKeys = ["maxShowsOfOneCue", "repeatWindowMs", "maxPromptsPerSecond", "maxCueChangesPerMinute", "minHoldMs"]
  static let frameKeys = ["every_ms", "times"]
  static let lumaKeys = ["every", "w", "h"]
  static let noiseKeys = ["landmark_sigma", "conf_sigma", "miss_rate"] + Nuisance.keys
  static let episodeKeys = ["per_min", "min_ms", "max_ms"]
  static let occlusionExtraKeys = ["parts"]
  static let driftKeys = ["sigma", "tau_ms"]
  static let swayKeys = ["amplitude", "period_ms"]
  static let detectorKeys = ["profile", "rate_fps", "delivered_fps", "randomise"] + DetectorProfile.Figure.allCases.map(\.rawValue)
  static let timelineKeys = ["at", "from", "to", "subject", "oscillate", "event", "intent"]
  static let oscillationKeys = ["amplitude", "period_ms"]
  static let referenceKeys = ["at", "ref_id", "subject", "drop", "conf", "faces", "frame_scalars"]
  static let faceKeys = ["bbox", "conf", "left_eye", "right_eye", "nose_tip", "chin", "mouth"]
  static let expectKeys = [
    "displayed", "at", "within_ms", "not_displayed", "from", "to", "praise", "saw", "never", "state", "with", "has", "lacks",
    "count", "known",
  ]
  /// A rule's `known:` marker: a recorded engine miss (the draws it misses on, and why).
  static let knownKeys = ["draws", "why"]
  /// The bounds of `praise:` and `count:`.
  static let countKeys = ["at_least", "at_most"]
  static let truthKeys = ["cue", "from", "to"]
  static let derivationKeys = ["from", "remove", "set"]
  static let jointKeys = Joint.allCases.map(\.name)

  /// The sections, in the order docs/SCENARIOS.md presents them.
  public static let sections: [Section] = [
    Section(id: "top", keys: Scenario.topKeys),
    Section(id: "budgets", keys: budgetKeys),
    Section(id: "initial.posespec", keys: derivationKeys),
    Section(id: "subject", keys: SubjectPatch.keys),
    Section(id: "joints", keys: jointKeys),
    Section(id: "frames", keys: frameKeys),
    Section(id: "luma", keys: lumaKeys),
    Section(id: "noise", keys: noiseKeys),
    Section(id: "noise.episodes", keys: episodeKeys + occlusionExtraKeys),
    Section(id: "noise.drift", keys: driftKeys),
    Section(id: "noise.sway", keys: swayKeys),
    Section(id: "detector", keys: detectorKeys),
    Section(id: "timeline", keys: timelineKeys),
    Section(id: "timeline.oscillate", keys: oscillationKeys),
    Section(id: "references", keys: referenceKeys),
    Section(id: "references.faces", keys: faceKeys),
    Section(id: "expect", keys: expectKeys),
    Section(id: "expect.praise", keys: countKeys),
    Section(id: "expect.count", keys: countKeys),
    Section(id: "expect.known", keys: knownKeys),
    Section(id: "truth", keys: truthKeys),
  ]
}
