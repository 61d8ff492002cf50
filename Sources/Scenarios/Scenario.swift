import CanonicalJSON
import EngineIO
import Foundation
import Recording
import Yams

/// A scenario file (`Recordings/<name>.scenario.yaml`): the source of one generated
/// recording. Parsing is strict: an unknown key, a wrong type, a time outside the recording,
/// an unknown event kind or a malformed timeline entry is a `ScenarioError` naming the file,
/// the line and the key. Scalars follow the YAML 1.2 core schema (`on`/`yes` are strings).
///
/// ```yaml
/// name: s04-frame-left-enter      # required; must match the file name
/// duration_ms: 600                # required, ≥ 0
/// seed: 1                         # required, ≥ 0 (SplitMix64 noise)
/// fps: 15                         # default 15: frames at round(k·1000/fps) ≤ duration_ms
/// scene: outdoor                  # cafe | outdoor → initial.scene
/// wall_start_ms: 1770860000000    # default; header anchor for A.13 ts_ms
/// options: {angleFix: "on"}       # engine options (ENGINE §1.8), checked
/// initial: {camera_auth: authorized, voiceover: false}   # header `initial`, passed through
///   # except initial.posespec {from: ../PoseSpec.json, remove: [...], set: {...}} (derived, below)
/// notes: free text
/// budgets: {maxCueChangesPerMinute: 16}   # this recording's own `verify --budgets` limits
/// subject: {x: 0.65}              # baseline over the model defaults (SubjectParam, DiscreteParam)
/// frames: none | {every_ms: 100} | {times: [0, 100, 800]}
/// luma: {every: 5, w: 90, h: 160} # a luma plane every N frames
/// noise: {landmark_sigma: 0.002, conf_sigma: 0.004, miss_rate: 0.05}   # all default 0
/// timeline:
///   - {at: 1000, subject: {x: 0.7, people: 2}}                 # step change
///   - {from: 2000, to: 3000, subject: {x: 0.5}}                # linear ramp
///   - {from: 0, to: 5000, oscillate: {top: {amplitude: 0.01, period_ms: 800}}}
///   - {at: 1500, event: {kind: thermal, state: serious}}       # any ENGINE §1.5 kind
///   - at: 2000                                                  # a derived spec; sha256 computed
///     event: {kind: posespec_reload, spec: {from: ../PoseSpec.json, remove: ["changeLog[-1]"]}}
/// references:
///   - {at: 0, ref_id: ref-A, subject: {face_w: 0.14}, drop: [leftHip], conf: {rightShoulder: 0.4}}
///   - {at: 500, ref_id: ref-2, faces: [{conf: 0.7}, {conf: 0.7, bbox: [0.1, 0.1, 0.14, 0.18]}]}
///   - {at: 900, ref_id: ref-eye, subject: {eye_conf: 0.9}, faces: [{left_eye: {conf: 0.3}}]}
///   - {at: 0, ref_id: ref-lit, frame_scalars: {faceLumaMean: 0.55}}   # T1 targets (§2.11)
/// ```
///
/// Numeric subject parameters (keyframes, ramps, oscillations): x, top, hip, ankle, nose,
/// half, conf, eye_tilt, shoulder_tilt, face_w, face_h, face_conf, face_luma, bg_luma,
/// face_half_diff, chin_gap, eye_conf, hip_tilt (the left hip, image right, this much lower),
/// lean (body nose, neck, shoulders, elbows, wrists and body eyes/ears shifted by this in x
/// against the hips; the face stays), hip_ratio (hip half-width / `half`, default 0.7),
/// eye_ar and landmark_conf (the face's recorded `eye_ar` / `landmark_conf_avg`, ENGINE §1.5;
/// 0 = not recorded, the default). Discrete (keyframes only): people, absent, no_face,
/// drop (joint names), left_prec, joints — `joints: {leftWrist: [0.52, 0.24]}` places body
/// joints at fixed canonical positions instead of the model's (noise and confidence as any
/// joint; `joints: {}` restores the model; a keyframe replaces the whole override list). The Python's `conf` noise was 2 × landmark sigma; here it
/// is `conf_sigma`. At one t the events come: luma, landmarks, timeline events, references.
///
/// A reference is the model subject (defaults + its own `subject`, no noise, not the
/// scenario's baseline); `subject: {absent: true}` gives `body: null, faces: []`. `faces`
/// replaces the face list: one face per entry, each the model's face with the entry's fields
/// changed (bbox, conf, left_eye, right_eye, nose_tip, chin, mouth; a mapping such as
/// `left_eye: {conf: 0.3}` merges into the model's point, other values replace; `faces: []`
/// is no face) — the Python's `reference(faces=...)`. `frame_scalars` (metric name → number)
/// becomes the event's `frame_scalars.values`: pixel metrics of the reference photo, which
/// the target extraction reads like a live frame's overrides (ENGINE §2.11, §3.13b).
///
/// A PoseSpec may be derived from a spec file in `initial.posespec` and in a `posespec_reload`
/// event's `spec` (S01–S03, S18; `PoseSpecDerivation`): a mapping with `from` (a path relative
/// to the scenario file's folder), `remove` (paths) and `set` (path: value), applied in that
/// order. A path is keys joined by `.`, each optionally followed by `[i]` (an index, negative
/// from the end) or `[field=value]` (the list element whose field equals value), e.g.
/// `"cues[id=CHIN_UP].trigger.withRef"`. A reload without `sha256` gets the SHA-256 of the
/// derived spec as the canonical writer prints it (`JSONWriter.write`: the text the engine
/// loads an inline spec from). The spec file is then an input of the recording as well: after
/// it changes, `jpreplay verify` reports the recording stale until it is re-recorded.
///
/// Bounds (`ScenarioLimits`, each refused at its key with the bound named): a file of at most
/// 1 MiB, YAML nested at most 64 deep, no anchors or aliases (`&a`, `*a`), at most 24 h,
/// 4 M frames, 1 Mpixel luma planes and 1 Gpixel of luma in all, 20,000 timeline entries,
/// 10,000 references. The recording is generated as it is written or compared (flat memory).
public struct Scenario: Sendable {
  public enum FramePlan: Equatable, Sendable {
    /// round(k · 1000 / fps) while ≤ duration_ms (the default)
    case fps
    /// k · ms while ≤ duration_ms
    case every(Int64)
    /// exactly these times
    case times([Int64])
    /// no landmark frames (app-side scenarios)
    case none
  }

