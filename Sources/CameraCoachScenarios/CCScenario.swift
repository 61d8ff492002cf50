import CameraCoachEngine
import CanonicalJSON
import ScenarioYAML
import Yams

/// One input event of a scenario: time (ms from the start), kind and fields.
public struct CCScenarioEvent: Equatable, Sendable {
  public var t: Int64
  public var kind: String
  public var fields: JSONObject

  public init(t: Int64, kind: String, fields: JSONObject) {
    self.t = t
    self.kind = kind
    self.fields = fields
  }
}

/// A Camera Coach scenario (`engine: cameracoach`, docs/CAMERACOACH.md "JustPhotoScenarios"): a script
/// of input events and frame runs, and the author's `expect:` rules.
public struct CCScenario: Sendable {
  /// The file name used in messages.
  public var file: String
  public var name: String
  public var notes: String?
  /// `duration_ms`, or the last event's time.
  public var durationMs: Int64
  /// The input events in time order (equal times keep script order).
  public var events: [CCScenarioEvent]
  public var expectations: [CCExpectation]
  /// The SHA-256 of what the scenario means (without `expect:`): the header's `generator_sha256`.
  public var sha256: String

  /// The top-level keys.
  public static let keys = ["engine", "name", "notes", "duration_ms", "script", "expect"]

  /// Parses a scenario; any problem is an error naming `file`, the line and the expectation.
  public static func parse(yaml text: String, file: String) throws(ScenarioError) -> CCScenario {
    guard text.utf8.count <= CCScenarioLimits.documentBytesMax else {
      throw ScenarioError(
        file: file, "\(text.utf8.count) bytes, more than \(CCScenarioLimits.documentBytesMax) (CCScenarioLimits.documentBytesMax)")
    }
    let node = try composeYAML(text, file: file, rules: CCScenarioLimits.yamlRules)
    let root = YNode(node: node, file: file, path: "")
    let top = try root.mapping(allowed: keys)
    func v(_ k: String) -> YNode? { top.first(where: { $0.key == k })?.value }
    func need(_ k: String) throws(ScenarioError) -> YNode {
      guard let n = v(k) else { throw root.error("missing key \"\(k)\"; a Camera Coach scenario has \(keys.joined(separator: ", "))") }
      return n
    }
    let engine = try need("engine")
    guard try engine.string() == "cameracoach" else { throw engine.error("expected engine: cameracoach") }
    let name = try need("name").string()
    let notes = try v("notes").map { n throws(ScenarioError) in try n.string() }
    let events = try CCScriptBuilder.events(try need("script"))
    let last = events.last?.t ?? 0
    var duration = last
    if let d = v("duration_ms") {
      duration = try d.millis(max: CCScenarioLimits.durationMsMax, maxName: "CCScenarioLimits.durationMsMax")
      guard duration >= last else { throw d.error("duration_ms \(duration) ends before the last event (t=\(last))") }
    }
    let expect = try v("expect").map { n throws(ScenarioError) in try CCExpectation.parseBlock(n, duration: duration) } ?? []
    return CCScenario(
      file: file, name: name, notes: notes, durationMs: duration, events: events, expectations: expect,
      sha256: semanticSHA256(root: node))
  }

  /// The recording header (``ScenarioHeader/recordingHeader(engine:name:durationMs:file:sha256:notes:)``,
  /// `engine: cameracoach`).
  public var header: JSONObject {
    ScenarioHeader.recordingHeader(engine: "cameracoach", name: name, durationMs: durationMs, file: file, sha256: sha256, notes: notes)
  }

  /// ``ScenarioHeader/semanticSHA256(root:)``: editing `expect:` does not make the recording stale.
  static func semanticSHA256(root: Node) -> String { ScenarioHeader.semanticSHA256(root: root) }
}

/// The script: `{at: T, kind: K, …fields}` steps (one input event, checked by the engine's
/// decoder) and `{frames: {from, to, every_ms, roll, rate, faces}}` steps (a `frame` event
/// every `every_ms` in [from, to); `roll`, `rate` and each face's numbers are a number or a
/// ramp `{from: A, to: B}`, linear over the run).
enum CCScriptBuilder {
  static func events(_ script: YNode) throws(ScenarioError) -> [CCScenarioEvent] {
    var out: [(event: CCScenarioEvent, order: Int)] = []
    for step in try script.sequence(max: CCScenarioLimits.stepsMax, bound: "CCScenarioLimits.stepsMax") {
      let m = try step.mapping()
      if m.contains(where: { $0.key == "frames" }) {
        guard m.count == 1, let f = m.first?.value else { throw step.error("a frames step has only the key frames") }
        for e in try frames(f) { out.append((e, out.count)) }
      } else {
        out.append((try event(step, m), out.count))
      }
      guard out.count <= CCScenarioLimits.eventsMax else {
        throw step.error("more than \(CCScenarioLimits.eventsMax) events (CCScenarioLimits.eventsMax)")
      }
    }
    return out.sorted { $0.event.t != $1.event.t ? $0.event.t < $1.event.t : $0.order < $1.order }.map(\.event)
  }

