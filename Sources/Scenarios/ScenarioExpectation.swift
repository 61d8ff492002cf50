import Foundation

/// One rule of a scenario's `expect:` block: what the replay must show, stated by the
/// scenario's author (issue 15, DESIGN §8) — checked by `jpreplay verify` against the replay's
/// trace independently of the goldens, and used by `tune` as a hard constraint
/// (`Expectations.check(_:trace:)`).
///
/// ```yaml
/// expect:
///   - {displayed: TORSO_STRAIGHTEN, at: 2000, within_ms: 500}  # shown at some instant of [2000, 2500]
///   - {not_displayed: any, from: 5000, to: 9000}               # no cue at any instant of [5000, 9000]
///   - {not_displayed: FRAME_MOVE_LEFT, from: 0, to: 3000}      # this cue not shown in [0, 3000]
///   - {praise: {at_most: 1}}                                   # praise turned on ≤ 1 time in all
///   - {praise: {at_least: 1, at_most: 2}, from: 0, to: 6000}   # … 1 or 2 times in [0, 6000]
/// ```
///
/// "Displayed at instant t" is the `cue_display` state after every record at times ≤ t
/// (ENGINE §3.9: the gate's output; `cue_id: null` is no cue). Times are ms from the start,
/// within the recording (`duration_ms`); windows are closed intervals. Bounds:
/// `ScenarioLimits.expectationsMax` entries, counts ≤ `ScenarioLimits.expectationCountMax`.
public struct ScenarioExpectation: Sendable, Equatable {
  public enum Rule: Sendable, Equatable {
    /// `cue` is displayed at some instant of [at, at + withinMs].
    case displayed(cue: String, at: Int64, withinMs: Int64)
    /// `cue` (nil: any cue) is displayed at no instant of [from, to].
    case notDisplayed(cue: String?, from: Int64, to: Int64)
    /// Praise turns on (`praise` records with `state: on`) at least / at most so many times
    /// in [from, to].
    case praise(atLeast: Int64?, atMost: Int64?, from: Int64, to: Int64)
  }

  public var rule: Rule
  /// Where the rule is written: the scenario file, its line (1-based) and `expect[i]`.
  public var file: String
  public var line: Int?
  public var index: Int

  public init(rule: Rule, file: String, line: Int? = nil, index: Int) {
    self.rule = rule
    self.file = file
    self.line = line
    self.index = index
  }

  /// `Recordings/x.scenario.yaml:31: expect[0]`.
  public var place: String { "\(file)\(line.map { ":\($0)" } ?? ""): expect[\(index)]" }

  /// The rule in words, e.g. `TORSO_STRAIGHTEN displayed within 500 ms of t=2000`.
  public var summary: String {
    switch rule {
    case .displayed(let cue, let at, 0): return "\(cue) displayed at t=\(at)"
    case .displayed(let cue, let at, let within): return "\(cue) displayed within \(within) ms of t=\(at)"
    case .notDisplayed(let cue?, let from, let to): return "\(cue) not displayed in [\(from), \(to)]"
    case .notDisplayed(nil, let from, let to): return "no cue displayed in [\(from), \(to)]"
    case .praise(let least, let most, let from, let to):
      let bounds = [least.map { "at least \($0)" }, most.map { "at most \($0)" }].compactMap { $0 }.joined(separator: " and ")
      return "praise \(bounds) time(s) in [\(from), \(to)]"
    }
  }

  static let keys = ScenarioSchema.expectKeys
  static let shapes =
    "expected one of {displayed: CUE, at: T, within_ms: N}, {not_displayed: CUE|any, from: T, to: T}, {praise: {at_least: N, at_most: N}[, from: T, to: T]}"

  /// The `expect:` block of a scenario: a list of rules, each refused at its key with the
  /// expectation named (exit 2).
  static func parseBlock(_ n: YNode, duration: Int64) throws(ScenarioError) -> [ScenarioExpectation] {
    let entries = try n.sequence(max: ScenarioLimits.expectationsMax, bound: "ScenarioLimits.expectationsMax")
    var out: [ScenarioExpectation] = []
    out.reserveCapacity(entries.count)
    for (i, e) in entries.enumerated() {
      out.append(ScenarioExpectation(rule: try parseRule(e, duration: duration), file: e.file, line: e.line, index: i))
    }
    return out
  }

  static func parseRule(_ n: YNode, duration: Int64) throws(ScenarioError) -> Rule {
    let m = try n.mapping(allowed: keys, what: "expect key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    let keys = Set(m.map(\.key))
    func time(_ k: String) throws(ScenarioError) -> Int64 {
      guard let node = v(k) else { throw n.error("missing key \"\(k)\"; \(shapes)") }
      return try node.millis(max: duration)
    }
    func window() throws(ScenarioError) -> (Int64, Int64) {
      let from = try time("from")
      let to = try time("to")
      guard to >= from else { throw v("to")!.error("expected to ≥ from (\(from)), found \(to)") }
      return (from, to)
    }
    switch keys {
    case ["displayed", "at", "within_ms"]:
      let cue = try cueID(v("displayed")!, allowAny: false)!
      let at = try time("at")
      let wn = v("within_ms")!
      let within = try wn.int()
      guard within >= 0, within <= ScenarioLimits.durationMsMax else {
        throw wn.error("expected a duration 0…\(ScenarioLimits.durationMsMax) ms (ScenarioLimits.durationMsMax), found \(within)")
      }
      return .displayed(cue: cue, at: at, withinMs: within)
    case ["not_displayed", "from", "to"]:
      let cue = try cueID(v("not_displayed")!, allowAny: true)
      let (from, to) = try window()
      return .notDisplayed(cue: cue, from: from, to: to)
    case ["praise"], ["praise", "from", "to"]:
      let (least, most) = try counts(v("praise")!)
      let (from, to) = keys.contains("from") ? try window() : (0, duration)
      return .praise(atLeast: least, atMost: most, from: from, to: to)
    default:
      if keys.isEmpty { throw n.error("empty expectation; \(shapes)") }
      throw n.error("an expectation with keys {\(m.map(\.key).joined(separator: ", "))}: \(shapes)")
    }
  }

  /// A cue id (`FRAME_MOVE_LEFT`: capitals, digits, `_`), or `any` (nil) where allowed.
  static func cueID(_ n: YNode, allowAny: Bool) throws(ScenarioError) -> String? {
    let s = try n.string()
    if allowAny && s == "any" { return nil }
    guard !s.isEmpty, s.count <= 128, s.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
    else {
      throw n.error("expected a cue id such as FRAME_MOVE_LEFT (capitals, digits, _)\(allowAny ? " or any" : ""), found \"\(s)\"")
    }
    return s
  }

  /// `{at_least: N, at_most: N}` (at least one of them; at_least ≤ at_most).
  static func counts(_ n: YNode) throws(ScenarioError) -> (Int64?, Int64?) {
    var least: Int64?
    var most: Int64?
    for m in try n.mapping(allowed: ScenarioSchema.praiseKeys, what: "praise bound") {
      let c = try m.value.int()
      guard c >= 0, c <= ScenarioLimits.expectationCountMax else {
        throw m.value.error("expected a count 0…\(ScenarioLimits.expectationCountMax) (ScenarioLimits.expectationCountMax), found \(c)")
      }
      if m.key == "at_least" { least = c } else { most = c }
    }
    guard least != nil || most != nil else { throw n.error("expected {at_least: N} and/or {at_most: N}") }
    if let least, let most, least > most { throw n.error("at_least (\(least)) is more than at_most (\(most))") }
    return (least, most)
  }
}
