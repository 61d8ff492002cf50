import CameraCoachEngine
import CameraCoachScenarios
import CanonicalJSON
import Testing

/// The engine's rules one at a time (docs/CAMERACOACH.md).
@Suite("Camera Coach engine")
struct CCEngineTests {
  /// A face whose UI top is `top` (h 0.2), box left `x` (w 0.2), UI nose x `nose` (back camera).
  static func face(top: Double, x: Double, nose: Double, yaw: Double = 0) -> CCFace {
    CCFace(x: x, y: 1 - top - 0.2, w: 0.2, h: 0.2, yaw: yaw, noseX: 1 - nose)
  }

  /// Hint lines of a session of `frames` (every 100 ms from 0 to `until`).
  static func hints(
    options: CCOptions = CCOptions(), band: Double = 0.125, until: Int64 = 1000, faces: [CCFace], roll: Double = 0,
    template: (Double, Double)? = nil
  ) -> [(t: Int64, advice: GuidanceAdvice)] {
    var e = CameraCoachEngine(options: options)
    _ = e.start()
    _ = e.handle(.sessionStart(camera: .back, band: band), at: 0)
    if let template { _ = e.handle(.template(x: template.0, y: template.1), at: 0) }
    var out: [(Int64, GuidanceAdvice)] = []
    var t: Int64 = 0
    while t < until {
      for o in e.handle(.frame(faces: faces, roll: roll, rate: 0), at: t).outputs {
        if case .hint(let a) = o { out.append((t, a)) }
      }
      t += 100
    }
    return out
  }

  @Test("a condition must hold 300 ms; the cooldown is 600 ms; the same advice 3 times per 10 s")
  func holdCooldownBudget() {
    let h = Self.hints(until: 12_000, faces: [Self.face(top: 0.15, x: 0.233333, nose: 1.0 / 3)])
    #expect(h.map(\.t) == [300, 900, 1500, 10_300, 10_900, 11_500])
    #expect(h.allSatisfy { $0.advice.advice == .headroom && $0.advice.direction == "more" })
  }

  @Test("headroom is measured in the visible band: 10% with the band, 20% without it")
  func letterbox() {
    let f = Self.face(top: 0.2, x: 0.233333, nose: 1.0 / 3)
    #expect(Self.hints(faces: [f]).isEmpty)
    #expect(Self.hints(band: 0, faces: [f]).first?.advice.direction == "less")
    #expect(Self.hints(options: CCOptions(plantedFaults: [.letterboxIgnored]), faces: [f]).first?.advice.direction == "less")
  }

  @Test("the detector's y is flipped and headroom is from the top edge; the planted faults are not")
  func coordinates() {
    let f = Self.face(top: 0.15, x: 0.233333, nose: 1.0 / 3)
    #expect(Self.hints(faces: [f]).first?.advice.direction == "more")
    #expect(Self.hints(options: CCOptions(plantedFaults: [.yNotFlipped]), faces: [f]).first?.advice.direction == "less")
    #expect(Self.hints(options: CCOptions(plantedFaults: [.headroomFromBottom]), faces: [f]).first?.advice.direction == "less")
  }

  @Test("priority: the standard order puts headroom before horizon; the legacy order too, and horizon before thirds")
  func priority() {
    // Thirds (nose at 0.5) and horizon (8°) both hold; headroom is fine.
    let f = Self.face(top: 0.2, x: 0.4, nose: 0.5)
    #expect(Self.hints(faces: [f], roll: 8).first?.advice.advice == .thirds)
    #expect(Self.hints(options: CCOptions(priority: .legacy), faces: [f], roll: 8).first?.advice.advice == .horizon)
    // The template outranks headroom in the standard order, not in the legacy one.
    let g = Self.face(top: 0.15, x: 0.4, nose: 1.0 / 3)
    #expect(Self.hints(faces: [g], template: (0.7, 0.3)).first?.advice.advice == .template)
    #expect(Self.hints(options: CCOptions(priority: .legacy), faces: [g], template: (0.7, 0.3)).first?.advice.advice == .headroom)
  }

  @Test("without rate limits the invariants catch the flood")
  func invariantsCatchNoRateLimit() {
    var e = CameraCoachEngine(options: CCOptions(plantedFaults: [.noRateLimit]))
    var records = e.start().outputs.map { CCTraceRecord(t: 0, output: $0) }
    records += e.handle(.sessionStart(camera: .back, band: 0.125), at: 0).outputs.map { CCTraceRecord(t: 0, output: $0) }
    for k in 0..<100 {
      let t = Int64(k * 100)
      let out = e.handle(.frame(faces: [Self.face(top: 0.15, x: 0.233333, nose: 1.0 / 3)], roll: 0, rate: 0), at: t).outputs
      records += out.map { CCTraceRecord(t: t, output: $0) }
    }
    let broken = CCExpectations.invariants(records).map(\.rule)
    #expect(broken.contains { $0.contains("same advice at most 3") })
    #expect(broken.contains { $0.contains("8 hints per 60000") })
    // The clean engine keeps them.
    var clean = CameraCoachEngine()
    var ok = clean.start().outputs.map { CCTraceRecord(t: 0, output: $0) }
    _ = clean.handle(.sessionStart(camera: .back, band: 0.125), at: 0)
    for k in 0..<100 {
      let t = Int64(k * 100)
      ok += clean.handle(.frame(faces: [Self.face(top: 0.15, x: 0.233333, nose: 1.0 / 3)], roll: 0, rate: 0), at: t).outputs
        .map { CCTraceRecord(t: t, output: $0) }
    }
    #expect(CCExpectations.invariants(ok).isEmpty)
  }

  @Test("bad events are refused naming the field")
  func decodeErrors() {
    func message(_ kind: String, _ json: String) -> String? {
      let fields = (try? JSONParser.parse(json))?.objectValue ?? JSONObject()
      do {
        _ = try CCInput.decode(kind: kind, fields: fields)
        return nil
      } catch { return error.description }
    }
    #expect(message("frame", #"{"faces": [], "roll": 0}"#) == "frame.rate: missing field")
    #expect(message("frame", #"{"faces": [{"x": 0.9, "y": 0, "w": 0.2, "h": 0.1, "yaw": 0, "nose_x": 0.5}], "roll": 0, "rate": 0}"#)?.hasPrefix("frame.faces[0].w: the box leaves the frame") == true)
    #expect(message("session_start", #"{"camera": "side", "band": 0}"#)?.contains("expected one of back, front") == true)
    #expect(message("session_start", #"{"camera": "back", "band": 0.6}"#)?.contains("session_start.band: expected a number in") == true)
    #expect(message("thermal_sample", #"{"state": "hot", "extra": 1}"#)?.hasPrefix("thermal_sample.extra: unknown field") == true)
    #expect(message("lens_change", "{}")?.contains("not a Camera Coach event") == true)
    let many = "[" + Array(repeating: #"{"x": 0, "y": 0, "w": 0.1, "h": 0.1, "yaw": 0, "nose_x": 0.5}"#, count: CCLimits.facesMax + 1).joined(separator: ",") + "]"
    #expect(message("frame", #"{"faces": \#(many), "roll": 0, "rate": 0}"#)?.contains("CCLimits.facesMax") == true)
  }
}
