import Foundation
import Testing

/// A bad `detector:` value (issue 22 item 2, `DetectorModel`) is exit 2 from `record` and
/// `verify`, naming the file, the line:column and the bound or the conflicting key.
@Suite struct DetectorCLITests {
  @Test func aDetectorRateOverTheBoundIsExit2() throws {
    try ScenarioLimitsCLITests.expectRefused(
      "fast", "name: fast\nduration_ms: 12000\nseed: 1\ndetector: {profile: daylight, rate_fps: 960}\n",
      place: "4:41:", bound: "ScenarioLimits.detectorRateFpsMax")
  }

  @Test func fpsOtherThanDeliveredIsExit2AtFps() throws {
    try ScenarioLimitsCLITests.expectRefused(
      "twice", "name: twice\nduration_ms: 12000\nseed: 1\nfps: 15\ndetector:\n  profile: daylight\n",
      place: "4:6:", bound: "conflicts with detector (line 6)")
  }
}
