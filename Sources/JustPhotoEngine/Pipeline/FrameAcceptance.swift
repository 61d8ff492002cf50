import EngineIO

/// T0 acceptance of ENGINE §3.11 in replay: a `landmarks` event is evaluated iff it is the
/// first one or `t − lastAccepted ≥ round(1000/hz) − 4` (4 ms = the app's timer leeway;
/// 63 ms at 15 Hz, 121 ms at 8 Hz). A frame id equal to the last evaluated one is a repeat of
/// the cached frame and is ignored (G-46) without moving `lastAccepted`.
struct FrameAcceptance: Equatable, Sendable {
  static let leewayMs: Millis = 4
  /// T0 rate; 15 Hz, 8 Hz while degraded (degrade comes with the tier scheduler).
  var hz = 15
  private(set) var lastAcceptedT: Millis?
  private(set) var lastAcceptedFrame: Int64?

  var minIntervalMs: Millis { Millis((1000.0 / Double(hz)).rounded()) - Self.leewayMs }

  /// Whether to evaluate the frame `frame` arriving at `t` (and remember it if so).
  mutating func accept(frame: Int64, at t: Millis) -> Bool {
    if frame == lastAcceptedFrame { return false }
    if let last = lastAcceptedT, t - last < minIntervalMs { return false }
    lastAcceptedT = t
    lastAcceptedFrame = frame
    return true
  }
}

/// `trackingLost > 300 ms` of FRAME_GENERAL (§3.4.4b): no pose and no face in any accepted T0
/// result for more than 300 ms after at least one tracked result.
struct TrackingMonitor: Equatable, Sendable {
  static let lostAfterMs: Millis = 300
  private(set) var lastTrackedT: Millis?

  /// Records one accepted result; returns whether tracking counts as lost at `t`.
  mutating func observe(tracked: Bool, at t: Millis) -> Bool {
    if tracked {
      lastTrackedT = t
      return false
    }
    guard let last = lastTrackedT else { return false }
    return t - last > Self.lostAfterMs
  }

  /// Starts a new camera-visible period.
  mutating func reset() { lastTrackedT = nil }
}
