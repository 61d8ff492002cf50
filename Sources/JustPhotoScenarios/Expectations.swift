import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation

/// What `expect:` rules are judged on: the displayed-cue changes and praise switches of one
/// replay, in trace order, and (for `saw`/`never`/`state` rules) its trace and A.13 lines.
/// Built one trace record at a time (`add(t:out:fields:)`: `verify` hands the replay's records,
/// `ReplayProducts.records`; a pending golden is read by the one reader, `GoldenTrace`), then
/// the A.13 lines (`addA13(text:)`, `addA13(tsMs:event:payload:)`), or from the engine's typed
/// outputs (`Lab/ExpectationOutput`, an in-process replay such as `tune`'s). Nothing here reads
/// trace text.
public struct ExpectationTrace: Sendable, Equatable {
  public enum Event: Sendable, Equatable {
    /// `cue_display`: the displayed cue from `t` on (nil: none), at `level`.
    case display(t: Int64, cue: String?, level: String? = nil)
    /// `praise`: praise turned on (`true`) or off.
    case praise(t: Int64, on: Bool)
  }

  /// One trace line (`out` its kind, without `t` and `out` in `fields`) or one A.13 line
  /// (`kind` its event, `fields` its payload, `t` its `ts_ms`).
  public struct Record: Sendable, Equatable {
    public var t: Int64
    public var kind: String
    public var a13: Bool
    public var fields: JSONObject
    public init(t: Int64, kind: String, a13: Bool = false, fields: JSONObject) {
      self.t = t
      self.kind = kind
      self.a13 = a13
      self.fields = fields
    }
  }

  public private(set) var events: [Event] = []
  /// Every trace line but `cue_eval`, and every A.13 line, in order.
  public private(set) var records: [Record] = []

  public init(events: [Event] = [], records: [Record] = []) {
    self.events = events
    self.records = records
  }

  /// Adds the lines of a canonical A.13 text (after the trace's records); lines that are not
  /// A.13 objects are skipped.
  public mutating func addA13(text a13Text: String) {
    for line in a13Text.split(separator: "\n", omittingEmptySubsequences: true) {
      guard case .object(let o)? = try? JSONParser.parse(String(line)), let event = o["event"]?.stringValue,
        let ts = o["ts_ms"]?.int64Value
      else { continue }
      addA13(tsMs: ts, event: event, payload: o["payload"]?.objectValue ?? [:])
    }
  }

  /// Adds one event (trace order: t never decreases).
  public mutating func append(_ event: Event) { events.append(event) }

  /// Adds one trace record (`out` its kind, `fields` its members; `t` and `out` among them
  /// are dropped); `cue_eval` is ignored. With `keep: false` only the displayed-cue change or
  /// praise switch it makes is kept (the rules of issue 15 need no more).
  public mutating func add(t: Int64, out: String, fields: JSONObject, keep: Bool = true) {
    guard OutputKind(rawValue: out) != .cue_eval else { return }
    addEvent(t: t, out: out, fields: fields)
    guard keep else { return }
    var f = fields
    f.members.removeAll { $0.key == "t" || $0.key == "out" }
    records.append(Record(t: t, kind: out, fields: f.sortedRecursively()))
  }

  /// Adds one A.13 line (`tsMs`: its `ts_ms`, epoch ms).
  public mutating func addA13(tsMs: Int64, event: String, payload: JSONObject) {
    records.append(Record(t: tsMs, kind: event, a13: true, fields: payload.sortedRecursively()))
  }

  mutating func addEvent(t: Int64, out: String, fields: JSONObject) {
    let line = TraceLine(out: out, fields: fields)
    if let d = line.cueDisplay {
      events.append(.display(t: t, cue: d.cueId, level: d.level))
    } else if let on = line.praiseOn {
      events.append(.praise(t: t, on: on))
    }
  }
}

/// One `expect:` rule the replay broke, with what the trace showed instead — or, for a rule
/// marked `known:` on this draw, the known miss (`Expectations.judge`).
public struct ExpectationFailure: Sendable, Equatable, CustomStringConvertible {
  public var expectation: ScenarioExpectation
  /// What was seen, e.g. `displayed instead: FRAME_MOVE_LEFT from 1933`.
  public var observed: String
  /// A rule marked `known:` that held on a draw its marker names (the marker is stale).
  public var heldWhereKnown: Bool

