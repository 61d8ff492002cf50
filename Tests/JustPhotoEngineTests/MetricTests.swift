@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Foundation
import PoseSpec
import Testing


/// The composition metrics and their registry (ENGINE §2.9–2.10, §3.2, §3.4.1–2).
@Suite("Composition metrics (ENGINE §2.10)")
struct MetricTests {
  func plan(_ id: String, _ spec: PoseSpecDocument = Fixture.reference, options: EngineOptions = EngineOptions())
    -> CuePlan
  {
    let program = try! PoseSpecCompiler.compile(spec, formulaFirst: options.errorSourceFormulaFirst)
    let cue = spec.cue(id: id)!
    return CuePlan(cue, program: program.cues[cue.index])
  }

  func observe(
    _ id: String, _ body: BodyPose?, faces: [FaceObservation] = [], _ spec: PoseSpecDocument = Fixture.reference,
    options: EngineOptions = EngineOptions()
  ) -> MetricObservation {
    let frame = Canonicalizer.canonicalize(LandmarkFrame(frame: 1, body: body, faces: faces), minLandmarkConfidence: 0.5)
    return plan(id, spec, options: options).observe(
      MetricContext(frame: frame, face: SubjectChoice.face(frame.faces), options: MetricOptions(options)))
  }

  @Test("§2.8, §3.2: every cue but FRAME_GENERAL is evaluated (T1 cues on T1 ticks); OUT_07…10 only with a reference")
  func evaluatedCues() {
    let evaluated = Fixture.reference.cues.filter { plan($0.id).isEvaluated }.map(\.id)
    #expect(evaluated.count == 49)
    #expect(Fixture.reference.cues.filter { plan($0.id).isEvaluated && plan($0.id).isT1 }.count == 23)
    #expect(!plan("OUT_07_LANDMARK_ALIGN_X").takesPart(withRefSession: false))
    #expect(plan("OUT_07_LANDMARK_ALIGN_X").takesPart(withRefSession: true))
    #expect(plan("CAFE_02_FACE_BACKLIT").takesPart(withRefSession: true))  // noRef rules in a withRef session
    #expect(evaluated.contains("CAFE_12_CAFE_THIRDS_COMPOSE"))
    #expect(evaluated.contains("OUT_14_OUTDOOR_COMPOSE_MORE_LANDMARK"))
    #expect(evaluated.contains("OUT_03_SUN_SQUINT"))
    #expect(plan("CAFE_01_FACE_TOO_DARK").isEvaluated)
    #expect(plan("FRAME_GENERAL").notEvaluated == "system fallback cue")
  }

  @Test("Cues with identical compiled formulas, landmarks and gate share one evaluation per frame")
  func sharedEvaluationSlots() {
    let (plans, index) = Engine.plans(for: Fixture.reference, settings: EngineSettings(EngineOptions()))
    func slot(_ id: String) -> Int { plans[index[id]!].evaluationSlot }
    #expect(slot("FRAME_MOVE_RIGHT") == slot("FRAME_MOVE_LEFT"))
    #expect(slot("FRAME_MOVE_DOWN") == slot("FRAME_MOVE_UP"))
    #expect(slot("DIST_STEP_BACK") == slot("DIST_STEP_CLOSER"))
    #expect(slot("SHOULDER_LEVEL_RIGHT_DOWN") == slot("SHOULDER_LEVEL_LEFT_DOWN"))
    #expect(slot("CHIN_UP") == slot("CHIN_DOWN"))
    // Same metric name, other landmarks or formula: their own evaluation.
    #expect(slot("FRAME_MOVE_UP") != slot("FRAME_MOVE_LEFT"))
    #expect(slot("OUT_14_OUTDOOR_COMPOSE_MORE_LANDMARK") != slot("DIST_STEP_CLOSER"))
    #expect(slot("CAFE_15_SEATED_POSTURE_STRAIGHT") != slot("TORSO_STRAIGHTEN"))
    #expect(Set(plans.map(\.evaluationSlot)).count == 45)
  }

