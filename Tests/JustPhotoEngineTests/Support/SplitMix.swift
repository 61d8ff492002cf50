import ScenarioYAML

/// The project's seeded generator (`ScenarioYAML.SplitMix64`) for this module's drawn-input
/// tests, so a failure reproduces from its seed; `below` here takes and gives an `Int` index.
typealias SplitMix = SplitMix64

extension SplitMix64 {
  init(state: UInt64) { self.init(seed: state) }
  /// In 0..<n.
  mutating func below(_ n: Int) -> Int { Int(below(UInt64(n))) }
}
