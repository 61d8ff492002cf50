import CanonicalJSON

/// The [D] value checks that run after the app's checks of ENGINE §2.3 (`valueInvalid`):
/// values that decode but that the engine could only skip, default or misread silently.
///
/// Each failure names the cue (index and id) and the key, says what was found and what is
/// expected. The reference spec and the project's PoseSpec.json pass every rule.
public enum PoseSpecRules {
  /// The threshold levels of a threshold object (ENGINE §3.3), in evaluation order.
  static let levels = ["hard", "warn", "enter", "exit"]

  /// Runs every rule in document order; the first failure wins.
  public static func check(_ doc: PoseSpecDocument) throws(PoseSpecValidationError) {
    let fail = { (short: String, place: String, problem: String) in
      PoseSpecValidationError(
        kind: .valueInvalid, fileName: doc.fileName, definitionProblem: short, location: "\(place): \(problem)")
    }
    guard doc.cues.count <= PoseSpecLimits.cuesMax else {
      throw fail("cues", "cues", "\(doc.cues.count) cues, more than cuesMax = \(PoseSpecLimits.cuesMax)")
    }
    if let problem = antiJitterProblem(doc.defaults.antiJitter) {
      throw fail("defaults.antiJitter", "defaults.antiJitter", problem)
    }
    var firstIndex: [String: Int] = [:]
    for cue in doc.cues {
      let at = { (key: String) in (short: "\(cue.id) \(key)", place: "cues[\(cue.index)] \(cue.id) \(key)") }
      if let first = firstIndex[cue.id] {
        let p = at("id")
        throw fail(p.short, p.place, "cue id \"\(cue.id)\" is also the id of cues[\(first)]; cue ids must be unique")
      }
      firstIndex[cue.id] = cue.index
      let hz = cue.metric.updateHz
      guard hz >= PoseSpecLimits.updateHzMin, hz <= PoseSpecLimits.updateHzMax else {
        let p = at("metric.updateHz")
        throw fail(
          p.short, p.place,
          "\(JSONWriter.shortest(hz)) is out of range: expected a rate in Hz from updateHzMin = "
            + "\(JSONWriter.shortest(PoseSpecLimits.updateHzMin)) to updateHzMax = "
            + "\(JSONWriter.shortest(PoseSpecLimits.updateHzMax))")
      }
      if let problem = antiJitterProblem(cue.antiJitter) {
        let p = at("antiJitter")
        throw fail(p.short, p.place, problem)
      }
      for (key, texts) in [("script.zh", cue.script.zh), ("script.en", cue.script.en)] {
        if let problem = cardTextProblem(texts) {
          let p = at(key)
          throw fail(p.short, p.place, problem)
        }
      }
      for mode in ["noRef", "withRef"] {
        guard let set = cue.raw["trigger"]?[mode]?.objectValue else { continue }
        if let (key, problem) = thresholdSetProblem(set) {
          let p = at("trigger.\(mode)\(key.isEmpty ? "" : "." + key)")
          throw fail(p.short, p.place, problem)
        }
      }
    }
    if let (key, problem) = praisePolicyProblem(doc.raw["praisePolicy"]) {
      throw fail("praisePolicy\(key)", "praisePolicy\(key)", problem)
    }
  }

  /// Gate parameters in range (`persistFramesMax`, `durationMsMax`), or what is wrong.
  static func antiJitterProblem(_ a: AntiJitterParameters) -> String? {
    let frames = PoseSpecLimits.persistFramesMax
    let ms = PoseSpecLimits.durationMsMax
    if !(0...frames).contains(a.persistFrames) {
      return "persistFrames \(a.persistFrames) is out of range: expected 0 … persistFramesMax = \(frames)"
    }
    for (name, v) in [("minHoldMs", a.minHoldMs), ("cooldownMs", a.cooldownMs)] where !(0...ms).contains(v) {
      return "\(name) \(v) is out of range: expected 0 … durationMsMax = \(ms) ms"
    }
    return nil
  }

  /// A card's text variants: at least one, none empty (index 0 is shown first).
  static func cardTextProblem(_ texts: [String]) -> String? {
    if texts.isEmpty { return "no text: the card would be empty; give at least one string" }
    if let i = texts.firstIndex(where: { $0.trimmingSpaces.isEmpty }) {
      return "variant \(i) is empty: the card would show no text"
    }
    return nil
  }

