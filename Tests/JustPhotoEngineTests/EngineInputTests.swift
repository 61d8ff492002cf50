import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import Replay
import Testing


/// Inputs the pipeline must cope with through `Engine.handle`: dropped joints, vanished
/// subjects, crowds, frame rates, scene switches, traces (ENGINE §2.4, §3.4, §3.6, §3.11).
@Suite("Engine inputs and availability (ENGINE §3.4, §3.6, §3.11)")
struct EngineInputTests {
  typealias F = Fixture

  func cue(_ record: TraceRecord, _ id: String) -> JSONObject? { F.cueEval(record, id) }

  func rightOfCentre(_ count: Int = 10) -> [InputEvent] { F.frames(0..<count) { _ in F.subject(dx: 0.15) } }

  @Test("G-48: FRAME_DONT_CROP_FEET never fires with the PS thresholds — dropped ankles are unavailable, kept ones ≥ 0")
  func g48() throws {
    for (feetY, conf) in [(1.05, 0.9), (0.98, 0.3), (0.999, 0.9), (1.0, 0.9)] {
      let out = F.run(F.engine(traceMetrics: true), F.frames(0..<40) { _ in F.subject(feetY: feetY, ankleConf: conf) })
      #expect(F.lines(out) == [], "ankles at y=\(feetY) conf \(conf)")
      let feet = out.filter { $0.out == "cue_eval" }.compactMap { cue($0, "FRAME_DONT_CROP_FEET") }
      #expect(feet.count == 40)
      #expect(feet.allSatisfy { $0["level"] == "none" || $0["level"] == "exit" })
      if feetY > 1 || conf < 0.5 { #expect(feet.allSatisfy { $0["reason"] == "bbox_invalid:insufficientPoints" }) }
    }
    // The engine can fire it: with non-negative thresholds the same kept ankles trigger it.
    let fixed = try F.referenceEdited {
      F.setCue(
        "FRAME_DONT_CROP_FEET", ["trigger", "noRef"],
        .object(["warn": .object(["<": 0.05]), "hard": .object(["<": 0.02]), "exit": .object([">=": 0.1])]), in: &$0)
    }
    let out = F.run(F.engine(fixed), F.frames(0..<10) { _ in F.subject(feetY: 0.999) })
    #expect(F.lines(out).first == "200 cue_display FRAME_DONT_CROP_FEET/hard none noRef")
  }

  @Test(
    "G-49: with ankles dropped DIST_STEP_CLOSER fires on the shoulders alone (perCue); bboxRequiresAllListed silences it"
  )
  func g49() {
    let tilted = F.body([
      (.leftShoulder, 0.6, 0.37, 0.9), (.rightShoulder, 0.4, 0.39, 0.9), (.leftHip, 0.58, 0.67, 0.9),
      (.rightHip, 0.42, 0.67, 0.9), (.leftAnkle, 0.56, 1.02, 0.9), (.rightAnkle, 0.44, 1.02, 0.9),
    ])
    let events = F.frames(0..<10) { _ in tilted }
    #expect(F.lines(F.run(F.engine(), events)).first == "200 cue_display DIST_STEP_CLOSER/hard none noRef")
    #expect(F.lines(F.run(F.engine(options: ["bboxRequiresAllListed": "true"]), events)) == [])
  }

  @Test("§3.4.3–4: a vanished subject deactivates the cue without exit; FRAME_GENERAL takes over after the hold")
  func fallback() {
    let events = F.frames(0..<50) { k in k < 10 ? F.subject(dx: 0.15) : nil }
    let out = F.run(F.engine(traceMetrics: true), events)
    #expect(
      F.lines(out) == [
        "200 cue_display FRAME_MOVE_LEFT/hard none noRef",
        "200 script_card FRAME_MOVE_LEFT v0 FRAME_MOVE_LEFT 提示 v0 | FRAME_MOVE_LEFT en v0 frozen=false",
        // §4.6 subject_lost: 2000 ms after the last frame with a subject (frame 9, t=600).
        "2600 prompt",
        "3200 cue_display FRAME_GENERAL/warn none noRef",
        "3200 script_card FRAME_GENERAL v0 FRAME_GENERAL 提示 v0 | FRAME_GENERAL en v0 frozen=false",
      ])
    let evals = Dictionary(uniqueKeysWithValues: out.filter { $0.out == "cue_eval" }.map { ($0.t, $0) })
    #expect(cue(evals[667]!, "FRAME_MOVE_LEFT")?["reason"] == "deactivated:missing_input:no_pose")
    #expect(cue(evals[667]!, "FRAME_GENERAL")?["reason"] == "fallback:FRAME_MOVE_LEFT")
    #expect(cue(evals[733]!, "FRAME_GENERAL")?["state"] == "inactive")  // 133 ms since the last tracked frame
    #expect(cue(evals[867]!, "FRAME_GENERAL")?["state"] == "inactive")  // 267 ms
    #expect(cue(evals[933]!, "FRAME_GENERAL")?["reason"] == "fallback:tracking_lost")  // 333 ms > 300
    #expect(!out.contains { r in r.out == "cue_eval" && cue(r, "FRAME_MOVE_LEFT")?["reason"] == "exit_crossed" })
  }

