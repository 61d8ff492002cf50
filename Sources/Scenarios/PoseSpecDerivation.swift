import Foundation
import PoseSpec

/// A PoseSpec written as edits of a spec file, for `initial.posespec` and a `posespec_reload`
/// event's `spec` (S01–S03, S18):
///
/// ```yaml
/// spec:
///   from: ../PoseSpec.json                  # relative to the scenario file's folder
///   remove: ["changeLog[-1]", binding.aliases.lShoulder]
///   set:
///     prdVersion: v0.0.0
///     "cues[id=CHIN_UP].trigger.withRef": {warn: {">": 0.02}, hard: {">": 0.04}}
/// ```
///
/// Paths are keys joined by `.`, a key followed by `[i]` (an array index, negative from the
/// end) or `[field=value]` (the array element whose field equals value). `remove` applies
/// first, then `set` (a key that exists keeps its place, a new key goes last), each in file
/// order. The file is read with integers and decimals kept apart, so the derived spec
/// serializes byte for byte as Python's `json.dumps(spec, ensure_ascii=False,
/// separators=(",", ":"))`; a `posespec_reload` without `sha256` gets the SHA-256 of that
/// text, as scripts/corpus_jsonl.py reload() computed it.
struct PoseSpecDerivation {
  static let keys = ["from", "remove", "set"]

  /// Whether a node is a derivation (a mapping with `from`) rather than an inline spec.
  static func isDerivation(_ n: YNode) -> Bool {
    guard case .mapping = n.node, let m = try? n.mapping() else { return false }
    return m.contains { $0.key == "from" }
  }

  /// The derived spec, checked and expanded.
  static func expand(_ n: YNode, dir: String) throws(ScenarioError) -> PyJSON {
    let m = try n.mapping(allowed: keys, what: "posespec derivation key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    guard let fromN = v("from") else { throw n.error("missing key \"from\" (the spec file to derive from)") }
    let from = try fromN.string()
    let path = from.hasPrefix("/") ? from : (dir as NSString).appendingPathComponent(from)
    guard let data = FileManager.default.contents(atPath: path) else {
      throw fromN.error("cannot read \(path) (the path is relative to the scenario file's folder)")
    }
    var doc: PyJSON
    do { doc = try PyJSON.parse([UInt8](data)) } catch { throw fromN.error("\(path): \(error.message)") }
    if let r = v("remove") {
      for p in try r.sequence() {
        let steps = try parsePath(p)
        do { try doc.remove(steps[...]) } catch { throw p.error(error.message) }
      }
    }
    if let s = v("set") {
      for m in try s.mapping() {
        let steps: [PathStep]
        do { steps = try parsePath(m.key) } catch { throw m.value.error("path \"\(m.key)\": \(error.message)") }
        let value = try PyJSON(m.value)
        do { try doc.set(steps[...], value) } catch { throw m.value.error("path \"\(m.key)\": \(error.message)") }
      }
    }
    return doc
  }

  enum PathStep: Equatable {
    case key(String)
    case index(Int)
    case match(field: String, value: String)
  }

  static func parsePath(_ n: YNode) throws(ScenarioError) -> [PathStep] {
    let text = try n.string()
    do { return try parsePath(text) } catch { throw n.error("path \"\(text)\": \(error.message)") }
  }

  static func parsePath(_ text: String) throws(YParseFailure) -> [PathStep] {
    var steps: [PathStep] = []
    for seg in text.split(separator: ".", omittingEmptySubsequences: false) {
      var rest = Substring(seg)
      let name = rest.prefix { $0 != "[" }
      rest = rest.dropFirst(name.count)
      if !name.isEmpty { steps.append(.key(String(name))) }
      if name.isEmpty && rest.isEmpty { throw YParseFailure("empty path segment") }
      while !rest.isEmpty {
        guard rest.first == "[", let close = rest.firstIndex(of: "]") else {
          throw YParseFailure("expected [index] or [field=value] after \"\(name)\"")
        }
        let sel = rest[rest.index(after: rest.startIndex)..<close]
        if let eq = sel.firstIndex(of: "=") {
          steps.append(.match(field: String(sel[..<eq]), value: String(sel[sel.index(after: eq)...])))
        } else if let i = Int(sel) {
          steps.append(.index(i))
        } else {
          throw YParseFailure("[\(sel)]: expected an index or field=value")
        }
        rest = rest[rest.index(after: close)...]
      }
    }
    return steps
  }
}