  @Test("§3.2: the formula in the spec decides — a changed constant or a changed shape is what runs")
  func formulaFromSpec() throws {
    let shifted = try Fixture.referenceEdited {
      Fixture.setCue(
        "FRAME_MOVE_UP", ["metric", "formula"], "centerYOffset = center(bbox(bodyPoints)).y - 0.4", in: &$0)
      Fixture.setCue(
        "FRAME_MOVE_DOWN", ["metric", "formula"], "centerYOffset = center(bbox(bodyPoints)).y * 2", in: &$0)
    }
    let body = Fixture.subject(dx: 0.15, dy: -0.05, feetY: 0.95)
    guard case .value(let up) = observe("FRAME_MOVE_UP", body, shifted) else { throw Failure() }
    #expect(abs(up - (0.47 - 0.4)) < 1e-12)
    guard case .value(let down) = observe("FRAME_MOVE_DOWN", body, shifted) else { throw Failure() }
    #expect(abs(down - 0.47 * 2) < 1e-12)
  }

  @Test("§2.10: line angles, distances, ratios and elbow angles from the compiled formulas")
  func geometryMetrics() throws {
    // A camera-facing subject: leftShoulder at image right (§2.6), level shoulders.
    let body = Fixture.body([
      (.leftShoulder, 0.60, 0.40, 0.9), (.rightShoulder, 0.45, 0.40, 0.9),
      (.leftHip, 0.58, 0.70, 0.9), (.rightHip, 0.47, 0.70, 0.9),
      (.leftElbow, 0.62, 0.55, 0.9), (.leftWrist, 0.62, 0.70, 0.9),
      (.rightElbow, 0.45, 0.55, 0.9), (.rightWrist, 0.30, 0.55, 0.9),
      (.leftAnkle, 0.56, 0.95, 0.9), (.rightAnkle, 0.48, 0.95, 0.9),
    ])
    // §8 G-5: atan2(0, −0.15) = 180° literally.
    guard case .value(let shoulder) = observe("SHOULDER_LEVEL_LEFT_DOWN", body) else { throw Failure() }
    #expect(abs(shoulder - 180) < 1e-9)
    // SHOULDERS_OPEN: 0.15 / 0.11.
    guard case .value(let ratio) = observe("SHOULDERS_OPEN", body) else { throw Failure() }
    #expect(abs(ratio - 0.15 / 0.11) < 1e-9)
    // ARMS_RELAX: left arm straight down (180°), right elbow bent 90° → min 90.
    guard case .value(let elbow) = observe("ARMS_RELAX", body) else { throw Failure() }
    #expect(abs(elbow - 90) < 1e-9)
    // WEIGHT_SHIFT: hipMid.x − ankleMid.x = 0.525 − 0.52.
    guard case .value(let offset) = observe("WEIGHT_SHIFT", body) else { throw Failure() }
    #expect(abs(offset - 0.005) < 1e-9)
    // §8 G-6: the torso lean of an upright subject in y-down is ±180° literally.
    guard case .value(let torso) = observe("TORSO_STRAIGHTEN", body) else { throw Failure() }
    #expect(abs(abs(torso) - 180) < 1.0)
    // CAFE_12: personCenter over shoulders+hips, x = 0.525 → min(|0.525−1/3|, |0.525−2/3|).
    guard case .value(let third) = observe("CAFE_12_CAFE_THIRDS_COMPOSE", body) else { throw Failure() }
    #expect(abs(third - (2.0 / 3.0 - 0.525)) < 1e-9)
    // OUT_14 inlines DIST's bboxHeight over its own landmarks (shoulders+hips): 0.30 − 0.62.
    guard case .value(let out14) = observe("OUT_14_OUTDOOR_COMPOSE_MORE_LANDMARK", body) else { throw Failure() }
    #expect(abs(out14 - (0.30 - 0.62)) < 1e-9)
  }

