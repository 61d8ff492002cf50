import CameraCoachEngine
import CanonicalJSON

/// One Camera Coach trace line: time, kind (`out`) and the other fields.
public struct CCTraceRecord: Equatable, Sendable {
  public var t: Int64
  public var kind: String
  public var fields: JSONObject

  public init(t: Int64, kind: String, fields: JSONObject) {
    self.t = t
    self.kind = kind
    self.fields = fields
  }

  /// A record of `output` at `t`.
  public init(t: Int64, output: CCOutput) { self.init(t: t, kind: output.kind.rawValue, fields: output.fields()) }

  /// The canonical trace line: keys sorted, numbers in the fixed 6-decimal style, `t` added.
  public var line: String {
    var o = fields
    o.members.append(JSONMember("out", .string(kind)))
    o.members.append(JSONMember("t", .number(Double(t))))
    return JSONWriter.write(.object(o), sortKeys: true, numbers: .fixed6)
  }
}

/// A broken rule or invariant, with what the trace showed.
public struct CCFinding: Sendable, Equatable, CustomStringConvertible {
  /// The rule's place and summary, or the invariant's name.
  public var rule: String
  public var observed: String
  public var description: String { "\(rule): not met; \(observed)" }
}

/// Judges `expect:` rules and the budget invariants on a Camera Coach trace.
public enum CCExpectations {
  /// The rules `records` break, in rule order.
  public static func check(_ rules: [CCExpectation], records: [CCTraceRecord]) -> [CCFinding] {
    rules.compactMap { r in
      observed(breaking: r.rule, in: records).map { CCFinding(rule: "\(r.place) (\(r.summary))", observed: $0) }
    }
  }

  static func matches(_ r: CCTraceRecord, _ kind: String, _ with: [JSONMember]) -> Bool {
    guard r.kind == kind else { return false }
    for w in with {
      let got = r.fields[w.key] ?? .null
      if case .number(let a) = got, case .number(let b) = w.value {
        if abs(a - b) > 1e-6 { return false }
      } else if got != w.value {
        return false
      }
    }
    return true
  }

  static func observed(breaking rule: CCExpectation.Rule, in records: [CCTraceRecord]) -> String? {
    switch rule {
    case .lines(let kind, let with, let least, let most, let from, let to):
      let hits = records.filter { $0.t >= from && $0.t <= to && matches($0, kind, with) }
      let n = Int64(hits.count)
      if let least, n < least { return "\(n) matching line(s) in [\(from), \(to)]" + nearest(kind, records, from, to) }
      if let most, n > most { return "\(n) matching line(s), at t=" + hits.prefix(8).map { String($0.t) }.joined(separator: ", ") }
      return nil
    case .state(let kind, let with, let at):
      guard let last = records.last(where: { $0.kind == kind && $0.t <= at }) else { return "no \(kind) line by t=\(at)" }
      return matches(last, kind, with) ? nil : "the latest \(kind) line by t=\(at) is at t=\(last.t): \(JSONWriter.write(.object(last.fields), sortKeys: true))"
    }
  }

  static func nearest(_ kind: String, _ records: [CCTraceRecord], _ from: Int64, _ to: Int64) -> String {
    let near = records.filter { $0.kind == kind && $0.t >= from - 2_000 && $0.t <= to + 2_000 }.prefix(4)
    guard !near.isEmpty else { return "; no \(kind) line within 2 s of the window" }
    return "; \(kind) lines near it: " + near.map { "t=\($0.t) \(JSONWriter.write(.object($0.fields), sortKeys: true))" }.joined(separator: ", ")
  }