  static func event(_ step: YNode, _ m: [(key: String, value: YNode)]) throws(ScenarioError) -> CCScenarioEvent {
    guard let at = m.first(where: { $0.key == "at" })?.value, let k = m.first(where: { $0.key == "kind" })?.value else {
      throw step.error("expected {at: T, kind: KIND, …fields} or {frames: {…}}")
    }
    let t = try at.millis(max: CCScenarioLimits.durationMsMax, maxName: "CCScenarioLimits.durationMsMax")
    let kind = try k.string()
    var fields = JSONObject()
    for f in m where f.key != "at" && f.key != "kind" { fields.members.append(JSONMember(f.key, try f.value.json())) }
    do { _ = try CCInput.decode(kind: kind, fields: fields) } catch { throw step.error(error.description) }
    return CCScenarioEvent(t: t, kind: kind, fields: fields)
  }

  static let frameKeys = ["from", "to", "every_ms", "roll", "rate", "faces"]
  static let faceKeys = ["x", "y", "w", "h", "yaw", "nose_x"]

  /// A number or a ramp `{from: A, to: B}` at progress `p` (0…1).
  typealias Value = (from: Double, to: Double)

  static func value(_ n: YNode) throws(ScenarioError) -> Value {
    if case .mapping = n.node {
      let m = try n.mapping(allowed: ["from", "to"], what: "ramp key")
      guard let a = m.first(where: { $0.key == "from" })?.value, let b = m.first(where: { $0.key == "to" })?.value else {
        throw n.error("a ramp is {from: A, to: B}")
      }
      return (try a.double(), try b.double())
    }
    let d = try n.double()
    return (d, d)
  }

  static func frames(_ n: YNode) throws(ScenarioError) -> [CCScenarioEvent] {
    let m = try n.mapping(allowed: frameKeys)
    func v(_ k: String) throws(ScenarioError) -> YNode {
      guard let x = m.first(where: { $0.key == k })?.value else { throw n.error("missing \(k); a frames step has \(frameKeys.joined(separator: ", "))") }
      return x
    }
    let from = try v("from").millis(max: CCScenarioLimits.durationMsMax, maxName: "CCScenarioLimits.durationMsMax")
    let to = try v("to").millis(max: CCScenarioLimits.durationMsMax, maxName: "CCScenarioLimits.durationMsMax")
    guard to > from else { throw n.error("expected to > from") }
    let every = try v("every_ms").int()
    guard every >= CCScenarioLimits.frameEveryMsMin, every <= CCScenarioLimits.durationMsMax else {
      throw try v("every_ms").error("expected every_ms ≥ \(CCScenarioLimits.frameEveryMsMin) (CCScenarioLimits.frameEveryMsMin)")
    }
    guard (to - from) / every <= Int64(CCScenarioLimits.eventsMax) else {
      throw n.error("more than \(CCScenarioLimits.eventsMax) frames (CCScenarioLimits.eventsMax)")
    }
    let roll = try value(try v("roll"))
    let rate = try value(try v("rate"))
    var faces: [[(String, Value)]] = []
    for f in try v("faces").sequence(max: CCLimits.facesMax, bound: "CCLimits.facesMax") {
      var face: [(String, Value)] = []
      for item in try f.mapping(allowed: faceKeys, what: "face key") { face.append((item.key, try value(item.value))) }
      faces.append(face)
    }
    var out: [CCScenarioEvent] = []
    let span = Double(to - from)
    var t = from
    while t < to {
      let p = Double(t - from) / span
      func at(_ x: Value) -> Double { ((x.from + (x.to - x.from) * p) * 1_000_000).rounded() / 1_000_000 + 0.0 }
      var fields = JSONObject()
      fields["faces"] = .array(faces.map { f in .object(JSONObject(f.map { JSONMember($0.0, .number(at($0.1))) })) })
      fields["roll"] = .number(at(roll))
      fields["rate"] = .number(at(rate))
      do { _ = try CCInput.decode(kind: "frame", fields: fields) } catch { throw n.error("the frame at t=\(t): \(error.description)") }
      out.append(CCScenarioEvent(t: t, kind: "frame", fields: fields))
      t += every
    }
    return out
  }
}
