import ScenarioYAML
import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import Recording

extension Scenario {
  /// Parses scenario text; `file` names it in messages and its base name must be
  /// `<name>.scenario.yaml`.
  public static func parse(bytes: [UInt8], file: String) throws(ScenarioError) -> Scenario {
    guard bytes.count <= ScenarioLimits.documentBytesMax else {
      throw ScenarioError(
        file: file,
        "the file is larger than \(ScenarioLimits.documentBytesMax) bytes (ScenarioLimits.documentBytesMax); split the scenario")
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw ScenarioError(file: file, "not valid UTF-8")
    }
    let root = YNode(node: try composeYAML(text, file: file, rules: ScenarioLimits.yamlRules), file: file, path: "")
    let members = try root.mapping(allowed: topKeys)
    func member(_ k: String) -> YNode? { members.first(where: { $0.key == k })?.value }
    var s = try required(root, member, file: file, bytes: bytes)
    try s.parseSettings(member)
    let dir = URL(fileURLWithPath: file).folder.path
    try s.parseInitial(member, dir: dir)
    if let n = member("subject") { s.subject.apply(try SubjectPatch.parse(n)) }
    if let n = member("frames") { s.frames = try parseFrames(n, duration: s.durationMs) }
    if let n = member("luma") { try s.parseLuma(n) }
    if let n = member("noise") { try s.parseNoise(n) }
    if let n = member("detector") { try s.parseDetector(n, member) }
    if let n = member("timeline") { try s.parseTimeline(n, dir: dir) }
    if let n = member("references") {
      let refs = try n.sequence(max: ScenarioLimits.referencesMax, bound: "ScenarioLimits.referencesMax")
      for r in refs { s.references.append(try parseReference(r, duration: s.durationMs)) }
    }
    if let n = member("truth") {
      s.intent.truth = try ScenarioIntent.parseTruth(n, duration: s.durationMs)
      s.intent.declared = true
    }
    if let n = member("expect") { s.expectations = try ScenarioExpectation.parseBlock(n, duration: s.durationMs, wallStartMs: s.wallStartMs) }
    try s.checkGeneratedSize(
      root: root, duration: member("duration_ms")!, fps: member("fps"), frames: member("frames"), luma: member("luma"))
    s.sha256 = semanticSHA256(root: root, specs: s.derivedSpecs)
    return s
  }

