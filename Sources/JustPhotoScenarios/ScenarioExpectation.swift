import ScenarioYAML
import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation

/// One rule of a scenario's `expect:` block: what the replay must show, stated by the
/// scenario's author (issue 15, DESIGN §8) — checked by `jpreplay verify` against the replay's
/// trace independently of the goldens, and used by `tune` as a hard constraint
/// (`Expectations.check(_:trace:)`).
///
/// ```yaml
/// expect:
///   - {displayed: TORSO_STRAIGHTEN, at: 2000, within_ms: 500}  # shown at some instant of [2000, 2500]
///   - {displayed: FRAME_MOVE_LEFT/hard, at: 200}               # … at the level hard, at t=200
///   - {not_displayed: any, from: 5000, to: 9000}               # no cue at any instant of [5000, 9000]
///   - {not_displayed: FRAME_MOVE_LEFT, from: 0, to: 3000}      # this cue not shown in [0, 3000]
///   - {praise: {at_most: 1}}                                   # praise turned on ≤ 1 time in all
///   - {praise: {at_least: 1, at_most: 2}, from: 0, to: 6000}   # … 1 or 2 times in [0, 6000]
///   - {saw: praise, with: {state: off, off_reason: timeout}, at: 6600}   # a trace line at t=6600
///   - {saw: prompt, with: {key: write_failed_block, op: shown}, count: {at_most: 1}}
///   - {never: prompt, with: {op: shown}, from: 0, to: 900}     # no such line in [0, 900]
///   - {state: shutter, with: {enabled: false, reason: workset_full}, at: 9000}
///   - {saw: a13.photo_write_verification, with: {retry_used: "false"}, has: [asset_id_hash]}
///   - {not_displayed: any, from: 0, to: 9000, known: {draws: [2, 4], why: "G-49: …"}}  # a known miss
/// ```
///
/// "Displayed at instant t" is the `cue_display` state after every record at times ≤ t
/// (ENGINE §3.9: the gate's output; `cue_id: null` is no cue). Times are ms from the start,
/// within the recording (`duration_ms`); windows are closed intervals. Bounds:
/// `ScenarioLimits.expectationsMax` entries, counts ≤ `ScenarioLimits.expectationCountMax`,
/// `ScenarioLimits.expectationFieldsMax` fields per `with`/`has`/`lacks`.
public struct ScenarioExpectation: Sendable, Equatable {
  /// Which lines a `saw`/`never`/`state` rule matches: the trace lines of one `out` kind or the
  /// A.13 lines of one event, whose fields (A.13: payload members) equal `with`, and which have
  /// the members `has` and none of `lacks`.
  public struct Match: Sendable, Equatable {
    /// A trace kind (`prompt`) or, when `a13` is set, an A.13 event name.
    public var kind: String
    public var a13: Bool
    public var with: [(key: String, value: JSONValue)]
    public var has: [String]
    public var lacks: [String]
    /// A.13 `ts_ms` of t = 0 (the scenario's `wall_start_ms`).
    public var wallStartMs: Int64

    public init(
      kind: String, a13: Bool = false, with: [(key: String, value: JSONValue)] = [], has: [String] = [], lacks: [String] = [],
      wallStartMs: Int64 = 0
    ) {
      self.kind = kind
      self.a13 = a13
      self.with = with
      self.has = has
      self.lacks = lacks
      self.wallStartMs = wallStartMs
    }

    public static func == (a: Match, b: Match) -> Bool {
      a.kind == b.kind && a.a13 == b.a13 && a.with.map(\.key) == b.with.map(\.key) && a.with.map(\.value) == b.with.map(\.value)
        && a.has == b.has && a.lacks == b.lacks && a.wallStartMs == b.wallStartMs
    }

    /// `prompt{key=x, op=shown}`, `a13.phantom_asset_detected{heal_action=pruned, has asset_id_hash}`.
    public var summary: String {
      var parts = with.map { "\($0.key)=\(Self.text($0.value))" }
      parts += has.map { "has \($0)" }
      parts += lacks.map { "lacks \($0)" }
      return (a13 ? "a13." : "") + kind + (parts.isEmpty ? "" : "{" + parts.joined(separator: ", ") + "}")
    }

    static func text(_ v: JSONValue) -> String {
      if case .string(let s) = v { return s }
      return JSONWriter.write(v, sortKeys: true)
    }
  }

