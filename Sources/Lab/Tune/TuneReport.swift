import CanonicalJSON
import Foundation
import PoseSpec

/// `tune report`: the trials of a study, the Pareto front over chosen objectives.
public struct TuneReport: Sendable {
  public var parameters: [String]
  public var objectives: [String]
  public var trials: [TrialResult]
  /// Indices (trial numbers) on the Pareto front, ordered by the first objective, then index.
  public var front: [Int]

  public init(study: TuneStudy, objectives: [String]) throws(HarnessFailure) {
    let meta = try study.meta()
    guard !meta.isEmpty else { throw .badInput("\(study.path): an empty study (no settings)") }
    parameters = (meta["parameters"] ?? "").split(separator: "\n").map(String.init)
    for o in objectives where !TrialObjectives.keys.contains(o) {
      throw .badInput("--objectives: unknown objective '\(o)' (objectives: \(TrialObjectives.keys.joined(separator: ", ")))")
    }
    self.objectives = objectives
    trials = try study.trials()
    front = Self.paretoFront(trials, objectives: objectives)
  }

  /// Feasible trials no other feasible trial dominates (≤ in every objective, < in one).
  /// Trials missing an objective are left out.
  public static func paretoFront(_ trials: [TrialResult], objectives: [String]) -> [Int] {
    let points: [(index: Int, v: [Double])] = trials.compactMap { t in
      guard t.status == .ok else { return nil }
      let v = objectives.compactMap { t.objectives[$0] }
      guard v.count == objectives.count, v.allSatisfy(\.isFinite) else { return nil }
      return (t.index, v)
    }
    func dominates(_ a: [Double], _ b: [Double]) -> Bool {
      zip(a, b).allSatisfy { $0 <= $1 } && zip(a, b).contains { $0 < $1 }
    }
    let front = points.filter { p in !points.contains { dominates($0.v, p.v) } }
    return front.sorted { ($0.v.first ?? 0, $0.index) < ($1.v.first ?? 0, $1.index) }.map(\.index)
  }

  /// The text report: a summary, the front, then the table (`limit` rows, 0 = all).
  public func text(limit: Int) -> String {
    let ok = trials.filter { $0.status == .ok }.count
    var out = "\(trials.count) trials: \(ok) feasible, \(trials.count - ok) infeasible or failed\n"
    out += "Pareto front over \(objectives.joined(separator: ", ")) (\(front.count) trials):\n"
    let byIndex = Dictionary(uniqueKeysWithValues: trials.map { ($0.index, $0) })
    out += table(front.compactMap { byIndex[$0] }, limit: 0)
    out += "\nTrials:\n"
    out += table(trials, limit: limit)
    return out
  }

  func table(_ rows: [TrialResult], limit: Int) -> String {
    let header = ["trial", "status"] + parameters + objectives
    var lines: [[String]] = [header]
    let shown = limit > 0 ? Array(rows.prefix(limit)) : rows
    for t in shown {
      var cells = ["#\(t.index)", t.status.rawValue]
      cells += parameters.indices.map { $0 < t.values.count ? t.values[$0].description : "" }
      cells += objectives.map { t.objectives[$0].map(Self.number) ?? "-" }
      lines.append(cells)
    }
    let widths = header.indices.map { c in lines.map { $0[c].count }.max() ?? 0 }
    var out = ""
    for l in lines {
      out += l.indices.map { l[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        .trimmingCharacters(in: .whitespaces) + "\n"
    }
    if shown.count < rows.count { out += "… \(rows.count - shown.count) more (--limit 0 shows all)\n" }
    return out
  }

  static func number(_ d: Double) -> String { JSONWriter.formatNumber((d * 1000).rounded() / 1000) }

  /// One JSON object: parameters, objectives, every trial, the front. No path or time, so a
  /// merged study and an unsharded one give the same bytes.
  public var json: String {
    let rows: [JSONValue] = trials.map { t in
      var o: JSONObject = ["trial": .number(Double(t.index)), "status": .string(t.status.rawValue)]
      o["values"] = .object(JSONObject(zip(parameters, t.values).map { JSONMember($0, $1.json) }))
      o["objectives"] = .object(JSONObject(t.objectives.keys.sorted().map { JSONMember($0, .number(t.objectives[$0]!)) }))
      if let r = t.reason { o["reason"] = .string(r) }
      return .object(o)
    }
    let doc: JSONObject = [
      "parameters": .array(parameters.map { .string($0) }),
      "objectives": .array(objectives.map { .string($0) }),
      "pareto_front": .array(front.map { .number(Double($0)) }),
      "trials": .array(rows),
    ]
    return JSONWriter.write(.object(doc), numbers: .shortest) + "\n"
  }
}