  public struct Oscillation: Sendable {
    public var param: SubjectParam
    public var amplitude: Double
    public var periodMs: Double
  }

  public enum TimelineEntry: Sendable {
    /// step change at `at`
    case keyframe(at: Int64, subject: SubjectPatch)
    /// linear from the value at `from` to the given values at `to`
    case ramp(from: Int64, to: Int64, subject: SubjectPatch)
    /// value += amplitude · sin(2π (t − from) / period) for from ≤ t < to
    case oscillate(from: Int64, to: Int64, params: [Oscillation])
    /// an input event passed verbatim (fields in file order, `t` and `kind` first)
    case event(at: Int64, line: JSONObject)
  }

  public struct Reference: Sendable {
    public var at: Int64
    public var refID: String
    public var subject: SubjectPatch
    public var drop: [Joint]
    public var conf: [(Joint, Double)]
    /// The face list as edits of the model's face (one face per edit); nil: the model's.
    public var faces: [JSONObject]? = nil
    /// `frame_scalars.values` of the ref_analysis event; nil: none.
    public var scalars: JSONObject? = nil
  }

  public struct Noise: Sendable {
    public var landmarkSigma = 0.0
    public var confSigma = 0.0
    public var missRate = 0.0
    public init() {}
  }

  /// The file as named by the caller, its base name and the SHA-256 of its bytes.
  public var file: String
  public var fileName: String
  public var sha256: String