  public enum Rule: Sendable, Equatable {
    /// `cue` is displayed (at `level`, when given) at some instant of [at, at + withinMs].
    case displayed(cue: String, level: String? = nil, at: Int64, withinMs: Int64)
    /// `cue` (nil: any cue) is displayed (at `level`, when given) at no instant of [from, to].
    case notDisplayed(cue: String?, level: String? = nil, from: Int64, to: Int64)
    /// Praise turns on (`praise` records with `state: on`) at least / at most so many times
    /// in [from, to].
    case praise(atLeast: Int64?, atMost: Int64?, from: Int64, to: Int64)
    /// The number of lines matching `match` in [from, to] is within the bounds (`saw`: at
    /// least 1 unless `count` says otherwise; `never`: at most 0).
    case lines(match: Match, atLeast: Int64?, atMost: Int64?, from: Int64, to: Int64)
    /// At some instant of [at, at + withinMs], the latest line of the kind (of the same `shot`
    /// for `item`, the same `key` for `prompt`, when `with` names it) matches.
    case state(match: Match, at: Int64, withinMs: Int64)
  }

  /// A rule kept as the author's intent that the engine is known to break on some detector
  /// draws (issue 35): `known: {draws: [2, 4], why: "G-52: …"}`. Judged draw by draw, as a
  /// strict expected failure (`Expectations.judge`): on a draw it names the rule must miss (a
  /// known miss, reported, not a failure) and a hold there fails ("known miss no longer
  /// misses"), so the marker cannot go stale; on any other draw the rule must hold as usual.
  public struct KnownMiss: Sendable, Equatable {
    /// The draws it misses on (``SeedDraws``: 0 is the committed recording), ascending.
    public var draws: [Int]
    /// The finding and its spec mechanism, e.g. `G-52: a line cue after a one-frame outlier`.
    public var why: String

    public init(draws: [Int], why: String) {
      self.draws = draws
      self.why = why
    }
  }

  public var rule: Rule
  /// Where the rule is written: the scenario file, its line (1-based) and `expect[i]`.
  public var file: String
  public var line: Int?
  public var index: Int
  /// The rule's `known:` marker; nil: the rule must hold on every draw.
  public var knownMiss: KnownMiss?

  public init(rule: Rule, file: String, line: Int? = nil, index: Int, knownMiss: KnownMiss? = nil) {
    self.rule = rule
    self.file = file
    self.line = line
    self.index = index
    self.knownMiss = knownMiss
  }

  /// `Recordings/x.scenario.yaml:31: expect[0]`.
  public var place: String { "\(file)\(line.map { ":\($0)" } ?? ""): expect[\(index)]" }

  /// The rule in words, e.g. `TORSO_STRAIGHTEN displayed within 500 ms of t=2000`.
  public var summary: String {
    func window(_ at: Int64, _ within: Int64) -> String { within == 0 ? "at t=\(at)" : "within \(within) ms of t=\(at)" }
    func bounds(_ least: Int64?, _ most: Int64?) -> String {
      [least.map { "at least \($0)" }, most.map { "at most \($0)" }].compactMap { $0 }.joined(separator: " and ")
    }
    switch rule {
    case .displayed(let cue, let level, let at, let within):
      return "\(cue)\(level.map { "/\($0)" } ?? "") displayed \(window(at, within))"
    case .notDisplayed(let cue?, let level, let from, let to): return "\(cue)\(level.map { "/\($0)" } ?? "") not displayed in [\(from), \(to)]"
    case .notDisplayed(nil, let level, let from, let to): return "no cue\(level.map { " at \($0)" } ?? "") displayed in [\(from), \(to)]"
    case .praise(let least, let most, let from, let to):
      return "praise \(bounds(least, most)) time(s) in [\(from), \(to)]"
    case .lines(let m, 1, nil, let from, let to): return "\(m.summary) seen in [\(from), \(to)]"
    case .lines(let m, nil, 0, let from, let to): return "no \(m.summary) in [\(from), \(to)]"
    case .lines(let m, let least, let most, let from, let to): return "\(m.summary) \(bounds(least, most)) time(s) in [\(from), \(to)]"
    case .state(let m, let at, let within): return "state \(m.summary) \(window(at, within))"
    }
  }

  /// The `out` kinds of trace lines (`OutputKind`, the trace vocabulary in EngineIO).
  public static let traceKinds: Set<String> = Set(OutputKind.allCases.map(\.rawValue))
  /// Cue levels a `displayed: CUE/LEVEL` may name.
  public static let levels = ["warn", "hard"]

