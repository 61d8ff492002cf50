import ScenarioYAML

/// The bounds of a Camera Coach scenario file, checked while parsing, before anything is
/// generated. Past one: a `ScenarioError` naming the file, the line and the bound.
public enum CCScenarioLimits {
  /// The largest scenario file, in bytes.
  public static let documentBytesMax = 1 << 20
  /// The deepest nesting of YAML mappings and lists.
  public static let yamlDepthMax = 32
  /// The most YAML values in one file.
  public static let yamlNodesMax = 200_000
  /// The longest session a scenario may describe: 1 hour.
  public static let durationMsMax: Int64 = 60 * 60 * 1000
  /// The most script steps.
  public static let stepsMax = 10_000
  /// The most events a scenario may generate in all.
  public static let eventsMax = 200_000
  /// The shortest frame interval of a `frames` step (ms).
  public static let frameEveryMsMin: Int64 = 10
  /// The most entries of the `expect:` block.
  public static let expectationsMax = 1_000
  /// The most fields in one rule's `with`.
  public static let expectationFieldsMax = 32
  /// A count bound in an `expect:` rule.
  public static let expectationCountMax: Int64 = 1_000_000
  static let yamlRules = YAMLRules(
    depthMax: yamlDepthMax, nodesMax: yamlNodesMax, limitsName: "CCScenarioLimits",
    fileNoun: "Camera Coach scenario files",
    expectedRoot: "a Camera Coach scenario mapping (engine: cameracoach, name, script)")
}
