import CanonicalJSON
import EngineIO
import JustPhotoPlugin

/// The messages and JSON Schemas of `jpreplay export --mcap` (docs/INTEROP.md): every message is
/// one JSON object (MCAP message encoding `json`), every channel has a `jsonschema` schema.
enum MCAPMessages {
  /// The JSON Schema of a recording channel's events: the JSONL event lines (docs/FORMAT.md).
  static func inputSchema(channel: String, kinds: [String]) -> String {
    schema(
      title: "jpreplay input event (\(channel) channel)",
      properties: [
        ("t", .object(["type": "integer", "description": "virtual time, ms from the start of the recording"])),
        ("kind", .object(["type": "string", "enum": .array(kinds.map { .string($0) })])),
      ], required: ["t", "kind"])
  }

  /// The JSON Schema of one trace kind's lines (`out` fixed), as `jpreplay replay` writes them.
  static func traceSchema(out: String, golden: Bool) -> String {
    schema(
      title: "jpreplay trace line `\(out)`\(golden ? " (golden)" : "")",
      properties: [
        ("t", .object(["type": "integer", "description": "virtual time, ms"])),
        ("out", .object(["const": .string(out)])),
      ], required: ["t", "out"])
  }

  /// The JSON Schema of A.13 diagnostic lines.
  static func a13Schema(golden: Bool) -> String {
    let str: JSONValue = .object(["type": "string"])
    return schema(
      title: "jpreplay A.13 diagnostic line\(golden ? " (golden)" : "")",
      properties: [
        ("ts_ms", .object(["type": "integer", "description": "wall time: the header's wall_start_ms + t"])),
        ("event", str), ("session_id", str), ("scene", str),
        ("payload", .object(["type": "object", "additionalProperties": str])),
      ], required: ["ts_ms", "event"])
  }

  /// The JSON Schema of a cue's metric message (`metric`): numbers a plot panel draws as lines.
  static let metricSchema: String = {
    let number: JSONValue = .object(["type": ["number", "null"]])
    var props: [(String, JSONValue)] = [
      ("value", .object(["type": ["number", "null"], "description": "the cue's error: the metric value its thresholds judge"])),
      ("severity", number), ("level", .object(["type": "string"])), ("state", .object(["type": "string"])),
    ]
    for name in thresholdNames {
      props.append((name, .object(["type": "number", "description": .string("the \(name) threshold's bound (one-sided rules)")])))
      props.append(("\(name)_low", .object(["type": "number", "description": .string("the \(name) band's lower bound")])))
      props.append(("\(name)_high", .object(["type": "number", "description": .string("the \(name) band's upper bound")])))
      props.append(("\(name)_rule", .object(["type": "string", "description": .string("the \(name) rule as the trace writes it")])))
    }
    return schema(title: "jpreplay cue metric against its thresholds (one cue_eval entry)", properties: props, required: ["value"])
  }()

  static let thresholdNames = ["hard", "warn", "enter", "exit"]

  /// Foxglove's `foxglove.ImageAnnotations` (the fields this export fills), as JSON Schema.
  static let imageAnnotationsSchema: String = {
    func t(_ type: String) -> JSONValue { .object(["type": .string(type)]) }
    let time: JSONValue = .object(["type": "object", "properties": .object(["sec": t("integer"), "nsec": t("integer")]), "required": ["sec", "nsec"]])
    let color: JSONValue = .object(["type": "object", "properties": .object(["r": t("number"), "g": t("number"), "b": t("number"), "a": t("number")])])
    let point: JSONValue = .object(["type": "object", "properties": .object(["x": t("number"), "y": t("number")]), "required": ["x", "y"]])
    let points: JSONValue = .object([
      "type": "object",
      "properties": .object([
        "timestamp": time, "type": .object(["type": "integer", "description": "0 unknown, 1 points, 2 line loop, 3 line strip, 4 line list"]),
        "points": .object(["type": "array", "items": point]), "outline_color": color,
        "outline_colors": .object(["type": "array", "items": color]), "fill_color": color, "thickness": t("number"),
      ]),
    ])
    let objects: JSONValue = .object(["type": "array", "items": t("object")])
    return schema(
      title: "foxglove.ImageAnnotations",
      properties: [("circles", objects), ("points", .object(["type": "array", "items": points])), ("texts", objects)],
      required: ["circles", "points", "texts"])
  }()

  static func schema(title: String, properties: [(String, JSONValue)], required: [String]) -> String {
    var props = JSONObject()
    for (k, v) in properties { props[k] = v }
    let o: JSONObject = [
      "$schema": "https://json-schema.org/draft/2020-12/schema", "title": .string(title), "type": "object",
      "properties": .object(props), "required": .array(required.map { .string($0) }),
    ]
    return JSONWriter.write(.object(o))
  }