  static let keys = ScenarioSchema.expectKeys
  static let shapes =
    "expected one of {displayed: CUE[/LEVEL], at: T[, within_ms: N]}, {not_displayed: CUE[/LEVEL]|any, from: T, to: T}, {praise: {at_least: N, at_most: N}[, from: T, to: T]}, {saw|never: KIND|a13.EVENT[, with: {…}, has: […], lacks: […], count: {…}][, from: T, to: T | at: T, within_ms: N]}, {state: KIND, with: {…}, at: T[, within_ms: N]}"

  /// The `expect:` block of a scenario: a list of rules, each refused at its key with the
  /// expectation named (exit 2).
  static func parseBlock(_ n: YNode, duration: Int64, wallStartMs: Int64 = 0) throws(ScenarioError) -> [ScenarioExpectation] {
    let entries = try n.sequence(max: ScenarioLimits.expectationsMax, bound: "ScenarioLimits.expectationsMax")
    var out: [ScenarioExpectation] = []
    out.reserveCapacity(entries.count)
    for (i, e) in entries.enumerated() {
      let knownNode = try e.mapping(allowed: keys, what: "expect key").first { $0.key == "known" }?.value
      out.append(
        ScenarioExpectation(
          rule: try parseRule(e, duration: duration, wallStartMs: wallStartMs), file: e.file, line: e.line, index: i,
          knownMiss: try knownNode.map { k throws(ScenarioError) in try parseKnown(k) }))
    }
    return out
  }

