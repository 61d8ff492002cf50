import CanonicalJSON
import ScenarioYAML
import PixScanEngine

/// One rule of a PixScan scenario's `expect:` block, in the syntax of the coaching scenarios'
/// `saw`/`never`/`state` rules, judged on PixScan trace lines (`out` kinds of
/// `PixOutputKind`):
///
/// ```yaml
/// expect:
///   - {saw: action, with: {photo: IMG_0001, direction: left}}          # at least one such line
///   - {saw: effect, with: {kind: ocr}, count: {at_least: 2, at_most: 2}, from: 0, to: 5000}
///   - {never: ignored, with: {reason: no_pending_request}}              # no such line at all
///   - {state: progress, with: {processed: 10, total: 10}, at: end}      # latest line at the end
///   - {state: screen, with: {name: main}, at: 1200, within_ms: 100}
/// ```
///
/// Windows are closed intervals of ms; `end` is the scenario's duration. A `with` field must
/// be one the kind writes (a typo would make a `never` rule pass vacuously); values are
/// scalars or lists of scalars; `null` matches an absent field.
public struct PixExpectation: Sendable, Equatable {
  /// Which lines a rule looks at.
  public struct Match: Sendable, Equatable {
    /// The line kind (`out`).
    public var kind: String
    /// Fields the line must have with these values.
    public var with: [JSONMember]
    /// Fields the line must have.
    public var has: [String]
    /// Fields the line must not have.
    public var lacks: [String]

    /// `action{direction=left}`.
    public var summary: String {
      var parts = with.map { "\($0.key)=\(Self.text($0.value))" }
      parts += has.map { "has \($0)" }
      parts += lacks.map { "lacks \($0)" }
      return kind + (parts.isEmpty ? "" : "{" + parts.joined(separator: ", ") + "}")
    }

    static func text(_ v: JSONValue) -> String {
      if case .string(let s) = v { return s }
      return JSONWriter.write(v, sortKeys: true)
    }
  }

  /// The rule.
  public enum Rule: Sendable, Equatable {
    /// Between `atLeast` and `atMost` matching lines in [from, to] (`never`: at most 0).
    case lines(match: Match, atLeast: Int64?, atMost: Int64?, from: Int64, to: Int64)
    /// At some instant of [at, at + withinMs] the latest line of the kind (for `effect`: of
    /// the effect kind `with` names) matches.
    case state(match: Match, at: Int64, withinMs: Int64)
  }

  /// The rule.
  public var rule: Rule
  /// The scenario file.
  public var file: String
  /// The rule's line (1-based).
  public var line: Int?
  /// Its index in `expect:`.
  public var index: Int

  /// A rule.
  public init(rule: Rule, file: String, line: Int? = nil, index: Int) {
    self.rule = rule
    self.file = file
    self.line = line
    self.index = index
  }

  /// `Recordings/pixscan/x.yaml:31: expect[0]`.
  public var place: String { "\(file)\(line.map { ":\($0)" } ?? ""): expect[\(index)]" }

  /// The rule in words.
  public var summary: String {
    switch rule {
    case .lines(let m, 1, nil, let from, let to): return "\(m.summary) seen in [\(from), \(to)]"
    case .lines(let m, nil, 0, let from, let to): return "no \(m.summary) in [\(from), \(to)]"
    case .lines(let m, let least, let most, let from, let to):
      let b = [least.map { "at least \($0)" }, most.map { "at most \($0)" }].compactMap { $0 }.joined(separator: " and ")
      return "\(m.summary) \(b) time(s) in [\(from), \(to)]"
    case .state(let m, let at, let within): return "state \(m.summary) " + (within == 0 ? "at t=\(at)" : "within \(within) ms of t=\(at)")
    }
  }

  static let keys = ["saw", "never", "state", "with", "has", "lacks", "count", "at", "within_ms", "from", "to"]
  static let shapes =
    "expected {saw|never: KIND[, with: {…}, has: […], lacks: […], count: {at_least: N, at_most: N}][, from: T, to: T | at: T, within_ms: N]} or {state: KIND, with: {…}, at: T|end[, within_ms: N]}"

  static func parseBlock(_ n: YNode, duration: Int64) throws(PixScenarioError) -> [PixExpectation] {
    var out: [PixExpectation] = []
    for (i, e) in try n.sequence(max: PixScenarioLimits.expectationsMax, bound: "PixScenarioLimits.expectationsMax").enumerated() {
      out.append(PixExpectation(rule: try parseRule(e, duration: duration), file: e.file, line: e.line, index: i))
    }
    return out
  }

