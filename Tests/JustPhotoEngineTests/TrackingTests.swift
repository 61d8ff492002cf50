@testable import JustPhotoEngine
import EngineIO
import Testing


/// `trackingLost > 300 ms` (ENGINE §3.4.4b) and T0 acceptance (§3.11) as units.
@Suite("Tracking and frame acceptance (ENGINE §3.4.4, §3.11)")
struct TrackingTests {
  @Test("§3.4.4b: lost only strictly after 300 ms without a tracked result, and only after one")
  func trackingLost() {
    var m = TrackingMonitor()
    let steps: [(Bool, Millis)] = [(false, 0), (false, 1000), (true, 1100), (false, 1400), (false, 1401), (true, 1500)]
    let lost = steps.map { m.observe(tracked: $0.0, at: $0.1) }
    // Never tracked yet; tracked; 300 ms is not more than 300; 301 ms is; tracked again.
    #expect(lost == [false, false, false, false, true, false])
  }

  @Test("§3.11: round(1000/hz) − 4 ms between evaluated frames: 63 ms at 15 Hz, 121 ms at 8 Hz")
  func acceptanceInterval() {
    var a = FrameAcceptance()
    #expect(a.minIntervalMs == 63)
    a.hz = 8
    #expect(a.minIntervalMs == 121)
    let frames: [(Int64, Millis)] = [(1, 0), (2, 120), (3, 121), (3, 500), (4, 501)]
    // 120 ms too soon; 121 ok; frame 3 again ignored (and does not move lastAccepted).
    #expect(frames.map { a.accept(frame: $0.0, at: $0.1) } == [true, false, true, false, true])
  }
}
