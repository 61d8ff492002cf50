import CanonicalJSON
import PoseSpec
import Testing

/// The nine failures of ENGINE §2.3 on mutated copies of the reference PoseSpec: kind,
/// prompt key, modal text and payload, and that the first failure in check order wins.
@Suite("PoseSpec validation (ENGINE §2.3)")
struct PoseSpecValidationTests {
  /// Loads `bytes` and returns the validation error (the test fails if it loads).
  func failure(_ bytes: [UInt8], fileName: String = "PoseSpec.json") -> PoseSpecValidationError? {
    do {
      _ = try PoseSpecLoader.load(bytes: bytes, fileName: fileName)
      Issue.record("expected a validation failure")
      return nil
    } catch { return error }
  }

  func failure(_ mutate: (inout JSONObject) -> Void) throws -> PoseSpecValidationError? {
    failure(try SpecFixtures.mutatedReference(mutate))
  }

  func pairs(_ p: [(key: String, value: String)]) -> [String] { p.map { "\($0.key)=\($0.value)" } }

  @Test("§2.3 #5: prdVersion mismatch → version modal with expected/actual")
  func prdVersionMismatch() throws {
    let e = try #require(try failure { SpecFixtures.set("v0.0.0", at: ["prdVersion"], in: &$0) })
    #expect(e.kind == .prdVersionMismatch)
    #expect(e.promptKey == "posespec_version_mismatch_modal")
    #expect(e.titleZh == "版本不一致")
    #expect(e.titleEn == "Version mismatch")
    #expect(e.messageZh == "PoseSpec 版本与 PRD 不一致，无法继续。\n\nexpected=v1.1.4\nactual=v0.0.0")
    #expect(e.messageEn == "PoseSpec version differs from the PRD; cannot continue.\n\nexpected=v1.1.4\nactual=v0.0.0")
    #expect(pairs(e.payload) == ["expected=v1.1.4", "actual=v0.0.0"])
  }

  @Test("§2.3 #6 / S02: alias lShoulder removed → binding modal, missing=lShoulder")
  func missingAlias() throws {
    let e = try #require(try failure { SpecFixtures.set(nil, at: ["binding", "aliases", "lShoulder"], in: &$0) })
    #expect(e.kind == .bindingMissingAliases)
    #expect(e.promptKey == "posespec_binding_missing_modal")
    #expect(e.titleZh == "binding 缺失")
    #expect(e.messageZh == "PoseSpec 不完整：binding 缺失。\n\nmissing=lShoulder")
    #expect(e.messageEn == "PoseSpec incomplete: binding missing.\n\nmissing=lShoulder")
    #expect(pairs(e.payload) == ["missing=lShoulder"])
  }