  /// The budgets as invariants every trace keeps (docs/CAMERACOACH.md "Budgets"): at most 2
  /// hints in any 1000 ms, the same advice at most 3 times in any 10 000 ms and at least
  /// 600 ms apart, at most 8 hints in any 60 000 ms (windows half-open).
  public static func invariants(_ records: [CCTraceRecord]) -> [CCFinding] {
    let hints = records.filter { CCOutputKind(rawValue: $0.kind) == .hint }
    var out: [CCFinding] = []
    func window(_ name: String, _ ms: Int64, _ max: Int, sameAdvice: Bool) {
      for (i, h) in hints.enumerated() {
        let inside = hints[i...].prefix { $0.t - h.t < ms }.filter { !sameAdvice || $0.fields["advice"] == h.fields["advice"] }
        if inside.count > max {
          out.append(CCFinding(rule: "invariant \(name)", observed: "\(inside.count) hints from t=\(h.t): " + inside.map { "t=\($0.t)" }.joined(separator: ", ")))
          return
        }
      }
    }
    window("at most \(CCRules.perSecond) hints per \(CCRules.secondMs) ms", CCRules.secondMs, CCRules.perSecond, sameAdvice: false)
    window(
      "the same advice at most \(CCRules.sameTypeMax) times per \(CCRules.sameTypeWindowMs) ms", CCRules.sameTypeWindowMs,
      CCRules.sameTypeMax, sameAdvice: true)
    window("at most \(CCThermal.nominal.hintsPerMinute) hints per \(CCRules.minuteMs) ms", CCRules.minuteMs, CCThermal.nominal.hintsPerMinute, sameAdvice: false)
    window("the same advice at least \(CCRules.cooldownMs) ms apart", CCRules.cooldownMs, 1, sameAdvice: true)
    return out
  }

  /// Rules and invariants together.
  public static func judge(_ rules: [CCExpectation], records: [CCTraceRecord]) -> [CCFinding] {
    check(rules, records: records) + invariants(records)
  }
}

/// A scenario straight through the engine (no recording, no harness): start at t = 0, then each
/// event at its time, as a replay does. The fault check and the tests use it.
public enum CCDirectRun {
  public static func run(_ events: [CCScenarioEvent], options: CCOptions = CCOptions()) throws(CCDecodeError) -> [CCTraceRecord] {
    var engine = CameraCoachEngine(options: options)
    var out = engine.start().outputs.map { CCTraceRecord(t: 0, output: $0) }
    for e in events {
      let input = try CCInput.decode(kind: e.kind, fields: e.fields)
      out += engine.handle(input, at: e.t).outputs.map { CCTraceRecord(t: e.t, output: $0) }
    }
    return out
  }
}

/// Do the scenarios' rules (and the invariants) catch a wrong engine? Each scenario runs clean
/// and once per planted fault; a fault is caught when a rule that held clean fails with it.
public enum CCFaultCheck {
  public struct Outcome: Sendable, Equatable {
    public var fault: CCPlantedFault
    public var name: String { fault.rawValue }
    public var summary: String { fault.summary }
    public var changed: [String] = []
    public var caughtBy: [String] = []
    public var errors: [String] = []
  }

  /// The planted faults named `names` (all for none); nil when a name is not one.
  public static func faults(named names: [String]) -> [CCPlantedFault]? {
    guard names.allSatisfy({ CCPlantedFault.named($0) != nil }) else { return nil }
    return CCPlantedFault.allCases.filter { names.isEmpty || names.contains($0.rawValue) }
  }

  public static func run(_ scenarios: [CCScenario], faults: [CCPlantedFault] = CCPlantedFault.allCases) -> (outcomes: [Outcome], unmetClean: [String]) {
    var outcomes = faults.map { Outcome(fault: $0) }
    var unmetClean: [String] = []
    for s in scenarios {
      guard let clean = try? CCDirectRun.run(s.events) else {
        for i in outcomes.indices { outcomes[i].errors.append("\(s.name): its events do not decode") }
        continue
      }
      let unmet = Set(CCExpectations.judge(s.expectations, records: clean).map(\.rule))
      unmetClean += unmet.sorted().map { "\(s.name): \($0)" }
      for i in outcomes.indices {
        guard let faulty = try? CCDirectRun.run(s.events, options: CCOptions(plantedFaults: [outcomes[i].fault])) else {
          outcomes[i].errors.append("\(s.name): its events do not decode")
          continue
        }
        guard faulty != clean else { continue }
        outcomes[i].changed.append(s.name)
        outcomes[i].caughtBy += CCExpectations.judge(s.expectations, records: faulty).map(\.rule).filter { !unmet.contains($0) }
          .map { "\(s.name): \($0)" }
      }
    }
    return (outcomes, unmetClean)
  }
}