  @Test("§3.4.5: with ≥ 2 people only multiPersonDegradeTo cues are candidates (list read from the spec)")
  func multiPerson() throws {
    let events = F.frames(0..<10, people: 2) { _ in F.subject(dx: 0.15) }
    #expect(F.lines(F.run(F.engine(), events)).count == 2)
    let narrowed = try F.referenceEdited {
      F.setPath(.array(["FRAME_GENERAL"]), ["defaults", "confidence", "multiPersonDegradeTo"], in: &$0)
    }
    #expect(F.lines(F.run(F.engine(narrowed), events)) == [])
    #expect(F.lines(F.run(F.engine(narrowed), F.frames(0..<10, people: 1) { _ in F.subject(dx: 0.15) })).count == 2)
  }

  @Test("§3.11: landmarks ≥ 63 ms apart are evaluated; closer ones and repeated frame ids are not")
  func frameAcceptance() {
    func evaluated(_ events: [InputEvent]) -> [Millis] {
      F.run(F.engine(traceMetrics: true), events).filter { $0.out == "cue_eval" }.map(\.t)
    }
    let thirtyHz = (0..<12).map { F.landmarks($0, at: Millis((Double($0) * 1000 / 30).rounded()), body: F.subject()) }
    #expect(evaluated(thirtyHz) == [0, 67, 133, 200, 267, 333])
    #expect(
      evaluated([0, 62, 63, 125, 126].enumerated().map { F.landmarks($0.offset, at: $0.element, body: nil) }) == [
        0, 63, 126,
      ])
    let repeated = [(0, 0), (0, 67), (1, 133), (1, 200), (2, 267)].map {
      F.landmarks($0.0, at: Millis($0.1), body: nil)
    }
    #expect(evaluated(repeated) == [0, 133, 267])
    // At 30 Hz input the display still needs 4 evaluated frames: t=200.
    let fast = (0..<12).map {
      F.landmarks($0, at: Millis((Double($0) * 1000 / 30).rounded()), body: F.subject(dx: 0.15))
    }
    #expect(F.lines(F.run(F.engine(), fast)).first == "200 cue_display FRAME_MOVE_LEFT/hard none noRef")
  }

  @Test("§3.6: base ∪ uiScene; ui_scene switches the set and resets hysteresis")
  func scenes() {
    let engine = F.engine(scene: "outdoor", traceMetrics: true)
    #expect(engine.scene == "outdoor")
    let first = F.run(engine, [F.landmarks(0, at: 0, body: F.subject())])[0]
    let skipped = first.fields["unsupported"]!.objectValue!.keys
    #expect(skipped.contains("OUT_07_LANDMARK_ALIGN_X"))  // withRef only
    #expect(!skipped.contains("CAFE_01_FACE_TOO_DARK"))
    #expect(!skipped.contains("OUT_01_FACE_IN_SHADOW"))  // a T1 cue: evaluated on T1 ticks
    #expect(first.fields["cues"]!.objectValue!.keys.first == "FRAME_MOVE_LEFT")
    #expect(F.engine(scene: nil).scene == "cafe")

    // LEFT shown, then the dead-band: shown forever — unless a scene switch resets hysteresis.
    // (dx 0.069: in cafe CAFE_12 stays quiet only for x ≤ 0.57, §8 G-51.)
    let base = F.frames(0..<60) { k in F.subject(dx: k < 4 ? 0.15 : 0.069) }
    #expect(F.lines(F.run(F.engine(scene: "cafe"), base)).count == 2)
    let switched = Array(base[0..<4]) + [F.scene("outdoor", at: 250)] + Array(base[4...])
    #expect(
      Array(F.lines(F.run(F.engine(scene: "cafe"), switched)).suffix(2)) == [
        "3200 cue_display null/none none noRef", "3200 script_card null vnull null | null frozen=false",
      ])
    // Switching to the scene already shown changes nothing.
    let same = Array(base[0..<4]) + [F.scene("cafe", at: 250)] + Array(base[4...])
    #expect(F.lines(F.run(F.engine(scene: "cafe"), same)).count == 2)
  }

  @Test("§1.8 cue_eval: one record per evaluation, before cue_display, per cue level/error/severity/state/reason")
  func cueEvalShape() throws {
    let out = F.run(F.engine(scene: "cafe", traceMetrics: true), rightOfCentre(4))
    #expect(out.map(\.out) == ["cue_eval", "cue_eval", "cue_eval", "cue_eval", "cue_display", "script_card"])
    let left = try #require(cue(out[0], "FRAME_MOVE_LEFT"))
    #expect(left["level"] == "hard")
    #expect(abs(left["error"]!.doubleValue! - 0.15) < 1e-12)
    #expect(abs(left["severity"]!.doubleValue! - 1.25) < 1e-12)
    #expect(left["state"] == "active:hard")
    #expect(left["reason"] == "entered")
    #expect(cue(out[1], "FRAME_MOVE_LEFT")?["reason"] == .null)
    #expect(cue(out[0], "DIST_STEP_CLOSER")?["state"] == "unavailable")
    #expect(out[0].fields["unsupported"]?["CAFE_12_CAFE_THIRDS_COMPOSE"] == nil)
    #expect(cue(out[0], "CAFE_12_CAFE_THIRDS_COMPOSE")?["level"] == "exit")  // x 0.65 is near 2/3
    #expect(out[0].fields["unsupported"]?["OUT_07_LANDMARK_ALIGN_X"] == nil)  // not in cafe
    #expect(out[0].fields["ranked"] == ["FRAME_MOVE_LEFT"])
    #expect(
      out[0].fields["gate"]
        == .object([
          "cue_id": .null, "level": "none", "reason": "frames", "input": "FRAME_MOVE_LEFT", "stable_frames": 1,
          "persist_frames": 4, "held_ms": 0, "min_hold_ms": 3000,
        ]))
    #expect(out[3].fields["gate"]?["cue_id"] == "FRAME_MOVE_LEFT")
    #expect(out[3].fields["gate"]?["reason"] == "none")
    #expect(out[3].fields["gate"]?["stable_frames"] == 4)  // persistFrames 4 reached (§3.9)
    // The thresholds the level was judged against (issue 14: a reader needs no spec at hand).
    #expect(left["thresholds"] == .object(["hard": ">0.12", "warn": ">0.07", "enter": .null, "exit": "<=0.04"]))
    #expect(out[0].fields["frame"] == 0)
    #expect(out[0].fields["scene"] == "cafe")
  }

  @Test("§1.3: the engine is a value — copies replay identically; vision input equals its canonical mirror")
  func determinism() {
    let events = F.frames(0..<70) { k in F.subject(dx: k % 30 < 20 ? 0.15 : -0.2, dy: k % 7 == 0 ? 0.2 : 0) }
    var a = F.engine(traceMetrics: true)
    var outA = events[0..<30].flatMap { a.handle($0).records(at: $0.t) }
    var b = a
    outA += events[30...].flatMap { a.handle($0).records(at: $0.t) }
    let outB = events[30...].flatMap { b.handle($0).records(at: $0.t) }
    #expect(Array(outA[(outA.count - outB.count)...]) == outB)
    #expect(outA == F.run(F.engine(traceMetrics: true), events))
    // The same subject recorded y-up gives the same trace.
    let flipped = events.map { ev -> InputEvent in
      guard case .landmarks(var f) = ev.payload else { return ev }
      for j in Joint.allCases { if let p = f.body?[j] { f.body![j] = JointPoint(x: p.x, y: 1 - p.y, conf: p.conf) } }
      f.coords = .vision
      return InputEvent(t: ev.t, payload: .landmarks(f))
    }
    #expect(F.lines(F.run(F.engine(), flipped)) == F.lines(outA))
  }
}
