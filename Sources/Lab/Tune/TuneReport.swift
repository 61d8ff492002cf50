import CanonicalJSON
import Foundation
import PoseSpec

/// `tune report`: the trials of a study, the Pareto front over chosen objectives, each beside
/// its figures on the validation corpus and the shipped spec's row.
public struct TuneReport: Sendable {
  public var parameters: [String]
  public var objectives: [String]
  public var trials: [TrialResult]
  /// Indices (trial numbers) on the Pareto front, ordered by the first objective, then index.
  public var front: [Int]
  /// The study's objective (`objective:` of the space): a trial whose validation value of it
  /// is worse than the shipped spec's does not generalise.
  public var objective: String
  /// The validation recordings (empty: the study has none).
  public var validation: [String]
  /// The space's `generalise:` budgets on validation objectives.
  public var budgets: [(name: String, max: Double)]
  /// The shipped spec's objectives (fit, and `val.KEY`), when the study stored them.
  public var shipped: [String: Double]?
  /// Trials asked for by number (`--trial`), shown beside the front.
  public var asked: [Int]

  public init(study: TuneStudy, objectives: [String], asked: [Int] = []) throws(HarnessFailure) {
    let meta = try study.meta()
    guard !meta.isEmpty else { throw .badInput("\(study.path): an empty study (no settings)") }
    parameters = (meta["parameters"] ?? "").split(separator: "\n").map(String.init)
    for o in objectives where !TrialObjectives.keys.contains(o) {
      throw .badInput("--objectives: unknown objective '\(o)' (objectives: \(TrialObjectives.keys.joined(separator: ", ")))")
    }
    self.objectives = objectives
    trials = try study.trials()
    front = Self.paretoFront(trials, objectives: objectives)
    objective = meta["objective"] ?? "flicker_per_min"
    validation = (meta["validation"] ?? "").split(separator: "\n").map(String.init)
    budgets = Self.bounds(meta["generalise"] ?? "")
    shipped = try study.shipped()
    let known = Set(trials.map(\.index))
    for n in asked where !known.contains(n) { throw .badInput("\(study.path): no finished trial #\(n)") }
    self.asked = asked
  }

  /// `a<=1,b<=2` (as the study stores constraints and budgets) → pairs.
  static func bounds(_ text: String) -> [(name: String, max: Double)] {
    text.split(separator: ",").compactMap { item in
      let parts = item.components(separatedBy: "<=")
      guard parts.count == 2, let d = Double(parts[1]) else { return nil }
      return (parts[0], d)
    }
  }

  /// Whether a trial generalises, and why not.
  public struct Generalisation: Sendable, Equatable {
    public var generalises: Bool
    public var reasons: [String]
  }