  /// The scenario from its required keys: `name` (matching the file name), `duration_ms`, `seed`.
  static func required(
    _ root: YNode, _ member: (String) -> YNode?, file: String, bytes: [UInt8]
  ) throws(ScenarioError) -> Scenario {
    guard let nameNode = member("name") else { throw root.error("missing key \"name\" (the recording name)") }
    let name = try nameNode.string()
    let fileName = Paths.name(file)
    if let expected = recordingName(ofFile: file), expected != name {
      throw nameNode.error("\"\(name)\" does not match the file name \(fileName) (expected \"\(expected)\")")
    }
    guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
      throw nameNode.error("expected a file-name-safe recording name (letters, digits, - _ .), found \"\(name)\"")
    }
    guard let durNode = member("duration_ms") else {
      throw root.error("missing key \"duration_ms\" (the recording length in ms)")
    }
    let duration = try durNode.int()
    guard duration >= 0 else { throw durNode.error("expected a non-negative duration in ms, found \(duration)") }
    guard duration <= ScenarioLimits.durationMsMax else {
      throw durNode.error(
        "\(duration) ms is longer than the bound \(ScenarioLimits.durationMsMax) ms (24 h, ScenarioLimits.durationMsMax); shorten the scenario")
    }
    guard let seedNode = member("seed") else { throw root.error("missing key \"seed\" (the noise seed, an integer ≥ 0)") }
    let seedValue = try seedNode.int()
    guard seedValue >= 0 else { throw seedNode.error("expected an integer ≥ 0, found \(seedValue)") }
    return Scenario(
      file: file, fileName: fileName, sha256: SHA256.hex(bytes), name: name, durationMs: duration,
      seed: UInt64(seedValue))
  }

  /// `fps`, `wall_start_ms`, `notes`, `budgets` and `options` (each option checked as the engine would).
  mutating func parseSettings(_ member: (String) -> YNode?) throws(ScenarioError) {
    if let n = member("fps") {
      let v = try n.int()
      guard v >= 1, v <= ScenarioLimits.fpsMax else {
        throw n.error("expected frames per second 1…\(ScenarioLimits.fpsMax) (ScenarioLimits.fpsMax), found \(v)")
      }
      fps = Int(v)
    }
    if let n = member("wall_start_ms") {
      let v = try n.int()
      guard v >= 0 else { throw n.error("expected Unix epoch ms ≥ 0, found \(v)") }
      wallStartMs = v
    }
    if let n = member("notes") { notes = try n.string() }
    if let n = member("budgets") {
      for m in try n.mapping(allowed: ScenarioSchema.budgetKeys, what: "budget") {
        let v = try m.value.int()
        guard v >= 0 else { throw m.value.error("expected a non-negative integer, found \(v)") }
        budgets.append((m.key, v))
      }
    }
    if let n = member("options") {
      for m in try n.mapping() {
        let text: String
        switch try m.value.scalar() {
        case .string(let v): text = v
        case .bool(let b): text = b ? "true" : "false"
        case .int(let i): text = String(i)
        case .double(let d): text = JSONWriter.shortest(d)
        case .null: throw m.value.error("expected an option value, found null")
        }
        let member = JSONMember(m.key, .string(text))
        do { _ = try EngineOptions(json: JSONObject([member])) } catch { throw m.value.error(error.description) }
        options.members.append(member)
      }
    }
  }

  /// `initial` (passed through; `initial.posespec` may be derived from a file) and `scene`.
  mutating func parseInitial(_ member: (String) -> YNode?, dir: String) throws(ScenarioError) {
    if let n = member("initial") {
      guard case .mapping = n.node else { throw n.error("expected a mapping, found \(n.typeName)") }
      for m in try n.mapping(allowed: Self.initialKeys, what: "initial key") {
        // initial.posespec may derive the launch spec from a file (S01–S03).
        let v = m.key == "posespec" && PoseSpecDerivation.isDerivation(m.value)
          ? try PoseSpecDerivation.expand(m.value, dir: dir) : try m.value.json()
        initial.members.append(JSONMember(m.key, v))
      }
    }
    if let n = member("scene") {
      let v = try n.string()
      guard v == "cafe" || v == "outdoor" else { throw n.error("expected cafe or outdoor, found \"\(v)\"") }
      if initial["scene"] != nil {
        throw n.error("the scene is given twice (here and in initial.scene); keep one")
      }
      scene = v
      initial.members.insert(JSONMember("scene", .string(v)), at: 0)
    }
  }

  /// `luma: {every, w, h}`: a plane every N frames, within the size bounds.
  mutating func parseLuma(_ n: YNode) throws(ScenarioError) {
    for m in try n.mapping(allowed: ScenarioSchema.lumaKeys) {
      let v = try m.value.int()
      switch m.key {
      case "every":
        guard v >= 1 else { throw m.value.error("expected a frame count ≥ 1, found \(v)") }
        lumaEvery = Int(v)
      default:
        let side = ScenarioLimits.lumaSideMax
        guard v >= 1, v <= side else { throw m.value.error("expected a size 1…\(side) (ScenarioLimits.lumaSideMax), found \(v)") }
        if m.key == "w" { lumaW = Int(v) } else { lumaH = Int(v) }
      }
    }
    if lumaEvery == nil { throw n.error("missing key \"every\" (a luma plane every N frames)") }
    let pixels = Int64(lumaW) * Int64(lumaH)  // both ≤ lumaSideMax: no overflow
    guard pixels <= ScenarioLimits.lumaPixelsMax else {
      throw n.error(
        "a \(lumaW)×\(lumaH) plane has \(pixels) pixels, more than the bound \(ScenarioLimits.lumaPixelsMax) (ScenarioLimits.lumaPixelsMax); use a smaller w·h")
    }
  }

  /// `noise: {landmark_sigma, conf_sigma, miss_rate}`, each in [0, 1], and the nuisance keys
  /// (`Nuisance.keys`: dropouts, occlusions, passersby, drift, sway).
  mutating func parseNoise(_ n: YNode) throws(ScenarioError) {
    for m in try n.mapping(allowed: ScenarioSchema.noiseKeys) {
      if Nuisance.keys.contains(m.key) {
        try noise.nuisance.parse(key: m.key, m.value)
        continue
      }
      let v = try m.value.double()
      switch m.key {
      case "miss_rate":
        guard v >= 0, v <= 1 else { throw m.value.error("expected a probability in [0, 1], found \(v)") }
        noise.missRate = v
      default:
        guard v >= 0, v <= 1 else { throw m.value.error("expected a standard deviation in [0, 1], found \(v)") }
        if m.key == "landmark_sigma" { noise.landmarkSigma = v } else { noise.confSigma = v }
      }
    }
  }

  /// `timeline`: its entries, within the bounds on entries and oscillated parameters.
  mutating func parseTimeline(_ n: YNode, dir: String) throws(ScenarioError) {
    let entries = try n.sequence(max: ScenarioLimits.timelineEntriesMax, bound: "ScenarioLimits.timelineEntriesMax")
    for e in entries {
      if let step = try Self.parseIntent(e, duration: durationMs) {
        intent.steps.append(step.step)
        intent.declared = true
        if step.alone { continue }
      }
      timeline.append(try Self.parseEntry(e, duration: durationMs, dir: dir))
    }
    let oscillations = timeline.reduce(0) { n, e in if case .oscillate(_, _, let p) = e { n + p.count } else { n } }
    guard oscillations <= ScenarioLimits.oscillationsMax else {
      throw n.error(
        "\(oscillations) oscillated parameters, more than the bound \(ScenarioLimits.oscillationsMax) (ScenarioLimits.oscillationsMax)")
    }
  }
}