  @Test("§2.3 #6: several aliases missing are listed in validator order (§2.5)")
  func missingAliasesInValidatorOrder() throws {
    let e = try #require(
      try failure { root in
        for alias in ["ankleMid", "lHip", "faceBBox"] {
          SpecFixtures.set(nil, at: ["binding", "aliases", alias], in: &root)
        }
      })
    #expect(e.missing == ["lHip", "faceBBox", "ankleMid"])
    #expect(e.messageZh == "PoseSpec 不完整：binding 缺失。\n\nmissing=lHip, faceBBox, ankleMid")
    #expect(pairs(e.payload) == ["missing=lHip,faceBBox,ankleMid"])
  }

  @Test("§2.3 #8 / S03a: rois.eyeROI removed → rois modal, missing=eyeROI")
  func missingEyeROI() throws {
    let e = try #require(try failure { SpecFixtures.set(nil, at: ["rois", "eyeROI"], in: &$0) })
    #expect(e.kind == .roisMissing)
    #expect(e.promptKey == "posespec_rois_missing_modal")
    #expect(e.titleZh == "rois 缺失")
    #expect(e.messageZh == "PoseSpec 不完整：rois 缺失。\n\nmissing=eyeROI")
    #expect(e.messageEn == "PoseSpec incomplete: rois missing.\n\nmissing=eyeROI")
    #expect(pairs(e.payload) == ["missing=eyeROI"])
  }

  @Test("§2.3 #4 / S03b: binding removed → invalid modal, missing required keys: binding")
  func bindingRemoved() throws {
    let e = try #require(try failure { SpecFixtures.set(nil, at: ["binding"], in: &$0) })
    #expect(e.kind == .missingRequiredKeys)
    #expect(e.promptKey == "posespec_invalid_modal")
    #expect(e.titleZh == "PoseSpec 不完整")
    #expect(e.titleEn == "PoseSpec incomplete")
    #expect(
      e.messageZh == "PoseSpec 不完整，无法继续。\n\nPoseSpec missing required keys: binding\n\nexpected_prdVersion=v1.1.4")
    #expect(e.payload.isEmpty)
  }

  @Test("§2.3 #2 / S03c: rois removed → invalidJSON naming the key")
  func roisRemoved() throws {
    let e = try #require(try failure { SpecFixtures.set(nil, at: ["rois"], in: &$0) })
    #expect(e.kind == .invalidJSON)
    #expect(e.promptKey == "posespec_invalid_modal")
    #expect(
      e.messageZh == "PoseSpec 不完整，无法继续。\n\nPoseSpec.json is not valid / decodable\n\nexpected_prdVersion=v1.1.4")
    #expect(e.location == "rois: missing key")
    #expect(
      e.description.hasPrefix("PoseSpec.json: invalidJSON (rois: missing key) — PoseSpec.json is not valid / decodable")
    )
    #expect(e.payload.isEmpty)
  }

  @Test("§2.3 #2: truncated JSON → invalidJSON with line and column; the modal keeps the spec text")
  func truncatedJSON() throws {
    let bytes = try SpecFixtures.bytes(SpecFixtures.referenceURL)
    let e = try #require(failure(Array(bytes.prefix(bytes.count / 2)), fileName: "Truncated.json"))
    #expect(e.kind == .invalidJSON)
    #expect(e.promptKey == "posespec_invalid_modal")
    #expect(e.messageZh.contains("\n\nPoseSpec.json is not valid / decodable\n\n"))
    #expect(!e.messageZh.contains("line"))
    let location = try #require(e.location)
    #expect(location.hasPrefix("line "))
    #expect(location.contains(", column "))
    #expect(e.description.hasPrefix("Truncated.json: invalidJSON (line "))
    #expect(e.payload.isEmpty)
  }

  @Test("§2.3 #2: a mistyped cue field is reported with its JSON path")
  func cueFieldPath() throws {
    let missing = try #require(
      try failure { SpecFixtures.set(nil, at: ["cues", "3", "antiJitter", "persistFrames"], in: &$0) })
    #expect(missing.kind == .invalidJSON)
    #expect(missing.location == "cues[3].antiJitter.persistFrames: missing key")
    let typed = try #require(try failure { SpecFixtures.set("4", at: ["cues", "0", "priority"], in: &$0) })
    #expect(typed.location == "cues[0].priority: expected an integer, found string")
  }

  @Test("§2.3 #3: minConfidence 1.5 → invalidConfidenceRange")
  func confidenceOutOfRange() throws {
    let e = try #require(
      try failure { SpecFixtures.set(1.5, at: ["defaults", "confidence", "minConfidence"], in: &$0) })
    #expect(e.kind == .invalidConfidenceRange)
    #expect(e.promptKey == "posespec_invalid_modal")
    #expect(
      e.messageZh
        == "PoseSpec 不完整，无法继续。\n\nPoseSpec confidence values must be finite and in [0,1]\n\nexpected_prdVersion=v1.1.4")
    #expect(e.payload.isEmpty)
  }

  @Test("§2.3 #4: empty changeLog → missing required keys: changeLog")
  func emptyChangeLog() throws {
    let e = try #require(try failure { SpecFixtures.set(.array([]), at: ["changeLog"], in: &$0) })
    #expect(e.kind == .missingRequiredKeys)
    #expect(e.missing == ["changeLog"])
    #expect(e.promptKey == "posespec_invalid_modal")
    #expect(
      e.messageZh == "PoseSpec 不完整，无法继续。\n\nPoseSpec missing required keys: changeLog\n\nexpected_prdVersion=v1.1.4")
    #expect(
      e.messageEn
        == "PoseSpec incomplete, cannot continue.\n\nPoseSpec missing required keys: changeLog\n\nexpected_prdVersion=v1.1.4")
    #expect(e.payload.isEmpty)
  }

  @Test("§2.3 #7: bodyPoints rule without the confidence reference → binding modal")
  func bodyPointsRuleChanged() throws {
    let e = try #require(
      try failure { SpecFixtures.set("all visible points", at: ["binding", "sets", "bodyPoints", "rule"], in: &$0) })
    #expect(e.kind == .bindingBodyPointsSetMismatch)
    #expect(e.promptKey == "posespec_binding_missing_modal")
    #expect(e.messageZh == "PoseSpec 不完整：binding 缺失。\n\nbodyPoints 定义不符合 PRD 4.4.2")
    #expect(
      e.messageEn == "PoseSpec incomplete: binding missing.\n\nbodyPoints definition does not conform to PRD 4.4.2")
    #expect(e.payload.isEmpty)
  }

  @Test("§2.3 #9: faceROI padding 1.2 → roisBadDefinition in the invalid modal")
  func faceROIPadding() throws {
    let e = try #require(
      try failure { SpecFixtures.set(1.2, at: ["rois", "faceROI", "paddingPctOfBBox", "x"], in: &$0) })
    #expect(e.kind == .roisBadDefinition)
    #expect(e.promptKey == "posespec_invalid_modal")
    #expect(
      e.messageZh
        == "PoseSpec 不完整，无法继续。\n\nPoseSpec rois invalid: rois.faceROI.paddingPctOfBBox out of range [0,1]\n\nexpected_prdVersion=v1.1.4"
    )
    #expect(e.payload.isEmpty)
  }

  @Test("§2.3: the first failure in check order wins")
  func firstFailureWins() throws {
    // prdVersion (5) before binding aliases (6) and rois (8).
    let a = try #require(
      try failure { root in
        SpecFixtures.set("v9", at: ["prdVersion"], in: &root)
        SpecFixtures.set(nil, at: ["binding", "aliases", "lShoulder"], in: &root)
        SpecFixtures.set(nil, at: ["rois", "eyeROI"], in: &root)
      })
    #expect(a.kind == .prdVersionMismatch)
    // Required keys (4) before prdVersion (5); both empty keys listed in order.
    let b = try #require(
      try failure { root in
        SpecFixtures.set("", at: ["generatedAt"], in: &root)
        SpecFixtures.set("", at: ["prdVersion"], in: &root)
      })
    #expect(b.kind == .missingRequiredKeys)
    #expect(b.missing == ["prdVersion", "generatedAt"])
    // Decode (2) before the confidence range (3).
    let c = try #require(
      try failure { root in
        SpecFixtures.set(2.0, at: ["defaults", "confidence", "minLandmarkConfidence"], in: &root)
        SpecFixtures.set(nil, at: ["sceneCatalog"], in: &root)
      })
    #expect(c.kind == .invalidJSON)
    // rois missing (8) before a bad definition of another ROI (9).
    let d = try #require(
      try failure { root in
        SpecFixtures.set(nil, at: ["rois", "bgROI"], in: &root)
        SpecFixtures.set("", at: ["rois", "faceROI", "from"], in: &root)
      })
    #expect(d.kind == .roisMissing)
    #expect(d.missing == ["bgROI"])
  }

  @Test("§2.3 #1: a missing file has the invalid modal with the app's text")
  func missingResource() {
    let e = PoseSpecValidationError.missingResource(fileName: "/nowhere/PoseSpec.json")
    #expect(e.kind == .missingResource)
    #expect(e.promptKey == "posespec_invalid_modal")
    #expect(e.messageZh.contains("PoseSpec.json not found"))
    #expect(e.description.hasPrefix("/nowhere/PoseSpec.json: missingResource"))
  }

  @Test("§2.3: every modal shares the L3 constants")
  func promptConstants() {
    #expect(PoseSpecPrompt.level == "L3")
    #expect(PoseSpecPrompt.surface == "cameraModalCenter")
    #expect(PoseSpecPrompt.priority == 99)
    #expect(PoseSpecPrompt.blocksShutter)
    #expect(PoseSpecPrompt.gate == "stateOnly")
    #expect(PoseSpecPrompt.primaryActionId == "retry")
    #expect(PoseSpecPrompt.primaryTitleZh == "重试")
  }
}
