import CameraCoachEngine
import CanonicalJSON
import ScenarioYAML

/// One rule of a Camera Coach scenario's `expect:` block, judged on its trace lines (`out`
/// kinds of `CCOutputKind`), in the syntax of the other engines' rules:
///
/// ```yaml
/// expect:
///   - {saw: hint, with: {advice: headroom, direction: more}, from: 300, to: 400}
///   - {saw: hint, count: {at_least: 2, at_most: 3}, from: 0, to: 10000}
///   - {never: hint, with: {advice: thirds}}
///   - {state: state, with: {state: hint_cooldown}, at: 350}
/// ```
///
/// Windows are closed intervals of ms; `end` is the scenario's duration. A `with` field must be
/// one the kind writes; values are scalars (a number matches within 1e-6).
public struct CCExpectation: Sendable, Equatable {
  public enum Rule: Sendable, Equatable {
    /// Between `atLeast` and `atMost` matching lines in [from, to].
    case lines(kind: String, with: [JSONMember], atLeast: Int64?, atMost: Int64?, from: Int64, to: Int64)
    /// At `at` the latest line of the kind matches.
    case state(kind: String, with: [JSONMember], at: Int64)
  }

  public var rule: Rule
  public var file: String
  public var line: Int?
  public var index: Int

  /// `Recordings/cameracoach/x.yaml:31: expect[0]`.
  public var place: String { "\(file)\(line.map { ":\($0)" } ?? ""): expect[\(index)]" }

  /// The rule in words.
  public var summary: String {
    func m(_ k: String, _ w: [JSONMember]) -> String {
      k + (w.isEmpty ? "" : "{" + w.map { "\($0.key)=\(Self.text($0.value))" }.joined(separator: ", ") + "}")
    }
    switch rule {
    case .lines(let k, let w, 1, nil, let from, let to): return "\(m(k, w)) seen in [\(from), \(to)]"
    case .lines(let k, let w, nil, 0, let from, let to): return "no \(m(k, w)) in [\(from), \(to)]"
    case .lines(let k, let w, let least, let most, let from, let to):
      let b = [least.map { "at least \($0)" }, most.map { "at most \($0)" }].compactMap { $0 }.joined(separator: " and ")
      return "\(m(k, w)) \(b) time(s) in [\(from), \(to)]"
    case .state(let k, let w, let at): return "state \(m(k, w)) at t=\(at)"
    }
  }

  static func text(_ v: JSONValue) -> String {
    if case .string(let s) = v { return s }
    return JSONWriter.write(v, sortKeys: true)
  }

  static let keys = ["saw", "never", "state", "with", "count", "at", "within_ms", "from", "to"]
  static let shapes =
    "expected {saw|never: KIND[, with: {…}, count: {at_least: N, at_most: N}][, from: T, to: T | at: T, within_ms: N]} or {state: KIND, with: {…}, at: T|end}"

  static func parseBlock(_ n: YNode, duration: Int64) throws(ScenarioError) -> [CCExpectation] {
    var out: [CCExpectation] = []
    for (i, e) in try n.sequence(max: CCScenarioLimits.expectationsMax, bound: "CCScenarioLimits.expectationsMax").enumerated() {
      out.append(CCExpectation(rule: try parseRule(e, duration: duration), file: e.file, line: e.line, index: i))
    }
    return out
  }

  static func parseRule(_ n: YNode, duration: Int64) throws(ScenarioError) -> Rule {
    let m = try n.mapping(allowed: keys, what: "expect key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    let present = m.map(\.key)
    let heads = ["saw", "never", "state"].filter(present.contains)
    guard heads.count == 1, let head = heads.first else {
      throw n.error(heads.isEmpty ? shapes : "\"\(heads[0])\" and \"\(heads[1])\" in one rule; write two rules")
    }
    func time(_ k: String) throws(ScenarioError) -> Int64 {
      guard let t = v(k) else { throw n.error("missing \(k); \(shapes)") }
      if case .string("end") = try t.scalar() { return duration }
      return try t.millis(max: duration, maxName: "the scenario's duration")
    }
    let kindNode = v(head)!
    let name = try kindNode.string()
    guard let kind = CCOutputKind(rawValue: name) else {
      var msg = "unknown trace kind \"\(name)\""
      if let c = closest(name, in: CCOutputKind.allCases.map(\.rawValue)) { msg += " (did you mean \"\(c)\"?)" }
      throw kindNode.error(msg + "; expected one of \(CCOutputKind.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    var with: [JSONMember] = []
    if let w = v("with") {
      let members = try w.mapping(what: "field")
      guard members.count <= CCScenarioLimits.expectationFieldsMax else { throw w.error("more than \(CCScenarioLimits.expectationFieldsMax) fields") }
      for f in members {
        guard kind.fields.contains(f.key) else {
          var msg = "unknown field \"\(f.key)\" of \(name) lines"
          if let c = closest(f.key, in: kind.fields) { msg += " (did you mean \"\(c)\"?)" }
          throw f.value.error(msg + "; expected one of \(kind.fields.joined(separator: ", "))")
        }
        if case .mapping = f.value.node { throw f.value.error("expected a scalar") }
        if case .sequence = f.value.node { throw f.value.error("expected a scalar") }
        with.append(JSONMember(f.key, try f.value.json()))
      }
    }
    if head == "state" {
      if let x = m.first(where: { ["count", "from", "to", "within_ms"].contains($0.key) }) {
        throw x.value.error("\"\(x.key)\" does not go with state; \(shapes)")
      }
      guard !with.isEmpty else { throw n.error("state: needs with") }
      return .state(kind: name, with: with, at: try time("at"))
    }
    if head == "never", let c = v("count") { throw c.error("never takes no count (it means count at_most 0)") }
    var from: Int64 = 0
    var to = duration
    if present.contains("at") {
      guard !present.contains("from"), !present.contains("to") else { throw n.error("give either at (and within_ms) or from and to, not both") }
      from = try time("at")
      var within: Int64 = 0
      if let w = v("within_ms") {
        within = try w.int()
        guard within >= 0, within <= CCScenarioLimits.durationMsMax else { throw w.error("expected 0…\(CCScenarioLimits.durationMsMax) ms") }
      }
      to = from + within
    } else {
      if let w = v("within_ms") { throw w.error("within_ms needs at") }
      if present.contains("from") { from = try time("from") }
      if present.contains("to") { to = try time("to") }
      guard to >= from else { throw n.error("expected to ≥ from") }
    }
    if head == "never" { return .lines(kind: name, with: with, atLeast: nil, atMost: 0, from: from, to: to) }
    var least: Int64? = 1
    var most: Int64?
    if let c = v("count") {
      least = nil
      for b in try c.mapping(allowed: ["at_least", "at_most"], what: "count bound") {
        let x = try b.value.int()
        guard x >= 0, x <= CCScenarioLimits.expectationCountMax else { throw b.value.error("expected a count 0…\(CCScenarioLimits.expectationCountMax)") }
        if b.key == "at_least" { least = x } else { most = x }
      }
      guard least != nil || most != nil else { throw c.error("expected {at_least: N} and/or {at_most: N}") }
      if let least, let most, least > most { throw c.error("at_least (\(least)) is more than at_most (\(most))") }
    }
    return .lines(kind: name, with: with, atLeast: least, atMost: most, from: from, to: to)
  }
}