  /// A landmarks frame as `foxglove.ImageAnnotations` on its image (`image` w × h pixels; a
  /// frame without one on 1080 × 1920), written into `out`: the body joints as points (green),
  /// each face's bounding box as a line loop and its keypoints as points (orange). Vision
  /// coordinates (origin bottom left) are flipped to the image's top-left origin. The object's
  /// members, in order: `circles` (empty), `points` (the annotations), `texts` (empty); each
  /// annotation's: `timestamp`, `type`, `points`, `outline_color`, `outline_colors` (empty),
  /// `fill_color`, `thickness`. Numbers as `JSONWriter.shortest` prints them.
  static func appendAnnotations(_ f: LandmarkFrame, t: Millis, to out: inout JSONBytes) {
    let w = Double(f.imageW ?? 1080)
    let h = Double(f.imageH ?? 1920)
    let flip = f.coords == .vision
    let t = max(0, t)
    var first = true
    /// Opens one annotation: its members up to the first point's.
    func open(_ type: Int) {
      if !first { out.byte(0x2C) }
      first = false
      out.raw("{\"timestamp\":{\"sec\":")
      out.number(Double(t / 1000))
      out.raw(",\"nsec\":")
      out.number(Double(t % 1000 * 1_000_000))
      out.raw("},\"type\":")
      out.number(Double(type))
      out.raw(",\"points\":[")
    }
    func point(_ n: Int, _ x: Double, _ y: Double) {
      if n > 0 { out.byte(0x2C) }
      out.raw("{\"x\":")
      out.number(x * w)
      out.raw(",\"y\":")
      out.number((flip ? 1 - y : y) * h)
      out.byte(0x7D)
    }
    func close(_ color: [UInt8], thickness: Double) {
      out.raw("],\"outline_color\":")
      out.raw(color)
      out.raw(",\"outline_colors\":[],\"fill_color\":")
      out.raw(color)
      out.raw(",\"thickness\":")
      out.number(thickness)
      out.byte(0x7D)
    }
    out.raw("{\"circles\":[],\"points\":[")
    if let body = f.body, body.points.contains(where: { $0 != nil }) {
      open(1)
      var n = 0
      for p in body.points {
        guard let p else { continue }
        point(n, p.x, p.y)
        n += 1
      }
      close(green, thickness: 10)
    }
    for face in f.faces {
      let b = face.bbox
      open(2)
      point(0, b.x, b.y)
      point(1, b.maxX, b.y)
      point(2, b.maxX, b.maxY)
      point(3, b.x, b.maxY)
      close(orange, thickness: 3)
      // The keypoints: eyes, nose, nose tip, chin, mouth (those present).
      var n = 0
      func keypoint(_ x: Double?, _ y: Double?) {
        guard let x, let y else { return }
        if n == 0 { open(1) }
        point(n, x, y)
        n += 1
      }
      keypoint(face.leftEye?.x, face.leftEye?.y)
      keypoint(face.rightEye?.x, face.rightEye?.y)
      keypoint(face.nose?.x, face.nose?.y)
      keypoint(face.noseTip?.x, face.noseTip?.y)
      keypoint(face.chin?.x, face.chin?.y)
      keypoint(face.mouth?.x, face.mouth?.y)
      if n > 0 { close(orange, thickness: 6) }
    }
    out.raw("],\"texts\":[]}")
  }

  /// The two colours' text: `{"r":0.2,"g":0.9,"b":0.3,"a":1}` and `{"r":1,"g":0.6,"b":0.1,"a":1}`.
  static let green = colour(r: 0.2, g: 0.9, b: 0.3)
  static let orange = colour(r: 1, g: 0.6, b: 0.1)
  static func colour(r: Double, g: Double, b: Double) -> [UInt8] {
    var out = JSONBytes()
    out.value(.object(["r": .number(r), "g": .number(g), "b": .number(b), "a": 1]))
    return out.bytes
  }

  /// One cue's entry of a `cue_eval` evaluation as a metric message, written into `out`:
  /// `value` (its error), `severity`, `level`, `state`, then `thresholds` (the entry's
  /// ``thresholdMembers(_:)``, already text). Numbers as `JSONWriter.shortest` prints them.
  static func appendMetric(_ entry: CueMetricEntry, thresholds: [UInt8], to out: inout JSONBytes) {
    out.raw("{\"value\":")
    out.number(entry.error)
    out.raw(",\"severity\":")
    out.number(entry.severity)
    out.raw(",\"level\":")
    out.string(entry.level)
    out.raw(",\"state\":")
    out.string(entry.state)
    out.raw(thresholds)
    out.byte(0x7D)
  }

  /// A metric message's threshold members, each with its leading comma: per threshold (hard,
  /// warn, enter, exit) its bound — `<40` gives `hard: 40`, `between[0.36,0.42]` gives
  /// `exit_low`/`exit_high` — after its rule as written (`hard_rule`). Nothing for no rules.
  static func thresholdMembers(_ rules: CueMetricRules?) -> [UInt8] {
    guard let rules else { return [] }
    var o = JSONObject()
    for (name, rule) in zip(thresholdNames, [rules.hard, rules.warn, rules.enter, rules.exit]) {
      guard let rule else { continue }
      o["\(name)_rule"] = .string(rule)
      let (low, high, bound) = bounds(rule)
      if let bound { o[name] = .number(bound) }
      if let low, let high {
        o["\(name)_low"] = .number(low)
        o["\(name)_high"] = .number(high)
      }
    }
    var out = JSONBytes()
    for m in o.members {
      out.byte(0x2C)
      out.key(m.key)
      out.value(m.value)
    }
    return out.bytes
  }

  /// `<x`, `<=x`, `>x`, `>=x` → (nil, nil, x); `name[a,b]` → (a, b, nil); else nothing.
  static func bounds(_ rule: String) -> (Double?, Double?, Double?) {
    if let open = rule.firstIndex(of: "["), rule.hasSuffix("]") {
      let inner = rule[rule.index(after: open)..<rule.index(before: rule.endIndex)].split(separator: ",")
      if inner.count == 2, let a = Double(inner[0]), let b = Double(inner[1]) { return (a, b, nil) }
      return (nil, nil, nil)
    }
    let digits = rule.drop(while: { $0 == "<" || $0 == ">" || $0 == "=" })
    return (nil, nil, Double(digits))
  }
}
