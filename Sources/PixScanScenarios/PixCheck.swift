import CanonicalJSON
import PixScanEngine

/// One PixScan trace line: time, kind (`out`) and the other fields.
public struct PixTraceRecord: Equatable, Sendable {
  /// ms from the start.
  public var t: Int64
  /// The `out` kind.
  public var kind: String
  /// The fields after `out`, in written order.
  public var fields: JSONObject

  /// A record.
  public init(t: Int64, kind: String, fields: JSONObject) {
    self.t = t
    self.kind = kind
    self.fields = fields
  }

  /// A record of `output` at `t`.
  public init(t: Int64, output: PixOutput) {
    var f = output.render()
    f.members.removeFirst()  // out
    self.init(t: t, kind: output.kind.rawValue, fields: f)
  }

  /// The canonical trace line: keys sorted, numbers in the fixed 6-decimal style, `t` added.
  public var line: String {
    var o = fields
    o.members.append(JSONMember("out", .string(kind)))
    o.members.append(JSONMember("t", .number(Double(t))))
    return JSONWriter.write(.object(o), sortKeys: true, numbers: .fixed6)
  }
}

/// A rule the trace broke, with what it showed instead.
public struct PixExpectationFailure: Sendable, Equatable, CustomStringConvertible {
  /// The rule.
  public var expectation: PixExpectation
  /// What was seen.
  public var observed: String
  /// `file:line: expect[i] (summary): not met; observed`.
  public var description: String { "\(expectation.place) (\(expectation.summary)): not met; \(observed)" }
}

/// Judges `expect:` rules on a PixScan trace.
public enum PixExpectations {
  /// The rules `records` break, in rule order (empty: all met).
  public static func check(_ rules: [PixExpectation], records: [PixTraceRecord]) -> [PixExpectationFailure] {
    rules.compactMap { r in observed(breaking: r.rule, in: records).map { PixExpectationFailure(expectation: r, observed: $0) } }
  }

  static func matches(_ r: PixTraceRecord, _ m: PixExpectation.Match) -> Bool {
    guard r.kind == m.kind else { return false }
    for w in m.with {
      let got = r.fields[w.key] ?? .null
      if got != w.value { return false }
    }
    return m.has.allSatisfy { r.fields[$0] != nil } && m.lacks.allSatisfy { r.fields[$0] == nil }
  }

  static func describe(_ r: PixTraceRecord, _ m: PixExpectation.Match) -> String {
    let names = m.with.map(\.key) + m.has + m.lacks
    let shown = names.isEmpty ? r.fields.members : r.fields.members.filter { names.contains($0.key) }
    return "t=\(r.t) {" + shown.map { "\($0.key)=\(PixExpectation.Match.text($0.value))" }.joined(separator: ", ") + "}"
  }

  static func observed(breaking rule: PixExpectation.Rule, in records: [PixTraceRecord]) -> String? {
    switch rule {
    case .lines(let m, let least, let most, let from, let to):
      let window = records.filter { $0.kind == m.kind && $0.t >= from && $0.t <= to }
      let hits = window.filter { matches($0, m) }
      let n = Int64(hits.count)
      if let least, n < least {
        let near = window.prefix(3).map { describe($0, m) }.joined(separator: "; ")
        return "\(n) matching line(s)" + (window.isEmpty ? "; no \(m.kind) line in the window" : "; \(m.kind) lines there: \(near)\(window.count > 3 ? "; …" : "")")
      }
      if let most, n > most {
        return "\(n) matching line(s): " + hits.prefix(3).map { describe($0, m) }.joined(separator: "; ") + (hits.count > 3 ? "; …" : "")
      }
      return nil
    case .state(let m, let at, let within):
      let effectKind = PixOutputKind(rawValue: m.kind) == .effect ? m.with.first(where: { $0.key == "kind" })?.value : nil
      var current: PixTraceRecord?
      var states: [PixTraceRecord?] = []
      for r in records where r.kind == m.kind && (effectKind == nil || r.fields["kind"] == effectKind) {
        if r.t <= at { current = r } else if r.t <= at + within { states.append(r) } else { break }
      }
      states.insert(current, at: 0)
      if states.contains(where: { $0.map { matches($0, m) } ?? false }) { return nil }
      return "instead: " + states.prefix(4).map { $0.map { describe($0, m) } ?? "no \(m.kind) line yet" }.joined(separator: ", ")
    }
  }
}

/// Runs scenario events straight through the engine, the way the harness will: `start()`,
/// then each event in order; an `app_launch` after an `app_kill` goes through `relaunch` with
/// the last persisted store (the only state that survives). Effect results are the script's
/// own events; nothing is synthesized. Like the harness's strict effect checking, it notes a
/// result that answers no pending request and a request left without a result (requests
/// pending at a kill die with the process).
public enum PixDirectRun {
  /// What a run gives: the trace records and the correlation problems.
  public struct Result: Sendable {
    /// The trace records, in order.
    public var records: [PixTraceRecord]
    /// `t=… ocr_result photo=…: no pending request`, `t=… ocr photo=…: no result`.
    public var correlationIssues: [String]
  }

  /// The trace records of `events`; an event that does not decode is an error.
  public static func run(_ events: [PixScenarioEvent], options: PixOptions = PixOptions()) throws(PixDecodeError) -> [PixTraceRecord] {
    try checked(events, options: options).records
  }

  /// The records and the correlation problems of `events`.
  public static func checked(_ events: [PixScenarioEvent], options: PixOptions = PixOptions()) throws(PixDecodeError) -> Result {
    var engine = PixScanEngine(options: options)
    var out: [PixTraceRecord] = []
    out.reserveCapacity(events.count * 4)
    for o in engine.start().outputs { out.append(PixTraceRecord(t: 0, output: o)) }
    var stored: PixStore?
    var killed = false
    var pending: [(t: Int64, request: PixEffectRequest)] = []
    var issues: [String] = []
    func describe(_ r: PixEffectRequest) -> String {
      ([r.kind] + r.key.members.map { "\($0.key)=\(PixExpectation.Match.text($0.value))" }).joined(separator: " ")
    }
    for e in events {
      let input = try PixInput.decode(kind: e.kind, fields: e.fields)
      if input.kind.isEffectResult {
        if let i = pending.firstIndex(where: { $0.request.isAnswered(by: input) }) {
          pending.remove(at: i)
        } else {
          issues.append("t=\(e.t) \(e.kind) \(JSONWriter.write(.object(e.fields))): no pending request")
        }
      }
      let step: PixStep
      switch input {
      case .appLaunch where killed:
        killed = false
        step = engine.relaunch(input, restoring: stored ?? PixStore(), at: e.t)
      case .appKill:
        killed = true
        pending = []
        step = engine.handle(input, at: e.t)
      default:
        step = engine.handle(input, at: e.t)
      }
      if let p = step.persist { stored = p }
      for r in step.effects where r.resultKind != nil { pending.append((e.t, r)) }
      for o in step.outputs { out.append(PixTraceRecord(t: e.t, output: o)) }
    }
    issues += pending.map { "t=\($0.t) \(describe($0.request)): no result" }
    return Result(records: out, correlationIssues: issues)
  }
}
