import CanonicalJSON
import Yams

/// A scenario file that cannot be used: `description` names the file, the line and column
/// (Yams `Node.Mark`), the key path and what was expected, e.g.
/// `Recordings/x.scenario.yaml:7:3: timeline[1].subject.hpi: unknown subject parameter …`.
/// The CLI maps it to exit 2.
public struct ScenarioError: Error, CustomStringConvertible, Sendable, Equatable {
  public var file: String
  public var line: Int?
  public var column: Int?
  /// The key path, e.g. `duration_ms`, `timeline[2].event.kind`; nil for file-level problems.
  public var key: String?
  public var message: String

  public init(file: String, line: Int? = nil, column: Int? = nil, key: String? = nil, _ message: String) {
    self.file = file
    self.line = line
    self.column = column
    self.key = key
    self.message = message
  }

  public var description: String {
    var s = file
    if let line {
      s += ":\(line)"
      if let column { s += ":\(column)" }
    }
    s += ": "
    if let key { s += "\(key): " }
    return s + message
  }
}

/// A scalar as this project reads YAML: the JSON-compatible core schema (YAML 1.2). Plain
/// `true`/`false`, `null`/`~`/empty, integers and decimals are typed; everything else, and
/// every quoted or block scalar, is a string (so `on`, `yes`, `no` stay strings: no YAML 1.1
/// surprises). Explicit `!!str`, `!!int`, `!!float`, `!!bool`, `!!null` tags are honoured.
package enum YScalar: Equatable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)

  package init(_ s: Node.Scalar) throws(YParseFailure) {
    let text = s.string
    let tag = s.tag.description
    switch tag {
    case "", "!":
      if s.style != .plain && s.style != .any || tag == "!" {
        self = .string(text)
      } else {
        self = YScalar.plain(text)
      }
    case Tag.Name.str.rawValue: self = .string(text)
    case Tag.Name.null.rawValue: self = .null
    case Tag.Name.bool.rawValue:
      guard case .bool(let b) = YScalar.plain(text) else { throw YParseFailure("!!bool \"\(text)\": expected true or false") }
      self = .bool(b)
    case Tag.Name.int.rawValue:
      guard case .int(let i) = YScalar.plain(text) else { throw YParseFailure("!!int \"\(text)\": expected an integer") }
      self = .int(i)
    case Tag.Name.float.rawValue:
      switch YScalar.plain(text) {
      case .int(let i): self = .double(Double(i))
      case .double(let d): self = .double(d)
      default: throw YParseFailure("!!float \"\(text)\": expected a number")
      }
    default:
      throw YParseFailure("tag \(tag) is not supported (only !!str, !!int, !!float, !!bool, !!null)")
    }
  }

  package static func plain(_ text: String) -> YScalar {
    switch text {
    case "", "~", "null", "Null", "NULL": return .null
    case "true", "True", "TRUE": return .bool(true)
    case "false", "False", "FALSE": return .bool(false)
    default: break
    }
    let u = Array(text.utf8)
    var i = 0
    if i < u.count, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i += 1 }
    let digitsStart = i
    while i < u.count, u[i] >= 0x30, u[i] <= 0x39 { i += 1 }
    let intDigits = i - digitsStart
    if intDigits > 0 && i == u.count, let v = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) {
      return .int(v)
    }
    var fracDigits = 0
    if i < u.count, u[i] == UInt8(ascii: ".") {
      i += 1
      let f = i
      while i < u.count, u[i] >= 0x30, u[i] <= 0x39 { i += 1 }
      fracDigits = i - f
    }
    guard intDigits + fracDigits > 0 else { return .string(text) }
    if i < u.count, u[i] == UInt8(ascii: "e") || u[i] == UInt8(ascii: "E") {
      i += 1
      if i < u.count, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i += 1 }
      let e = i
      while i < u.count, u[i] >= 0x30, u[i] <= 0x39 { i += 1 }
      if i == e { return .string(text) }
    }
    guard i == u.count, let d = Double(text), d.isFinite else { return .string(text) }
    return .double(d)
  }

  package var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .int: "an integer"
    case .double: "a number"
    case .string(let s): "the string \"\(s)\""
    }
  }
}

