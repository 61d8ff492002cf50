import CanonicalJSON
import EngineIO
import JustPhotoIO
import PoseSpec

/// One concrete place in the PoseSpec a parameter sets: object keys and array indices from the
/// root; `comparator` when the place is a threshold object (`{"<=": 0.04}`), whose one number
/// is the value; `display` names array elements by `id` (`cues[FRAME_MOVE_LEFT].…`).
/// `negated`: the place holds a negative number and the domain none, so the value is written
/// negated — a mirrored cue's threshold (FRAME_MOVE_RIGHT's exit `>= -0.04`) keeps its side
/// when `cues[FRAME_MOVE_*]…exit: [0.03, 0.04]` tunes both mirrors together.
package struct SpecPlace: Sendable, Hashable {
  package var steps: [SpecEdit.Step]
  package var comparator: String?
  package var display: String
  package var negated = false

  /// The value written at this place for the parameter value `v`.
  package func written(_ v: TuneValue) -> TuneValue {
    if negated, case .number(let d) = v { return .number(d == 0 ? 0 : -d) }
    return v
  }
}

/// What a parameter sets: places in the PoseSpec (a wildcard sets many to the same value), or
/// an engine option (`options.NAME`, ENGINE §1.8).
package enum TuneTarget: Sendable {
  case spec([SpecPlace])
  case option(String)

  struct Failure: Error { var message: String }

  /// Expands `pattern` against the PoseSpec JSON. `[*]` is every element, `[3]` an index,
  /// `[FRAME_MOVE_*]` every element whose `id` matches (`*` = any characters).
  static func resolve(_ pattern: String, in spec: JSONValue, domain: TuneDomain) throws(Failure) -> TuneTarget {
    if pattern.hasPrefix("options.") {
      let name = String(pattern.dropFirst("options.".count))
      guard let entry = EngineOptions.catalogue.first(where: { $0.name == name }) else {
        throw Failure(message: "no engine option '\(name)' (options: \(EngineOptions.catalogue.map(\.name).joined(separator: ", ")))")
      }
      try checkOption(name, entry.values, domain: domain)
      return .option(name)
    }
    let tokens = try tokenize(pattern)
    var places: [SpecPlace] = []
    try expand(spec, tokens[...], steps: [], display: "", domain: domain, into: &places)
    guard !places.isEmpty else { throw Failure(message: "matches no place in the PoseSpec") }
    return .spec(places)
  }

  /// An option's domain holds only values the option takes: a list of choices, each accepted
  /// by `EngineOptions.set` (as the trial will set it, `TuneRunner.evaluate`); a numeric option
  /// (`EngineOptions.numeric`) also a continuous `{min, max}` inside its range.
  static func checkOption(_ name: String, _ listed: [String], domain: TuneDomain) throws(Failure) {
    var probe = EngineOptions()
    switch domain {
    case .choices(let values):
      for v in values {
        do { try probe.set(name, v.description) } catch {
          let known = EngineOptions.numeric[name].map { "\($0.name) in \($0.description)" } ?? listed.joined(separator: ", ")
          throw Failure(message: "'\(v)' is not a value of \(name) (\(known))")
        }
      }
    case .range(let lo, let hi, _):
      guard let range = EngineOptions.numeric[name] else {
        throw Failure(message: "\(name) takes a list of values, not a {min, max} range")
      }
      guard range.contains(lo), range.contains(hi) else {
        throw Failure(
          message: "{min: \(JSONWriter.shortest(lo)), max: \(JSONWriter.shortest(hi))} is not inside the range of \(name), \(range.name) in \(range.description)")
      }
    }
  }

  enum Token { case key(String), select(String) }

  static func tokenize(_ pattern: String) throws(Failure) -> [Token] {
    var tokens: [Token] = []
    var name = ""
    var chars = pattern.makeIterator()
    func flush() {
      if !name.isEmpty { tokens.append(.key(name)) }
      name = ""
    }
    while let c = chars.next() {
      switch c {
      case ".": flush()
      case "[":
        flush()
        var sel = ""
        var closed = false
        while let d = chars.next() {
          if d == "]" { closed = true; break }
          sel.append(d)
        }
        guard closed, !sel.isEmpty else { throw Failure(message: "unclosed or empty [ ] in the path") }
        tokens.append(.select(sel))
      default: name.append(c)
      }
    }
    flush()
    guard !tokens.isEmpty else { throw Failure(message: "empty path") }
    return tokens
  }

  static func expand(
    _ node: JSONValue, _ rest: ArraySlice<Token>, steps: [SpecEdit.Step], display: String,
    domain: TuneDomain, into out: inout [SpecPlace]
  ) throws(Failure) {
    guard let token = rest.first else {
      out.append(try leaf(node, steps: steps, display: display, domain: domain))
      return
    }
    let more = rest.dropFirst()
    switch token {
    case .key(let k):
      guard let child = node.objectValue?[k] else {
        throw Failure(message: "no member '\(k)' at \(display.isEmpty ? "the top level" : display)")
      }
      try expand(child, more, steps: steps + [.key(k)], display: display.isEmpty ? k : "\(display).\(k)", domain: domain, into: &out)
    case .select(let sel):
      guard let items = node.arrayValue else { throw Failure(message: "\(display) is not a list, cannot select [\(sel)]") }
      if let i = Int(sel) {
        guard items.indices.contains(i) else { throw Failure(message: "\(display)[\(i)]: the list has \(items.count) elements") }
        try expand(items[i], more, steps: steps + [.index(i)], display: "\(display)[\(label(items[i], i))]", domain: domain, into: &out)
        return
      }
      var matched = 0
      for (i, item) in items.enumerated() {
        let id = item["id"]?.stringValue
        guard sel == "*" || id.map({ glob(sel, $0) }) == true else { continue }
        matched += 1
        try expand(item, more, steps: steps + [.index(i)], display: "\(display)[\(label(item, i))]", domain: domain, into: &out)
      }
      guard matched > 0 else { throw Failure(message: "\(display)[\(sel)] matches no element (by id)") }
    }
  }

  static func label(_ item: JSONValue, _ i: Int) -> String { item["id"]?.stringValue ?? String(i) }

  static func leaf(_ node: JSONValue, steps: [SpecEdit.Step], display: String, domain: TuneDomain) throws(Failure) -> SpecPlace {
    let numeric: Bool
    let domainMin: Double
    switch domain {
    case .range(let lo, _, _):
      numeric = true
      domainMin = lo
    case .choices(let c):
      numeric = c.allSatisfy { if case .number = $0 { true } else { false } }
      domainMin = c.compactMap { if case .number(let d) = $0 { d } else { nil } }.min() ?? 0
    }
    switch node {
    case .number(let d) where numeric:
      return SpecPlace(steps: steps, comparator: nil, display: display, negated: d < 0 && domainMin >= 0)
    case .object(let o) where numeric && o.count == 1 && o.members[0].value.doubleValue != nil:
      // A threshold object such as {"<=": 0.04}: the value is its one number.
      let d = o.members[0].value.doubleValue ?? 0
      return SpecPlace(steps: steps, comparator: o.members[0].key, display: display, negated: d < 0 && domainMin >= 0)
    case .bool where !numeric, .string where !numeric:
      return SpecPlace(steps: steps, comparator: nil, display: display)
    default:
      throw Failure(
        message: "\(display) is a JSON \(node.typeName), the domain gives \(numeric ? "numbers" : "non-numbers") (a path must end at a number, a threshold like {\"<=\": 0.04}, or a flag)")
    }
  }

  /// `*` matches any run of characters; everything else literally.
  static func glob(_ pattern: String, _ text: String) -> Bool {
    let p = Array(pattern)
    let t = Array(text)
    var pi = 0, ti = 0, star = -1, mark = 0
    while ti < t.count {
      if pi < p.count, p[pi] != "*", p[pi] == t[ti] {
        pi += 1
        ti += 1
      } else if pi < p.count, p[pi] == "*" {
        star = pi
        mark = ti
        pi += 1
      } else if star >= 0 {
        pi = star + 1
        mark += 1
        ti = mark
      } else {
        return false
      }
    }
    while pi < p.count, p[pi] == "*" { pi += 1 }
    return pi == p.count
  }

  /// `spec` with `value` written at `place`.
  static func write(_ value: TuneValue, at place: SpecPlace, in spec: JSONValue) -> JSONValue {
    var leafSteps = place.steps
    if let c = place.comparator { leafSteps.append(.key(c)) }
    return set(place.written(value).json, leafSteps[...], in: spec)
  }

  static func set(_ value: JSONValue, _ steps: ArraySlice<SpecEdit.Step>, in node: JSONValue) -> JSONValue {
    guard let step = steps.first else { return value }
    switch (step, node) {
    case (.key(let k), .object(var o)):
      if let child = o[k] { o[k] = set(value, steps.dropFirst(), in: child) }
      return .object(o)
    case (.index(let i), .array(var a)) where a.indices.contains(i):
      a[i] = set(value, steps.dropFirst(), in: a[i])
      return .array(a)
    default:
      return node
    }
  }
}