  public init(expectation: ScenarioExpectation, observed: String, heldWhereKnown: Bool = false) {
    self.expectation = expectation
    self.observed = observed
    self.heldWhereKnown = heldWhereKnown
  }

  /// `Recordings/x.scenario.yaml:31: expect[0] (TORSO_STRAIGHTEN displayed within 500 ms of
  /// t=2000): not met; displayed instead: none`; for a stale marker `… (summary) [known miss no
  /// longer misses: …]: not met; held on draw 1 (known: draws 1, 3; why)`.
  public var description: String {
    "\(expectation.place) (\(expectation.summary))\(heldWhereKnown ? " [\(Expectations.knownMissWord) no longer misses: remove the draw from its known: marker, or the marker]" : ""): not met; \(observed)"
  }

  /// A known miss as reported (not a failure): `…: expect[9] (no cue displayed in [119000,
  /// 139500]): known miss (G-52: …); displayed: HIP_SQUARE/hard at t=127200`.
  public var knownDescription: String {
    "\(expectation.place) (\(expectation.summary)): \(Expectations.knownMissWord) (\(expectation.knownMiss?.why ?? "")); \(observed)"
  }
}

/// The rules of one replay judged with their `known:` markers (`Expectations.judge`).
public struct ExpectationVerdict: Sendable, Equatable {
  /// Rules broken: an unmarked miss, a miss on a draw the marker does not name, or a marked
  /// rule that holds on a draw its marker names (the marker is stale).
  public var failures: [ExpectationFailure] = []
  /// Marked rules that miss on a draw their marker names: reported, not failures.
  public var knownMisses: [ExpectationFailure] = []

  public init(failures: [ExpectationFailure] = [], knownMisses: [ExpectationFailure] = []) {
    self.failures = failures
    self.knownMisses = knownMisses
  }
}

/// Which configuration a replay judged by `Expectations.judge` ran: the one the `known:`
/// markers were recorded with, or another.
public enum MarkerScope: Sendable, Equatable {
  /// The committed configuration (the repository's spec, the recording's own options): every
  /// marker is a strict expected failure, draw by draw.
  case recorded
  /// Any other configuration: a marked rule's miss on any draw is a known miss, a hold is fine.
  case other
}

/// Checks `expect:` rules against a replay (issue 15): `verify` reports the failures in their
/// own category, `tune` counts them as hard constraints.
public enum Expectations {
  /// The rules `trace` (draw `draw` of the scenario, ``SeedDraws``; 0: the committed
  /// recording) breaks, in rule order (empty: all met) — `judge`'s failures.
  public static func check(_ expectations: [ScenarioExpectation], trace: ExpectationTrace, draw: Int = 0) -> [ExpectationFailure] {
    judge(expectations, trace: trace, draw: draw).failures
  }

  /// How a known miss is reported (`ExpectationFailure.knownDescription`).
  public static let knownMissWord = "known miss"

  /// The one judgement of `expect:` rules with their `known:` markers, for every reader
  /// (`verify`, `score`, `tune`'s `expectation_failures`, `tune rebuild`'s check): a strict
  /// expected failure, draw by draw. An unmarked rule, or a marked one on a draw its marker does
  /// not name, fails when it misses. On a draw the marker names, a miss is a known miss
  /// (reported, not a failure) and a hold is a failure: "known miss no longer misses" — the
  /// engine changed, so the marker (or that draw of it) must go.
  ///
  /// A marker records the misses of the configuration the corpus is committed with (the
  /// repository's spec, each recording's own options): `scope` `.recorded`. Judging another
  /// configuration (`.other`: a tune trial, `score --spec/--set`, a tuned folder) a marked
  /// rule's miss on any draw is its known miss and a hold is no failure — the marker names a
  /// mechanism of the literal engine, and which draws it hits moves with any change of
  /// configuration; an unmarked rule must hold on every draw either way.
  public static func judge(
    _ expectations: [ScenarioExpectation], trace: ExpectationTrace, draw: Int = 0, scope: MarkerScope = .recorded
  ) -> ExpectationVerdict {
    var out = ExpectationVerdict()
    for e in expectations {
      let seen = observed(breaking: e.rule, in: trace)
      if scope == .other, e.knownMiss != nil {
        if let seen { out.knownMisses.append(ExpectationFailure(expectation: e, observed: seen)) }
        continue
      }
      guard let known = e.knownMiss, known.draws.contains(draw) else {
        if let seen { out.failures.append(ExpectationFailure(expectation: e, observed: seen)) }
        continue
      }
      if let seen {
        out.knownMisses.append(ExpectationFailure(expectation: e, observed: seen))
      } else {
        out.failures.append(
          ExpectationFailure(
            expectation: e, observed: "held on draw \(draw) (known: draws \(known.draws.map(String.init).joined(separator: ", ")); \(known.why))",
            heldWhereKnown: true))
      }
    }
    return out
  }

