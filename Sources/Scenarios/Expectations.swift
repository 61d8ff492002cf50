import Foundation
import CanonicalJSON

/// What `expect:` rules are judged on: the displayed-cue changes and praise switches of one
/// replay, in trace order. Built from the canonical trace text (`init(traceText:)`, what
/// `verify` has), one record at a time (`add(t:out:fields:)`) or from the engine's typed
/// outputs (`Lab/ExpectationOutput`, an in-process replay such as `tune`'s).
public struct ExpectationTrace: Sendable, Equatable {
  public enum Event: Sendable, Equatable {
    /// `cue_display`: the displayed cue from `t` on (nil: none).
    case display(t: Int64, cue: String?)
    /// `praise`: praise turned on (`true`) or off.
    case praise(t: Int64, on: Bool)
  }

  public private(set) var events: [Event] = []

  public init(events: [Event] = []) { self.events = events }

  /// From canonical trace lines (`{"cue_id":…,"out":"cue_display","t":…}`, one per line);
  /// lines of other outputs are skipped without being parsed.
  public init(traceText: String) {
    for line in traceText.split(separator: "\n", omittingEmptySubsequences: true) {
      guard line.contains("\"out\":\"cue_display\"") || line.contains("\"out\":\"praise\"") else { continue }
      guard case .object(let o)? = try? JSONParser.parse(String(line)), let out = o["out"]?.stringValue,
        let t = o["t"]?.int64Value
      else { continue }
      add(t: t, out: out, fields: o)
    }
  }

  /// Adds one event (trace order: t never decreases).
  public mutating func append(_ event: Event) { events.append(event) }

  /// Adds one trace record (`out` its kind, `fields` its members); other kinds are ignored.
  public mutating func add(t: Int64, out: String, fields: JSONObject) {
    switch out {
    case "cue_display": events.append(.display(t: t, cue: fields["cue_id"]?.stringValue))
    case "praise": events.append(.praise(t: t, on: fields["state"]?.stringValue == "on"))
    default: break
    }
  }
}

/// One `expect:` rule the replay broke, with what the trace showed instead.
public struct ExpectationFailure: Sendable, Equatable, CustomStringConvertible {
  public var expectation: ScenarioExpectation
  /// What was seen, e.g. `displayed instead: FRAME_MOVE_LEFT from 1933`.
  public var observed: String

  /// `Recordings/x.scenario.yaml:31: expect[0] (TORSO_STRAIGHTEN displayed within 500 ms of
  /// t=2000): not met; displayed instead: none`.
  public var description: String { "\(expectation.place) (\(expectation.summary)): not met; \(observed)" }
}

/// Checks `expect:` rules against a replay (issue 15): `verify` reports the failures in their
/// own category, `tune` counts them as hard constraints.
public enum Expectations {
  /// The rules `trace` breaks, in rule order (empty: all met).
  public static func check(_ expectations: [ScenarioExpectation], trace: ExpectationTrace) -> [ExpectationFailure] {
    expectations.compactMap { e in
      observed(breaking: e.rule, in: trace.events).map { ExpectationFailure(expectation: e, observed: $0) }
    }
  }

  /// nil when `rule` holds in `events`; else what the trace showed.
  static func observed(breaking rule: ScenarioExpectation.Rule, in events: [ExpectationTrace.Event]) -> String? {
    switch rule {
    case .displayed(let cue, let at, let within):
      let shown = displays(in: events, from: at, to: at + within)
      if shown.contains(where: { $0.cue == cue }) { return nil }
      return "displayed instead: " + describe(shown)
    case .notDisplayed(let cue, let from, let to):
      let hits = displays(in: events, from: from, to: to).filter { $0.cue != nil && (cue == nil || $0.cue == cue) }
      guard let first = hits.first else { return nil }
      return "displayed: \(first.cue!) at t=\(first.t)" + (hits.count > 1 ? " (and \(hits.count - 1) more)" : "")
    case .praise(let least, let most, let from, let to):
      var times: [Int64] = []
      for case .praise(let t, true) in events where t >= from && t <= to { times.append(t) }
      if let least, Int64(times.count) < least {
        return "praise turned on \(times.count) time(s)" + (times.isEmpty ? "" : " at t=\(list(times))")
      }
      if let most, Int64(times.count) > most { return "praise turned on \(times.count) time(s) at t=\(list(times))" }
      return nil
    }
  }

  /// The displayed-cue states of [from, to]: the state at instant `from` (after every record
  /// at t ≤ from, stamped `from`) and each record with from < t ≤ to.
  static func displays(in events: [ExpectationTrace.Event], from: Int64, to: Int64) -> [(t: Int64, cue: String?)] {
    var current: String?
    var out: [(t: Int64, cue: String?)] = []
    for case .display(let t, let cue) in events {
      if t <= from {
        current = cue
      } else if t <= to {
        out.append((t, cue))
      } else {
        break
      }
    }
    return [(from, current)] + out
  }

  static func describe(_ shown: [(t: Int64, cue: String?)]) -> String {
    let parts = shown.prefix(4).map { "\($0.cue ?? "none") from t=\($0.t)" }
    return parts.joined(separator: ", ") + (shown.count > 4 ? ", …" : "")
  }

  static func list(_ times: [Int64]) -> String {
    times.prefix(8).map(String.init).joined(separator: ", ") + (times.count > 8 ? ", …" : "")
  }
}
