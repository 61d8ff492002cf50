import CanonicalJSON
import Foundation
import PoseSpec
import Testing

/// The formula language and its compiler (ENGINE §2.5, §2.9, §2.10, §3.2).
@Suite("Formula compiler (ENGINE §2.9)")
struct FormulaCompilerTests {
  func reference() throws -> PoseSpecDocument {
    try PoseSpecLoader.load(bytes: SpecFixtures.bytes(SpecFixtures.referenceURL), fileName: "PoseSpec.json")
  }

  /// The reference with cue `id`'s `metric.formula` (or another path under the cue) replaced.
  func failure(cue id: String, path: [String] = ["metric", "formula"], _ text: String) throws
    -> PoseSpecValidationError?
  {
    let bytes = try SpecFixtures.mutatedReference { root in
      let index = root["cues"]!.arrayValue!.firstIndex { $0["id"]?.stringValue == id }!
      SpecFixtures.set(.string(text), at: ["cues", String(index)] + path, in: &root)
    }
    do {
      _ = try PoseSpecLoader.load(bytes: bytes)
      return nil
    } catch { return error }
  }

  @Test("§2.8: all 50 reference cues compile, with the noRef error source of the src column")
  func referenceCompiles() throws {
    let program = try PoseSpecCompiler.compile(try reference())
    #expect(program.cues.count == 50)
    let byId = Dictionary(uniqueKeysWithValues: program.cues.map { ($0.cueId, $0) })
    // The "src" column of ENGINE §2.8: E explicit, F formula `error =`, O outputs, V last variable.
    let expected: [String: ErrorSource] = [
      "FRAME_MOVE_LEFT": .explicit, "FRAME_MOVE_DOWN": .explicit, "DIST_STEP_CLOSER": .outputs,
      "FRAME_ADD_HEADROOM": .outputs, "SHOULDER_LEVEL_LEFT_DOWN": .outputs, "HAND_OFF_FACE": .lastVariable,
      "ARMS_RELAX": .lastVariable, "SHOULDERS_OPEN": .lastVariable, "WEIGHT_SHIFT": .lastVariable,
      "CAFE_01_FACE_TOO_DARK": .formula, "CAFE_12_CAFE_THIRDS_COMPOSE": .lastVariable,
      "CAFE_15_SEATED_POSTURE_STRAIGHT": .formula, "OUT_14_OUTDOOR_COMPOSE_MORE_LANDMARK": .formula,
    ]
    for (id, source) in expected { #expect(byId[id]?.noRefError?.source == source, "\(id)") }
    #expect(byId["FRAME_GENERAL"]?.isSystemFallback == true)
    #expect(byId["FRAME_GENERAL"]?.noRefError == nil)
    // OUT_07…10: no noRef trigger, withRef error = the formula's (already relative, §3.2).
    #expect(byId["OUT_07_LANDMARK_ALIGN_X"]?.noRefError == nil)
    #expect(byId["OUT_07_LANDMARK_ALIGN_X"]?.withRefError?.source == .formula)
    // 14 cues carry a withRef trigger (§2.8 counts).
    #expect(program.cues.filter { $0.withRefError != nil }.count == 14)
  }

  @Test("§3.2: errorSource=outputsFirst takes CAFE_01's single output (the §8 G-8 hazard)")
  func outputsFirst() throws {
    let doc = try reference()
    let cafe01 = { (p: SpecProgram) in p.cues.first { $0.cueId == "CAFE_01_FACE_TOO_DARK" }! }
    let formula = cafe01(try PoseSpecCompiler.compile(doc, formulaFirst: true))
    let outputs = cafe01(try PoseSpecCompiler.compile(doc, formulaFirst: false))
    #expect(formula.noRefError?.text == "error")
    #expect(outputs.noRefError?.text == "faceLumaMean")
    #expect(outputs.noRefError?.source == .outputs)
  }

  @Test("§2.5: aliases and [D] bindings resolve to landmarks; the cue's reads are collected")
  func bindingsResolve() throws {
    let p = try PoseSpecCompiler.compile(try reference())
    let byId = Dictionary(uniqueKeysWithValues: p.cues.map { ($0.cueId, $0) })
    #expect(byId["SHOULDER_LEVEL_LEFT_DOWN"]?.requiredJoints == ["rightShoulder", "leftShoulder"])
    // TORSO: hipMid (alias) and shoulderMid ([D] binding) → all four joints.
    #expect(Set(byId["TORSO_STRAIGHTEN"]?.requiredJoints ?? []) == ["leftShoulder", "rightShoulder", "leftHip", "rightHip"])
    // CAFE_14: nose ([D] body.nose), torsoLen = dist(shoulderMid, hipMid).
    #expect(byId["CAFE_14_SHRUG_DETECTED"]?.requiredJoints.first == "nose")
    #expect(byId["HEAD_LEVEL"]?.requiredFacePoints == [.rightEyeCenter, .leftEyeCenter])
    #expect(byId["CHIN_UP"]?.usesFaceBBox == true)
    #expect(byId["OUT_03_SUN_SQUINT"]?.catalogueInputs == [.eyeAR])
    #expect(byId["OUT_03_SUN_SQUINT"]?.needsPixels == false)
    #expect(byId["CAFE_02_FACE_BACKLIT"]?.rois == ["faceROI", "bgROI"])
    #expect(byId["CAFE_02_FACE_BACKLIT"]?.needsPixels == true)
    #expect(byId["CAFE_05_WB_TOO_YELLOW"]?.catalogueInputs == [.colorTempK])
  }

  @Test("§2.10: a bbox used only for maxY needs one point, any other use two")
  func bodyBoxMinPoints() throws {
    let p = try PoseSpecCompiler.compile(try reference())
    let byId = Dictionary(uniqueKeysWithValues: p.cues.map { ($0.cueId, $0) })
    #expect(byId["FRAME_DONT_CROP_FEET"]?.bodyBoxMinPoints == 1)
    #expect(byId["FRAME_ADD_HEADROOM"]?.bodyBoxMinPoints == 2)
    #expect(byId["DIST_STEP_CLOSER"]?.bodyBoxMinPoints == 2)
    #expect(byId["CAFE_12_CAFE_THIRDS_COMPOSE"]?.usesBodyPoints == true)
  }

  @Test("§2.9: another cue's metric is inlined over this cue's landmarks (CAFE_15, OUT_14)")
  func inlining() throws {
    let p = try PoseSpecCompiler.compile(try reference())
    let cafe15 = p.cues.first { $0.cueId == "CAFE_15_SEATED_POSTURE_STRAIGHT" }!
    let torso = p.cues.first { $0.cueId == "TORSO_STRAIGHTEN" }!
    // error = abs(torsoLeanAngleDeg) - 8, with TORSO_STRAIGHTEN's formula inside.
    guard case .binary(.subtract, .call(.abs, let args), .constant(8)) = cafe15.assignments[0].expression else {
      Issue.record("unexpected shape \(cafe15.assignments[0].expression)")
      return
    }
    #expect(args == [torso.assignments[0].expression])
    let out14 = p.cues.first { $0.cueId == "OUT_14_OUTDOOR_COMPOSE_MORE_LANDMARK" }!
    #expect(out14.usesBodyPoints)
    #expect(out14.bodyBoxMinPoints == 2)
  }

  @Test("§8 G-5…G-7: y-up differences, line angles and angle differences are marked for angleFix")
  func angleFixMarkers() throws {
    let p = try PoseSpecCompiler.compile(try reference())
    let byId = Dictionary(uniqueKeysWithValues: p.cues.map { ($0.cueId, $0) })
    guard case .directionAngle(.call(.deg, let degArgs)) = byId["SHOULDER_LEVEL_LEFT_DOWN"]!.assignments[0].expression,
      case .call(.atan2, let xy)? = degArgs.first
    else {
      Issue.record("shoulder angle not a direction angle")
      return
    }
    guard case .verticalDifference = xy[0] else {
      Issue.record("dy not marked vertical: \(xy[0])")
      return
    }
    if case .verticalDifference = xy[1] { Issue.record("dx must not be marked vertical") }
    // CAFE_13: gap = mouthCenter.y - min(leftWrist.y, rightWrist.y) → a vertical difference.
    guard case .verticalDifference = byId["CAFE_13_KEEP_FACE_CLEAR_OF_MENU"]!.assignments[0].expression else {
      Issue.record("CAFE_13 gap not a vertical difference")
      return
    }
    // centerYOffset = center(...).y - 0.52 is a position, not a difference.
    if case .verticalDifference = byId["FRAME_MOVE_UP"]!.assignments[0].expression {
      Issue.record("centerYOffset must stay literal")
    }
    // withRef: shoulderAngleDeg - target.shoulderAngleDeg is an angle difference.
    guard case .angleDifference = byId["SHOULDER_LEVEL_LEFT_DOWN"]!.withRefError!.expression else {
      Issue.record("withRef angle error not wrapped")
      return
    }
    if case .angleDifference = byId["FRAME_MOVE_LEFT"]!.withRefError!.expression {
      Issue.record("centerXOffset difference is not an angle")
    }
  }

  @Test("§8 G-6: torsoLeanAngleDeg deg(atan2(dx, dy)) is a direction — an angle, never marked as a foldable line")
  func torsoLeanIsADirectionNotALine() throws {
    let p = try PoseSpecCompiler.compile(try reference())
    let byId = Dictionary(uniqueKeysWithValues: p.cues.map { ($0.cueId, $0) })
    let torso = try #require(byId["TORSO_STRAIGHTEN"]?.assignments.first)
    #expect(torso.name == "torsoLeanAngleDeg" && torso.isAngle)
    // CAFE_15 inlines TORSO_STRAIGHTEN's formula: error = abs(torsoLeanAngleDeg) - 8.
    guard case .binary(.subtract, .call(.abs, let inlined), .constant(8))? = byId["CAFE_15_SEATED_POSTURE_STRAIGHT"]?.assignments.first?.expression
    else {
      Issue.record("CAFE_15 is not abs(torsoLeanAngleDeg) - 8")
      return
    }
    for (id, expression) in [("TORSO_STRAIGHTEN", torso.expression), ("CAFE_15_SEATED_POSTURE_STRAIGHT", inlined[0])] {
      guard case .call(.deg, let args) = expression, case .call(.atan2, let xy)? = args.first else {
        Issue.record("\(id): torsoLeanAngleDeg is \(expression), expected an unfolded deg(atan2(…))")
        continue
      }
      // dy (the second argument) is still a y-up vertical difference (negated under angleFix).
      if case .negate(.verticalDifference) = xy[1] {} else { Issue.record("\(id): dy not marked vertical: \(xy[1])") }
    }
    // The withRef error is still an angle difference, wrapped under angleFix.
    guard case .angleDifference = byId["TORSO_STRAIGHTEN"]!.withRefError!.expression else {
      Issue.record("withRef torso error not wrapped")
      return
    }
  }

  @Test("§2.9: literals such as 1/3 fold to constants; frame_scalars keys include the ROI for pixel calls")
  func foldingAndOverrides() throws {
    let p = try PoseSpecCompiler.compile(try reference())
    let cafe12 = p.cues.first { $0.cueId == "CAFE_12_CAFE_THIRDS_COMPOSE" }!
    guard case .call(.min, let args) = cafe12.assignments[0].expression,
      case .call(.abs, let absArgs) = args[0], case .binary(.subtract, _, .constant(let third))? = absArgs.first
    else {
      Issue.record("unexpected CAFE_12 shape")
      return
    }
    #expect(third == 1.0 / 3.0)
    let cafe03 = p.cues.first { $0.cueId == "CAFE_03_FACE_OVEREXPOSED" }!
    #expect(cafe03.assignments[0].overrideKeys == ["clip_faceROI", "clip"])
    #expect(cafe03.assignments[1].overrideKeys == ["error"])
  }

  @Test("An unknown function is a load-time error naming the cue and the token (exit 2 in the CLI)")
  func unknownFunction() throws {
    let e = try #require(try failure(cue: "CHIN_UP", "noseToChinRatio = distance(noseTip, chinCenter) / faceBBox.h"))
    #expect(e.kind == .formulaInvalid)
    #expect(e.formula?.cueId == "CHIN_UP")
    #expect(e.formula?.token == "distance")
    #expect(e.formula?.column == 19)
    #expect(e.promptKey == "posespec_invalid_modal")
    #expect(e.description.contains("unknown function 'distance'"))
  }

  /// The load-time error of the reference spec with `mutate` applied, or nil when it loads.
  func loadFailure(_ mutate: (inout JSONObject) -> Void) throws -> PoseSpecValidationError? {
    let bytes = try SpecFixtures.mutatedReference(mutate)
    do {
      _ = try PoseSpecLoader.load(bytes: bytes)
      return nil
    } catch { return error }
  }

  @Test("An unknown function in an alias no formula uses is a load-time error naming the alias")
  func unknownFunctionInAnUnusedAlias() throws {
    let e = try #require(
      try loadFailure { SpecFixtures.set(.string("distance(lEye, rEye) * 2"), at: ["binding", "aliases", "eyeGap"], in: &$0) })
    #expect(e.kind == .formulaInvalid)
    #expect(e.formula?.place == "binding.aliases.eyeGap")
    #expect(e.formula?.token == "distance")
    #expect(e.formula?.column == 1)
    #expect(e.description.contains("binding.aliases.eyeGap \"distance(lEye, rEye) * 2\", column 1: unknown function 'distance'"))
    #expect(e.description.contains("PoseSpec formula invalid: binding.aliases.eyeGap 'distance'"))
    // A known function in an unused alias loads (its names are not resolved: it is never used).
    #expect(try loadFailure { SpecFixtures.set(.string("dist(lEye, noSuchPoint)"), at: ["binding", "aliases", "eyeGap"], in: &$0) } == nil)
  }

