import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Replay
import Testing


/// The tier scheduler and T1 evaluation (ENGINE §3.11, §2.11, §3.15).
@Suite("Tier scheduler and T1 cues (ENGINE §3.11)")
struct TierTests {
  typealias F = Fixture

  static func event(_ kind: EventKind, at t: Millis, _ fields: JSONObject) -> InputEvent {
    InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: kind, fields: fields)))
  }

  static func tierLines(_ out: [TraceRecord]) -> [String] {
    out.filter { $0.out == "tier" }.map {
      "\($0.t) \(Int($0.fields["t0_hz"]!.doubleValue!)) \($0.fields["t1_enabled"]!.boolValue!) \($0.fields["cause"]!.stringValue!)"
    }
  }

  @Test("S24: thermal serious at 10 s → 8 Hz, T1 off; nominal at 20 s → 15 Hz, T1 back at 21 s")
  func thermalDegrade() {
    // 15 Hz frames for 25 s, subject centred (nothing to say) so only tier lines appear.
    var events = F.frames(0..<375) { _ in F.subject(feetY: 0.9) }
    events.append(Self.event(.thermal, at: 10_000, ["state": "serious"]))
    events.append(Self.event(.thermal, at: 20_000, ["state": "nominal"]))
    events.sort { $0.t < $1.t }
    let out = F.runWithTimers(F.engine(traceMetrics: true), events, until: 25_000)
    #expect(
      Self.tierLines(out) == [
        "10000 8 false thermal", "20000 15 false recovered", "21000 15 true recovered",
      ])
    // T0 acceptance: ≥ 121 ms apart while degraded (every 2nd 15 Hz frame), 63 ms otherwise.
    let t0 = out.filter { $0.out == "cue_eval" && $0.fields["tier"] == nil }.map(\.t)
    let degraded = t0.filter { $0 > 10_000 && $0 < 20_000 }
    #expect(zip(degraded, degraded.dropFirst()).allSatisfy { $1 - $0 >= 121 })
    #expect(degraded.count < 80)
    let normal = t0.filter { $0 < 10_000 }
    #expect(normal.count == 150)
    // No T1 evaluation between 10 s and 21 s; ticks every 500 ms otherwise.
    let t1 = out.filter { $0.fields["tier"] == "T1" }.map(\.t)
    #expect(!t1.contains { $0 > 10_000 && $0 < 21_000 })
    #expect(t1.prefix(3) == [500, 1000, 1500])
    #expect(t1.contains(21_000))
  }

  @Test("S25: preview_stats with 6 dropped frames degrades with cause frame_drop; a clean window recovers")
  func frameDropDegrade() {
    let events = [
      Self.event(.preview_stats, at: 1000, ["window_ms": 1000, "dropped_frames": 6]),
      Self.event(.preview_stats, at: 2000, ["window_ms": 1000, "dropped_frames": 4]),
      Self.event(.preview_stats, at: 3000, ["window_ms": 1000, "dropped_frames": 0, "avg_fps": 20]),
      Self.event(.preview_stats, at: 4000, ["window_ms": 1000, "dropped_frames": 0, "avg_fps": 30]),
    ]
    let out = F.runWithTimers(F.engine(), events, until: 6000)
    #expect(
      Self.tierLines(out) == [
        // The recovery timer due at 3000 fires before the input at 3000 (§1.3.3).
        "1000 8 false frame_drop", "2000 15 false recovered", "3000 15 true recovered", "3000 8 false frame_drop",
        "4000 15 false recovered", "5000 15 true recovered",
      ])
  }

  @Test("§3.11: a device that starts hot starts degraded; a new trigger during recovery cancels it")
  func startHotAndRelapse() {
    var e = F.engine()
    let start = e.start()
    #expect(Self.tierLines(start.records(at: 0)).isEmpty)
    var hot = Engine(
      configuration: EngineConfiguration(
        spec: F.reference, options: EngineOptions(), initial: ["thermal": "critical"]))
    #expect(Self.tierLines(hot.start().records(at: 0)) == ["0 8 false thermal"])
    let events = [
      Self.event(.thermal, at: 1000, ["state": "serious"]),
      Self.event(.thermal, at: 2000, ["state": "fair"]),
      Self.event(.thermal, at: 2500, ["state": "serious"]),
      Self.event(.thermal, at: 4000, ["state": "nominal"]),
    ]
    #expect(
      Self.tierLines(F.runWithTimers(F.engine(), events, until: 6000)) == [
        "1000 8 false thermal", "2000 15 false recovered", "2500 8 false thermal", "4000 15 false recovered",
        "5000 15 true recovered",
      ])
  }

  @Test("§2.11, §3.11: a T1 cue reads frame_scalars on T1 ticks and is selected on the next T0 result (S12)")
  func t1CueFromScalars() {
    // Outdoor, dark face: OUT_01 error 0.45 − 0.30 = 0.15 → warn (> 0.1; hard > 0.18).
    let face = FaceObservation(
      bbox: Rect(x: 0.45, y: 0.1, w: 0.1, h: 0.13), conf: 0.95, leftEye: EyePoint(x: 0.48, y: 0.15),
      rightEye: EyePoint(x: 0.52, y: 0.15), noseTip: Point2(x: 0.5, y: 0.18), chin: Point2(x: 0.5, y: 0.23))
    var events = (0..<60).map { k in
      InputEvent(
        t: F.t15(k),
        payload: .landmarks(LandmarkFrame(frame: Int64(k), body: F.subject(feetY: 0.9), faces: [face], people: 1)))
    }
    events.append(Self.event(.frame_scalars, at: 0, ["values": .object(["faceLumaMean": 0.30])]))
    events.sort { $0.t < $1.t }
    let out = F.runWithTimers(F.engine(scene: "outdoor", traceMetrics: true), events, until: 4000)
    let t1 = out.filter { $0.fields["tier"] == "T1" }
    let first = t1.first?.fields["cues"]?["OUT_01_FACE_IN_SHADOW"]?.objectValue
    #expect(first?["level"] == "warn")
    #expect(abs((first?["error"]?.doubleValue ?? 0) - 0.15) < 1e-9)
    // persistFrames 6: active from the tick at 500; 6 equal T0 inputs at 533 … 867.
    let shown = F.lines(out.filter { $0.out == "cue_display" })
    #expect(shown.first?.hasPrefix("867 cue_display OUT_01_FACE_IN_SHADOW/warn") == true, "\(shown)")
    // CAFE_01 is a cafe cue: never evaluated outdoors (§3.6).
    #expect(!t1.contains { $0.fields["cues"]?["CAFE_01_FACE_TOO_DARK"] != nil })
  }

  @Test("§3.11: updateHz caps at t1MaxHz: a 1 Hz cue runs on every 2nd tick, a 30 Hz cue on every tick")
  func cadence() {
    let out = F.runWithTimers(F.engine(scene: "cafe", traceMetrics: true), [], until: 2000)
    let ticks = out.filter { $0.fields["tier"] == "T1" }
    #expect(ticks.map(\.t) == [500, 1000, 1500, 2000])
    let wb = ticks.map { $0.fields["cues"]?["CAFE_05_WB_TOO_YELLOW"] != nil }
    #expect(wb == [false, true, false, true])
    let motion = ticks.map { $0.fields["cues"]?["CAFE_10_LOW_LIGHT_STEADY"] != nil }
    #expect(motion == [true, true, true, true])
    // No sensor input yet: unavailable with the input named.
    #expect(ticks[0].fields["cues"]?["CAFE_10_LOW_LIGHT_STEADY"]?["reason"] == "missing_input:motionRms")
  }
}