package struct YParseFailure: Error {
  package var message: String
  package init(_ message: String) { self.message = message }
}

/// A YAML node with the file and the key path that led to it, for messages.
package struct YNode {
  package let node: Node
  package let file: String
  package let path: String

  /// `node` of `file`, found at key path `path` ("" for the root).
  package init(node: Node, file: String, path: String) {
    self.node = node
    self.file = file
    self.path = path
  }

  package var line: Int? { node.mark?.line }
  package var column: Int? { node.mark?.column }

  package func error(_ message: String) -> ScenarioError {
    ScenarioError(file: file, line: line, column: column, key: path.isEmpty ? nil : path, message)
  }

  package func child(_ key: String, _ node: Node) -> YNode {
    YNode(node: node, file: file, path: path.isEmpty ? key : "\(path).\(key)")
  }

  package var typeName: String {
    switch node {
    case .mapping: return "a mapping"
    case .sequence: return "a list"
    case .alias: return "an alias"
    case .scalar(let s): return (try? YScalar(s).typeName) ?? "a scalar"
    }
  }

  package func scalar() throws(ScenarioError) -> YScalar {
    guard case .scalar(let s) = node else { throw error("expected a scalar, found \(typeName)") }
    do { return try YScalar(s) } catch { throw self.error(error.message) }
  }

  /// The members of a mapping, in file order, checked against `allowed` (an unknown key is an
  /// error naming the key's own line and the closest allowed key).
  package func mapping(allowed: [String]? = nil, what: String = "key") throws(ScenarioError) -> [(key: String, value: YNode)] {
    guard case .mapping(let m) = node else { throw error("expected a mapping, found \(typeName)") }
    var out: [(key: String, value: YNode)] = []
    for (k, v) in m {
      guard case .scalar(let ks) = k else {
        throw ScenarioError(file: file, line: k.mark?.line, column: k.mark?.column, key: path.isEmpty ? nil : path, "mapping keys must be plain strings")
      }
      let key = ks.string
      let keyPath = path.isEmpty ? key : "\(path).\(key)"
      if let allowed, !allowed.contains(key) {
        var msg = "unknown \(what)"
        if let s = closest(key, in: allowed) { msg += " (did you mean \"\(s)\"?)" }
        msg += "; expected one of: \(allowed.joined(separator: ", "))"
        throw ScenarioError(file: file, line: k.mark?.line, column: k.mark?.column, key: keyPath, msg)
      }
      out.append((key, YNode(node: v, file: file, path: keyPath)))
    }
    return out
  }

  package func sequence(max: Int? = nil, bound: String = "") throws(ScenarioError) -> [YNode] {
    guard case .sequence(let s) = node else { throw error("expected a list, found \(typeName)") }
    if let max, s.count > max { throw error("\(s.count) entries, more than the bound \(max) (\(bound))") }
    return s.enumerated().map { YNode(node: $0.element, file: file, path: "\(path)[\($0.offset)]") }
  }

  package func int() throws(ScenarioError) -> Int64 {
    let s = try scalar()
    if case .int(let i) = s { return i }
    if case .double(let d) = s, d.rounded() == d, abs(d) < 9e15 { return Int64(d) }
    throw error("expected an integer, found \(s.typeName)")
  }

  /// A time in milliseconds: an integer in 0…`max`.
  package func millis(max: Int64?, maxName: String = "duration_ms") throws(ScenarioError) -> Int64 {
    let v = try int()
    guard v >= 0 else { throw error("expected a non-negative time in ms, found \(v)") }
    if let max, v > max { throw error("\(v) ms is after the end of the recording (\(maxName) \(max))") }
    return v
  }

  package func double() throws(ScenarioError) -> Double {
    let s = try scalar()
    switch s {
    case .int(let i): return Double(i)
    case .double(let d): return d
    default: throw error("expected a number, found \(s.typeName)")
    }
  }

  package func bool() throws(ScenarioError) -> Bool {
    let s = try scalar()
    guard case .bool(let b) = s else { throw error("expected true or false, found \(s.typeName)") }
    return b
  }

  package func string() throws(ScenarioError) -> String {
    let s = try scalar()
    guard case .string(let v) = s else { throw error("expected a string, found \(s.typeName)") }
    return v
  }

  /// The node as JSON (mappings keep their key order).
  package func json() throws(ScenarioError) -> JSONValue {
    switch node {
    case .scalar:
      switch try scalar() {
      case .null: return .null
      case .bool(let b): return .bool(b)
      case .int(let i):
        guard abs(i) < (1 << 53) else { throw error("integer \(i) does not fit a JSON number exactly (|n| < 2^53)") }
        return .number(Double(i))
      case .double(let d): return .number(d)
      case .string(let s): return .string(s)
      }
    case .sequence:
      var a: [JSONValue] = []
      for n in try sequence() { a.append(try n.json()) }
      return .array(a)
    case .mapping:
      var o = JSONObject()
      for m in try mapping() { o.members.append(JSONMember(m.key, try m.value.json())) }
      return .object(o)
    case .alias:
      throw error("aliases are not supported here")
    }
  }
}

