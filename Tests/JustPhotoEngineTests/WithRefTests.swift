@testable import JustPhotoEngine
import EngineIO
import PoseSpec
import Testing


/// withRef Match, mirror, reference gates and target store (ENGINE §3.13, §3.14).
@Suite("withRef (ENGINE §3.13–3.14)")
struct WithRefTests {
  typealias F = Fixture

  static let required = [
    "FRAME_MOVE_LEFT", "FRAME_MOVE_RIGHT", "FRAME_MOVE_UP", "FRAME_MOVE_DOWN", "SHOULDER_LEVEL_LEFT_DOWN",
    "SHOULDER_LEVEL_RIGHT_DOWN", "HIP_SQUARE", "TORSO_STRAIGHTEN", "HEAD_LEVEL",
  ]
  static let sixGroupsAlphabetical = [
    "FRAME_MOVE_LEFT", "FRAME_MOVE_DOWN", "HEAD_LEVEL", "HIP_SQUARE", "SHOULDER_LEVEL_LEFT_DOWN", "TORSO_STRAIGHTEN",
  ]
  /// The reference targets of CON lines 797–806 (8 finite values; hips below the frame).
  static let conTargets: [String: Double] = [
    "bboxHeight": 0.22757, "bottomMargin": 0.38139, "centerXOffset": 0.02672, "centerYOffset": -0.01517,
    "eyeLineAngleDeg": 7.50608, "headroom": 0.39104, "noseToChinRatio": 0.50303, "shoulderAngleDeg": 169.50846,
  ]
  /// The six strong metrics of the required cues, all 0 (S15–S17).
  static let zeroTargets: [String: Double] = [
    "centerXOffset": 0, "centerYOffset": 0, "shoulderAngleDeg": 0, "hipAngleDeg": 0, "torsoLeanAngleDeg": 0,
    "eyeLineAngleDeg": 0,
  ]

  static func live(_ values: [String: Double]) -> [String: MetricSample] { values.mapValues { .value($0) } }

  /// Live samples with no pose and no face (CON line 816): every metric unavailable.
  static let noPose: [String: MetricSample] = Dictionary(
    uniqueKeysWithValues: MatchDecider.strongMetrics.map { m in
      let face = m == "eyeLineAngleDeg" || m == "noseToChinRatio"
      return (m, MetricSample.unavailable(detail: face ? "missing_input:no_face" : "missing_input:no_pose", metric: m))
    })

  func decider(_ scene: String = "cafe") -> MatchDecider { MatchDecider(spec: F.reference, scene: scene) }

  /// `blocked_by` of `n` evaluations of the same inputs.
  func run(
    _ n: Int, live: [String: MetricSample], targets: [String: Double], options: MatchOptions = MatchOptions(),
    into d: inout MatchDecider
  ) -> [MatchResult] {
    (0..<n).map { _ in d.evaluate(live: live, targets: targets, options: options) }
  }

  // MARK: §3.13c–d