  @Test("An unknown function in the fallback cue's formula is a load-time error naming the cue")
  func unknownFunctionInTheFallbackCue() throws {
    let e = try #require(try failure(cue: "FRAME_GENERAL", "spread = dist(lEye, rEye) + wobble(noseTip)"))
    #expect(e.kind == .formulaInvalid)
    #expect(e.formula?.cueId == "FRAME_GENERAL")
    #expect(e.formula?.place == "metric.formula")
    #expect(e.formula?.token == "wobble")
    #expect(e.formula?.column == 29)
    // Its label (a bare name) stays valid.
    #expect(try failure(cue: "FRAME_GENERAL", "system_fallback_when_tracking_unreliable") == nil)
  }

  @Test("An unknown alias, ROI, joint or target metric is a load-time error")
  func unknownNames() throws {
    let alias = try #require(try failure(cue: "HIP_SQUARE", "hipAngleDeg = deg(atan2(rHipp.y - lHip.y, rHip.x - lHip.x))"))
    #expect(alias.formula?.token == "rHipp")
    let roi = try #require(try failure(cue: "CAFE_01_FACE_TOO_DARK", "faceLumaMean = meanLuma(chinROI); error = 0.42 - faceLumaMean"))
    #expect(roi.formula?.token == "chinROI")
    let joint = try #require(try failure(cue: "FRAME_MOVE_LEFT", path: ["trigger", "noRef", "error"], "body.leftToe.x - 0.5"))
    #expect(joint.formula?.token == "body.leftToe")
    #expect(joint.formula?.place == "trigger.noRef.error")
    let target = try #require(
      try failure(cue: "FRAME_MOVE_LEFT", path: ["trigger", "withRef", "error"], "centerXOffset - target.centreXOffset"))
    #expect(target.formula?.token == "target.centreXOffset")
  }

  @Test("Type errors and syntax errors name the column")
  func typeAndSyntaxErrors() throws {
    let type = try #require(try failure(cue: "CHIN_DOWN", "noseToChinRatio = dist(faceBBox, chinCenter)"))
    #expect(type.formula?.message.contains("dist takes (point, point), found (rect, point)") == true)
    let syntax = try #require(try failure(cue: "CHIN_DOWN", "noseToChinRatio = dist(noseTip, chinCenter / faceBBox.h"))
    #expect(syntax.formula?.message.contains("expected ',' or ')'") == true)
    let bad = try #require(try failure(cue: "CHIN_DOWN", "noseToChinRatio = noseTip.x $ 2"))
    #expect(bad.formula?.column == 29)
  }

  @Test("Editing a formula changes the compiled program with no code change")
  func editsCompile() throws {
    let bytes = try SpecFixtures.mutatedReference { root in
      SpecFixtures.set(
        .string("centerXOffset = center(bbox(bodyPoints)).x - 0.6"), at: ["cues", "0", "metric", "formula"], in: &root)
    }
    let p = try PoseSpecCompiler.compile(try PoseSpecLoader.load(bytes: bytes))
    guard case .binary(.subtract, _, .constant(let c)) = p.cues[0].assignments[0].expression else {
      Issue.record("unexpected shape")
      return
    }
    #expect(c == 0.6)
  }
}