  /// nil when the study has no validation corpus. A trial does not generalise when its
  /// validation value of ``objective`` is worse (greater) than the shipped spec's, when it
  /// breaks a `generalise:` budget, or when it has no validation figures.
  public func generalisation(_ t: TrialResult) -> Generalisation? {
    guard !validation.isEmpty else { return nil }
    let v = TuneRunner.validationPrefix
    guard let mine = t.objectives[v + objective] else {
      return Generalisation(generalises: false, reasons: ["no validation figures (\(t.status.rawValue))"])
    }
    var reasons: [String] = []
    if let theirs = shipped?[v + objective], !(mine <= theirs) {
      reasons.append("validation \(objective) \(Self.number(mine)) > shipped \(Self.number(theirs))")
    }
    for b in budgets {
      if let x = t.objectives[v + b.name], !(x <= b.max) {
        reasons.append("validation \(b.name) \(Self.number(x)) > budget \(Self.number(b.max))")
      }
    }
    return Generalisation(generalises: reasons.isEmpty, reasons: reasons)
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

  /// The text report: a summary, the front (and the trials asked for) after the shipped row,
  /// then the table (`limit` rows, 0 = all).
  public func text(limit: Int) -> String {
    let ok = trials.filter { $0.status == .ok }.count
    var out = "\(trials.count) trials: \(ok) feasible, \(trials.count - ok) infeasible or failed\n"
    if validation.isEmpty {
      out += "No validation corpus: the figures are those the trials were fitted on.\n"
    } else {
      let budgetText = budgets.map { ", or validation \($0.name) > \(Self.number($0.max))" }.joined()
      out += "Validation corpus: \(validation.count) recording\(validation.count == 1 ? "" : "s") (\(validation.joined(separator: ", "))); val.* columns.\n"
      out += "A trial does not generalise when validation \(objective) is worse than shipped\(budgetText).\n"
    }
    let points = frontPoints
    let distinct = points.count == front.count ? "" : ", \(points.count) distinct point\(points.count == 1 ? "" : "s")"
    out += "Pareto front over \(objectives.joined(separator: ", ")) (\(front.count) trial\(front.count == 1 ? "" : "s")\(distinct)):\n"
    if shipped == nil {
      out += "(no shipped-spec row: this study did not store one; `jpreplay tune run` on it again adds it)\n"
    }
    let byIndex = Dictionary(uniqueKeysWithValues: trials.map { ($0.index, $0) })
    out += table(points.compactMap { byIndex[$0.first ?? -1] }, limit: 0, shippedRow: true, same: points)
    if !asked.isEmpty {
      out += "\nTrials asked for:\n"
      out += table(asked.compactMap { byIndex[$0] }, limit: 0, shippedRow: true)
    }
    out += "\nTrials:\n"
    out += table(trials, limit: limit, shippedRow: true)
    return out
  }

  /// The front's distinct points: trials with equal values of every chosen objective are one
  /// point, listed by trial number (the first shown as its row), in front order.
  public var frontPoints: [[Int]] {
    let byIndex = Dictionary(uniqueKeysWithValues: trials.map { ($0.index, $0) })
    var out: [[Int]] = []
    var seen: [[Double]: Int] = [:]
    for i in front {
      let key = objectives.map { byIndex[i]?.objectives[$0] ?? .nan }
      if let at = seen[key] {
        out[at].append(i)
      } else {
        seen[key] = out.count
        out.append([i])
      }
    }
    return out
  }

  /// The objective columns: the chosen objectives first, then every other one the trials have
  /// (`TrialObjectives.keys` order), each followed by its validation value when there is a
  /// validation corpus.
  var columns: [String] {
    let present = Set(trials.flatMap(\.objectives.keys)).union(shipped.map { Set($0.keys) } ?? [])
    let others = TrialObjectives.keys.filter { !objectives.contains($0) && present.contains($0) }
    return (objectives + others).flatMap { validation.isEmpty ? [$0] : [$0, TuneRunner.validationPrefix + $0] }
  }

  /// Trial numbers shown in the `same` column of a front point, at most.
  static let sameShownMax = 8

  /// One table: the shipped row first (when asked and stored), then `rows`. `same`: the
  /// front's points, for a column naming the trials each row stands for.
  func table(_ rows: [TrialResult], limit: Int, shippedRow: Bool, same: [[Int]]? = nil) -> String {
    let columns = self.columns
    let reasons = rows.contains { $0.reason != nil }
    let header = ["trial", "status"] + parameters + columns + (validation.isEmpty ? [] : ["generalises"])
      + (same == nil ? [] : ["same point"]) + (reasons ? ["reason"] : [])
    var lines: [[String]] = [header]
    if shippedRow, let shipped {
      lines.append(
        ["shipped", "-"] + parameters.map { _ in "" } + columns.map { shipped[$0].map(Self.number) ?? "-" }
          + (validation.isEmpty ? [] : ["-"]) + (same == nil ? [] : [""]) + (reasons ? [""] : []))
    }
    let byIndex = Dictionary(uniqueKeysWithValues: trials.map { ($0.index, $0) })
    let shown = limit > 0 ? Array(rows.prefix(limit)) : rows
    for (n, t) in shown.enumerated() {
      var cells = ["#\(t.index)", t.status.rawValue]
      cells += parameters.indices.map { $0 < t.values.count ? t.values[$0].description : "" }
      cells += columns.map { t.objectives[$0].map(Self.number) ?? "-" }
      if let g = generalisation(t) {
        cells.append(g.generalises ? "yes" : "does not generalise: " + g.reasons.joined(separator: "; "))
      } else if !validation.isEmpty {
        cells.append("-")
      }
      if let same {
        let group = n < same.count ? same[n] : [t.index]
        if group.count == 1 {
          cells.append("")
        } else {
          let listed = group.prefix(Self.sameShownMax).map { "#\($0)" }.joined(separator: " ")
          let more = group.count > Self.sameShownMax ? " …" : ""
          // Equal in the chosen objectives; say so when another column tells them apart.
          let differ = group.contains { i in columns.contains { byIndex[i]?.objectives[$0] != t.objectives[$0] } }
          cells.append("×\(group.count): \(listed)\(more)\(differ ? " (other objectives differ)" : "")")
        }
      }
      if reasons { cells.append(t.reason ?? "") }
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

  /// One JSON object: parameters, objectives, the validation corpus, the shipped row, every
  /// trial (fit objectives, validation objectives, whether it generalises), the front. No
  /// path or time, so a merged study and an unsharded one give the same bytes.
  public var json: String {
    let rows: [JSONValue] = trials.map { t in
      var o: JSONObject = ["trial": .number(Double(t.index)), "status": .string(t.status.rawValue)]
      o["values"] = .object(JSONObject(zip(parameters, t.values).map { JSONMember($0, $1.json) }))
      o["objectives"] = Self.split(t.objectives, validation: false)
      if let g = generalisation(t) {
        o["validation"] = Self.split(t.objectives, validation: true)
        o["generalises"] = .bool(g.generalises)
        o["generalise_reasons"] = .array(g.reasons.map { .string($0) })
      }
      if let r = t.reason { o["reason"] = .string(r) }
      return .object(o)
    }
    var doc: JSONObject = [
      "parameters": .array(parameters.map { .string($0) }),
      "objectives": .array(objectives.map { .string($0) }),
      "objective": .string(objective),
      "validation_corpus": .array(validation.map { .string($0) }),
      "generalise": .object(JSONObject(budgets.map { JSONMember($0.name, .number($0.max)) })),
    ]
    if let shipped {
      var o: JSONObject = ["objectives": Self.split(shipped, validation: false)]
      if !validation.isEmpty { o["validation"] = Self.split(shipped, validation: true) }
      doc["shipped"] = .object(o)
    }
    doc["pareto_front"] = .array(front.map { .number(Double($0)) })
    doc["pareto_points"] = .array(frontPoints.map { .array($0.map { .number(Double($0)) }) })
    doc["trials"] = .array(rows)
    return JSONWriter.write(.object(doc), numbers: .shortest) + "\n"
  }

  /// The fit objectives, or the validation ones without their `val.` prefix, keys sorted.
  static func split(_ objectives: [String: Double], validation: Bool) -> JSONValue {
    let p = TuneRunner.validationPrefix
    let keys = objectives.keys.filter { $0.hasPrefix(p) == validation }.sorted()
    return .object(JSONObject(keys.map { JSONMember(validation ? String($0.dropFirst(p.count)) : $0, .number(objectives[$0]!)) }))
  }
}
