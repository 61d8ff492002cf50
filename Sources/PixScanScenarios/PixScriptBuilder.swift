import CanonicalJSON
import ScenarioYAML
import PixScanEngine

/// Turns a scenario's `script:` into input events. A step is `{at: MS, do: KIND, …fields}`
/// where KIND is an input kind (its fields are the event's, checked by `PixInput.decode`),
/// `library_snapshot` (no fields: the current library of the model), `change_library`
/// (`remove: [ids]`, `add: N`) or `run` (many swipes, with their OCR answers).
struct PixScriptBuilder {
  var model: PixLibraryModel
  var events: [PixScenarioEvent] = []
  var order: [Int] = []

  static let runKeys = ["at", "do", "swipes", "every_ms", "pattern", "first", "ocr_latency_ms", "ocr_text", "ocr_fail_every"]

  mutating func parse(_ n: YNode) throws(PixScenarioError) {
    var lastAt: Int64 = 0
    for step in try n.sequence(max: PixScenarioLimits.stepsMax, bound: "PixScenarioLimits.stepsMax") {
      let m = try step.mapping(what: "step key")
      func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
      guard let atNode = v("at"), let doNode = v("do") else { throw step.error("a step needs at (ms) and do (what happens)") }
      let at = try atNode.millis(max: PixScenarioLimits.durationMsMax, maxName: "PixScenarioLimits.durationMsMax")
      guard at >= lastAt else { throw atNode.error("steps go back in time: at \(at) after a step at \(lastAt); keep the script in time order") }
      lastAt = at
      let what = try doNode.string()
      let rest = m.filter { $0.key != "at" && $0.key != "do" }
      switch what {
      case "library_snapshot":
        if let extra = rest.first { throw extra.value.error("library_snapshot takes no fields here: the scenario's library model supplies the assets") }
        let assets = model.snapshot()
        try add(at, "library_snapshot", ["assets": .array(assets.map { .object($0.json()) })], step)
      case "change_library": try changeLibrary(rest, step)
      case "run": try run(at: at, rest, step)
      default:
        guard PixInputKind(rawValue: what) != nil else {
          let all = PixInputKind.allCases.map(\.rawValue) + PixScenario.scriptKinds
          var msg = "unknown step \"\(what)\""
          if let s = closest(what, in: all) { msg += " (did you mean \"\(s)\"?)" }
          throw doNode.error(msg + "; expected one of \(all.joined(separator: ", "))")
        }
        var fields = JSONObject()
        for f in rest { fields.members.append(JSONMember(f.key, try f.value.json())) }
        try add(at, what, fields, step, nodes: rest)
      }
    }
    // Time order; equal times keep script order (run steps interleave with later steps).
    let idx = events.indices.sorted { events[$0].t != events[$1].t ? events[$0].t < events[$1].t : $0 < $1 }
    events = idx.map { events[$0] }
  }

  /// Adds one event after checking it decodes (an error points at the field's own line).
  mutating func add(
    _ t: Int64, _ kind: String, _ fields: JSONObject, _ step: YNode, nodes: [(key: String, value: YNode)] = []
  ) throws(PixScenarioError) {
    guard events.count < PixScenarioLimits.eventsMax else {
      throw step.error("more than \(PixScenarioLimits.eventsMax) events (PixScenarioLimits.eventsMax)")
    }
    do { _ = try PixInput.decode(kind: kind, fields: fields) } catch {
      let root = error.field.map { f in String(f.prefix { $0 != "." && $0 != "[" }) }
      let at = nodes.first(where: { $0.key == root })?.value ?? step
      throw at.error("\(kind): \(error.field.map { "\($0): " } ?? "")\(error.message)")
    }
    events.append(PixScenarioEvent(t: t, kind: kind, fields: fields, line: step.line))
  }

  mutating func changeLibrary(_ rest: [(key: String, value: YNode)], _ step: YNode) throws(PixScenarioError) {
    for f in rest {
      switch f.key {
      case "remove":
        var ids: [String] = []
        for i in try f.value.sequence(max: PixScenarioLimits.libraryMax, bound: "PixScenarioLimits.libraryMax") { ids.append(try i.string()) }
        if let missing = model.remove(ids) { throw f.value.error("photo \"\(missing)\" is not in the library at this point") }
      case "add":
        let n = try f.value.int()
        guard n >= 0, model.assets.count + Int(n) <= PixScenarioLimits.libraryMax else {
          throw f.value.error("expected 0…\(PixScenarioLimits.libraryMax - model.assets.count) photos (PixScenarioLimits.libraryMax)")
        }
        model.add(Int(n))
      default: throw f.value.error("change_library takes remove: [ids] and add: N, not \"\(f.key)\"")
      }
    }
    if rest.isEmpty { throw step.error("change_library needs remove: [ids] and/or add: N") }
  }