  /// A threshold object (`trigger.noRef` / `trigger.withRef`): every level present is null or
  /// holds at least one threshold the engine knows with a well-typed operand, and some level
  /// can trigger (hard, warn or enter). Returns the level key ("" for the whole object).
  static func thresholdSetProblem(_ set: JSONObject) -> (key: String, problem: String)? {
    var canTrigger = false
    for level in levels {
      guard let value = set[level], !value.isNull else { continue }
      guard let entries = value.objectValue else { continue }  // a decode failure already
      if entries.isEmpty {
        return (level, "an empty threshold object {}: write {\"op\": number} (or null for no \(level) level)")
      }
      var usable = 0
      for m in entries.members {
        guard let op = ThresholdOp(rawValue: m.key) else { continue }  // skipped with a warning (§3.1)
        let place = "\(level).\(m.key)"
        if op == .between {
          guard let pair = m.value.arrayValue, pair.count == 2, pair.allSatisfy({ $0.doubleValue != nil }) else {
            return (place, "expected [a, b] (two numbers), found \(JSONWriter.write(m.value))")
          }
        } else if m.value.doubleValue == nil {
          return (place, "expected a number, found \(JSONWriter.write(m.value))")
        }
        usable += 1
      }
      if usable == 0 {
        let known = ThresholdOp.allCases.map(\.rawValue).joined(separator: " ")
        return (level, "no threshold operator the engine knows (\(known)); every entry would be skipped")
      }
      if level != "exit" { canTrigger = true }
    }
    if !canTrigger {
      return ("", "no hard, warn or enter threshold: the cue could never trigger in this mode (write null instead)")
    }
    return nil
  }

  /// `praisePolicy` (ENGINE §3.12): any field present must have the type and range the
  /// engine reads (an absent one takes the reference value); the frozen card needs text.
  /// Returns the key path below `praisePolicy` (".cooldownMs") and the problem.
  static func praisePolicyProblem(_ value: JSONValue?) -> (key: String, problem: String)? {
    guard let value else { return nil }  // a decode failure already
    guard let o = value.objectValue else { return ("", "expected an object, found \(value.typeName)") }
    for key in ["trigger", "dimensionKey"] {
      if let v = o[key], v.stringValue == nil { return (".\(key)", "expected a string, found \(v.typeName)") }
    }
    if let v = o["enabled"], v.boolValue == nil { return (".enabled", "expected a boolean, found \(v.typeName)") }
    if let problem = millisecondsProblem(o["cooldownMs"]) { return (".cooldownMs", problem) }
    guard let fv = o["freezeAfterExit"] else { return nil }
    guard let f = fv.objectValue else { return (".freezeAfterExit", "expected an object, found \(fv.typeName)") }
    if let problem = millisecondsProblem(f["timeoutMs"]) { return (".freezeAfterExit.timeoutMs", problem) }
    if let problem = stringsProblem(f["unfreezeOn"]) { return (".freezeAfterExit.unfreezeOn", problem) }
    guard let sv = f["script"] else { return nil }
    guard let s = sv.objectValue else { return (".freezeAfterExit.script", "expected an object, found \(sv.typeName)") }
    for lang in ["zh", "en"] {
      guard let v = s[lang] else { continue }
      let key = ".freezeAfterExit.script.\(lang)"
      if let problem = stringsProblem(v) { return (key, problem) }
      if let problem = cardTextProblem(v.arrayValue!.map { $0.stringValue! }) {
        return (key, "\(problem) (the frozen praise card)")
      }
    }
    return nil
  }

  /// An integer number of milliseconds in 0 … `durationMsMax`, or what is wrong (nil when absent).
  static func millisecondsProblem(_ v: JSONValue?) -> String? {
    guard let v else { return nil }
    guard let d = v.doubleValue else { return "expected an integer number of milliseconds, found \(v.typeName)" }
    guard d.rounded() == d else {
      return "expected an integer number of milliseconds, found \(JSONWriter.shortest(d))"
    }
    guard d >= 0, d <= Double(PoseSpecLimits.durationMsMax) else {
      return "\(JSONWriter.shortest(d)) is out of range: expected 0 … durationMsMax = \(PoseSpecLimits.durationMsMax) ms"
    }
    return nil
  }

  /// An array of strings, or what is wrong (nil when absent).
  static func stringsProblem(_ v: JSONValue?) -> String? {
    guard let v else { return nil }
    guard let a = v.arrayValue else { return "expected an array of strings, found \(v.typeName)" }
    if let i = a.firstIndex(where: { $0.stringValue == nil }) {
      return "expected an array of strings, found \(a[i].typeName) at [\(i)]"
    }
    return nil
  }
}
