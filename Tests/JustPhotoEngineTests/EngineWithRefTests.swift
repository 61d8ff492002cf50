import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Replay
import Testing


/// withRef through the engine pipeline (ENGINE §3.2, §3.12, §3.13, §3.15).
@Suite("Engine withRef (ENGINE §3.13)")
struct EngineWithRefTests {
  typealias F = Fixture

  /// A `ref_analysis` payload of `body` with one reference-sized face and confident eyes.
  static func reference(_ id: String, at t: Millis, body: BodyPose) -> InputEvent {
    var bodyJSON = JSONObject()
    for j in Joint.allCases { if let p = body[j] { bodyJSON[j.name] = .array([.number(p.x), .number(p.y), .number(p.conf)]) } }
    let face: JSONValue = .object([
      "bbox": [0.43, 0.12, 0.14, 0.18], "conf": 0.95,
      "left_eye": .object(["x": 0.48, "y": 0.19, "conf": 0.9]), "right_eye": .object(["x": 0.52, "y": 0.19, "conf": 0.9]),
      "nose_tip": .object(["x": 0.5, "y": 0.22]), "chin": .object(["x": 0.5, "y": 0.29]),
    ])
    return InputEvent(
      t: t,
      payload: .justPhoto(
        JustPhotoEvent(kind: .ref_analysis, fields: ["ref_id": .string(id), "body": .object(bodyJSON), "faces": [face]])))
  }

  static func liveFace() -> FaceObservation {
    FaceObservation(
      bbox: Rect(x: 0.43, y: 0.12, w: 0.14, h: 0.18), conf: 0.95, leftEye: EyePoint(x: 0.48, y: 0.19, conf: 0.9),
      rightEye: EyePoint(x: 0.52, y: 0.19, conf: 0.9), noseTip: Point2(x: 0.5, y: 0.22), chin: Point2(x: 0.5, y: 0.29))
  }

  static func run(live dx: Double, refDx: Double = 0, options: [String: String] = [:], frames: Int = 8) -> (
    [TraceRecord], [DiagnosticLine]
  ) {
    var e = F.engine(options: options)
    var out = e.start().records(at: 0)
    var diag: [DiagnosticLine] = []
    let ref = reference("A", at: 0, body: F.subject(dx: refDx, feetY: 0.9))
    let fx = e.handle(ref)
    out += fx.records(at: ref.t)
    for k in 0..<frames {
      let ev = InputEvent(
        t: F.t15(k),
        payload: .landmarks(
          LandmarkFrame(frame: Int64(k), body: F.subject(dx: dx, feetY: 0.9), faces: [liveFace()], people: 1)))
      let r = e.handle(ev)
      out += r.records(at: ev.t)
      diag += r.diagnostics
    }
    return (out, diag)
  }

  @Test("S16: live equals the reference → match=true at the 4th evaluation, praise on withref_match, frozen card")
  func matchAndPraise() throws {
    let (out, diag) = Self.run(live: 0)
    let matches = out.filter { $0.out == "match" }
    #expect(matches.map(\.t) == [0, 133, 200])
    #expect(matches.last?.fields["match"] == true)
    #expect(matches.last?.fields["blocked_by"] == .array([]))
    // §3.15 step 9: praise, then the card, then match.
    let at200 = out.filter { $0.t == 200 }.map(\.out)
    #expect(at200 == ["praise", "script_card", "match"])
    #expect(out.first { $0.out == "praise" }?.fields["dimension"] == "withref_match")
    #expect(diag.last?.event == "withref_match_state")
    #expect(diag.last?.payload.first { $0.key == "blocked_by" }?.value == "")
    #expect(diag.allSatisfy { $0.sessionId == "S-0001" && $0.scene == "outdoor" })
  }

  @Test("S15: in the withRef dead-band nothing is shown and Match stays blocked by FRAME_MOVE_LEFT")
  func quietButNotMatched() {
    let (out, _) = Self.run(live: 0.12, frames: 12)
    #expect(!out.contains { $0.out == "cue_display" })
    #expect(!out.contains { $0.out == "praise" })
    #expect(out.filter { $0.out == "match" }.last?.fields["blocked_by"] == ["FRAME_MOVE_LEFT"])
  }

  @Test("S17 (§3.13f): a mirrored framing matches; mirrorMode=points recomputes the metric on x' = 1 − x")
  func mirror() {
    let (scalar, _) = Self.run(live: -0.05, refDx: 0.05)
    #expect(scalar.filter { $0.out == "match" }.last?.fields["match"] == true)
    #expect(scalar.filter { $0.out == "match" }.last?.fields["mirror_applied"] == true)
    let (points, _) = Self.run(live: -0.05, refDx: 0.05, options: ["mirrorMode": "points"])
    #expect(points.filter { $0.out == "match" }.last?.fields["match"] == true)
    #expect(points.filter { $0.out == "match" }.last?.fields["mirror_applied"] == true)
  }