  public var name: String
  public var scene: String?
  public var fps: Int = 15
  public var durationMs: Int64
  public var seed: UInt64
  public var wallStartMs: Int64 = 1_770_860_000_000
  public var options = JSONObject()
  public var initial = JSONObject()
  public var notes: String?
  /// `budgets: {maxCueChangesPerMinute: 16}`: this recording's own prompt-budget limits for
  /// `verify --budgets` (header `budgets`), e.g. a coverage sweep showing many cues on purpose.
  public var budgets: [(name: String, value: Int64)] = []
  public var subject = SubjectState()
  public var timeline: [TimelineEntry] = []
  public var frames: FramePlan = .fps
  public var lumaEvery: Int?
  public var lumaW = 90
  public var lumaH = 160
  public var noise = Noise()
  public var references: [Reference] = []

  /// The recording name a scenario file stands for: `x.scenario.yaml` → `x`.
  public static let suffix = ".scenario.yaml"
  public static func recordingName(ofFile path: String) -> String? {
    let base = URL(fileURLWithPath: path).lastPathComponent
    guard base.hasSuffix(suffix), base.count > suffix.count else { return nil }
    return String(base.dropLast(suffix.count))
  }

  static let topKeys = [
    "name", "scene", "fps", "duration_ms", "seed", "wall_start_ms", "options", "initial", "notes", "budgets",
    "subject", "timeline", "frames", "luma", "noise", "references",
  ]