  /// `{do: run, swipes: N, every_ms: M, pattern: [dirs], first: K, ocr_latency_ms: L,
  /// ocr_text: "…{photo}…", ocr_fail_every: F}`: N swipes M ms apart cycling through the
  /// pattern; each up/down swipe is answered L ms later for the photo the run expects on
  /// screen (number `first + i` of the generated ids, i.e. the triage in id order), with the
  /// text (`{photo}` replaced by the id) or, every F-th answer, a failure.
  mutating func run(at: Int64, _ rest: [(key: String, value: YNode)], _ step: YNode) throws(PixScenarioError) {
    func v(_ k: String) -> YNode? { rest.first(where: { $0.key == k })?.value }
    if let extra = rest.first(where: { !Self.runKeys.contains($0.key) }) {
      throw extra.value.error("run takes \(Self.runKeys.dropFirst(2).joined(separator: ", ")), not \"\(extra.key)\"")
    }
    guard let sn = v("swipes") else { throw step.error("run needs swipes: N") }
    let swipes = try sn.int()
    guard swipes >= 1, swipes <= Int64(PixScenarioLimits.runSwipesMax), events.count + Int(swipes) * 2 <= PixScenarioLimits.eventsMax else {
      throw sn.error("expected 1…\(PixScenarioLimits.runSwipesMax) swipes (PixScenarioLimits.runSwipesMax, PixScenarioLimits.eventsMax)")
    }
    let every = try v("every_ms")?.int() ?? 500
    let latency = try v("ocr_latency_ms")?.int() ?? 100
    let maxMs = PixScenarioLimits.durationMsMax
    guard every >= 1, every <= maxMs, latency >= 0, latency <= maxMs, at + every * swipes + latency <= maxMs else {
      throw step.error("every_ms ≥ 1 and ocr_latency_ms ≥ 0, ending within PixScenarioLimits.durationMsMax")
    }
    var pattern: [PixDirection] = [.right]
    if let p = v("pattern") {
      pattern = []
      for d in try p.sequence(max: 64, bound: "64 directions") {
        let s = try d.string()
        guard let dir = PixDirection(rawValue: s) else { throw d.error("expected right, left, down or up, found \"\(s)\"") }
        pattern.append(dir)
      }
      guard !pattern.isEmpty else { throw p.error("expected at least one direction") }
    }
    let first = try v("first")?.int() ?? 1
    guard first >= 1, first <= Int64(PixScenarioLimits.libraryMax) else {
      throw v("first")!.error("expected first in 1…\(PixScenarioLimits.libraryMax) (PixScenarioLimits.libraryMax)")
    }
    let text = try v("ocr_text")?.string() ?? "text of {photo}"
    let failEvery = try v("ocr_fail_every")?.int() ?? 0
    guard failEvery >= 0 else { throw v("ocr_fail_every")!.error("expected ≥ 0 (0: never)") }
    var answers: Int64 = 0
    for i in 0..<swipes {
      let t = at + i * every
      let d = pattern[Int(i % Int64(pattern.count))]
      try add(t, "swipe", ["direction": .string(d.rawValue)], step)
      guard d.recognises else { continue }
      answers += 1
      let photo = PixLibraryModel.id(model.spec.prefix, Int(first + i), count: model.spec.count)
      var f: JSONObject = ["photo": .string(photo)]
      if failEvery > 0, answers % failEvery == 0 {
        f["ok"] = false
        f["error"] = "recognition failed"
      } else {
        f["ok"] = true
        f["text"] = .string(text.replacingAll("{photo}", with: photo))
      }
      try add(t + latency, "ocr_result", f, step)
    }
  }
}

extension String {
  /// `self` with every `target` replaced (no Foundation).
  func replacingAll(_ target: String, with replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var out = ""
    var rest = self[...]
    while let r = rest.firstRange(of: target) {
      out += rest[..<r.lowerBound]
      out += replacement
      rest = rest[r.upperBound...]
    }
    return out + rest
  }
}
