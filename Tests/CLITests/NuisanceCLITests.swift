import Foundation
import Testing

/// A bad realistic-noise value (issue 15.2, `noise:` dropouts/occlusions/passersby/drift/sway)
/// is exit 2 from `record` and `verify`, naming the file, the line:column and the bound.
@Suite struct NuisanceCLITests {
  @Test func aPassersByRateOverTheBoundIsExit2() throws {
    try ScenarioLimitsCLITests.expectRefused(
      "busy", "name: busy\nduration_ms: 12000\nseed: 1\nnoise:\n  passersby: {per_min: 600, min_ms: 1500, max_ms: 4000}\n",
      place: "5:24:", bound: "ScenarioLimits.nuisancePerMinuteMax")
  }

  @Test func aDriftTimeConstantUnderTheBoundIsExit2() throws {
    try ScenarioLimitsCLITests.expectRefused(
      "drifty", "name: drifty\nduration_ms: 12000\nseed: 1\nnoise:\n  drift: {sigma: 0.01, tau_ms: 5}\n",
      place: "5:32:", bound: "ScenarioLimits.driftTauMs")
  }
}
