import CanonicalJSON

/// Loads and validates PoseSpec documents from bytes (ENGINE §2.3). No file access: callers
/// read the file and report an absent one with `PoseSpecValidationError.missingResource`.
///
/// Checks run in the app's order and the first failure wins: decode → confidence range →
/// required fields → prdVersion → binding minimal aliases → bodyPoints set → rois missing →
/// rois definitions; then the [D] checks: values (`PoseSpecRules`) → formulas.
public enum PoseSpecLoader {
  /// The 14 aliases every PoseSpec must bind, in validator order (§2.5).
  public static let requiredAliases = [
    "lShoulder", "rShoulder", "lHip", "rHip", "lAnkle", "rAnkle", "faceBBox", "noseTip",
    "chinCenter", "lEye", "rEye", "eyeMid", "hipMid", "ankleMid",
  ]

  /// Decodes and validates; the document returned passed every check of §2.3.
  public static func load(bytes: [UInt8], fileName: String = "PoseSpec.json") throws(PoseSpecValidationError)
    -> PoseSpecDocument
  {
    let doc = try decode(bytes: bytes, fileName: fileName)
    try validate(doc)
    try PoseSpecRules.check(doc)
    try compileFormulas(doc)
    return doc
  }

  /// The loader half of §2.3 (failures 2 and 3): parse, decode, confidence range. A document
  /// larger than `PoseSpecLimits.specBytesMax`, nested deeper than `jsonDepthMax` or with a
  /// key twice in one object is `invalidJSON` too.
  public static func decode(bytes: [UInt8], fileName: String = "PoseSpec.json") throws(PoseSpecValidationError)
    -> PoseSpecDocument
  {
    let invalid = { (place: String) in
      PoseSpecValidationError(kind: .invalidJSON, fileName: fileName, location: place)
    }
    guard bytes.count <= PoseSpecLimits.specBytesMax else {
      throw invalid(
        "the document is \(bytes.count) bytes, more than specBytesMax = \(PoseSpecLimits.specBytesMax) (4 MiB)")
    }
    let json: JSONValue
    do { json = try JSONParser.parse(bytes: bytes, rejectingDuplicateKeys: true) } catch {
      throw invalid(error.description)
    }
    let doc: PoseSpecDocument
    do { doc = try PoseSpecDocument(json: json, fileName: fileName, sha256: SHA256.hex(bytes)) } catch {
      throw invalid(error.description)
    }
    let a = doc.defaults.minConfidence
    let b = doc.defaults.minLandmarkConfidence
    guard a.isFinite, b.isFinite, (0...1).contains(a), (0...1).contains(b) else {
      throw PoseSpecValidationError(kind: .invalidConfidenceRange, fileName: fileName)
    }
    return doc
  }

  /// The validator half of §2.3 (failures 4–9) on a decoded document.
  public static func validate(_ doc: PoseSpecDocument) throws(PoseSpecValidationError) {
    let file = doc.fileName
    var missing: [String] = []
    if doc.schemaVersion.isEmpty { missing.append("schemaVersion") }
    if doc.prdVersion.isEmpty { missing.append("prdVersion") }
    if doc.generatedAt.isEmpty { missing.append("generatedAt") }
    if doc.changeLog.isEmpty { missing.append("changeLog") }
    if doc.binding == nil { missing.append("binding") }
    if !missing.isEmpty { throw PoseSpecValidationError(kind: .missingRequiredKeys, fileName: file, missing: missing) }

    let expected = PoseSpecDocument.supportedPrdVersion
    guard doc.prdVersion == expected else {
      throw PoseSpecValidationError(
        kind: .prdVersionMismatch, fileName: file, expected: expected, actual: doc.prdVersion)
    }

    guard let binding = doc.binding else { return }  // reported above
    let absent = requiredAliases.filter { binding.aliases[$0] == nil }
    if !absent.isEmpty { throw PoseSpecValidationError(kind: .bindingMissingAliases, fileName: file, missing: absent) }
    guard binding.bodyPointsFrom == "metric.landmarks", binding.bodyPointsInclude == "body.*",
      binding.bodyPointsRule.contains("defaults.confidence.minLandmarkConfidence")
    else { throw PoseSpecValidationError(kind: .bindingBodyPointsSetMismatch, fileName: file) }

    try validateROIs(doc.rois, fileName: file)
  }

  /// After the app's checks: every formula and threshold `error` must compile (DESIGN:
  /// formulas are compiled, never hand-coded; an unknown name is a load-time error), and no
  /// text the compiler skips (an unused alias, a fallback cue's label) calls an unknown function.
  public static func compileFormulas(_ doc: PoseSpecDocument) throws(PoseSpecValidationError) {
    var failure: FormulaCompileError?
    do { _ = try PoseSpecCompiler.compile(doc) } catch {
      failure =
        error as? FormulaCompileError
        ?? FormulaCompileError(cueIndex: -1, cueId: "", place: "", text: "", column: 0, message: "\(error)")
    }
    if failure == nil { failure = PoseSpecCompiler.unknownFunctionOutsideFormulas(doc) }
    if let failure {
      throw PoseSpecValidationError(
        kind: .formulaInvalid, fileName: doc.fileName, location: failure.description, formula: failure)
    }
  }

  static func validateROIs(_ rois: PoseSpecROIs, fileName: String) throws(PoseSpecValidationError) {
    var missing: [String] = []
    if rois.faceROI == nil { missing.append("faceROI") }
    if rois.eyeROI == nil { missing.append("eyeROI") }
    if rois.bgROI == nil { missing.append("bgROI") }
    guard missing.isEmpty, let face = rois.faceROI, let eye = rois.eyeROI, let bg = rois.bgROI else {
      throw PoseSpecValidationError(kind: .roisMissing, fileName: fileName, missing: missing)
    }
    let bad = { (problem: String) in
      PoseSpecValidationError(kind: .roisBadDefinition, fileName: fileName, definitionProblem: problem)
    }
    guard !face.from.isEmpty else { throw bad("rois.faceROI.from empty") }
    guard (0...1).contains(face.paddingX), (0...1).contains(face.paddingY) else {
      throw bad("rois.faceROI.paddingPctOfBBox out of range [0,1]")
    }
    guard eye.from.count >= 2 else { throw bad("rois.eyeROI.from must be an array of >=2 strings") }
    guard eye.from.allSatisfy({ !$0.isEmpty }) else { throw bad("rois.eyeROI.from contains empty string") }
    guard !eye.center.isEmpty else { throw bad("rois.eyeROI.center empty") }
    guard !eye.sizeRuleW.isEmpty, !eye.sizeRuleH.isEmpty else { throw bad("rois.eyeROI.sizeRule empty") }
    guard !eye.requiresConfidence.isEmpty else { throw bad("rois.eyeROI.requiresConfidence empty") }
    guard !bg.type.isEmpty else { throw bad("rois.bgROI.type empty") }
    guard !bg.minus.isEmpty else { throw bad("rois.bgROI.minus empty") }
  }
}