  @Test("§8 G-5…G-7 angleFix=on: folded line angles, upright torso 0°, y-down CAFE_13/14 signs (S44)")
  func angleFix() throws {
    var fixed = EngineOptions()
    try fixed.set("angleFix", "on")
    let body = Fixture.body([
      (.nose, 0.52, 0.25, 0.9),
      (.leftShoulder, 0.60, 0.40, 0.9), (.rightShoulder, 0.45, 0.40, 0.9),
      (.leftHip, 0.58, 0.70, 0.9), (.rightHip, 0.47, 0.70, 0.9),
      (.leftWrist, 0.62, 0.70, 0.9), (.rightWrist, 0.45, 0.72, 0.9),
    ])
    guard case .value(let shoulder) = observe("SHOULDER_LEVEL_LEFT_DOWN", body, options: fixed) else { throw Failure() }
    #expect(abs(shoulder) < 1e-9)
    guard case .value(let torso) = observe("TORSO_STRAIGHTEN", body, options: fixed) else { throw Failure() }
    #expect(abs(torso) < 1.0)
    // CAFE_14: neckGap = (shoulderMid.y − nose.y) / torsoLen under the fix → positive.
    guard case .value(let literal) = observe("CAFE_14_SHRUG_DETECTED", body) else { throw Failure() }
    guard case .value(let fix) = observe("CAFE_14_SHRUG_DETECTED", body, options: fixed) else { throw Failure() }
    let torsoLen = ((0.525 - 0.525) * (0.525 - 0.525) + 0.3 * 0.3).squareRoot()
    #expect(abs(literal - (0.22 - (0.25 - 0.40) / torsoLen)) < 1e-9)
    #expect(abs(fix - (0.22 - (0.40 - 0.25) / torsoLen)) < 1e-9)
    // CAFE_13: gap = mouth.y − min(wrist.y) needs the face mouth.
    let face = FaceObservation(bbox: Rect(x: 0.45, y: 0.15, w: 0.12, h: 0.15), mouth: Point2(x: 0.51, y: 0.27))
    guard case .value(let gap) = observe("CAFE_13_KEEP_FACE_CLEAR_OF_MENU", body, faces: [face], options: fixed)
    else { throw Failure() }
    #expect(abs(gap - (0.06 - (0.70 - 0.27))) < 1e-9)
    #expect(observe("CAFE_13_KEEP_FACE_CLEAR_OF_MENU", body) == .unavailable("missing_input:no_face"))
  }

  @Test("§8 G-6 angleFix=on: the torso lean is a direction, never folded — an inverted torso reads ±180°, not 0°")
  func torsoLeanIsNeverFolded() throws {
    var fixed = EngineOptions()
    try fixed.set("angleFix", "on")
    func torso(_ id: String, shoulders: (Double, Double), hips: (Double, Double)) throws -> Double {
      let body = Fixture.body([
        (.leftShoulder, shoulders.0 + 0.075, shoulders.1, 0.9), (.rightShoulder, shoulders.0 - 0.075, shoulders.1, 0.9),
        (.leftHip, hips.0 + 0.055, hips.1, 0.9), (.rightHip, hips.0 - 0.055, hips.1, 0.9),
      ])
      guard case .value(let v) = observe(id, body, options: fixed) else { throw Failure() }
      return v
    }
    // Upright: 0°. Leaning (hips 0.1 right of the shoulders over 0.3): atan2(0.1, 0.3).
    #expect(abs(try torso("TORSO_STRAIGHTEN", shoulders: (0.5, 0.4), hips: (0.5, 0.7))) < 1e-9)
    let lean = try torso("TORSO_STRAIGHTEN", shoulders: (0.5, 0.4), hips: (0.6, 0.7))
    #expect(abs(lean - atan2(0.1, 0.3) * 180 / .pi) < 1e-9)
    // Inverted (hips above the shoulders): ±180°, where a folded line would read 0°.
    let inverted = try torso("TORSO_STRAIGHTEN", shoulders: (0.5, 0.7), hips: (0.5, 0.4))
    #expect(abs(abs(inverted) - 180) < 1e-9)
    // Past horizontal (hips 0.3 right, 0.05 above): 99.46°, not the folded −80.54°.
    let past = try torso("TORSO_STRAIGHTEN", shoulders: (0.4, 0.55), hips: (0.7, 0.5))
    #expect(abs(past - atan2(0.3, -0.05) * 180 / .pi) < 1e-9 && past > 90)
    // CAFE_15 inlines the same direction: abs(±180) − 8 = 172 (hard), not abs(0) − 8.
    #expect(abs(try torso("CAFE_15_SEATED_POSTURE_STRAIGHT", shoulders: (0.5, 0.7), hips: (0.5, 0.4)) - 172) < 1e-9)
  }

