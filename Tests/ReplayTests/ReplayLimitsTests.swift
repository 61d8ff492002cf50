import JustPhotoEngine
import EngineIO
import Recording
import Replay
import Testing

/// The replayer's own bounds (issue 12, H1): whatever the source, the virtual-time span and
/// the event count are bounded by `RecordingLimits`, so replay cost is bounded too — a tiny
/// recording claiming `duration_ms = 10¹²` used to tick a 500 ms timer for ~1.6 hours.
@Suite("Replay limits (virtual-time span, events)")
struct ReplayLimitsTests {
  /// A periodic timer every 500 ms from t = 0, like the engine's T1 tick.
  static var ticker: ScriptedEngine {
    var engine = ScriptedEngine()
    engine.onStart = { Effects(timers: [.schedule(TimerID("t1"), at: 500)]) }
    engine.onFire = { id, now in Effects(timers: [.schedule(id, at: now + 500)]) }
    return engine
  }

  static func badInput(_ run: () throws -> Void) -> BadInputError? {
    do {
      try run()
      return nil
    } catch {
      guard case .badInput(let e)? = error as? ReplayError else { return nil }
      return e
    }
  }

  @Test("H1: duration_ms 10¹² or 2⁵³ is refused before start(), naming durationMsMax")
  func durationOverBound() throws {
    for d in [1e12, 9_007_199_254_740_992, Double(RecordingLimits.durationMsMax + 1)] {
      let e = try #require(
        Self.badInput { _ = try replay(Self.ticker, [event(0, .shutter_tap)], header: ["duration_ms": .number(d)]) })
      #expect(e.t == nil)
      #expect(e.description.contains("durationMsMax = \(RecordingLimits.durationMsMax) ms"), "\(e)")
    }
  }

  @Test("at exactly durationMsMax the 500 ms ticker fires durationMsMax / 500 times, no more")
  func durationAtBoundIsBounded() throws {
    let r = try replay(
      Self.ticker, [event(0, .shutter_tap)], header: ["duration_ms": .number(Double(RecordingLimits.durationMsMax))])
    #expect(r.summary.timersFired == Int(RecordingLimits.durationMsMax / 500))
    #expect(r.summary.endMs == RecordingLimits.durationMsMax)
  }

  @Test("without duration_ms, an event past durationMsMax is refused at its time")
  func eventPastSpan() throws {
    let far: Millis = 1 << 62
    let e = try #require(Self.badInput { _ = try replay(Self.ticker, [event(0, .shutter_tap), event(far, .shutter_tap)]) })
    #expect(e.t == far)
    #expect(e.description.contains("durationMsMax"))
  }

  @Test("wall_start_ms outside 0…wallStartMsMax is refused (wall time can never overflow)")
  func wallStartOutOfRange() throws {
    for w in [-1.0, 9.1e18] {
      let e = try #require(
        Self.badInput { _ = try replay(Self.ticker, [event(0, .shutter_tap)], header: ["wall_start_ms": .number(w)]) })
      #expect(e.description.contains("wallStartMsMax"), "\(e)")
    }
  }

  @Test("events past eventsMax (labels included) are refused at the first one over")
  func eventCountOverBound() throws {
    let events = [event(0, .shutter_tap), event(1, .label), event(2, .shutter_tap), event(3, .label)]
    let ok = try replay(ScriptedEngine(), events, options: ReplayOptions(eventsMax: 4))
    #expect(ok.summary.inputs == 2)
    let e = try #require(
      Self.badInput { _ = try replay(ScriptedEngine(), events + [event(9, .shutter_tap)], options: ReplayOptions(eventsMax: 4)) })
    #expect(e.t == 9)
    #expect(e.description.contains("eventsMax = 4"))
    #expect(ReplayOptions().eventsMax == RecordingLimits.eventsMax)
  }
}