  @Test("§3.2: withRef cues use the withRef thresholds and mode; a cue without withRef keeps noRef rules")
  func modes() {
    // cx 0.25 from a centred reference: FRAME_MOVE_LEFT withRef error 0.25 > hard 0.2.
    let (out, _) = Self.run(live: 0.25, frames: 6)
    let shown = out.first { $0.out == "cue_display" }
    #expect(shown?.fields["cue_id"] == "FRAME_MOVE_LEFT")
    #expect(shown?.fields["level"] == "hard")
    #expect(shown?.fields["mode"] == "withRef")
    // 0.13 is withRef dead-band (none) but noRef hard (> 0.12): withRef decides.
    let (quiet, _) = Self.run(live: 0.13, frames: 6)
    #expect(!quiet.contains { $0.out == "cue_display" })
  }

  @Test("S23 (§3.14): a rejected reference shows ref_reject_not_suitable, stores nothing, withRef stays off")
  func gateRejects() {
    var e = F.engine()
    _ = e.start()
    var body = F.subject(feetY: 0.9)
    body[.rightShoulder]?.conf = 0.4
    let effects = e.handle(Self.reference("R", at: 0, body: body))
    let out = effects.records(at: 0)
    // The prompt (through the prompt system, §4.4) and the `reference` line saying why.
    #expect(out.map(\.out) == ["prompt", "reference"])
    #expect(out.first?.fields["key"] == "ref_reject_not_suitable")
    #expect(out.first?.fields["zh"] == "原因：上半身不全")
    #expect(out.last?.fields["reason"] == "upper_body_incomplete")
    #expect(effects.diagnostics.map(\.event) == ["prompt_shown"])
    #expect(!e.withRefActive)
  }

  @Test("§2.3, §3.15: posespec_reload with an invalid inline spec shows its modal and pauses evaluation")
  func invalidReloadPauses() throws {
    var e = F.engine()
    _ = e.start()
    var bad = F.reference.raw.objectValue!
    bad["prdVersion"] = "v0.0.0"
    let out = e.handle(
      InputEvent(
        t: 0, payload: .justPhoto(JustPhotoEvent(kind: .posespec_reload, fields: ["sha256": "x", "spec": .object(bad)]))))
    let records = out.records(at: 0)
    #expect(records.first?.fields["result"] == "invalid")
    #expect(records.first { $0.out == "prompt" }?.fields["key"] == "posespec_version_mismatch_modal")
    // §5.3 row 7: the shutter is disabled while the spec is invalid.
    #expect(records.last.map { "\($0.out) \($0.fields["reason"]?.stringValue ?? "")" } == "shutter posespec_invalid")
    let frames = F.frames(0..<10) { _ in F.subject(dx: 0.15) }
    #expect(F.run(e, frames).filter { $0.out == "cue_display" }.isEmpty)
  }
}

/// Subject choice over time, paused states and the Match cadence option (ENGINE §3.4, §3.15,
/// §1.8 matchEvalCadence).
@Suite("Subject, pauses, Match cadence (ENGINE §3.4.4, §3.4.6, §3.15)")
struct SubjectAndPauseTests {
  typealias F = Fixture

