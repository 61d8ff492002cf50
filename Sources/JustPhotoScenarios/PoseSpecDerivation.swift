import CanonicalJSON
import Foundation
import PoseSpec
import Recording
import ScenarioYAML

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
/// order. The file is read with the project's JSON parser; a `posespec_reload` without
/// `sha256` gets the SHA-256 of the derived spec as the canonical writer prints it
/// (`JSONWriter.write`, one line, members in order, shortest numbers): the text the engine
/// itself loads an inline spec from, so the hash is the loaded spec's `sha256`.
struct PoseSpecDerivation {
  static let keys = ScenarioSchema.derivationKeys

  /// Whether a node is a derivation (a mapping with `from`) rather than an inline spec.
  static func isDerivation(_ n: YNode) -> Bool {
    guard case .mapping = n.node, let m = try? n.mapping() else { return false }
    return m.contains { $0.key == "from" }
  }

  /// The derived spec, checked and expanded.
  static func expand(_ n: YNode, dir: String) throws(ScenarioError) -> JSONValue {
    let m = try n.mapping(allowed: keys, what: "posespec derivation key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    guard let fromN = v("from") else { throw n.error("missing key \"from\" (the spec file to derive from)") }
    let from = try fromN.string()
    let path = from.hasPrefix("/") ? from : Paths.join(dir, from)
    // A regular file within the PoseSpec size bound, checked before reading (a `from:
    // /dev/zero` must not hang or fill memory).
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    if let attributes {
      guard attributes[.type] as? FileAttributeType == .typeRegular else {
        throw fromN.error("\(path) is not a regular file (expected a PoseSpec JSON file)")
      }
      let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
      guard size <= Int64(PoseSpecLimits.specBytesMax) else {
        throw fromN.error("\(path) has \(size) bytes; a PoseSpec has at most specBytesMax = \(PoseSpecLimits.specBytesMax)")
      }
    }
    guard attributes != nil, let data = FileManager.default.contents(atPath: path) else {
      throw fromN.error("cannot read \(path) (the path is relative to the scenario file's folder)")
    }
    var doc: JSONValue
    do { doc = try JSONParser.parse(bytes: [UInt8](data)) } catch { throw fromN.error("\(path): \(error)") }
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
        let value = try m.value.json()
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

/// Path edits of a JSON document (`set`, `remove`) for `PoseSpecDerivation`.
extension JSONValue {
  typealias PathStep = PoseSpecDerivation.PathStep

  mutating func set(_ path: ArraySlice<PathStep>, _ value: JSONValue) throws(YParseFailure) {
    try edit(path) { (container: inout JSONValue, last: PathStep) throws(YParseFailure) in
      switch (last, container) {
      case (.key(let k), .object(var o)):
        o[k] = value  // an existing key keeps its place, a new one goes last
        container = .object(o)
      case (_, .array(var a)):
        a[try JSONValue.index(of: last, in: a)] = value
        container = .array(a)
      default:
        throw YParseFailure("\(JSONValue.describe(last)) does not fit a \(container.typeName)")
      }
    }
  }

  mutating func remove(_ path: ArraySlice<PathStep>) throws(YParseFailure) {
    try edit(path) { (container: inout JSONValue, last: PathStep) throws(YParseFailure) in
      switch (last, container) {
      case (.key(let k), .object(var o)):
        guard o[k] != nil else { throw YParseFailure("no key \"\(k)\" to remove") }
        o[k] = nil
        container = .object(o)
      case (_, .array(var a)):
        a.remove(at: try JSONValue.index(of: last, in: a))
        container = .array(a)
      default:
        throw YParseFailure("\(JSONValue.describe(last)) does not fit a \(container.typeName)")
      }
    }
  }

  /// Walks to the container of the last step and lets `body` change it.
  private mutating func edit(
    _ path: ArraySlice<PathStep>, _ body: (inout JSONValue, PathStep) throws(YParseFailure) -> Void
  ) throws(YParseFailure) {
    guard let step = path.first else { throw YParseFailure("empty path") }
    if path.count == 1 {
      try body(&self, step)
      return
    }
    switch (step, self) {
    case (.key(let k), .object(var o)):
      guard var child = o[k] else { throw YParseFailure("no key \"\(k)\"") }
      try child.edit(path.dropFirst(), body)
      o[k] = child
      self = .object(o)
    case (_, .array(var a)):
      let i = try JSONValue.index(of: step, in: a)
      try a[i].edit(path.dropFirst(), body)
      self = .array(a)
    default:
      throw YParseFailure("\(JSONValue.describe(step)) does not fit a \(typeName)")
    }
  }

  static func index(of step: PathStep, in a: [JSONValue]) throws(YParseFailure) -> Int {
    switch step {
    case .index(let i):
      let j = i < 0 ? a.count + i : i
      guard j >= 0, j < a.count else { throw YParseFailure("index \(i) is outside the list (\(a.count) elements)") }
      return j
    case .match(let field, let value):
      let hits = a.indices.filter { i in
        switch a[i][field] {
        case .string(let s)?: return s == value
        case let n? where n.int64Value != nil: return String(n.int64Value!) == value
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

  static func describe(_ s: PathStep) -> String {
    switch s {
    case .key(let k): "key \"\(k)\""
    case .index(let i): "[\(i)]"
    case .match(let f, let v): "[\(f)=\(v)]"
    }
  }
}