  @Test("§2.6, §2.10: face metrics — eye line, nose-to-chin (bbox-bottom chin by default), hands off face")
  func faceMetrics() throws {
    let face = FaceObservation(
      bbox: Rect(x: 0.40, y: 0.10, w: 0.20, h: 0.25), conf: 0.9,
      leftEye: EyePoint(x: 0.45, y: 0.18), rightEye: EyePoint(x: 0.55, y: 0.20), nose: Point2(x: 0.50, y: 0.24))
    let body = Fixture.body([(.leftWrist, 0.5, 0.40, 0.9), (.rightWrist, 0.9, 0.9, 0.9)])
    guard case .value(let eyeLine) = observe("HEAD_LEVEL", body, faces: [face]) else { throw Failure() }
    #expect(abs(eyeLine - atan2(0.02, 0.10) * 180 / .pi) < 1e-9)
    // chinCenter = (0.5, 0.35); noseTip falls back to the nose centroid (0.5, 0.24).
    guard case .value(let chin) = observe("CHIN_UP", body, faces: [face]) else { throw Failure() }
    #expect(abs(chin - 0.11 / 0.25) < 1e-9)
    // HAND_OFF_FACE: faceCenter (0.5, 0.225); left wrist 0.175 below → 0.175 / 0.20.
    guard case .value(let hand) = observe("HAND_OFF_FACE", body, faces: [face]) else { throw Failure() }
    #expect(abs(hand - 0.175 / 0.20) < 1e-9)
    #expect(observe("HEAD_LEVEL", body) == .unavailable("missing_input:no_face"))
    // The largest face is the subject (§3.4.6).
    let small = FaceObservation(bbox: Rect(x: 0.1, y: 0.1, w: 0.05, h: 0.05), leftEye: EyePoint(x: 0.11, y: 0.12), rightEye: EyePoint(x: 0.14, y: 0.12))
    guard case .value(let again) = observe("HEAD_LEVEL", body, faces: [small, face]) else { throw Failure() }
    #expect(again == eyeLine)
  }

  @Test("§2.10: perCue bbox over the cue's own kept body points")
  func perCueValues() throws {
    let body = Fixture.subject(dx: 0.15, dy: -0.05, feetY: 0.95)
    guard case .value(let cx) = observe("FRAME_MOVE_LEFT", body) else { throw Failure() }
    #expect(abs(cx - 0.15) < 1e-12)
    guard case .value(let cy) = observe("FRAME_MOVE_UP", body) else { throw Failure() }
    #expect(abs(cy - -0.05) < 1e-12)
    // DIST_*: shoulders (y 0.32) to ankles (0.95).
    guard case .value(let h) = observe("DIST_STEP_CLOSER", body) else { throw Failure() }
    #expect(abs(h - 0.63) < 1e-12)
    // Headroom at the nose (0.22), bottom margin under the ankles.
    guard case .value(let head) = observe("FRAME_ADD_HEADROOM", body) else { throw Failure() }
    #expect(abs(head - 0.22) < 1e-12)
    guard case .value(let bottom) = observe("FRAME_DONT_CROP_FEET", body) else { throw Failure() }
    #expect(abs(bottom - 0.05) < 1e-12)
  }

  @Test("§2.10: ≥ 2 points with a height, bottomMargin ≥ 1 point; no body → missing_input:no_pose")
  func availability() {
    // Only the shoulders survive for DIST_* (ankles absent): same y → degenerate.
    #expect(observe("DIST_STEP_CLOSER", Fixture.subject()) == .unavailable("bbox_invalid:degenerateBBox"))
    // One ankle is enough for bottomMargin, none is not.
    let oneAnkle = Fixture.body([(.leftAnkle, 0.5, 0.9, 0.9), (.rightAnkle, 0.4, 0.9, 0.2)])
    #expect(observe("FRAME_DONT_CROP_FEET", oneAnkle) == .value(1.0 - 0.9))
    #expect(observe("FRAME_DONT_CROP_FEET", Fixture.subject()) == .unavailable("bbox_invalid:insufficientPoints"))
    #expect(observe("FRAME_MOVE_LEFT", nil) == .unavailable("missing_input:no_pose"))
  }