  /// `known: {draws: [K, …], why: TEXT}`: draws 0 … `knownDrawsMax` − 1, at least one, each
  /// once, ascending; `why` one line of printable text (it is printed in logs), 1 …
  /// `knownWhyMax` bytes.
  static func parseKnown(_ n: YNode) throws(ScenarioError) -> KnownMiss {
    let m = try n.mapping(allowed: ScenarioSchema.knownKeys, what: "known key")
    guard let dn = m.first(where: { $0.key == "draws" })?.value, let wn = m.first(where: { $0.key == "why" })?.value else {
      throw n.error("expected known: {draws: [K, …], why: \"FINDING: mechanism\"} (both keys)")
    }
    let items = try dn.sequence(max: ScenarioLimits.knownDrawsMax, bound: "ScenarioLimits.knownDrawsMax")
    guard !items.isEmpty else { throw dn.error("expected at least one draw (the draws the rule misses on)") }
    var draws: [Int] = []
    for i in items {
      let k = try i.int()
      guard k >= 0, k < Int64(ScenarioLimits.knownDrawsMax) else {
        throw i.error("expected a draw 0…\(ScenarioLimits.knownDrawsMax - 1) (ScenarioLimits.knownDrawsMax), found \(k)")
      }
      guard draws.last.map({ Int(k) > $0 }) ?? true else {
        throw i.error("expected draws in ascending order, each once, found \(k) after \(draws.last!)")
      }
      draws.append(Int(k))
    }
    let why = try wn.string()
    guard !why.isEmpty, why.utf8.count <= ScenarioLimits.knownWhyMax else {
      throw wn.error("expected a finding and its mechanism, 1…\(ScenarioLimits.knownWhyMax) bytes (ScenarioLimits.knownWhyMax), found \(why.utf8.count)")
    }
    guard why.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) && $0.value != 0x2028 && $0.value != 0x2029 }) else {
      throw wn.error("expected one line of printable text (no control characters or line breaks)")
    }
    return KnownMiss(draws: draws, why: why)
  }

  static func parseRule(_ n: YNode, duration: Int64, wallStartMs: Int64 = 0) throws(ScenarioError) -> Rule {
    // `known:` marks the rule (parseKnown), it is not part of its shape.
    let m = try n.mapping(allowed: keys, what: "expect key").filter { $0.key != "known" }
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
    func within() throws(ScenarioError) -> Int64 {
      guard let wn = v("within_ms") else { return 0 }
      let within = try wn.int()
      guard within >= 0, within <= ScenarioLimits.durationMsMax else {
        throw wn.error("expected a duration 0…\(ScenarioLimits.durationMsMax) ms (ScenarioLimits.durationMsMax), found \(within)")
      }
      return within
    }
    /// [from, to], [at, at + within_ms] or the whole recording.
    func span() throws(ScenarioError) -> (Int64, Int64) {
      if keys.contains("at") {
        guard !keys.contains("from"), !keys.contains("to") else { throw n.error("give either at (and within_ms) or from and to, not both") }
        let at = try time("at")
        return (at, at + (try within()))
      }
      if keys.contains("within_ms") { throw v("within_ms")!.error("within_ms needs at") }
      if keys.contains("from") || keys.contains("to") { return try window() }
      return (0, duration)
    }
    func only(_ allowed: Set<String>) throws(ScenarioError) {
      if let extra = m.first(where: { !allowed.contains($0.key) }) {
        throw extra.value.error("\"\(extra.key)\" does not go with this rule; \(shapes)")
      }
    }
    switch keys {
    case ["displayed", "at", "within_ms"], ["displayed", "at"]:
      let (cue, level) = try cueLevel(v("displayed")!, allowAny: false)
      return .displayed(cue: cue!, level: level, at: try time("at"), withinMs: try within())
    case ["not_displayed", "from", "to"]:
      let (cue, level) = try cueLevel(v("not_displayed")!, allowAny: true)
      let (from, to) = try window()
      return .notDisplayed(cue: cue, level: level, from: from, to: to)
    case ["praise"], ["praise", "from", "to"]:
      let (least, most) = try counts(v("praise")!)
      let (from, to) = keys.contains("from") ? try window() : (0, duration)
      return .praise(atLeast: least, atMost: most, from: from, to: to)
    default:
      if keys.isEmpty { throw n.error("empty expectation; \(shapes)") }
      if let head = ["saw", "never", "state"].first(where: keys.contains) {
        let others = ["saw", "never", "state", "displayed", "not_displayed", "praise"].filter { $0 != head && keys.contains($0) }
        if let o = others.first { throw v(o)!.error("\"\(o)\" and \"\(head)\" in one rule; write two rules") }
        let match = try parseMatch(v(head)!, with: v("with"), has: v("has"), lacks: v("lacks"), wallStartMs: wallStartMs, state: head == "state")
        switch head {
        case "state":
          try only(["state", "with", "has", "lacks", "at", "within_ms"])
          return .state(match: match, at: try time("at"), withinMs: try within())
        case "never":
          try only(["never", "with", "has", "lacks", "at", "within_ms", "from", "to"])
          let (from, to) = try span()
          return .lines(match: match, atLeast: nil, atMost: 0, from: from, to: to)
        default:
          try only(["saw", "with", "has", "lacks", "at", "within_ms", "from", "to", "count"])
          let (least, most) = try v("count").map { c throws(ScenarioError) in try counts(c) } ?? (1, nil)
          let (from, to) = try span()
          return .lines(match: match, atLeast: least, atMost: most, from: from, to: to)
        }
      }
      throw n.error("an expectation with keys {\(m.map(\.key).joined(separator: ", "))}: \(shapes)")
    }
  }

  /// `KIND` (a trace `out` kind) or `a13.EVENT`, with its `with`/`has`/`lacks`.
  static func parseMatch(
    _ n: YNode, with: YNode?, has: YNode?, lacks: YNode?, wallStartMs: Int64, state: Bool
  ) throws(ScenarioError) -> Match {
    let s = try n.string()
    var match: Match
    if s.hasPrefix("a13.") {
      let event = String(s.dropFirst(4))
      guard !state else { throw n.error("state: takes a trace kind, not an A.13 event (use saw: \(s))") }
      guard isName(event) else { throw n.error("expected an A.13 event name after a13. (lower case, digits, _), found \"\(event)\"") }
      match = Match(kind: event, a13: true, wallStartMs: wallStartMs)
    } else {
      guard traceKinds.contains(s) else {
        throw n.error("unknown trace kind \"\(s)\"; expected one of \(traceKinds.sorted().joined(separator: ", ")) or a13.EVENT")
      }
      match = Match(kind: s, wallStartMs: wallStartMs)
    }
    if let with {
      let members = try with.mapping(what: "field")
      guard members.count <= ScenarioLimits.expectationFieldsMax else {
        throw with.error("expected at most \(ScenarioLimits.expectationFieldsMax) fields (ScenarioLimits.expectationFieldsMax), found \(members.count)")
      }
      for f in members {
        guard isName(f.key) else { throw f.value.error("expected a field name (letters, digits, _), found \"\(f.key)\"") }
        try known(f.key, s, at: f.value, a13: match.a13)
        match.with.append((f.key, try value(f.value)))
      }
    }
    func names(_ node: YNode?) throws(ScenarioError) -> [String] {
      guard let node else { return [] }
      var out: [String] = []
      for i in try node.sequence(max: ScenarioLimits.expectationFieldsMax, bound: "ScenarioLimits.expectationFieldsMax") {
        let k = try i.string()
        guard isName(k) else { throw i.error("expected a field name (letters, digits, _), found \"\(k)\"") }
        try known(k, s, at: i, a13: match.a13)
        out.append(k)
      }
      return out
    }
    match.has = try names(has)
    match.lacks = try names(lacks)
    if state, match.with.isEmpty, match.has.isEmpty, match.lacks.isEmpty {
      throw n.error("state: needs with, has or lacks (what the latest \(s) line must show)")
    }
    return match
  }

  /// Trace kinds whose lines carry fields the engine builds for them beyond `TraceField`
  /// (a spec's `sha256`, a reference's `ref_id`): their field names are not checked.
  static let openKinds: Set<String> = [OutputKind.posespec.rawValue, OutputKind.reference.rawValue]

  /// A field a rule names on a trace line must be a trace field (`TraceField`, plus the line's
  /// `t`): a misspelt one would make a `never:` rule hold vacuously. Bad input naming the
  /// place and the nearest field, as PixScan's rules say it. A.13 payload fields are not
  /// listed anywhere and stay unchecked.
  static func known(_ field: String, _ kind: String, at n: YNode, a13: Bool) throws(ScenarioError) {
    guard !a13, !openKinds.contains(kind), field != "t", TraceField(rawValue: field) == nil else { return }
    var msg = "unknown field \"\(field)\" of \(kind) lines"
    if let c = closest(field, in: TraceField.allCases.map(\.rawValue)) { msg += " (did you mean \"\(c)\"?)" }
    throw n.error(msg + "; expected a trace field (docs/FORMAT.md \"Trace lines\")")
  }

  /// A field value: a scalar (null, boolean, number, string) or a list of scalars.
  static func value(_ n: YNode) throws(ScenarioError) -> JSONValue {
    if case .sequence = n.node {
      var out: [JSONValue] = []
      for i in try n.sequence(max: ScenarioLimits.expectationFieldsMax, bound: "ScenarioLimits.expectationFieldsMax") {
        out.append(try value(i))
      }
      return .array(out)
    }
    switch try n.scalar() {
    case .null: return .null
    case .bool(let b): return .bool(b)
    case .int(let i): return .number(Double(i))
    case .double(let d): return .number(d)
    case .string(let s):
      guard s.utf8.count <= ScenarioLimits.expectationTextMax else {
        throw n.error("expected a text of at most \(ScenarioLimits.expectationTextMax) bytes (ScenarioLimits.expectationTextMax), found \(s.utf8.count)")
      }
      return .string(s)
    }
  }

  /// Lower/upper-case letters, digits and `_` (a field or A.13 event name), 1…128 bytes.
  static func isName(_ s: String) -> Bool {
    !s.isEmpty && s.utf8.count <= 128
      && s.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
  }

  /// `CUE` or `CUE/LEVEL` (`any` where allowed: nil cue).
  static func cueLevel(_ n: YNode, allowAny: Bool) throws(ScenarioError) -> (String?, String?) {
    let s = try n.string()
    let parts = s.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    guard parts.count <= 2 else { throw n.error("expected CUE or CUE/LEVEL, found \"\(s)\"") }
    var level: String?
    if parts.count == 2 {
      guard levels.contains(parts[1]) else { throw n.error("expected a level \(levels.joined(separator: " or ")) after /, found \"\(parts[1])\"") }
      level = parts[1]
    }
    if allowAny && parts[0] == "any" { return (nil, level) }
    return (try cueID(text: parts[0], n, allowAny: allowAny), level)
  }

  /// A cue id (`FRAME_MOVE_LEFT`: capitals, digits, `_`), or `any` (nil) where allowed.
  static func cueID(_ n: YNode, allowAny: Bool) throws(ScenarioError) -> String? {
    let s = try n.string()
    if allowAny && s == "any" { return nil }
    return try cueID(text: s, n, allowAny: allowAny)
  }

  static func cueID(text s: String, _ n: YNode, allowAny: Bool) throws(ScenarioError) -> String {
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
    for m in try n.mapping(allowed: ScenarioSchema.countKeys, what: "count bound") {
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
