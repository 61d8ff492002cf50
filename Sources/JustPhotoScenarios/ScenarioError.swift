import ScenarioYAML

/// A scenario file that cannot be used (exit 2), naming file, line:column, key path and what was
/// expected. It is defined beside the YAML reader in ScenarioYAML, which PixScan's scenarios
/// share; this name keeps it where users of Scenarios look for it.
public typealias ScenarioError = ScenarioYAML.ScenarioError
