import ScenarioYAML
import CanonicalJSON
import EngineIO
import JustPhotoIO
import Recording

extension Scenario {
  static let entryShapes =
    "expected one of {at, subject} (keyframe), {from, to, subject} (ramp), {from, to, oscillate} (oscillation), {at, event} (event)"

  /// The `intent` of a timeline entry, if it has one: effective at the keyframe's `at` or the
  /// ramp's `to`, since its `at` / `from`. `alone`: the entry is only `{at, intent}` (false:
  /// it also moves the subject, and is parsed as a timeline entry too).
  static func parseIntent(_ n: YNode, duration: Int64) throws(ScenarioError) -> (step: ScenarioIntent.Step, alone: Bool)? {
    guard case .mapping = n.node else { return nil }
    let m = try n.mapping()
    guard let i = m.first(where: { $0.key == "intent" })?.value else { return nil }
    let keys = Set(m.map(\.key)).subtracting(["intent"])
    let cues = try ScenarioIntent.parseCues(i)
    func v(_ k: String) -> YNode { m.first(where: { $0.key == k })!.value }
    switch keys {
    case ["at"]:
      let at = try v("at").millis(max: duration)
      return (ScenarioIntent.Step(t: at, since: at, cues: cues), true)
    case ["at", "subject"]:
      let at = try v("at").millis(max: duration)
      return (ScenarioIntent.Step(t: at, since: at, cues: cues), false)
    case ["from", "to", "subject"]:
      let from = try v("from").millis(max: duration)
      let to = try v("to").millis(max: duration)
      return (ScenarioIntent.Step(t: to, since: from, cues: cues), false)
    default:
      throw i.error("intent goes on a keyframe {at, subject}, a ramp {from, to, subject} or alone {at, intent}")
    }
  }

  static func parseEntry(_ n: YNode, duration: Int64, dir: String = ".") throws(ScenarioError) -> TimelineEntry {
    let m = try n.mapping(allowed: ScenarioSchema.timelineKeys, what: "timeline key")
      .filter { $0.key != "intent" }
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
      return .oscillate(from: from, to: to, params: try parseOscillations(v("oscillate")))
    case ["at", "event"]:
      return try parseEvent(v("event"), at: try v("at").millis(max: duration), entry: n, dir: dir)
    default:
      if keys.isEmpty { throw n.error("empty timeline entry; \(entryShapes)") }
      throw n.error("a timeline entry with keys {\(m.map(\.key).joined(separator: ", "))}: \(entryShapes)")
    }
  }

  /// `oscillate: {param: {amplitude, period_ms}}` over numeric subject parameters.
  static func parseOscillations(_ n: YNode) throws(ScenarioError) -> [Oscillation] {
    var params: [Oscillation] = []
    for o in try n.mapping(allowed: SubjectParam.allCases.map(\.rawValue), what: "numeric subject parameter") {
      var amp: Double?
      var period: Double?
      for f in try o.value.mapping(allowed: ScenarioSchema.oscillationKeys) {
        if f.key == "amplitude" { amp = try SubjectPatch.bounded(f.value) } else {
          let p = try f.value.double()
          guard p >= 1 else { throw f.value.error("expected a period ≥ 1 ms, found \(p)") }
          period = p
        }
      }
      guard let amp, let period else { throw o.value.error("expected {amplitude, period_ms}") }
      params.append(Oscillation(param: SubjectParam(rawValue: o.key)!, amplitude: amp, periodMs: period))
    }
    return params
  }

  /// `{at, event: {kind, …}}`: an input event line, checked as an imported JSONL line is.
  static func parseEvent(_ evNode: YNode, at: Int64, entry n: YNode, dir: String) throws(ScenarioError) -> TimelineEntry {
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
    do { _ = try JSONLEventDecoder(file: n.file, line: evNode.line ?? 0, definitions: JustPhotoEvents.self).decode(.object(line)) } catch {
      var msg = error.message
      // Point at the field the decoder names (`RecordingError.field`) when it is there.
      let place = fields.first(where: { $0.key == error.field })?.value ?? evNode
      if msg.hasPrefix("\(kind): ") { msg.removeFirst(kind.count + 2) }
      throw place.error("\(kind) event: \(msg)")
    }
    return .event(at: at, line: line)
  }
}
