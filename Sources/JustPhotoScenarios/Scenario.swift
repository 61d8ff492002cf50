import ScenarioYAML
import CanonicalJSON
import EngineIO
import JustPhotoIO
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
/// initial: {camera_auth: authorized, voiceover: false}   # header `initial`: InitialState.keys only
///   # except initial.posespec {from: ../PoseSpec.json, remove: [...], set: {...}} (derived, below)
/// notes: free text
/// budgets: {maxCueChangesPerMinute: 16}   # this recording's own `verify --budgets` limits
/// subject: {x: 0.65}              # baseline over the model defaults (SubjectParam, DiscreteParam)
/// frames: none | {every_ms: 100} | {times: [0, 100, 800]}
/// luma: {every: 5, w: 90, h: 160} # a luma plane every N frames
/// noise: {landmark_sigma: 0.002, conf_sigma: 0.004, miss_rate: 0.05}   # all default 0
///   # + dropouts, occlusions, passersby, drift, sway (Nuisance.swift; never in the labels)
/// detector: {profile: daylight, rate_fps: 30, delivered_fps: 10}   # DetectorModel.swift
///   # profile: daylight | poor_light, + any profile figure (core_sigma: 0.003, …); frames at
///   # round(k·1000/rate_fps), every (rate/delivered)-th emitted with `frame` k; replaces
///   # noise.landmark_sigma/conf_sigma (refused together), `fps` must equal delivered_fps
/// timeline:
///   - {at: 1000, subject: {x: 0.7, people: 2}}                 # step change
///   - {from: 2000, to: 3000, subject: {x: 0.5}}                # linear ramp
///   - {from: 0, to: 5000, oscillate: {top: {amplitude: 0.01, period_ms: 800}}}
///   - {at: 1500, event: {kind: thermal, state: serious}}       # any ENGINE §1.5 kind
///   - {at: 0, intent: none}                                     # should show nothing from here
///   - {from: 4000, to: 5000, subject: {x: 0.64}, intent: FRAME_MOVE_LEFT}   # from `to` on
///   - at: 2000                                                  # a derived spec; sha256 computed
///     event: {kind: posespec_reload, spec: {from: ../PoseSpec.json, remove: ["changeLog[-1]"]}}
/// expect: [{displayed: FRAME_MOVE_LEFT, at: 300, within_ms: 500}]   # ScenarioExpectation; not hashed
/// # ground truth, declared (ScenarioIntent): `intent:` on a timeline step, and/or
/// truth: [{cue: CAFE_12_CAFE_THIRDS_COMPOSE, from: 100000, to: 120000}]
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
/// 2^20 events in all (frames, luma planes, events, references and intent labels), 1 Mpixel luma planes and 1 Gpixel of luma in all, 20,000 timeline entries,
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
    /// Dropouts, occlusions, passers-by, drift, sway (`Nuisance.swift`).
    public var nuisance = Nuisance()
    public init() {}
  }

  /// The file as named by the caller, its base name and its semantic SHA-256 (comments and
  /// formatting aside; `Scenario+Semantics`): the header's `generator_sha256`.
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
  /// `detector:` (`DetectorModel`): the detector's and the delivered frame rates and its
  /// error profile; nil: frames at `fps`, noise from `noise` only.
  public var detector: DetectorModel?
  public var references: [Reference] = []
  /// The `expect:` block: what the replay must show (`Expectations`), checked by `verify`.
  public var expectations: [ScenarioExpectation] = []
  /// The author's declared ground truth: timeline steps' `intent` and the `truth:` block.
  public var intent = ScenarioIntent()

  /// The recording name a scenario file stands for: `x.scenario.yaml` → `x`.
  public static let suffix = ".scenario.yaml"
  public static func recordingName(ofFile path: String) -> String? {
    let base = Paths.name(path)
    guard base.hasSuffix(suffix), base.count > suffix.count else { return nil }
    return String(base.dropLast(suffix.count))
  }

  static let topKeys = [
    "name", "scene", "fps", "duration_ms", "seed", "wall_start_ms", "options", "initial", "notes", "budgets",
    "subject", "timeline", "frames", "luma", "noise", "references", "expect", "truth", "detector",
  ]
  /// The keys `initial:` may have (ENGINE §1.4 and ours; `JustPhotoIO.InitialState`).
  static let initialKeys = InitialState.keys

  /// Reads and parses a scenario file.
  public static func load(path: String) throws(ScenarioError) -> Scenario {
    // Read no further than one byte past the bound: a larger file is refused unread.
    let bytes: [UInt8]
    do {
      bytes = try InputFile.read(
        path, what: "scenario file", bytesMax: ScenarioLimits.documentBytesMax, bound: "ScenarioLimits.documentBytesMax")
    } catch { throw ScenarioError(file: path, error.message) }
    return try parse(bytes: bytes, file: path)
  }

  static func parseFrames(_ n: YNode, duration: Int64) throws(ScenarioError) -> FramePlan {
    if case .scalar = n.node {
      if case .string("none") = try n.scalar() { return .none }
      throw n.error("expected none, {every_ms: N} or {times: [...]}, found \(n.typeName)")
    }
    let m = try n.mapping(allowed: ScenarioSchema.frameKeys)
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

  static func parseReference(_ n: YNode, duration: Int64) throws(ScenarioError) -> Reference {
    let m = try n.mapping(
      allowed: ScenarioSchema.referenceKeys, what: "reference key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    guard let atN = v("at") else { throw n.error("missing key \"at\" (time of the ref_analysis event)") }
    guard let idN = v("ref_id") else { throw n.error("missing key \"ref_id\"") }
    var r = Reference(at: try atN.millis(max: duration), refID: try idN.string(), subject: SubjectPatch(), drop: [], conf: [])
    if let s = v("subject") { r.subject = try SubjectPatch.parse(s) }
    if let d = v("drop") { r.drop = try parseJoints(d) }
    if let c = v("conf") {
      for j in try c.mapping(allowed: ScenarioSchema.jointKeys, what: "joint") {
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
        let members = try e.mapping(allowed: ScenarioSchema.faceKeys, what: "face field")
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
