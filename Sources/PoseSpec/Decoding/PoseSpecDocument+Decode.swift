import CanonicalJSON

extension PoseSpecDocument {
  /// Decodes a parsed document with the required-ness of the app's `Codable` model
  /// (`INF/PoseSpec/PoseSpecModel.swift`; ENGINE §2.1): keys are checked in that model's
  /// declaration order and the first problem is reported with its JSON path.
  ///
  /// Cues are typed too (the app keeps them as raw JSON and parses them later); a cue field the
  /// engine needs that is missing or mistyped is a decode failure as well.
  public init(json: JSONValue, fileName: String, sha256: String) throws(PoseSpecDecodeFailure) {
    let root = try JSONReader(json, path: "$")
    self.fileName = fileName
    self.sha256 = sha256
    raw = json
    var warnings: [String] = []

    name = try root.string("name")
    schemaVersion = try root.string("schemaVersion")
    generatedAt = try root.string("generatedAt")
    let cs = try root.reader("coordinateSystem")
    for k in ["space", "x", "y"] { _ = try cs.string(k) }
    _ = try cs.doubles("range")
    _ = try cs.string("note")
    let qa = try root.reader("qaAssets")
    _ = try qa.string("namingConvention")
    _ = try qa.string("requirement")
    defaults = try Self.decodeDefaults(try root.reader("defaults"))
    let sceneDefaults = try root.reader("sceneDefaults")
    for m in sceneDefaults.object.members {
      let sd = try JSONReader(m.value, path: sceneDefaults.keyPath(m.key))
      let c = try sd.reader("confidence")
      _ = try c.double("minConfidence")
      _ = try c.string("fallbackCueId")
      _ = try Self.decodeAntiJitter(try sd.reader("antiJitter"))
    }
    mutexGroups = try root.strings("mutexGroups")
    let metrics = try root.reader("metrics")
    _ = try metrics.stringMap("helpers")
    _ = try metrics.strings("notes")

    var cues: [PoseSpecCue] = []
    for (i, item) in try root.array("cues").enumerated() {
      cues.append(try PoseSpecCue(json: item, index: i, path: "cues[\(i)]", warnings: &warnings))
    }
    self.cues = cues

    prdVersion = try root.string("prdVersion")
    let sc = try root.reader("sceneCatalog")
    sceneCatalog = SceneCatalog(
      uiScenes: try sc.strings("uiScenes"), internalSharedScene: try sc.string("internalSharedScene"))
    _ = try sc.string("evaluationRule")
    _ = try sc.string("analyticsSceneParam")
    _ = try root.value("directorScriptCard")
    _ = try root.value("praisePolicy")
    var log: [ChangeLogEntry] = []
    for (i, item) in try root.array("changeLog").enumerated() {
      log.append(try Self.decodeChangeLogEntry(try JSONReader(item, path: "changeLog[\(i)]")))
    }
    changeLog = log
    binding = try root.optionalReader("binding").map { r throws(PoseSpecDecodeFailure) in try Self.decodeBinding(r) }
    rois = try Self.decodeROIs(try root.reader("rois"))
    _ = try root.value("withRefPolicy")
    _ = try root.value("v1Proxies")

    var seen: Set<String> = []
    for c in cues where !seen.insert(c.id).inserted {
      warnings.append("cues[\(c.index)].id: duplicate cue id \"\(c.id)\" (the first one is used)")
    }
    self.warnings = warnings
  }

  static func decodeDefaults(_ r: JSONReader) throws(PoseSpecDecodeFailure) -> PoseSpecDefaults {
    let c = try r.reader("confidence")
    let minConfidence = try c.double("minConfidence")
    let degrade = try c.strings("multiPersonDegradeTo")
    let fallback = try c.string("fallbackCueId")
    let minLandmark = try c.double("minLandmarkConfidence")
    let antiJitter = try decodeAntiJitter(try r.reader("antiJitter"))
    let h = try r.reader("hysteresis")
    let enabled = try h.bool("enabled")
    _ = try h.string("note")
    let selection = try r.value("selection")
    return PoseSpecDefaults(
      minConfidence: minConfidence, minLandmarkConfidence: minLandmark, fallbackCueId: fallback,
      multiPersonDegradeTo: degrade, antiJitter: antiJitter, hysteresisEnabled: enabled,
      selection: SelectionPolicy(json: selection))
  }

  static func decodeAntiJitter(_ r: JSONReader) throws(PoseSpecDecodeFailure) -> AntiJitterParameters {
    AntiJitterParameters(
      persistFrames: try r.int("persistFrames"), minHoldMs: try r.int("minHoldMs"),
      cooldownMs: try r.int("cooldownMs"))
  }

  static func decodeChangeLogEntry(_ r: JSONReader) throws(PoseSpecDecodeFailure) -> ChangeLogEntry {
    let version = try r.optionalString("version")
    let date = try r.string("date")
    let notes = try r.optionalStrings("notes")
    let changes = try r.optionalStrings("changes")
    _ = try r.optionalStrings("referenceCases")
    let scope = try r.optionalString("scope")
    let items = try r.optionalStrings("items")
    return ChangeLogEntry(version: version, date: date, notes: notes, changes: changes, scope: scope, items: items)
  }

  static func decodeBinding(_ r: JSONReader) throws(PoseSpecDecodeFailure) -> PoseSpecBinding {
    let aliases = try r.stringMap("aliases")
    let bp = try r.reader("sets").reader("bodyPoints")
    let binding = PoseSpecBinding(
      aliases: Dictionary(aliases.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }),
      aliasOrder: aliases.map(\.key), bodyPointsFrom: try bp.string("from"),
      bodyPointsInclude: try bp.string("include"), bodyPointsRule: try bp.string("rule"))
    _ = try r.strings("notes")
    return binding
  }

  static func decodeROIs(_ r: JSONReader) throws(PoseSpecDecodeFailure) -> PoseSpecROIs {
    var rois = PoseSpecROIs()
    if let f = try r.optionalReader("faceROI") {
      let from = try f.string("from")
      let pad = try f.reader("paddingPctOfBBox")
      rois.faceROI = .init(
        from: from, paddingX: try pad.double("x"), paddingY: try pad.double("y"),
        clampToFrame: try f.bool("clampToFrame"))
      _ = try f.optionalString("notes")
    }
    if let e = try r.optionalReader("eyeROI") {
      let from = try e.strings("from")
      let shape = try e.string("shape")
      let center = try e.string("center")
      let size = try e.reader("sizeRule")
      rois.eyeROI = .init(
        from: from, shape: shape, center: center, sizeRuleW: try size.string("w"),
        sizeRuleH: try size.string("h"), clampToFrame: try e.bool("clampToFrame"),
        requiresConfidence: try e.string("requiresConfidence"))
      _ = try e.optionalString("notes")
    }
    if let b = try r.optionalReader("bgROI") {
      rois.bgROI = .init(type: try b.string("type"), minus: try b.string("minus"))
      _ = try b.optionalString("implementation")
      _ = try b.optionalString("notes")
    }
    return rois
  }
}