  /// Reads and parses a scenario file.
  public static func load(path: String) throws(ScenarioError) -> Scenario {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      let missing = !FileManager.default.fileExists(atPath: path)
      throw ScenarioError(file: path, missing ? "no such file" : "cannot open for reading")
    }
    defer { try? handle.close() }
    // One byte past the bound is enough to refuse the file without reading all of it.
    let data: Data?
    do { data = try handle.read(upToCount: ScenarioLimits.documentBytesMax + 1) } catch {
      throw ScenarioError(file: path, "cannot read (\(error.localizedDescription))")
    }
    return try parse(bytes: [UInt8](data ?? Data()), file: path)
  }

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
    let root = YNode(node: try composeYAML(text, file: file), file: file, path: "")
    let members = try root.mapping(allowed: topKeys)
    func member(_ k: String) -> YNode? { members.first(where: { $0.key == k })?.value }

    guard let nameNode = member("name") else { throw root.error("missing key \"name\" (the recording name)") }
    let name = try nameNode.string()
    let fileName = URL(fileURLWithPath: file).lastPathComponent
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

    var s = Scenario(
      file: file, fileName: fileName, sha256: SHA256.hex(bytes), name: name, durationMs: duration,
      seed: UInt64(seedValue))

    if let n = member("fps") {
      let v = try n.int()
      guard v >= 1, v <= ScenarioLimits.fpsMax else {
        throw n.error("expected frames per second 1…\(ScenarioLimits.fpsMax) (ScenarioLimits.fpsMax), found \(v)")
      }
      s.fps = Int(v)
    }
    if let n = member("wall_start_ms") {
      let v = try n.int()
      guard v >= 0 else { throw n.error("expected Unix epoch ms ≥ 0, found \(v)") }
      s.wallStartMs = v
    }
    if let n = member("notes") { s.notes = try n.string() }
    if let n = member("budgets") {
      let known = ["maxShowsOfOneCue", "repeatWindowMs", "maxPromptsPerSecond", "maxCueChangesPerMinute", "minHoldMs"]
      for m in try n.mapping(allowed: known, what: "budget") {
        let v = try m.value.int()
        guard v >= 0 else { throw m.value.error("expected a non-negative integer, found \(v)") }
        s.budgets.append((m.key, v))
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
        s.options.members.append(member)
      }
    }
    let dir = URL(fileURLWithPath: file).deletingLastPathComponent().path
    if let n = member("initial") {
      guard case .mapping = n.node else { throw n.error("expected a mapping, found \(n.typeName)") }
      for m in try n.mapping() {
        // initial.posespec may derive the launch spec from a file (S01–S03).
        let v = m.key == "posespec" && PoseSpecDerivation.isDerivation(m.value)
          ? try PoseSpecDerivation.expand(m.value, dir: dir) : try m.value.json()
        s.initial.members.append(JSONMember(m.key, v))
      }
    }
    if let n = member("scene") {
      let v = try n.string()
      guard v == "cafe" || v == "outdoor" else { throw n.error("expected cafe or outdoor, found \"\(v)\"") }
      if s.initial["scene"] != nil {
        throw n.error("the scene is given twice (here and in initial.scene); keep one")
      }
      s.scene = v
      s.initial.members.insert(JSONMember("scene", .string(v)), at: 0)
    }
    if let n = member("subject") { s.subject.apply(try SubjectPatch.parse(n)) }
    if let n = member("frames") { s.frames = try parseFrames(n, duration: duration) }
    if let n = member("luma") {
      for m in try n.mapping(allowed: ["every", "w", "h"]) {
        let v = try m.value.int()
        switch m.key {
        case "every":
          guard v >= 1 else { throw m.value.error("expected a frame count ≥ 1, found \(v)") }
          s.lumaEvery = Int(v)
        default:
          let side = ScenarioLimits.lumaSideMax
          guard v >= 1, v <= side else { throw m.value.error("expected a size 1…\(side) (ScenarioLimits.lumaSideMax), found \(v)") }
          if m.key == "w" { s.lumaW = Int(v) } else { s.lumaH = Int(v) }
        }
      }
      if s.lumaEvery == nil { throw n.error("missing key \"every\" (a luma plane every N frames)") }
      let pixels = Int64(s.lumaW) * Int64(s.lumaH)  // both ≤ lumaSideMax: no overflow
      guard pixels <= ScenarioLimits.lumaPixelsMax else {
        throw n.error(
          "a \(s.lumaW)×\(s.lumaH) plane has \(pixels) pixels, more than the bound \(ScenarioLimits.lumaPixelsMax) (ScenarioLimits.lumaPixelsMax); use a smaller w·h")
      }
    }
    if let n = member("noise") {
      for m in try n.mapping(allowed: ["landmark_sigma", "conf_sigma", "miss_rate"]) {
        let v = try m.value.double()
        switch m.key {
        case "miss_rate":
          guard v >= 0, v <= 1 else { throw m.value.error("expected a probability in [0, 1], found \(v)") }
          s.noise.missRate = v
        default:
          guard v >= 0, v <= 1 else { throw m.value.error("expected a standard deviation in [0, 1], found \(v)") }
          if m.key == "landmark_sigma" { s.noise.landmarkSigma = v } else { s.noise.confSigma = v }
        }
      }
    }
    if let n = member("timeline") {
      let entries = try n.sequence(max: ScenarioLimits.timelineEntriesMax, bound: "ScenarioLimits.timelineEntriesMax")
      for e in entries { s.timeline.append(try parseEntry(e, duration: duration, dir: dir)) }
      let oscillations = s.timeline.reduce(0) { n, e in if case .oscillate(_, _, let p) = e { n + p.count } else { n } }
      guard oscillations <= ScenarioLimits.oscillationsMax else {
        throw n.error(
          "\(oscillations) oscillated parameters, more than the bound \(ScenarioLimits.oscillationsMax) (ScenarioLimits.oscillationsMax)")
      }
    }
    if let n = member("references") {
      let refs = try n.sequence(max: ScenarioLimits.referencesMax, bound: "ScenarioLimits.referencesMax")
      for r in refs { s.references.append(try parseReference(r, duration: duration)) }
    }
    try s.checkGeneratedSize(root: root, duration: durNode, fps: member("fps"), frames: member("frames"), luma: member("luma"))
    return s
  }

  static func parseFrames(_ n: YNode, duration: Int64) throws(ScenarioError) -> FramePlan {
    if case .scalar = n.node {
      if case .string("none") = try n.scalar() { return .none }
      throw n.error("expected none, {every_ms: N} or {times: [...]}, found \(n.typeName)")
    }
    let m = try n.mapping(allowed: ["every_ms", "times"])
    guard m.count == 1 else { throw n.error("expected exactly one of every_ms or times") }
    let v = m[0].value
    if m[0].key == "every_ms" {
      let ms = try v.int()
      guard ms >= 1 else { throw v.error("expected a period ≥ 1 ms, found \(ms)") }
      return .every(ms)
    }
    var times: [Int64] = []
    for t in try v.sequence() {
      let ms = try t.millis(max: duration)
      if let last = times.last, ms <= last { throw t.error("frame times must increase (\(ms) after \(last))") }
      times.append(ms)
    }
    return .times(times)
  }

  static let entryShapes =
    "expected one of {at, subject} (keyframe), {from, to, subject} (ramp), {from, to, oscillate} (oscillation), {at, event} (event)"

  static func parseEntry(_ n: YNode, duration: Int64, dir: String = ".") throws(ScenarioError) -> TimelineEntry {
    let m = try n.mapping(allowed: ["at", "from", "to", "subject", "oscillate", "event"], what: "timeline key")
    let keys = Set(m.map(\.key))
    func v(_ k: String) -> YNode { m.first(where: { $0.key == k })!.value }
    switch keys {
    case ["at", "subject"]:
      return .keyframe(at: try v("at").millis(max: duration), subject: try SubjectPatch.parse(v("subject")))
    case ["from", "to", "subject"], ["from", "to", "oscillate"]:
      let from = try v("from").millis(max: duration)
      let to = try v("to").millis(max: duration)
      guard to > from else { throw v("to").error("expected to > from (\(from)), found \(to)") }
      if keys.contains("subject") {
        let p = try SubjectPatch.parse(v("subject"))
        if p.hasDiscrete {
          let which = m.first(where: { $0.key == "subject" })!.value
          throw which.error(
            "a ramp moves numeric parameters only; people, absent, no_face, drop and left_prec change in a keyframe {at, subject}")
        }
        return .ramp(from: from, to: to, subject: p)
      }
      var params: [Oscillation] = []
      for o in try v("oscillate").mapping(allowed: SubjectParam.allCases.map(\.rawValue), what: "numeric subject parameter") {
        var amp: Double?
        var period: Double?
        for f in try o.value.mapping(allowed: ["amplitude", "period_ms"]) {
          if f.key == "amplitude" { amp = try SubjectPatch.bounded(f.value) } else {
            let p = try f.value.double()
            guard p >= 1 else { throw f.value.error("expected a period ≥ 1 ms, found \(p)") }
            period = p
          }
        }
        guard let amp, let period else { throw o.value.error("expected {amplitude, period_ms}") }
        params.append(Oscillation(param: SubjectParam(rawValue: o.key)!, amplitude: amp, periodMs: period))
      }
      return .oscillate(from: from, to: to, params: params)
    case ["at", "event"]:
      let at = try v("at").millis(max: duration)
      let evNode = v("event")
      var line = JSONObject()
      line.members.append(JSONMember("t", .number(Double(at))))
      let fields = try evNode.mapping()
      guard let kindNode = fields.first(where: { $0.key == "kind" })?.value else {
        throw evNode.error("missing key \"kind\" (an event kind of ENGINE §1.5, e.g. shutter_tap)")
      }
      let kind = try kindNode.string()
      guard let ek = EventKind(rawValue: kind) else {
        var msg = "unknown event kind \"\(kind)\""
        if let s = closest(kind, in: EventKind.allCases.map(\.rawValue)) { msg += " (did you mean \"\(s)\"?)" }
        throw kindNode.error(msg + "; expected a kind of ENGINE §1.5 (docs/FORMAT.md)")
      }
      if ek == .landmarks || ek == .luma {
        throw kindNode.error("\(kind) events come from the subject model (subject/timeline/frames/luma), not from timeline events")
      }
      line.members.append(JSONMember("kind", .string(kind)))
      for f in fields where f.key != "kind" {
        if f.key == "t" { throw f.value.error("the time of a timeline event is its `at`; remove `t`") }
        if ek == .posespec_reload && f.key == "spec" && PoseSpecDerivation.isDerivation(f.value) {
          // A derived spec; without an explicit sha256, the hash of its canonical JSON text
          // (the text the engine loads it from), right after `kind`.
          let spec = try PoseSpecDerivation.expand(f.value, dir: dir)
          if !fields.contains(where: { $0.key == "sha256" }) {
            line.members.insert(JSONMember("sha256", .string(SHA256.hex(JSONWriter.write(spec)))), at: 2)
          }
          line.members.append(JSONMember(f.key, spec))
          continue
        }
        line.members.append(JSONMember(f.key, try f.value.json()))
      }
      // The same check an imported JSONL line gets (ENGINE §1.5–1.6), reported at this entry.
      do { _ = try JSONLEventDecoder(file: n.file, line: evNode.line ?? 0).decode(.object(line)) } catch {
        var msg = error.message
        // The decoder reports "field \"x\": …"; point at that field's line when it is there.
        var at = evNode
        if let r = msg.range(of: "field \""), let end = msg[r.upperBound...].firstIndex(of: "\"") {
          let field = String(msg[r.upperBound..<end])
          if let f = fields.first(where: { $0.key == field }) { at = f.value }
        }
        if msg.hasPrefix("\(kind): ") { msg.removeFirst(kind.count + 2) }
        throw at.error("\(kind) event: \(msg)")
      }
      return .event(at: at, line: line)
    default:
      if keys.isEmpty { throw n.error("empty timeline entry; \(entryShapes)") }
      throw n.error("a timeline entry with keys {\(m.map(\.key).joined(separator: ", "))}: \(entryShapes)")
    }
  }

  /// The fields of a face observation (ENGINE §1.5) a reference's `faces` edit may change.
  static let faceKeys = ["bbox", "conf", "left_eye", "right_eye", "nose_tip", "chin", "mouth"]

  static func parseReference(_ n: YNode, duration: Int64) throws(ScenarioError) -> Reference {
    let m = try n.mapping(
      allowed: ["at", "ref_id", "subject", "drop", "conf", "faces", "frame_scalars"], what: "reference key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    guard let atN = v("at") else { throw n.error("missing key \"at\" (time of the ref_analysis event)") }
    guard let idN = v("ref_id") else { throw n.error("missing key \"ref_id\"") }
    var r = Reference(at: try atN.millis(max: duration), refID: try idN.string(), subject: SubjectPatch(), drop: [], conf: [])
    if let s = v("subject") { r.subject = try SubjectPatch.parse(s) }
    if let d = v("drop") { r.drop = try parseJoints(d) }
    if let c = v("conf") {
      for j in try c.mapping(allowed: Joint.allCases.map(\.name), what: "joint") {
        let x = try j.value.double()
        guard x >= 0, x <= 1 else { throw j.value.error("expected a confidence in [0, 1], found \(x)") }
        let joint = Joint(name: j.key)!
        if r.drop.contains(joint) || r.subject.drop?.contains(joint) == true {
          throw j.value.error("\(j.key) is dropped from this reference; it has no confidence to set")
        }
        r.conf.append((joint, x))
      }
    }
    if let f = v("faces") {
      var faces: [JSONObject] = []
      for e in try f.sequence(max: ScenarioLimits.referenceFacesMax, bound: "ScenarioLimits.referenceFacesMax") {
        let members = try e.mapping(allowed: faceKeys, what: "face field")
        var o = JSONObject()
        for m in members { o.members.append(JSONMember(m.key, try m.value.json())) }
        faces.append(o)
      }
      r.faces = faces
    }
    if let f = v("frame_scalars") {
      var o = JSONObject()
      for m in try f.mapping() { o.members.append(JSONMember(m.key, .number(try m.value.double()))) }
      r.scalars = o
    }
    return r
  }
}
