import CanonicalJSON
import EngineIO

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
  /// frame without one on 1080 × 1920): the body joints as points (green), each face's
  /// bounding box as a line loop and its keypoints as points (orange). Vision coordinates
  /// (origin bottom left) are flipped to the image's top-left origin.
  static func annotations(_ f: LandmarkFrame, t: Millis) -> String {
    let w = Double(f.imageW ?? 1080)
    let h = Double(f.imageH ?? 1920)
    let flip = f.coords == .vision
    func px(_ x: Double, _ y: Double) -> JSONValue { .object(["x": .number(x * w), "y": .number((flip ? 1 - y : y) * h)]) }
    let stamp: JSONValue = .object(["sec": .number(Double(max(0, t) / 1000)), "nsec": .number(Double(max(0, t) % 1000 * 1_000_000))])
    func annotation(_ type: Int, _ pts: [JSONValue], _ color: JSONValue, thickness: Double) -> JSONValue {
      .object([
        "timestamp": stamp, "type": .number(Double(type)), "points": .array(pts), "outline_color": color,
        "outline_colors": [], "fill_color": color, "thickness": .number(thickness),
      ])
    }
    let green: JSONValue = .object(["r": 0.2, "g": 0.9, "b": 0.3, "a": 1])
    let orange: JSONValue = .object(["r": 1, "g": 0.6, "b": 0.1, "a": 1])
    var list: [JSONValue] = []
    if let body = f.body {
      let pts = body.points.compactMap { $0.map { px($0.x, $0.y) } }
      if !pts.isEmpty { list.append(annotation(1, pts, green, thickness: 10)) }
    }
    for face in f.faces {
      let b = face.bbox
      list.append(annotation(2, [px(b.x, b.y), px(b.maxX, b.y), px(b.maxX, b.maxY), px(b.x, b.maxY)], orange, thickness: 3))
      var pts: [JSONValue] = []
      for e in [face.leftEye, face.rightEye].compactMap({ $0 }) { pts.append(px(e.x, e.y)) }
      for p in [face.nose, face.noseTip, face.chin, face.mouth].compactMap({ $0 }) { pts.append(px(p.x, p.y)) }
      if !pts.isEmpty { list.append(annotation(1, pts, orange, thickness: 6)) }
    }
    return JSONWriter.write(.object(["circles": [], "points": .array(list), "texts": []]))
  }

  /// One cue's entry of a `cue_eval` line as a metric message: `value` (its error), `severity`,
  /// `level`, `state`, and per threshold (hard, warn, enter, exit) its bound — `<40` gives
  /// `hard: 40`, `between[0.36,0.42]` gives `exit_low`/`exit_high` — and its rule as written.
  static func metric(_ entry: JSONObject) -> String {
    var o = JSONObject()
    o["value"] = entry["error"] ?? .null
    o["severity"] = entry["severity"] ?? .null
    if let level = entry["level"] { o["level"] = level }
    if let state = entry["state"] { o["state"] = state }
    if let thresholds = entry["thresholds"]?.objectValue {
      for name in thresholdNames {
        guard let rule = thresholds[name]?.stringValue else { continue }
        o["\(name)_rule"] = .string(rule)
        let (low, high, bound) = bounds(rule)
        if let bound { o[name] = .number(bound) }
        if let low, let high {
          o["\(name)_low"] = .number(low)
          o["\(name)_high"] = .number(high)
        }
      }
    }
    return JSONWriter.write(.object(o))
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
