import PixScanEngine
import ScenarioYAML

/// The bounds of a PixScan scenario file: every count, size and duration it can ask for,
/// checked while parsing, before anything is generated. Past one: a `PixScenarioError`
/// naming the file, the line and the bound.
public enum PixScenarioLimits {
  /// The largest scenario file, in bytes.
  public static let documentBytesMax = 1 << 20
  /// The deepest nesting of YAML mappings and lists.
  public static let yamlDepthMax = 32
  /// The most YAML values in one file.
  public static let yamlNodesMax = 200_000
  /// The shared YAML reader's bounds and words for PixScan scenario files (ScenarioYAML's guard).
  static let yamlRules = YAMLRules(
    depthMax: yamlDepthMax, nodesMax: yamlNodesMax, limitsName: "PixScenarioLimits",
    fileNoun: "PixScan scenario files",
    expectedRoot: "a PixScan scenario mapping (engine: pixscan, name, library, script)")
  /// The longest session a scenario may describe: 24 hours.
  public static let durationMsMax: Int64 = 24 * 60 * 60 * 1000
  /// The most photos a library description may generate (the engine's own bound).
  public static let libraryMax = PixLimits.libraryMax
  /// The most explicitly listed assets.
  public static let assetsMax = 10_000
  /// The most script steps.
  public static let stepsMax = 20_000
  /// The most swipes one `run` step may generate.
  public static let runSwipesMax = 100_000
  /// The most events a scenario may generate in all.
  public static let eventsMax = 1_000_000
  /// The most entries of the `expect:` block.
  public static let expectationsMax = 1_000
  /// The most fields in one rule's `with`, `has` or `lacks` (and items of a listed value).
  public static let expectationFieldsMax = 64
  /// A count bound in an `expect:` rule.
  public static let expectationCountMax: Int64 = 10_000_000
  /// The longest text (a name, a note, an OCR text template) in UTF-8 bytes.
  public static let textBytesMax = PixLimits.textBytesMax
}