  /// Whether any of `rules` is judged on lines other than `cue_display` and `praise` (the
  /// trace must then keep its records).
  public static func needRecords(_ rules: [ScenarioExpectation]) -> Bool {
    rules.contains {
      switch $0.rule {
      case .lines, .state: true
      default: false
      }
    }
  }

  /// `rules` without those on A.13 lines: for a replay that keeps only its trace records
  /// (`score`, `tune`); `verify` and `faults` judge them all.
  public static func traceOnly(_ rules: [ScenarioExpectation]) -> [ScenarioExpectation] {
    rules.filter {
      if case .lines(let m, _, _, _, _) = $0.rule { return !m.a13 }
      return true
    }
  }

  /// nil when `rule` holds in `trace`; else what the trace showed.
  static func observed(breaking rule: ScenarioExpectation.Rule, in trace: ExpectationTrace) -> String? {
    let events = trace.events
    switch rule {
    case .displayed(let cue, let level, let at, let within):
      let shown = displays(in: events, from: at, to: at + within)
      if shown.contains(where: { $0.cue == cue && (level == nil || $0.level == level) }) { return nil }
      return "displayed instead: " + describe(shown)
    case .notDisplayed(let cue, let level, let from, let to):
      let hits = displays(in: events, from: from, to: to).filter {
        $0.cue != nil && (cue == nil || $0.cue == cue) && (level == nil || $0.level == level)
      }
      guard let first = hits.first else { return nil }
      return "displayed: \(first.cue!)\(first.level.map { "/\($0)" } ?? "") at t=\(first.t)"
        + (hits.count > 1 ? " (and \(hits.count - 1) more)" : "")
    case .praise(let least, let most, let from, let to):
      var times: [Int64] = []
      for case .praise(let t, true) in events where t >= from && t <= to { times.append(t) }
      if let least, Int64(times.count) < least {
        return "praise turned on \(times.count) time(s)" + (times.isEmpty ? "" : " at t=\(list(times))")
      }
      if let most, Int64(times.count) > most { return "praise turned on \(times.count) time(s) at t=\(list(times))" }
      return nil
    case .lines(let m, let least, let most, let from, let to):
      let inWindow = trace.records.filter { r in
        guard r.a13 == m.a13, r.kind == m.kind else { return false }
        let t = time(r, m)
        return t >= from && t <= to
      }
      let hits = inWindow.filter { matches($0, m) }
      let n = Int64(hits.count)
      if let least, n < least {
        let near = inWindow.prefix(3).map { "t=\(time($0, m)) \(describe($0, m))" }
        return "\(n) matching line(s)"
          + (hits.isEmpty ? "" : " at t=\(list(hits.map { time($0, m) }))")
          + (hits.isEmpty && !near.isEmpty ? "; \(m.kind) lines there: " + near.joined(separator: "; ") + (inWindow.count > 3 ? "; …" : "") : "")
          + (inWindow.isEmpty ? "; no \(m.a13 ? "a13." : "")\(m.kind) line in the window" : "")
      }
      if let most, n > most {
        return "\(n) matching line(s): " + hits.prefix(3).map { "t=\(time($0, m)) \(describe($0, m))" }.joined(separator: "; ")
          + (hits.count > 3 ? "; …" : "")
      }
      return nil
    case .state(let m, let at, let within):
      let states = states(in: trace.records, of: m, from: at, to: at + within)
      if states.contains(where: { $0.record.map { matches($0, m) } ?? false }) { return nil }
      return "instead: "
        + states.prefix(4).map { s in "\(s.record.map { describe($0, m) } ?? "no \(m.kind) line") from t=\(s.t)" }.joined(separator: ", ")
        + (states.count > 4 ? ", …" : "")
    }
  }