/// The allowed word closest to `word` (edit distance ≤ 2, or a case-insensitive match).
package func closest(_ word: String, in words: [String]) -> String? {
  var best: (String, Int)?
  let lower = word.lowercased()
  let chars = Array(lower)
  let long = word.count >= 3
  for w in words {
    let wl = w.lowercased()
    if wl == lower { return w }
    if long, wl.hasPrefix(lower) { return w }
    // The distance is at least the length difference: a long key costs nothing to reject.
    let wc = Array(wl)
    guard abs(chars.count - wc.count) <= 2 else { continue }
    let d = editDistance(chars, wc)
    if d <= 2, best.map({ d < $0.1 }) ?? true { best = (w, d) }
  }
  return best?.0
}

package func editDistance(_ a: [Character], _ b: [Character]) -> Int {
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var prev = Array(0...b.count)
  var cur = prev
  for i in 1...a.count {
    cur[0] = i
    for j in 1...b.count {
      cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    swap(&prev, &cur)
  }
  return prev[b.count]
}

/// Parses YAML text into its root node; syntax errors become a `ScenarioError` at their mark.
package func composeYAML(_ text: String, file: String, rules: YAMLRules) throws(ScenarioError) -> Node {
  // Anchors, aliases, depth and size first: nothing is built from a hostile document.
  try YAMLGuard.check(text, file: file, rules: rules)
  let root: Node?
  do { root = try Yams.compose(yaml: text) } catch let e as YamlError {
    switch e {
    case .scanner(let ctx, let problem, let mark, _), .parser(let ctx, let problem, let mark, _),
      .composer(let ctx, let problem, let mark, _):
      let c = ctx.map { "\($0.text) " } ?? ""
      throw ScenarioError(file: file, line: mark.line, column: mark.column, "YAML syntax: \(c)\(problem)")
    case .duplicatedKeysInMapping(let dups, let ctx):
      throw ScenarioError(
        file: file, line: ctx.mark.line, column: ctx.mark.column,
        "key \(dups.sorted().map { "\"\($0)\"" }.joined(separator: ", ")) appears more than once in a mapping")
    default:
      throw ScenarioError(file: file, "YAML: \(e)")
    }
  } catch {
    throw ScenarioError(file: file, "YAML: \(error)")
  }
  guard let root else { throw ScenarioError(file: file, line: 1, "the file is empty; expected \(rules.expectedRoot)") }
  return root
}
