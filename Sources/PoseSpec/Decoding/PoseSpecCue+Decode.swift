import CanonicalJSON

extension PoseSpecCue {
  /// Decodes one `cues[]` object. Required: `id`, `scene`, `priority`, `mutexGroup`,
  /// `metric {landmarks, formula, computeTier, updateHz}`, `trigger`, `script {zh, en}`,
  /// `confidence {minConfidence, fallbackCueId}`, `antiJitter {persistFrames, minHoldMs,
  /// cooldownMs}`. Everything else is optional and kept in `raw`.
  init(json: JSONValue, index: Int, path: String, warnings: inout [String]) throws(PoseSpecDecodeFailure) {
    let r = try JSONReader(json, path: path)
    self.index = index
    raw = json
    id = try r.string("id")
    scene = try r.string("scene")
    priority = try r.int("priority")
    mutexGroup = try r.string("mutexGroup")

    let m = try r.reader("metric")
    metric = CueMetric(
      landmarks: try m.strings("landmarks"), formula: try m.string("formula"),
      computeTier: try m.string("computeTier"), updateHz: try m.double("updateHz"),
      outputs: try m.optionalStrings("outputs"), requires: try m.optionalStrings("requires") ?? [],
      roisUsed: try m.optionalStrings("roisUsed"))

    let t = try r.reader("trigger")
    trigger = CueTrigger(
      noRef: try Self.thresholdSet(t, "noRef", warnings: &warnings),
      withRef: try Self.thresholdSet(t, "withRef", warnings: &warnings),
      system: t.has("system") ? try t.value("system") : nil)

    let s = try r.reader("script")
    script = CueScript(zh: try s.strings("zh"), en: try s.strings("en"))
    let c = try r.reader("confidence")
    confidence = CueConfidence(
      minConfidence: try c.double("minConfidence"), fallbackCueId: try c.string("fallbackCueId"))
    antiJitter = try PoseSpecDocument.decodeAntiJitter(try r.reader("antiJitter"))
  }

  /// A threshold object, or nil when the key is absent or null.
  static func thresholdSet(
    _ trigger: JSONReader, _ key: String, warnings: inout [String]
  ) throws(PoseSpecDecodeFailure) -> ThresholdSet? {
    guard let r = try trigger.optionalReader(key) else { return nil }
    var set = ThresholdSet(error: try r.optionalString("error"))
    set.hard = try levelThresholds(r, "hard", warnings: &warnings)
    set.warn = try levelThresholds(r, "warn", warnings: &warnings)
    set.enter = try levelThresholds(r, "enter", warnings: &warnings)
    set.exit = try levelThresholds(r, "exit", warnings: &warnings)
    return set
  }

  /// One level: `{op: number}` (normally a single entry) or `{between: [a, b]}`; `null` or
  /// absent is "not evaluated". Unknown operators and ill-typed operands are skipped with a
  /// warning, as the app's parser does (ENGINE §3.1).
  static func levelThresholds(
    _ set: JSONReader, _ key: String, warnings: inout [String]
  ) throws(PoseSpecDecodeFailure) -> [Threshold] {
    guard let level = try set.optionalReader(key) else { return [] }
    var out: [Threshold] = []
    for m in level.object.members {
      let where_ = level.keyPath(m.key)
      guard let op = ThresholdOp(rawValue: m.key) else {
        warnings.append("\(level.path): unknown threshold operator \"\(m.key)\" skipped")
        continue
      }
      if op == .between {
        guard let pair = m.value.arrayValue, pair.count == 2, let a = pair[0].doubleValue,
          let b = pair[1].doubleValue
        else {
          warnings.append("\(where_): expected [a, b], found \(JSONWriter.write(m.value)); skipped")
          continue
        }
        out.append(Threshold(.between, a, b))
      } else {
        guard let a = m.value.doubleValue else {
          warnings.append("\(where_): expected a number, found \(m.value.typeName); skipped")
          continue
        }
        out.append(Threshold(op, a))
      }
    }
    return out
  }
}