/// JSON with Python's number model (int and float kept apart, members in order).
indirect enum PyJSON: Sendable {
  case null
  case bool(Bool)
  case int(Int64)
  case float(Double)
  case string(String)
  case array([PyJSON])
  case object([(key: String, value: PyJSON)])

  init(_ n: YNode) throws(ScenarioError) {
    switch n.node {
    case .scalar:
      switch try n.scalar() {
      case .null: self = .null
      case .bool(let b): self = .bool(b)
      case .int(let i): self = .int(i)
      case .double(let d): self = .float(d)
      case .string(let s): self = .string(s)
      }
    case .sequence:
      var a: [PyJSON] = []
      for x in try n.sequence() { a.append(try PyJSON(x)) }
      self = .array(a)
    case .mapping:
      var o: [(key: String, value: PyJSON)] = []
      for m in try n.mapping() { o.append((m.key, try PyJSON(m.value))) }
      self = .object(o)
    case .alias:
      throw n.error("aliases are not supported here")
    }
  }

  /// The value as the project's JSON (numbers become doubles).
  var json: JSONValue {
    switch self {
    case .null: .null
    case .bool(let b): .bool(b)
    case .int(let i): .number(Double(i))
    case .float(let d): .number(d)
    case .string(let s): .string(s)
    case .array(let a): .array(a.map(\.json))
    case .object(let o): .object(JSONObject(o.map { JSONMember($0.key, $0.value.json) }))
    }
  }

  /// `json.dumps(self, ensure_ascii=False, separators=(",", ":"))`.
  var pythonText: String {
    var out = ""
    appendPython(to: &out)
    return out
  }

  func appendPython(to out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .int(let i): out += String(i)
    case .float(let d): out += PyJSON.repr(d)
    case .string(let s): JSONWriter.appendString(s, to: &out)
    case .array(let a):
      out += "["
      for (i, x) in a.enumerated() {
        if i > 0 { out += "," }
        x.appendPython(to: &out)
      }
      out += "]"
    case .object(let o):
      out += "{"
      for (i, m) in o.enumerated() {
        if i > 0 { out += "," }
        JSONWriter.appendString(m.key, to: &out)
        out += ":"
        m.value.appendPython(to: &out)
      }
      out += "}"
    }
  }

  /// Python's `repr(float)`: the shortest round-trip digits, positional for decimal exponents
  /// −4 < e ≤ 16 (with ".0" when integral), else `d.ddde±XX`.
  static func repr(_ d: Double) -> String {
    if d.isNaN { return "NaN" }
    if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
    let sign = d.sign == .minus ? "-" : ""
    if d == 0 { return sign + "0.0" }
    var s = "\(d.magnitude)"  // Swift's shortest round-trip text, e.g. 0.0001, 1e-05, 100.0
    var exp = 0
    if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      exp = Int(s[s.index(after: e)...])!
      s = String(s[..<e])
    }
    let parts = s.split(separator: ".", omittingEmptySubsequences: false)
    var digits = Array(parts[0] + (parts.count > 1 ? parts[1] : ""))
    var decpt = parts[0].count + exp  // value = 0.digits × 10^decpt
    while digits.count > 1 && digits.first == "0" {
      digits.removeFirst()
      decpt -= 1
    }
    while digits.count > 1 && digits.last == "0" { digits.removeLast() }
    let ds = String(digits)
    if decpt > -4 && decpt <= 16 {
      if decpt <= 0 { return sign + "0." + String(repeating: "0", count: -decpt) + ds }
      if digits.count <= decpt { return sign + ds + String(repeating: "0", count: decpt - digits.count) + ".0" }
      return sign + String(digits[..<decpt]) + "." + String(digits[decpt...])
    }
    let e = decpt - 1
    let mantissa = digits.count == 1 ? ds : String(digits[0]) + "." + String(digits[1...])
    return sign + mantissa + "e" + (e < 0 ? "-" : "+") + (abs(e) < 10 ? "0" : "") + String(abs(e))
  }

  // MARK: Edits

  mutating func set(_ path: ArraySlice<PathStepAlias>, _ value: PyJSON) throws(YParseFailure) {
    try edit(path) { (container: inout PyJSON, last: PathStepAlias) throws(YParseFailure) in
      switch (last, container) {
      case (.key(let k), .object(var o)):
        if let i = o.firstIndex(where: { $0.key == k }) { o[i].value = value } else { o.append((k, value)) }
        container = .object(o)
      case (_, .array(var a)):
        a[try PyJSON.index(of: last, in: a)] = value
        container = .array(a)
      default:
        throw YParseFailure("\(PyJSON.describe(last)) does not fit a \(container.typeName)")
      }
    }
  }

  mutating func remove(_ path: ArraySlice<PathStepAlias>) throws(YParseFailure) {
    try edit(path) { (container: inout PyJSON, last: PathStepAlias) throws(YParseFailure) in
      switch (last, container) {
      case (.key(let k), .object(var o)):
        guard let i = o.firstIndex(where: { $0.key == k }) else { throw YParseFailure("no key \"\(k)\" to remove") }
        o.remove(at: i)
        container = .object(o)
      case (_, .array(var a)):
        a.remove(at: try PyJSON.index(of: last, in: a))
        container = .array(a)
      default:
        throw YParseFailure("\(PyJSON.describe(last)) does not fit a \(container.typeName)")
      }
    }
  }

  typealias PathStepAlias = PoseSpecDerivation.PathStep

  /// Walks to the container of the last step and lets `body` change it.
  private mutating func edit(
    _ path: ArraySlice<PathStepAlias>, _ body: (inout PyJSON, PathStepAlias) throws(YParseFailure) -> Void
  ) throws(YParseFailure) {
    guard let step = path.first else { throw YParseFailure("empty path") }
    if path.count == 1 {
      try body(&self, step)
      return
    }
    switch (step, self) {
    case (.key(let k), .object(var o)):
      guard let i = o.firstIndex(where: { $0.key == k }) else { throw YParseFailure("no key \"\(k)\"") }
      try o[i].value.edit(path.dropFirst(), body)
      self = .object(o)
    case (_, .array(var a)):
      let i = try PyJSON.index(of: step, in: a)
      try a[i].edit(path.dropFirst(), body)
      self = .array(a)
    default:
      throw YParseFailure("\(PyJSON.describe(step)) does not fit a \(typeName)")
    }
  }

  static func index(of step: PathStepAlias, in a: [PyJSON]) throws(YParseFailure) -> Int {
    switch step {
    case .index(let i):
      let j = i < 0 ? a.count + i : i
      guard j >= 0, j < a.count else { throw YParseFailure("index \(i) is outside the list (\(a.count) elements)") }
      return j
    case .match(let field, let value):
      let hits = a.indices.filter { i in
        guard case .object(let o) = a[i], let v = o.first(where: { $0.key == field })?.value else { return false }
        switch v {
        case .string(let s): return s == value
        case .int(let n): return String(n) == value
        default: return false
        }
      }
      guard hits.count == 1 else {
        throw YParseFailure(hits.isEmpty ? "no element with \(field)=\(value)" : "\(hits.count) elements with \(field)=\(value)")
      }
      return hits[0]
    case .key(let k):
      throw YParseFailure("key \"\(k)\" on a list (use [index] or [field=value])")
    }
  }

  static func describe(_ s: PathStepAlias) -> String {
    switch s {
    case .key(let k): "key \"\(k)\""
    case .index(let i): "[\(i)]"
    case .match(let f, let v): "[\(f)=\(v)]"
    }
  }

  var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .int, .float: "number"
    case .string: "string"
    case .array: "list"
    case .object: "mapping"
    }
  }

  // MARK: Parsing (RFC 8259; numbers with `.`, `e` or `E` are floats, like Python's json)

  static func parse(_ bytes: [UInt8]) throws(YParseFailure) -> PyJSON {
    var p = Parser(b: bytes)
    p.skip()
    let v = try p.value()
    p.skip()
    guard p.i == bytes.count else { throw YParseFailure("not valid JSON: extra text at byte \(p.i)") }
    return v
  }

  private struct Parser {
    let b: [UInt8]
    var i = 0

    mutating func skip() {
      while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    func fail(_ what: String) -> YParseFailure { YParseFailure("not valid JSON: \(what) at byte \(i)") }

    mutating func literal(_ word: String, _ v: PyJSON) throws(YParseFailure) -> PyJSON {
      let w = Array(word.utf8)
      guard i + w.count <= b.count, Array(b[i..<i + w.count]) == w else { throw fail("unexpected text") }
      i += w.count
      return v
    }

    mutating func value() throws(YParseFailure) -> PyJSON {
      guard i < b.count else { throw fail("unexpected end") }
      switch b[i] {
      case UInt8(ascii: "{"):
        i += 1
        var o: [(key: String, value: PyJSON)] = []
        skip()
        if i < b.count, b[i] == UInt8(ascii: "}") {
          i += 1
          return .object(o)
        }
        while true {
          skip()
          guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a key") }
          let k = try string()
          skip()
          guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected :") }
          i += 1
          skip()
          // Python keeps the last of duplicate keys, in the first one's place.
          let v = try value()
          if let j = o.firstIndex(where: { $0.key == k }) { o[j].value = v } else { o.append((k, v)) }
          skip()
          guard i < b.count else { throw fail("unexpected end") }
          if b[i] == UInt8(ascii: ",") {
            i += 1
            continue
          }
          guard b[i] == UInt8(ascii: "}") else { throw fail("expected , or }") }
          i += 1
          return .object(o)
        }
      case UInt8(ascii: "["):
        i += 1
        var a: [PyJSON] = []
        skip()
        if i < b.count, b[i] == UInt8(ascii: "]") {
          i += 1
          return .array(a)
        }
        while true {
          skip()
          a.append(try value())
          skip()
          guard i < b.count else { throw fail("unexpected end") }
          if b[i] == UInt8(ascii: ",") {
            i += 1
            continue
          }
          guard b[i] == UInt8(ascii: "]") else { throw fail("expected , or ]") }
          i += 1
          return .array(a)
        }
      case UInt8(ascii: "\""): return .string(try string())
      case UInt8(ascii: "t"): return try literal("true", .bool(true))
      case UInt8(ascii: "f"): return try literal("false", .bool(false))
      case UInt8(ascii: "n"): return try literal("null", .null)
      default: return try number()
      }
    }

    mutating func number() throws(YParseFailure) -> PyJSON {
      let start = i
      var isFloat = false
      while i < b.count {
        let c = b[i]
        if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
          isFloat = true
        } else if !(c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || (c >= 0x30 && c <= 0x39)) {
          break
        }
        i += 1
      }
      let text = String(decoding: b[start..<i], as: UTF8.self)
      if isFloat, let d = Double(text), d.isFinite { return .float(d) }
      if !isFloat, let n = Int64(text) { return .int(n) }
      i = start
      throw fail("bad number \"\(text)\"")
    }

    mutating func hex4() throws(YParseFailure) -> UInt32 {
      guard i + 4 <= b.count, let v = UInt32(String(decoding: b[i..<i + 4], as: UTF8.self), radix: 16) else {
        throw fail("bad \\u escape")
      }
      i += 4
      return v
    }

    mutating func string() throws(YParseFailure) -> String {
      i += 1
      var out = [UInt8]()
      while true {
        guard i < b.count else { throw fail("unterminated string") }
        let c = b[i]
        i += 1
        if c == UInt8(ascii: "\"") { break }
        if c != UInt8(ascii: "\\") {
          out.append(c)
          continue
        }
        guard i < b.count else { throw fail("unterminated string") }
        let e = b[i]
        i += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var u = try hex4()
          if u >= 0xD800 && u < 0xDC00, i + 6 <= b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") {
            i += 2
            let lo = try hex4()
            guard lo >= 0xDC00 && lo < 0xE000 else { throw fail("bad surrogate pair") }
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
          }
          guard let scalar = Unicode.Scalar(u) else { throw fail("lone surrogate") }
          out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default: throw fail("bad escape")
        }
      }
      guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8") }
      return s
    }
  }
}
