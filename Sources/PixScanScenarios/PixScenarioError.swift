import ScenarioYAML

/// A PixScan scenario file that cannot be used: `description` names the file, the line and
/// column, the key path and what was expected, e.g.
/// `Recordings/pixscan/x.yaml:7:3: script[2].direction: swipe: direction: expected one of …`.
/// A CLI maps it to exit 2. It is the shared YAML reader's error (ScenarioYAML), the same type
/// the coaching scenarios throw.
public typealias PixScenarioError = ScenarioError
