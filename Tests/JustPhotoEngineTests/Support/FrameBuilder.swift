import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Foundation
import PoseSpec
import Replay


/// Builders for landmark frames, specs and engine runs used by the engine tests.
enum Fixture {
  static let repoRoot: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  /// The app's reference PoseSpec as a test fixture: its facts as they are, its prose fields
  /// in the project's words.
  static let referenceURL = repoRoot.appendingPathComponent("Tests/Fixtures/reference-posespec.json")
  static let projectURL = repoRoot.appendingPathComponent("PoseSpec.json")

  /// The app's reference PoseSpec (loaded once).
  static let reference: PoseSpecDocument = load(referenceURL)
  /// The project's PoseSpec (same cues and thresholds, own wording).
  static let project: PoseSpecDocument = load(projectURL)

  static func load(_ url: URL) -> PoseSpecDocument {
    do {
      return try PoseSpecLoader.load(bytes: [UInt8](try Data(contentsOf: url)), fileName: url.lastPathComponent)
    } catch {
      fatalError("cannot load \(url.path): \(error)")
    }
  }

  /// The reference spec with `mutate` applied to its JSON, re-validated.
  static func referenceEdited(_ mutate: (inout JSONObject) -> Void) throws -> PoseSpecDocument {
    var root = reference.raw.objectValue!
    mutate(&root)
    return try PoseSpecLoader.load(bytes: Array(JSONWriter.write(.object(root)).utf8), fileName: "edited.json")
  }

  /// Replaces member `key` of the cue `cueId` at `path` (e.g. ["trigger","noRef","hard"]).
  static func setCue(_ cueId: String, _ path: [String], _ value: JSONValue, in root: inout JSONObject) {
    var cues = root["cues"]!.arrayValue!
    let i = cues.firstIndex { $0["id"]?.stringValue == cueId }!
    cues[i] = setting(value, at: path[...], in: cues[i])
    root["cues"] = .array(cues)
  }

  /// Sets `value` at `path` of a spec object (creating objects on the way).
  static func setPath(_ value: JSONValue, _ path: [String], in root: inout JSONObject) {
    root = setting(value, at: path[...], in: .object(root)).objectValue!
  }

  static func setting(_ value: JSONValue, at path: ArraySlice<String>, in node: JSONValue) -> JSONValue {
    guard let key = path.first, var o = node.objectValue else { return value }
    o[key] = setting(value, at: path.dropFirst(), in: o[key] ?? .object(JSONObject()))
    return .object(o)
  }

  // MARK: Frames

  /// The time of frame k at 15 Hz: round(k·1000/15) → 0, 67, 133, 200, …
  static func t15(_ k: Int) -> Millis { Millis((Double(k) * 1000 / 15).rounded()) }

  /// A body from (joint, x, y, conf) tuples (canonical unless the frame says otherwise).
  static func body(_ joints: [(Joint, Double, Double, Double)]) -> BodyPose {
    var pose = BodyPose()
    for (j, x, y, c) in joints { pose[j] = JointPoint(x: x, y: y, conf: c) }
    return pose
  }

  /// A standing subject whose shoulder+hip box is centred at (0.5 + dx, 0.52 + dy): so the
  /// FRAME_MOVE_* errors are `dx` (centerXOffset) and `dy` (centerYOffset). Shoulders span
  /// 0.2 in x, hips 0.16; the torso is 0.3 tall. A nose sits 0.1 above the shoulders and, when
  /// `feet` is set, ankles at `feetY` (both kept unless `ankleConf` is low).
  static func subject(
    dx: Double = 0, dy: Double = 0, conf: Double = 0.9, nose: Bool = true, feetY: Double? = nil,
    ankleConf: Double = 0.9
  ) -> BodyPose {
    let cx = 0.5 + dx
    let top = 0.52 + dy - 0.15
    let bottom = 0.52 + dy + 0.15
    var joints: [(Joint, Double, Double, Double)] = [
      (.leftShoulder, cx + 0.1, top, conf), (.rightShoulder, cx - 0.1, top, conf),
      (.leftHip, cx + 0.08, bottom, conf), (.rightHip, cx - 0.08, bottom, conf),
    ]
    if nose { joints.append((.nose, cx, top - 0.1, conf)) }
    if let feetY {
      // Weight on one leg: ankleMid 0.03 left of hipMid, so WEIGHT_SHIFT (warn when the
      // stance is symmetric, |offset| < 0.01) stays quiet.
      joints.append((.leftAnkle, cx + 0.03, feetY, ankleConf))
      joints.append((.rightAnkle, cx - 0.09, feetY, ankleConf))
    }
    return body(joints)
  }