  /// A record's time on the rule's clock (A.13: `ts_ms` − `wall_start_ms`).
  static func time(_ r: ExpectationTrace.Record, _ m: ScenarioExpectation.Match) -> Int64 {
    r.a13 ? r.t - m.wallStartMs : r.t
  }

  /// The fields of `r` that `m` names (all of them when it names none), for a message.
  static func describe(_ r: ExpectationTrace.Record, _ m: ScenarioExpectation.Match) -> String {
    let names = m.with.map(\.key) + m.has + m.lacks
    let shown = names.isEmpty ? r.fields.members : r.fields.members.filter { names.contains($0.key) }
    return "{" + shown.map { "\($0.key)=\(ScenarioExpectation.Match.text($0.value))" }.joined(separator: ", ") + "}"
  }

  /// Whether `r` has every field of `m.with` (A.13 payload texts also match a number or a
  /// boolean written the same), every `has` and no `lacks`.
  static func matches(_ r: ExpectationTrace.Record, _ m: ScenarioExpectation.Match) -> Bool {
    for (k, want) in m.with {
      guard let got = r.fields[k] else {
        if want == .null { continue }
        return false
      }
      if got == want { continue }
      if case .string(let s) = got, want.stringValue == nil, ScenarioExpectation.Match.text(want) == s { continue }
      return false
    }
    return m.has.allSatisfy { r.fields[$0] != nil } && m.lacks.allSatisfy { r.fields[$0] == nil }
  }

  /// The latest line of `m`'s kind (for `item` the same `shot`, for `prompt` the same `key`,
  /// when `m.with` names it) at instant `from`, then at each such line in (from, to].
  static func states(in records: [ExpectationTrace.Record], of m: ScenarioExpectation.Match, from: Int64, to: Int64)
    -> [(t: Int64, record: ExpectationTrace.Record?)]
  {
    let identity = OutputKind(rawValue: m.kind)?.identityField?.rawValue
    let id = identity.flatMap { k in m.with.first(where: { $0.key == k })?.value }
    var current: ExpectationTrace.Record?
    var out: [(t: Int64, record: ExpectationTrace.Record?)] = []
    for r in records where !r.a13 && r.kind == m.kind {
      if let identity, let id, r.fields[identity] != id { continue }
      if r.t <= from {
        current = r
      } else if r.t <= to {
        out.append((r.t, r))
      } else {
        break
      }
    }
    return [(from, current)] + out
  }

  /// The displayed-cue states of [from, to]: the state at instant `from` (after every record
  /// at t ≤ from, stamped `from`) and each record with from < t ≤ to.
  static func displays(in events: [ExpectationTrace.Event], from: Int64, to: Int64) -> [(t: Int64, cue: String?, level: String?)] {
    var current: (String?, String?) = (nil, nil)
    var out: [(t: Int64, cue: String?, level: String?)] = []
    for case .display(let t, let cue, let level) in events {
      if t <= from {
        current = (cue, level)
      } else if t <= to {
        out.append((t, cue, level))
      } else {
        break
      }
    }
    return [(from, current.0, current.1)] + out
  }

  static func describe(_ shown: [(t: Int64, cue: String?, level: String?)]) -> String {
    let parts = shown.prefix(4).map { s in "\(s.cue.map { c in c + (s.level.map { "/\($0)" } ?? "") } ?? "none") from t=\(s.t)" }
    return parts.joined(separator: ", ") + (shown.count > 4 ? ", …" : "")
  }

  static func list(_ times: [Int64]) -> String {
    times.prefix(8).map(String.init).joined(separator: ", ") + (times.count > 8 ? ", …" : "")
  }
}