  static func parseRule(_ n: YNode, duration: Int64) throws(PixScenarioError) -> Rule {
    let m = try n.mapping(allowed: keys, what: "expect key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    let present = m.map(\.key)
    let heads = ["saw", "never", "state"].filter(present.contains)
    guard heads.count == 1, let head = heads.first else {
      throw n.error(heads.isEmpty ? shapes : "\"\(heads[0])\" and \"\(heads[1])\" in one rule; write two rules")
    }
    func time(_ k: String) throws(PixScenarioError) -> Int64 {
      guard let t = v(k) else { throw n.error("missing \(k); \(shapes)") }
      if case .string("end") = try t.scalar() { return duration }
      return try t.millis(max: duration, maxName: "the scenario's duration")
    }
    func within() throws(PixScenarioError) -> Int64 {
      guard let w = v("within_ms") else { return 0 }
      let x = try w.int()
      guard x >= 0, x <= PixScenarioLimits.durationMsMax else { throw w.error("expected 0…\(PixScenarioLimits.durationMsMax) ms") }
      return x
    }
    let match = try parseMatch(v(head)!, with: v("with"), has: v("has"), lacks: v("lacks"))
    if head == "state" {
      if let x = m.first(where: { ["count", "from", "to"].contains($0.key) }) { throw x.value.error("\"\(x.key)\" does not go with state; \(shapes)") }
      guard !match.with.isEmpty || !match.has.isEmpty || !match.lacks.isEmpty else { throw n.error("state: needs with, has or lacks") }
      return .state(match: match, at: try time("at"), withinMs: try within())
    }
    if head == "never", let c = v("count") { throw c.error("never takes no count (it means count at_most 0)") }
    var from: Int64 = 0
    var to = duration
    if present.contains("at") {
      guard !present.contains("from"), !present.contains("to") else { throw n.error("give either at (and within_ms) or from and to, not both") }
      from = try time("at")
      to = from + (try within())
    } else {
      if let w = v("within_ms") { throw w.error("within_ms needs at") }
      if present.contains("from") { from = try time("from") }
      if present.contains("to") { to = try time("to") }
      guard to >= from else { throw n.error("expected to ≥ from") }
    }
    if head == "never" { return .lines(match: match, atLeast: nil, atMost: 0, from: from, to: to) }
    let (least, most) = try v("count").map { c throws(PixScenarioError) in try counts(c) } ?? (1, nil)
    return .lines(match: match, atLeast: least, atMost: most, from: from, to: to)
  }

  static func parseMatch(_ n: YNode, with: YNode?, has: YNode?, lacks: YNode?) throws(PixScenarioError) -> Match {
    let s = try n.string()
    guard let kind = PixOutputKind(rawValue: s) else {
      var msg = "unknown trace kind \"\(s)\""
      if let c = closest(s, in: PixOutputKind.allCases.map(\.rawValue)) { msg += " (did you mean \"\(c)\"?)" }
      throw n.error(msg + "; expected one of \(PixOutputKind.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    func field(_ name: String, _ at: YNode) throws(PixScenarioError) -> String {
      guard kind.fields.contains(name) else {
        var msg = "unknown field \"\(name)\" of \(s) lines"
        if let c = closest(name, in: kind.fields) { msg += " (did you mean \"\(c)\"?)" }
        throw at.error(msg + "; expected one of \(kind.fields.joined(separator: ", "))")
      }
      return name
    }
    var match = Match(kind: s, with: [], has: [], lacks: [])
    if let with {
      let members = try with.mapping(what: "field")
      guard members.count <= PixScenarioLimits.expectationFieldsMax else { throw with.error("more than \(PixScenarioLimits.expectationFieldsMax) fields") }
      for f in members { match.with.append(JSONMember(try field(f.key, f.value), try value(f.value))) }
    }
    for (node, isHas) in [(has, true), (lacks, false)] {
      guard let node else { continue }
      for i in try node.sequence(max: PixScenarioLimits.expectationFieldsMax, bound: "PixScenarioLimits.expectationFieldsMax") {
        let name = try field(try i.string(), i)
        if isHas { match.has.append(name) } else { match.lacks.append(name) }
      }
    }
    return match
  }

  static func value(_ n: YNode) throws(PixScenarioError) -> JSONValue {
    if case .sequence = n.node {
      var out: [JSONValue] = []
      for i in try n.sequence(max: PixScenarioLimits.expectationFieldsMax, bound: "PixScenarioLimits.expectationFieldsMax") {
        out.append(try value(i))
      }
      return .array(out)
    }
    if case .mapping = n.node { throw n.error("expected a scalar or a list of scalars") }
    return try n.json()
  }

  static func counts(_ n: YNode) throws(PixScenarioError) -> (Int64?, Int64?) {
    var least: Int64?
    var most: Int64?
    for m in try n.mapping(allowed: ["at_least", "at_most"], what: "count bound") {
      let c = try m.value.int()
      guard c >= 0, c <= PixScenarioLimits.expectationCountMax else { throw m.value.error("expected a count 0…\(PixScenarioLimits.expectationCountMax)") }
      if m.key == "at_least" { least = c } else { most = c }
    }
    guard least != nil || most != nil else { throw n.error("expected {at_least: N} and/or {at_most: N}") }
    if let least, let most, least > most { throw n.error("at_least (\(least)) is more than at_most (\(most))") }
    return (least, most)
  }
}
