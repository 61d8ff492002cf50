import PoseSpec
import Testing

@testable import CoachEngine

/// The composition metrics and their registry (ENGINE §2.9–2.10, §3.2, §3.4.1–2).
@Suite("Composition metrics (ENGINE §2.10)")
struct MetricTests {
  func plan(_ id: String, _ spec: PoseSpecDocument = Fixture.reference, options: EngineOptions = EngineOptions())
    -> CuePlan
  {
    CuePlan(spec.cue(id: id)!, options: options)
  }

  func observe(_ id: String, _ body: BodyPose?, options: EngineOptions = EngineOptions()) -> MetricObservation {
    let frame = Canonicalizer.canonicalize(LandmarkFrame(frame: 1, body: body), minLandmarkConfidence: 0.5)
    return plan(id, options: options).observe(frame, options: MetricOptions(options))
  }

  @Test("§2.8: exactly the 8 composition cues bind to implemented metrics, with spec constants")
  func registryBindsCompositionCues() {
    let bound = Fixture.reference.cues.compactMap { cue -> String? in
      if case .bbox(let m, let params) = CuePlan(cue, options: EngineOptions()).metric {
        return "\(cue.id)=\(m.rawValue)\(params.map { "(\($0))" }.joined())"
      }
      return nil
    }
    #expect(
      bound == [
        "FRAME_MOVE_LEFT=centerXOffset(0.5)", "FRAME_MOVE_RIGHT=centerXOffset(0.5)",
        "FRAME_MOVE_UP=centerYOffset(0.52)", "FRAME_MOVE_DOWN=centerYOffset(0.52)",
        "DIST_STEP_CLOSER=bboxHeight", "DIST_STEP_BACK=bboxHeight", "FRAME_ADD_HEADROOM=headroom",
        "FRAME_DONT_CROP_FEET=bottomMargin(1.0)",
      ])
    #expect(plan("CAFE_12_CAFE_THIRDS_COMPOSE").metric == .unsupported("metric distToThird not implemented"))
    #expect(
      plan("OUT_14_OUTDOOR_COMPOSE_MORE_LANDMARK").metric
        == .unsupported("error expression 'bboxHeight - 0.62' needs the formula compiler"))
    #expect(plan("OUT_07_LANDMARK_ALIGN_X").metric == .unsupported("no noRef trigger"))
  }

  @Test("§3.2: the formula in the spec decides — a changed constant is used, a changed shape is not run")
  func formulaFromSpec() throws {
    let shifted = try Fixture.referenceEdited {
      Fixture.setCue(
        "FRAME_MOVE_UP", ["metric", "formula"], "centerYOffset = center(bbox(bodyPoints)).y - 0.4", in: &$0)
      Fixture.setCue(
        "FRAME_MOVE_DOWN", ["metric", "formula"], "centerYOffset = center(bbox(bodyPoints)).y * 2", in: &$0)
    }
    #expect(plan("FRAME_MOVE_UP", shifted).metric == .bbox(.centerYOffset, params: [0.4]))
    guard case .unsupported(let why) = plan("FRAME_MOVE_DOWN", shifted).metric else {
      Issue.record("a formula of another shape must not be evaluated")
      return
    }
    #expect(why.contains("not the implemented shape"))
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
    // Hips 0.45: still dropped, but the mean 0.525 passes; the box shrinks to the shoulders (G‑49).
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
}