  static func landmarks(
    _ frame: Int, at t: Millis, body: BodyPose?, people: Int? = nil,
    coords: CoordinateConvention = .canonical
  ) -> InputEvent {
    InputEvent(
      t: t, payload: .landmarks(LandmarkFrame(frame: Int64(frame), coords: coords, body: body, people: people)))
  }

  /// Frames `range` at 15 Hz (frame id = index), each with the body `make(k)`.
  static func frames(_ range: Range<Int>, people: Int? = nil, _ make: (Int) -> BodyPose?) -> [InputEvent] {
    range.map { landmarks($0, at: t15($0), body: make($0), people: people) }
  }

  static func scene(_ scene: String, at t: Millis) -> InputEvent {
    InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .ui_scene, fields: ["scene": .string(scene)])))
  }

  // MARK: Runs

  /// An engine for the rule-level tests. Unless `options` says otherwise, `angleFix=on`: the
  /// fixtures are camera-facing upright subjects, whose literal line and lean angles are
  /// ±180° (§8 G-5…G-7) and would show SHOULDER_LEVEL / TORSO / CAFE_15 over the rule under
  /// test. The scene is `outdoor` unless given: in cafe, CAFE_12 (thirds) fires for every
  /// framing that FRAME_MOVE_LEFT/RIGHT accept (§8 G-51). The literal default and cafe have
  /// their own tests (`HazardTests`) and corpus recordings.
  static func engine(
    _ spec: PoseSpecDocument = reference, options: [String: String] = [:], scene: String? = "outdoor",
    traceMetrics: Bool = false
  ) -> Engine {
    var o = EngineOptions()
    try! o.set("angleFix", "on")
    for (k, v) in options.sorted(by: { $0.key < $1.key }) { try! o.set(k, v) }
    var initial = JSONObject()
    if let scene { initial["scene"] = .string(scene) }
    return Engine(
      configuration: EngineConfiguration(spec: spec, options: o, initial: initial, traceMetrics: traceMetrics))
  }

  /// Like `run`, and fires the engine's timers in due order (ties by id) up to `end`, as the
  /// replayer does.
  static func runWithTimers(_ engine: Engine, _ events: [InputEvent], until end: Millis) -> [TraceRecord] {
    var e = engine
    var out: [TraceRecord] = []
    var due: [TimerID: Millis] = [:]
    func apply(_ fx: Effects, at t: Millis) {
      out += fx.records(at: t)
      for r in fx.timers {
        switch r {
        case .schedule(let id, let at): due[id] = at
        case .cancel(let id): due[id] = nil
        }
      }
    }
    apply(e.start(), at: 0)
    func fireDue(upTo t: Millis) {
      while let next = due.filter({ $0.value <= t }).min(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
        due[next.key] = nil
        apply(e.fire(next.key, at: next.value), at: next.value)
      }
    }
    for ev in events {
      fireDue(upTo: ev.t)
      apply(e.handle(ev), at: ev.t)
    }
    fireDue(upTo: end)
    return out
  }

  /// Feeds `events` in order after `start()` and returns every output.
  static func run(_ engine: Engine, _ events: [InputEvent]) -> [TraceRecord] {
    var e = engine
    var out = e.start().records(at: 0)
    for ev in events { out += e.handle(ev).records(at: ev.t) }
    return out
  }

  /// The `cue_eval` entry of cue `id` in `record`.
  static func cueEval(_ record: TraceRecord, _ id: String) -> JSONObject? { record.fields["cues"]?[id]?.objectValue }

  /// Outputs other than `cue_eval`, as compact strings: "200 cue_display FRAME_MOVE_LEFT/hard none".
  static func lines(_ records: [TraceRecord]) -> [String] {
    records.filter { $0.out != "cue_eval" }.map(line)
  }

  static func line(_ r: TraceRecord) -> String {
    func s(_ k: String) -> String {
      switch r.fields[k] {
      case .string(let v)?: v
      case .number(let d)?: JSONWriter.shortest(d)
      case .bool(let b)?: b ? "true" : "false"
      default: "null"
      }
    }
    switch r.out {
    case "cue_display": return "\(r.t) cue_display \(s("cue_id"))/\(s("level")) \(s("reason")) \(s("mode"))"
    case "script_card":
      return "\(r.t) script_card \(s("cue_id")) v\(s("variant")) \(s("zh")) | \(s("en")) frozen=\(s("frozen"))"
    case "praise":
      let off = r.fields["off_reason"].map { _ in " \(s("off_reason"))" } ?? ""
      return "\(r.t) praise \(s("state")) \(s("trigger")) \(s("dimension"))\(off)"
    default: return "\(r.t) \(r.out)"
    }
  }
}