  @Test("§3.4.2: the confidence gate averages present points, dropped ones included")
  func confidenceGate() throws {
    // Shoulders 0.6 (kept, different heights), hips 0.3 (dropped): box from shoulders,
    // mean (0.6+0.6+0.3+0.3)/4 = 0.45 < 0.5 → unavailable.
    func body(hipConf: Double) -> BodyPose {
      Fixture.body([
        (.leftShoulder, 0.6, 0.30, 0.6), (.rightShoulder, 0.4, 0.32, 0.6),
        (.leftHip, 0.58, 0.6, hipConf), (.rightHip, 0.42, 0.6, hipConf),
      ])
    }
    #expect(observe("FRAME_MOVE_LEFT", body(hipConf: 0.3)) == .unavailable("low_confidence"))
    // Hips 0.45: still dropped, but the mean 0.525 passes; the box shrinks to the shoulders (G-49).
    // The comparison is strict (< minConfidence fails): a mean of exactly 0.5 passes, 0.47 not.
    func body(_ s: Double, _ h: Double) -> BodyPose {
      Fixture.body([
        (.leftShoulder, 0.6, 0.30, s), (.rightShoulder, 0.4, 0.32, s), (.leftHip, 0.58, 0.6, h),
        (.rightHip, 0.42, 0.6, h),
      ])
    }
    #expect(observe("FRAME_MOVE_LEFT", body(0.75, 0.25)) != .unavailable("low_confidence"))
    #expect(observe("FRAME_MOVE_LEFT", body(0.75, 0.19)) == .unavailable("low_confidence"))
    guard case .value(let cx) = observe("FRAME_MOVE_LEFT", body(hipConf: 0.45)) else { throw Failure() }
    #expect(abs(cx) < 1e-12)
  }

  @Test("§1.8 bboxRequiresAllListed: a dropped listed joint makes the bbox metric unavailable")
  func requiresAllListed() throws {
    var options = EngineOptions()
    try options.set("bboxRequiresAllListed", "true")
    let body = Fixture.subject(feetY: 0.95, ankleConf: 0.2)
    #expect(
      observe("DIST_STEP_CLOSER", body, options: options)
        == .unavailable("missing_input:leftAnkle=low_conf|rightAnkle=low_conf"))
    guard case .value = observe("DIST_STEP_CLOSER", Fixture.subject(dy: 0.01, feetY: 0.95)) else { throw Failure() }
  }

  @Test("§2.10 allJoints [C]: one box over every kept extracted joint (no nose), ≥ 3 points")
  func allJoints() throws {
    var options = EngineOptions()
    try options.set("bodyPointsScope", "allJoints")
    // Nose is not extracted by [C]; the box spans shoulders (0.37) to ankles (0.95).
    let body = Fixture.subject(feetY: 0.95)
    guard case .value(let head) = observe("FRAME_ADD_HEADROOM", body, options: options) else { throw Failure() }
    #expect(abs(head - 0.37) < 1e-12)
    guard case .value(let cy) = observe("FRAME_MOVE_UP", body, options: options) else { throw Failure() }
    #expect(abs(cy - ((0.37 + 0.95) / 2 - 0.52)) < 1e-12)
    let two = Fixture.body([(.leftShoulder, 0.6, 0.3, 0.9), (.rightHip, 0.4, 0.6, 0.9)])
    #expect(observe("FRAME_MOVE_LEFT", two, options: options) == .unavailable("bbox_invalid:insufficientPoints"))
  }

  struct Failure: Error {}

  @Test("§3.4.2 / §8 G-52: face.landmarks enters the confidence gate at landmark_conf_avg, so OUT_15 hard (avgConf < 0.45) is unreachable")
  func faceLandmarksGate() {
    func face(_ c: Double) -> FaceObservation {
      FaceObservation(bbox: Rect(x: 0.4, y: 0.2, w: 0.2, h: 0.12), conf: 0.9, landmarkConfAvg: c)
    }
    guard case .value(let warn) = observe("OUT_15_HAIR_COVERS_FACE", nil, faces: [face(0.5)]) else {
      Issue.record("OUT_15 unavailable at avgConf 0.5")
      return
    }
    #expect(abs(warn - 0.05) < 1e-9)  // warn (> 0), not hard
    #expect(observe("OUT_15_HAIR_COVERS_FACE", nil, faces: [face(0.45)]) == .value(0.55 - 0.45))
    #expect(observe("OUT_15_HAIR_COVERS_FACE", nil, faces: [face(0.4)]) == .unavailable("low_confidence"))
  }
}