  static func event(_ kind: EventKind, at t: Millis, _ fields: JSONObject = [:]) -> InputEvent {
    InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: kind, fields: fields)))
  }

  static func face(x: Double, size: Double, tilt: Double) -> FaceObservation {
    FaceObservation(
      bbox: Rect(x: x, y: 0.1, w: size, h: size * 1.3), conf: 0.95, leftEye: EyePoint(x: x + size * 0.3, y: 0.15),
      rightEye: EyePoint(x: x + size * 0.7, y: 0.15 + tilt))
  }

  @Test("§3.4.6: the largest face is the subject unless a subject_tap locks another; the lock ends when the face is lost")
  func tapLocks() {
    var tracker = SubjectTracker()
    let big = Self.face(x: 0.4, size: 0.15, tilt: 0)
    let small = Self.face(x: 0.1, size: 0.08, tilt: 0.02)
    #expect(tracker.subject([small, big], at: 0).index == 1)  // big
    tracker.tap(faceIndex: 0)
    #expect(tracker.subject([small, big], at: 67).index == 0)  // small, locked
    #expect(tracker.subject([], at: 133).index == nil)
    #expect(tracker.subject([small, big], at: 200).index == 1)
  }

  @Test("§3.4.4c: two identity switches within 1000 ms make FRAME_GENERAL a candidate")
  func unstableTarget() {
    var tracker = SubjectTracker()
    let a = Self.face(x: 0.4, size: 0.15, tilt: 0)
    let b = Self.face(x: 0.1, size: 0.16, tilt: 0)
    #expect(!tracker.subject([a, b.with(size: 0.1)], at: 0).unstable)
    #expect(!tracker.subject([a, b], at: 100).unstable)  // one switch
    #expect(tracker.subject([a, b.with(size: 0.1)], at: 200).unstable)  // two within 1 s
    #expect(!tracker.subject([a, b.with(size: 0.1)], at: 1300).unstable)  // window passed
  }

  @Test("§3.15: while the app is in the background nothing is evaluated; the display stays")
  func backgroundPauses() {
    var events = F.frames(0..<60) { k in F.subject(dx: k < 30 ? 0.15 : 0.0) }
    events.append(Self.event(.app_lifecycle, at: 1000, ["state": "background"]))
    events.sort { $0.t < $1.t }
    let out = F.run(F.engine(), events)
    // §5.3 row 8: the shutter goes with it (app_inactive).
    #expect(
      F.lines(out) == [
        "200 cue_display FRAME_MOVE_LEFT/hard none noRef",
        "200 script_card FRAME_MOVE_LEFT v0 FRAME_MOVE_LEFT 提示 v0 | FRAME_MOVE_LEFT en v0 frozen=false", "1000 shutter",
      ])
    #expect(out.last?.fields["reason"] == "app_inactive")
    var resumed = events
    resumed.append(Self.event(.app_lifecycle, at: 2500, ["state": "active"]))
    resumed.sort { $0.t < $1.t }
    #expect(F.run(F.engine(), resumed).contains { $0.out == "praise" })
  }

  @Test("§1.8 matchEvalCadence=t1: Match runs on the 500 ms T1 ticks, so S16's match comes at the 4th tick")
  func matchOnT1() {
    var events = [EngineWithRefTests.reference("A", at: 0, body: F.subject(feetY: 0.9))]
    events += (0..<40).map { k in
      InputEvent(
        t: F.t15(k),
        payload: .landmarks(
          LandmarkFrame(frame: Int64(k), body: F.subject(feetY: 0.9), faces: [EngineWithRefTests.liveFace()], people: 1)))
    }
    let out = F.runWithTimers(F.engine(options: ["matchEvalCadence": "t1"]), events, until: 2600)
    let matches = out.filter { $0.out == "match" }
    #expect(matches.map(\.t) == [500, 1500, 2000])
    #expect(matches.last?.fields["match"] == true)
  }
}

extension FaceObservation {
  func with(size: Double) -> FaceObservation {
    var f = self
    f.bbox.w = size
    f.bbox.h = size * 1.3
    return f
  }
}

@Suite("Reference targets from pixels (ENGINE §3.13b, §2.11)")
struct ReferencePixelTargetTests {
  @Test("§3.13b: a reference's luma plane gives pixel targets (faceLumaMean); base64 decodes exactly")
  func lumaTargets() {
    #expect(Base64.decode("AICA/w==") == [0, 128, 128, 255])
    #expect(Base64.decode("AIC") == [0, 128])
    #expect(Base64.decode("A$") == nil)
    // A 20×20 plane of value 102 (0.4): every ROI mean is 0.4.
    let plane = [UInt8](repeating: 102, count: 400)
    var b64 = ""
    let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    var i = 0
    while i < plane.count {
      let chunk = Array(plane[i..<min(i + 3, plane.count)])
      let n = (UInt32(chunk[0]) << 16) | (UInt32(chunk.count > 1 ? chunk[1] : 0) << 8) | UInt32(chunk.count > 2 ? chunk[2] : 0)
      for k in 0..<4 {
        if k <= chunk.count { b64.append(table[Int((n >> UInt32(18 - 6 * k)) & 63)]) } else { b64.append("=") }
      }
      i += 3
    }
    let luma = LumaFrame(referenceJSON: .object(["w": 20, "h": 20, "enc": "u8-b64", "data": .string(b64)]))
    #expect(luma?.data == plane)
    var e = Fixture.engine()
    _ = e.start()
    let face = FaceObservation(bbox: Rect(x: 0.4, y: 0.1, w: 0.2, h: 0.25))
    let targets = e.extractTargets(
      LandmarkFrame(frame: 0, body: Fixture.subject(), faces: [face]), scalars: [:], luma: luma)
    #expect(abs((targets["faceLumaMean"] ?? 0) - 0.4) < 1e-12)
    #expect(e.extractTargets(LandmarkFrame(frame: 0, body: Fixture.subject(), faces: [face]), scalars: [:])["faceLumaMean"] == nil)
  }
}