  @Test("§3.13c: the required list is the 9 strong withRef cues in PS order, for cafe and outdoor")
  func requiredList() {
    for scene in ["cafe", "outdoor"] {
      let reqs = MatchDecider.requirements(spec: F.reference, scene: scene)
      #expect(reqs.map(\.cueId) == Self.required)
      #expect(reqs.map(\.persistFrames) == [4, 4, 4, 4, 4, 4, 4, 4, 3])
      #expect(
        reqs.map(\.metric) == [
          "centerXOffset", "centerXOffset", "centerYOffset", "centerYOffset", "shoulderAngleDeg", "shoulderAngleDeg",
          "hipAngleDeg", "torsoLeanAngleDeg", "eyeLineAngleDeg",
        ])
      #expect(reqs[0].dimensionKey == "mutex:FRAME_X")
      #expect(reqs[8].dimensionKey == "mutex:HEAD_TILT")
      #expect(reqs.allSatisfy { !$0.rawExitSource })
      #expect(reqs[0].thresholds.exit == [Threshold(.lessOrEqual, 0.1)])
    }
    // The project PoseSpec has the same cues and thresholds.
    #expect(MatchDecider.requirements(spec: F.project, scene: "cafe").map(\.cueId) == Self.required)
  }

  @Test("§3.13d: cache key is <scene>|<prdVersion>|<marker>|cues=<count>")
  func cacheKey() {
    #expect(decider("outdoor").cacheKey == "outdoor|v1.1.4|v1.1.4-final-hotreload|cues=50")
    #expect(MatchDecider.cacheKey(spec: F.reference, scene: "cafe") == "cafe|v1.1.4|v1.1.4-final-hotreload|cues=50")
  }

  @Test("§3.13c / S18: a between exit marks rawExitSource; a non-strong or mismatched error is not required")
  func requirementParsing() throws {
    let spec = try F.referenceEdited { root in
      F.setCue(
        "CHIN_DOWN", ["trigger", "withRef"],
        .object([
          "error": "noseToChinRatio - target.noseToChinRatio", "warn": .object(["<": -0.04]),
          "hard": .object(["<": -0.06]), "exit": .object(["between": [-0.02, 0.02]]),
        ]), in: &root)
      F.setCue("FRAME_MOVE_UP", ["trigger", "withRef", "error"], "centerYOffset - target.centerXOffset", in: &root)
    }
    let reqs = MatchDecider.requirements(spec: spec, scene: "cafe")
    #expect(reqs.map(\.cueId).contains("CHIN_DOWN"))
    #expect(!reqs.map(\.cueId).contains("FRAME_MOVE_UP"))
    #expect(reqs.first { $0.cueId == "CHIN_DOWN" }?.rawExitSource == true)
    #expect(!reqs.map(\.cueId).contains("CAFE_01_FACE_TOO_DARK"))  // faceLumaMean is not strong
    #expect(MatchDecider.strongMetric(inError: " hipAngleDeg -  target.hipAngleDeg ") == "hipAngleDeg")
    #expect(MatchDecider.strongMetric(inError: "hipAngleDeg - target.hipAngleDeg + 1") == nil)

    // Raw exit: the error 0.01 − 0.5 = −0.49 is hard, but the raw metric 0.01 lies in the
    // between[−0.02, 0.02] exit, so the cue counts as exit.
    var d = MatchDecider(requirements: reqs.filter { $0.cueId == "CHIN_DOWN" })
    let r = d.evaluate(live: ["noseToChinRatio": .value(0.01)], targets: ["noseToChinRatio": 0.5])
    #expect(r.cues[0].level == .exit)
    #expect(r.cues[0].error == 0.01 - 0.5)
    #expect(r.cues[0].stableFrames == 1)
  }

  // MARK: §3.13e reference outputs

  @Test("§3.13e (i) / S20: no pose with targets blocks the first cue of each of the 6 groups")
  func noPose() {
    var d = decider()
    for r in run(5, live: Self.noPose, targets: Self.conTargets, into: &d) {
      #expect(r.blockedBy == Self.sixGroupsAlphabetical)
      #expect(!r.match)
      #expect(!r.mirrorApplied)
      #expect(r.required == Self.required)
      #expect(r.fallback?.reason == "no_pose")
      #expect(r.fallback?.missing == ["target.hipAngleDeg", "target.torsoLeanAngleDeg"])
    }
  }

  @Test("§3.13e (ii) / S21 / G-14: live == waist-up targets deadlocks on HIP_SQUARE and TORSO_STRAIGHTEN with block")
  func waistUpBlock() {
    var d = decider()
    let rs = run(8, live: Self.live(Self.conTargets), targets: Self.conTargets, into: &d)
    #expect(rs[0].blockedBy == Self.sixGroupsAlphabetical)
    #expect(rs[1].blockedBy == Self.sixGroupsAlphabetical)
    #expect(rs[2].blockedBy == Self.sixGroupsAlphabetical.filter { $0 != "HEAD_LEVEL" })
    for r in rs[3...] {
      #expect(r.blockedBy == ["HIP_SQUARE", "TORSO_STRAIGHTEN"])
      #expect(!r.match)
      #expect(
        r.fallback
          == MatchMissingInfo(reason: "missing_target", missing: ["target.hipAngleDeg", "target.torsoLeanAngleDeg"]))
    }
    #expect(d.stableExitFrames(of: "HEAD_LEVEL") == 8)
    #expect(d.stableExitFrames(of: "HIP_SQUARE") == 0)
  }

  @Test("S21 / G-14: missingTargetPolicy=exclude drops HIP_SQUARE and TORSO_STRAIGHTEN and matches at eval 4")
  func waistUpExclude() {
    var d = decider()
    let options = MatchOptions(missingTargetPolicy: .exclude)
    let rs = run(4, live: Self.live(Self.conTargets), targets: Self.conTargets, options: options, into: &d)
    let seven = Self.required.filter { $0 != "HIP_SQUARE" && $0 != "TORSO_STRAIGHTEN" }
    #expect(rs[0].required == seven)
    #expect(rs[0].excluded == ["HIP_SQUARE", "TORSO_STRAIGHTEN"])
    #expect(rs[0].blockedBy == ["FRAME_MOVE_LEFT", "FRAME_MOVE_DOWN", "HEAD_LEVEL", "SHOULDER_LEVEL_LEFT_DOWN"])
    #expect(rs[2].blockedBy == ["FRAME_MOVE_LEFT", "FRAME_MOVE_DOWN", "SHOULDER_LEVEL_LEFT_DOWN"])
    #expect(rs[3].match)
    #expect(rs[3].blockedBy.isEmpty)
    #expect(rs[3].fallback?.reason == "missing_target")
    #expect(rs[3].fallback?.missingJoined == "target.hipAngleDeg,target.torsoLeanAngleDeg")
    #expect(rs[3].cues.first { $0.cueId == "HIP_SQUARE" }?.status == .excluded)
  }

  @Test("G-14 [D]: exclude never empties the required list (no strong target at all still blocks)")
  func excludeAllKeepsBlocking() {
    var d = decider()
    let r = d.evaluate(
      live: Self.live(Self.zeroTargets), targets: ["faceLumaMean": 0.4],
      options: MatchOptions(missingTargetPolicy: .exclude))
    #expect(r.required == Self.required)
    #expect(r.excluded.isEmpty)
    #expect(r.blockedBy == Self.sixGroupsAlphabetical)
    #expect(!r.match)
  }

  @Test("S15: cx 0.12 in the withRef dead-band keeps FRAME_MOVE_LEFT blocking from the 4th evaluation")
  func deadBandDeadlock() {
    var d = decider()
    var values = Self.zeroTargets
    values["centerXOffset"] = 0.12
    let rs = run(8, live: Self.live(values), targets: Self.zeroTargets, into: &d)
    for r in rs[3...] {
      #expect(r.blockedBy == ["FRAME_MOVE_LEFT"])
      #expect(!r.match)
      #expect(!r.mirrorApplied)
    }
    let left = rs[7].cues[0]
    #expect(left.level == .none)
    #expect(abs(left.error! - 0.12) < 1e-12)
    #expect(rs[7].cues[1].level == .exit)  // FRAME_MOVE_RIGHT: 0.12 ≥ −0.1
    #expect(rs[7].fallback == nil)
  }

  @Test("S16: all equal → one blocker per group for evals 1–2, 5 at eval 3, match at eval 4")
  func matchReached() {
    var d = decider()
    let rs = run(6, live: Self.live(Self.zeroTargets), targets: Self.zeroTargets, into: &d)
    #expect(rs[0].blockedBy == Self.sixGroupsAlphabetical)
    #expect(rs[1].blockedBy.count == 6)
    #expect(rs[2].blockedBy.count == 5)
    #expect(!rs[2].blockedBy.contains("HEAD_LEVEL"))
    #expect(!rs[2].match)
    #expect(rs[3].match)
    #expect(rs[3].blockedBy.isEmpty)
    #expect(rs[5].match)
    #expect(rs[3].tuple == MatchTuple(match: true, required: Self.required, blockedBy: [], mirrorApplied: false))
  }

  @Test("§3.13e step 4: a non-exit cue beats an unpersisted exit; the worse level, then the larger error wins")
  func blockerOrder() {
    var d = decider()
    var values = Self.zeroTargets
    values["centerXOffset"] = 0.25  // LEFT hard (> 0.2), RIGHT exit
    values["shoulderAngleDeg"] = -14  // SHOULDER_LEFT_DOWN exit (≤ 10); RIGHT_DOWN warn (< −13)
    let r = d.evaluate(live: Self.live(values), targets: Self.zeroTargets)
    #expect(
      r.blockedBy == [
        "FRAME_MOVE_LEFT", "FRAME_MOVE_DOWN", "HEAD_LEVEL", "HIP_SQUARE", "SHOULDER_LEVEL_RIGHT_DOWN",
        "TORSO_STRAIGHTEN",
      ])
    #expect(r.cues[0].level == .hard)
    #expect(r.cues[5].level == .warn)
    // A missing live value beats everything in its group and resets the counter.
    var m = Self.live(Self.zeroTargets)
    m["eyeLineAngleDeg"] = .unavailable(detail: "missing_input:face.leftEyeCenter", metric: "eyeLineAngleDeg")
    _ = run(2, live: Self.live(Self.zeroTargets), targets: Self.zeroTargets, into: &d)
    #expect(d.stableExitFrames(of: "HEAD_LEVEL") == 3)  // the evaluation above counted too
    let r2 = d.evaluate(live: m, targets: Self.zeroTargets)
    #expect(d.stableExitFrames(of: "HEAD_LEVEL") == 0)
    #expect(r2.blockedBy.contains("HEAD_LEVEL"))
    #expect(r2.fallback == MatchMissingInfo(reason: "missing_eyeROI", missing: ["eyeROI"]))
  }

  @Test("§3.13d: reset() puts every exit counter back to 0")
  func resetCounters() {
    var d = decider()
    _ = run(3, live: Self.live(Self.zeroTargets), targets: Self.zeroTargets, into: &d)
    #expect(d.stableExitFrames(of: "FRAME_MOVE_LEFT") == 3)
    d.reset()
    #expect(d.stableExitFrames(of: "FRAME_MOVE_LEFT") == 0)
    let r = d.evaluate(live: Self.live(Self.zeroTargets), targets: Self.zeroTargets)
    #expect(r.blockedBy == Self.sixGroupsAlphabetical)
  }

  // MARK: §3.13f mirror

  @Test("S17: target cx +0.05, live −0.05 → mirrored error 0, mirror_applied, match at eval 4")
  func mirror() {
    var d = decider()
    var targets = Self.zeroTargets
    targets["centerXOffset"] = 0.05
    var values = Self.zeroTargets
    values["centerXOffset"] = -0.05
    let rs = run(4, live: Self.live(values), targets: targets, into: &d)
    #expect(rs.allSatisfy { $0.mirrorApplied })
    #expect(rs[0].cues[0].mirrored)
    #expect(rs[0].cues[0].error == 0)
    #expect(!rs[2].match)
    #expect(rs[3].match)
  }

  @Test("S17: a tie (target 0, live ±0.12) keeps the non-mirrored error")
  func mirrorTie() {
    for cx in [0.12, -0.12] {
      var d = decider()
      var values = Self.zeroTargets
      values["centerXOffset"] = cx
      let rs = run(4, live: Self.live(values), targets: Self.zeroTargets, into: &d)
      #expect(!rs[3].mirrorApplied)
      #expect(rs[3].cues[0].error == cx)
      #expect(rs[3].blockedBy == [cx > 0 ? "FRAME_MOVE_LEFT" : "FRAME_MOVE_RIGHT"])
    }
  }

  @Test("§3.13f: scalar mirror negates x scalars, swaps colour temperatures, keeps angles")
  func scalarMirror() {
    let live: [String: MetricSample] = [
      "centerXOffset": .value(0.1), "faceHalfDiff": .value(-0.2), "registrationOffsetX": .value(0.3),
      "colorTempLeftK": .value(3000), "colorTempRightK": .value(5000), "shoulderAngleDeg": .value(12),
      "centerYOffset": .value(0.4),
    ]
    let m = MatchMirror.scalarMirrored(live)
    #expect(m["centerXOffset"] == .value(-0.1))
    #expect(m["faceHalfDiff"] == .value(0.2))
    #expect(m["registrationOffsetX"] == .value(-0.3))
    #expect(m["colorTempLeftK"] == .value(5000))
    #expect(m["colorTempRightK"] == .value(3000))
    #expect(m["shoulderAngleDeg"] == .value(12))
    #expect(m["centerYOffset"] == .value(0.4))
    let only = MatchMirror.scalarMirrored(["colorTempLeftK": .value(3000)])
    #expect(only["colorTempLeftK"] == nil)
    #expect(only["colorTempRightK"] == .value(3000))
  }

  @Test("§3.13f points mode: the caller's mirrored map is used; without it there is no mirror")
  func pointsMirror() {
    let options = MatchOptions(mirrorMode: .points)
    var values = Self.zeroTargets
    values["shoulderAngleDeg"] = 12  // SHOULDER_LEVEL_LEFT_DOWN: 12 is in the dead-band (10, 13]
    var mirrored = values
    mirrored["shoulderAngleDeg"] = -3
    var d = decider()
    let r = d.evaluate(
      live: Self.live(values), targets: Self.zeroTargets, options: options, mirroredLive: Self.live(mirrored))
    #expect(r.mirrorApplied)
    #expect(r.cues[4].error == -3)
    #expect(r.cues[4].level == .exit)
    var plain = decider()
    let p = plain.evaluate(live: Self.live(values), targets: Self.zeroTargets, options: options)
    #expect(!p.mirrorApplied)
    #expect(p.cues[4].error == 12)
    #expect(p.cues[4].level == .none)
    // Scalar mode leaves angles alone.
    var scalar = decider()
    let s = scalar.evaluate(live: Self.live(values), targets: Self.zeroTargets)
    #expect(s.cues[4].error == 12)
  }

  // MARK: §3.13g reasons

  @Test("§3.13g [D]: engine reason strings map to the withref_fallback vocabulary")
  func reasonMapping() {
    func c(_ d: String, _ m: String = "hipAngleDeg", _ l: [String] = []) -> MatchMissingInfo {
      MatchMissingInfo.classify(detail: d, metric: m, landmarks: l)
    }
    #expect(c("missing_input:no_pose") == MatchMissingInfo(reason: "no_pose"))
    #expect(c("missing_input:no_face") == MatchMissingInfo(reason: "no_face"))
    #expect(
      c("missing_input:rightHip=low_conf|leftHip=out_of_range")
        == MatchMissingInfo(reason: "low_confidence_hips", missing: ["body.leftHip", "body.rightHip"]))
    #expect(
      c("missing_input:lHip=low_conf|rHip=low_conf")
        == MatchMissingInfo(reason: "low_confidence_hips", missing: ["body.leftHip", "body.rightHip"]))
    #expect(c("missing_input:leftShoulder=missing_input").reason == "low_confidence_shoulders")
    #expect(c("missing_input:face.rightEyeCenter") == MatchMissingInfo(reason: "missing_eyeROI", missing: ["eyeROI"]))
    #expect(c("missing_input:faceROI") == MatchMissingInfo(reason: "missing_faceROI", missing: ["faceROI"]))
    #expect(c("bbox_invalid:insufficientPoints") == MatchMissingInfo(reason: "bbox_invalid"))
    #expect(
      c("missing_target:target.hipAngleDeg")
        == MatchMissingInfo(reason: "missing_target", missing: ["target.hipAngleDeg"]))
    #expect(
      c("low_confidence", "centerXOffset", ["body.leftShoulder", "body.leftHip"]).reason == "low_confidence_shoulders")
    #expect(c("low_confidence", "hipAngleDeg", ["body.leftHip", "body.rightHip"]).reason == "low_confidence_hips")
    #expect(c("low_confidence", "eyeLineAngleDeg", ["face.leftEyeCenter"]).reason == "low_confidence_face")
    #expect(c("non_finite", "hipAngleDeg") == MatchMissingInfo(reason: "non_finite", missing: ["hipAngleDeg"]))
  }

  @Test("§3.13g: reason of the first missing blocker; missing = sorted union over missing cues")
  func fallbackUnion() {
    var live = Self.live(Self.zeroTargets)
    live["hipAngleDeg"] = .unavailable(detail: "missing_input:rightHip=low_conf", metric: "hipAngleDeg")
    live["torsoLeanAngleDeg"] = .unavailable(detail: "missing_input:leftHip=low_conf", metric: "torsoLeanAngleDeg")
    live["shoulderAngleDeg"] = .unavailable(detail: "missing_input:leftShoulder=low_conf", metric: "shoulderAngleDeg")
    var d = decider()
    let r = d.evaluate(live: live, targets: Self.zeroTargets)
    // Groups: FRAME_X, FRAME_Y, HEAD_TILT, HIP_LEVEL (missing, first), SHOULDER_LEVEL, TORSO.
    #expect(r.fallback?.reason == "low_confidence_hips")
    #expect(r.fallback?.missing == ["body.leftHip", "body.leftShoulder", "body.rightHip"])
    #expect(r.blockedBy[4] == "SHOULDER_LEVEL_LEFT_DOWN")
    #expect(r.cues.filter { $0.status == .missingData }.count == 4)
  }

  // MARK: §3.14 reference gates

  static func face(
    x: Double = 0.4, y: Double = 0.2, w: Double = 0.2, h: Double = 0.2, conf: Double? = 0.9,
    leftEye: EyePoint? = EyePoint(x: 0.45, y: 0.28, precMax: 0.008, ear: 0.3),
    rightEye: EyePoint? = EyePoint(x: 0.55, y: 0.28, precMax: 0.008, ear: 0.3)
  ) -> FaceObservation {
    FaceObservation(bbox: Rect(x: x, y: y, w: w, h: h), conf: conf, leftEye: leftEye, rightEye: rightEye)
  }

  static func refFrame(faces: [FaceObservation] = [face()], body: BodyPose? = F.subject()) -> LandmarkFrame {
    LandmarkFrame(frame: 0, body: body, faces: faces)
  }

  @Test("S23: the four gate failures with their {reason} texts; a good reference passes")
  func refGates() {
    #expect(RefGate.check(Self.refFrame()) == nil)
    let twoPeople = Self.refFrame(faces: [Self.face(conf: 0.7), Self.face(x: 0.05, conf: 0.7)])
    #expect(RefGate.check(twoPeople) == .multiPerson)
    #expect(RefGate.check(Self.refFrame(faces: [Self.face(w: 0.10, h: 0.3)])) == .faceTooSmall)
    let eyeDropped = Self.face(leftEye: EyePoint(x: 0.45, y: 0.28, precMax: 0.02, ear: 0.3))
    #expect(RefGate.check(Self.refFrame(faces: [eyeDropped])) == .eyesNotVisible)
    var body = F.subject()
    body[.rightShoulder]?.conf = 0.4
    #expect(RefGate.check(Self.refFrame(body: body)) == .upperBodyIncomplete)

    #expect(RefGateReason.allCases.map(\.reasonZh) == ["画面里有多个人", "脸太小", "看不到眼睛", "上半身不全"])
    #expect(
      RefGateReason.allCases.map(\.rawValue) == [
        "multi_person", "face_too_small", "eyes_not_visible", "upper_body_incomplete",
      ])
    #expect(RefGateReason.faceTooSmall.messageZh == "脸太小：请靠近一些/让脸占画面更大")
    #expect(RefGateReason.faceTooSmall.messageEn == "Face too small: move closer / make the face larger")
    #expect(RefGate.promptKey.rawValue == "ref_reject_not_suitable")
  }

  @Test("§3.14: gate order and edge cases (area, low-confidence second face, eye conf, missing body)")
  func refGateEdges() {
    // Multi-person is checked before size: two tiny confident faces → multi_person.
    let tiny = [Self.face(w: 0.05, h: 0.05, conf: 0.8), Self.face(x: 0.1, w: 0.05, h: 0.05, conf: 0.8)]
    #expect(RefGate.check(Self.refFrame(faces: tiny)) == .multiPerson)
    // A second face below 0.6 (or without confidence) is not a person.
    #expect(RefGate.check(Self.refFrame(faces: [Self.face(), Self.face(x: 0.05, conf: 0.59)])) == nil)
    #expect(RefGate.check(Self.refFrame(faces: [Self.face(), Self.face(x: 0.05, conf: nil)])) == nil)
    // Width 0.13 passes, but area 0.13 × 0.15 = 0.0195 < 0.02 fails.
    #expect(RefGate.check(Self.refFrame(faces: [Self.face(w: 0.13, h: 0.15)])) == .faceTooSmall)
    #expect(RefGate.check(Self.refFrame(faces: [Self.face(w: 0.13, h: 0.16)])) == nil)
    #expect(RefGate.check(Self.refFrame(faces: [])) == .faceTooSmall)
    // The subject is the largest face: a small second face does not matter.
    #expect(RefGate.check(Self.refFrame(faces: [Self.face(w: 0.05, h: 0.05, conf: 0.3), Self.face()])) == nil)
    // A recorded eye confidence decides alone; an absent eye fails.
    #expect(
      RefGate.check(Self.refFrame(faces: [Self.face(rightEye: EyePoint(x: 0.55, y: 0.28, conf: 0.49))]))
        == .eyesNotVisible)
    #expect(RefGate.check(Self.refFrame(faces: [Self.face(rightEye: EyePoint(x: 0.55, y: 0.28, conf: 0.5))])) == nil)
    #expect(RefGate.check(Self.refFrame(faces: [Self.face(rightEye: nil)])) == .eyesNotVisible)
    // An eye with neither confidence nor precision fails the keep rule.
    #expect(RefGate.check(Self.refFrame(faces: [Self.face(rightEye: EyePoint(x: 0.55, y: 0.28))])) == .eyesNotVisible)
    #expect(RefGate.check(Self.refFrame(body: nil)) == .upperBodyIncomplete)
    var noShoulder = F.subject()
    noShoulder[.leftShoulder] = nil
    #expect(RefGate.check(Self.refFrame(body: noShoulder)) == .upperBodyIncomplete)
  }

  // MARK: §3.13b target store

  static func metrics(_ n: Int) -> [String: Double] {
    Dictionary(uniqueKeysWithValues: (0..<n).map { ("m\($0)", Double($0)) })
  }

  @Test("S22 / G-33: a re-extraction of the same ref with 4 values is ignored; another ref with 6 replaces")
  func storeGuard() {
    var s = RefTargetStore()
    let first = s.store(refId: "A", metrics: Self.metrics(10))
    #expect(first == .stored(refId: "A", count: 10, replacedRefId: nil))
    #expect(s.isActive)
    let four = s.store(refId: "A", metrics: Self.metrics(4))
    #expect(four == .skipped(reason: .lowMetricsKeepExisting, newCount: 4, existingCount: 10))
    #expect(s.targets.count == 10)
    let empty = s.store(refId: "A", metrics: [:])
    #expect(empty == .skipped(reason: .emptyTargetsKeepExisting, newCount: 0, existingCount: 10))
    let nine = s.store(refId: "A", metrics: Self.metrics(9))
    #expect(nine == .skipped(reason: .downgradeKeepExisting, newCount: 9, existingCount: 10))
    let b = s.store(refId: "B", metrics: Self.metrics(6))
    #expect(b == .stored(refId: "B", count: 6, replacedRefId: "A"))
    #expect(s.selectedRefId == "B")
    #expect(s.targets == Self.metrics(6))
    #expect(s.refOrder == ["A", "B"])
    // A skipped re-extraction of A while B is selected selects A with its kept snapshot.
    let skippedA = s.store(refId: "A", metrics: Self.metrics(4))
    #expect(skippedA == .skipped(reason: .lowMetricsKeepExisting, newCount: 4, existingCount: 10))
    #expect(s.selectedRefId == "A")
    #expect(s.targets == Self.metrics(10))
    let selectedB = s.select(refId: "B")
    #expect(selectedB && s.targets == Self.metrics(6))
    // Switching back restores A's snapshot; re-extraction of A with 11 values replaces it.
    let selectedA = s.select(refId: "A")
    #expect(selectedA)
    #expect(s.targets.count == 10)
    let selectedZ = s.select(refId: "Z")
    #expect(!selectedZ)
    let eleven = s.store(refId: "A", metrics: Self.metrics(11))
    #expect(eleven == .stored(refId: "A", count: 11, replacedRefId: nil))
    #expect(s.targets.count == 11)
  }

  @Test("§3.13b: only finite values are stored; sortedTargets is in byte order")
  func storeFinite() {
    var s = RefTargetStore()
    s.store(refId: "A", metrics: ["b": 1, "a": 2, "nan": .nan, "inf": .infinity])
    #expect(s.targets == ["a": 2, "b": 1])
    #expect(s.sortedTargets.map(\.name) == ["a", "b"])
    s.store(refId: "C", samples: ["x": .value(1), "y": .unavailable(MatchMissingInfo(reason: "no_pose"))])
    #expect(s.targets == ["x": 1])
  }

  @Test("§3.14: at most 10 reference copies per session; clear() resets targets and the count")
  func copyLimit() {
    var s = RefTargetStore()
    for k in 1...10 {
      let outcome = s.recordReferenceCopy()
      #expect(outcome == .copied(count: k))
    }
    #expect(!s.canCopyReference)
    let eleventh = s.recordReferenceCopy()
    #expect(eleventh == .limitReached(limit: 10))
    #expect(s.referenceCopies == 10)
    s.store(refId: "A", metrics: Self.metrics(6))
    s.clear()
    #expect(s.referenceCopies == 0)
    #expect(!s.isActive)
    #expect(s.selectedRefId == nil)
    let fresh = s.store(refId: "A", metrics: Self.metrics(3))
    #expect(fresh == .stored(refId: "A", count: 3, replacedRefId: nil))
  }
}
