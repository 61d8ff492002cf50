import CanonicalJSON
import Foundation
import JustPhotoPlugin
import PoseSpec

/// `tune report`: the trials of a study, the Pareto front over chosen objectives, each beside
/// its figures on the validation corpus and the shipped spec's row.
package struct TuneReport: Sendable {
  package var parameters: [String]
  package var objectives: [String]
  package var trials: [TrialResult]
  /// Indices (trial numbers) on the Pareto front, ordered by the first objective, then index.
  package var front: [Int]
  /// The study's objective (`objective:` of the space): a trial whose validation value of it
  /// is worse than the shipped spec's does not generalise.
  package var objective: String
  /// The validation recordings (empty: the study has none).
  package var validation: [String]
  /// The space's `generalise:` budgets on validation objectives.
  package var budgets: [(name: String, max: Double)]
  /// The space's `tolerate:` margins: how much worse than shipped an objective may be (its
  /// paired difference) and still count as no worse; 0 for an objective not listed.
  package var tolerances: [String: Double]
  /// The shipped spec's objectives (fit, and `val.KEY`), when the study stored them.
  package var shipped: [String: Double]?
  /// Trials asked for by number (`--trial`), shown beside the front.
  package var asked: [Int]
  /// Detector draws per recording the trials were scored on (``SeedDraws``; the study's
  /// `draws`, 1 for a study made before draws existed): objectives are then means over the
  /// draws, each draw's value stored as `KEY@k`.
  package var draws: Int

  package init(study: TuneStudy, objectives: [String], asked: [Int] = []) throws(HarnessFailure) {
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
    tolerances = Dictionary(Self.bounds(meta["tolerate"] ?? ""), uniquingKeysWith: { a, _ in a })
    shipped = try study.shipped()
    draws = Int(meta["draws"] ?? "1") ?? 1
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
  package struct Generalisation: Sendable, Equatable {
    package var generalises: Bool
    package var reasons: [String]
  }

  /// The objectives a trial is compared with the shipped spec on: the study's objective
  /// first, then every other one (`TrialObjectives.keys` order).
  var comparedKeys: [String] { [objective] + TrialObjectives.keys.filter { $0 != objective } }

  /// The paired difference trial − shipped of `key` (a `val.` key for validation) on the same
  /// draws (issue 35 item 2); nil when the study stored no shipped row or either lacks a draw
  /// (an objective added after the study ran).
  package func difference(_ t: TrialResult, _ key: String) -> DrawInterval? {
    guard let shipped else { return nil }
    return SeedDraws.pairedDifference(key, trial: t.objectives, shipped: shipped, draws: draws)
  }

  /// "validation latency_p90_ms 267 > shipped 200" (one draw), or "validation
  /// latency_p90_ms +67 [12, 122] vs shipped on 5 draws" (the paired difference's interval).
  func comparison(_ t: TrialResult, _ key: String, _ d: DrawInterval, validation: Bool) -> String {
    let name = (validation ? "validation " : "fit ") + key
    let full = (validation ? TuneRunner.validationPrefix : "") + key
    guard draws > 1 else {
      return "\(name) \(Self.number(t.objectives[full] ?? .nan)) > shipped \(Self.number(shipped?[full] ?? .nan))"
    }
    return "\(name) \(Self.signed(d.mean)) [\(Self.signed(d.low)), \(Self.signed(d.high))] vs shipped on \(draws) draws"
  }

  /// nil when the study has no validation corpus. A trial generalises when, on the validation
  /// corpus, the interval of its paired difference with the shipped spec excludes worse for
  /// every objective (issue 35 item 2: not the study's objective alone; with one draw: no
  /// objective greater than the shipped spec's), and it keeps every `generalise:` budget.
  /// Without validation figures it does not.
  package func generalisation(_ t: TrialResult) -> Generalisation? {
    guard !validation.isEmpty else { return nil }
    let v = TuneRunner.validationPrefix
    guard t.objectives[v + objective] != nil else {
      return Generalisation(generalises: false, reasons: ["no validation figures (\(t.status.rawValue))"])
    }
    var reasons: [String] = []
    for k in comparedKeys {
      let margin = tolerance(k)
      guard let d = difference(t, v + k), !d.excludesWorse(by: margin) else { continue }
      let beyond =
        d.worse(by: margin)
        ? ": worse beyond noise" + toleranceNote(margin)
        : ": may be worse" + (margin > 0 ? " by more than the tolerated +\(Self.number(margin))" : "")
      reasons.append(comparison(t, k, d, validation: true) + (draws > 1 ? beyond : ""))
    }
    reasons += budgetReasons(t)
    return Generalisation(generalises: reasons.isEmpty, reasons: reasons)
  }

  /// What `tune promote`'s gate refuses (`GoldenGate.Trial.worse`): each objective whose
  /// paired difference with the shipped spec is worse beyond noise (the whole 95% interval
  /// above 0; with one draw, any excess), on the validation corpus when the study has one —
  /// else on the fit corpus, when there are several draws (one draw of the corpus the trial
  /// was fitted on says nothing beyond its own figures) — and each broken `generalise:` budget.
  package func worseThanShipped(_ t: TrialResult) -> [String] {
    let onValidation = !validation.isEmpty
    guard onValidation || draws > 1 else { return [] }
    if onValidation, t.objectives[TuneRunner.validationPrefix + objective] == nil {
      return ["no validation figures (\(t.status.rawValue))"]
    }
    var reasons: [String] = []
    for k in comparedKeys {
      let margin = tolerance(k)
      guard let d = difference(t, (onValidation ? TuneRunner.validationPrefix : "") + k), d.worse(by: margin) else { continue }
      reasons.append(comparison(t, k, d, validation: onValidation) + toleranceNote(margin))
    }
    return reasons + budgetReasons(t)
  }

  /// The `tolerate:` margin of objective `key` (0 when the space declares none).
  package func tolerance(_ key: String) -> Double { tolerances[key] ?? 0 }

  /// ", past the tolerated +200" for a declared margin; empty for none.
  func toleranceNote(_ margin: Double) -> String {
    margin > 0 ? ", past the tolerated +\(Self.number(margin))" : ""
  }

  func budgetReasons(_ t: TrialResult) -> [String] {
    guard !validation.isEmpty else { return [] }
    let v = TuneRunner.validationPrefix
    var reasons: [String] = []
    for b in budgets {
      if let x = t.objectives[v + b.name], !(x <= b.max) {
        reasons.append("validation \(b.name) \(Self.number(x)) > budget \(Self.number(b.max))")
      }
    }
    return reasons
  }

  /// Feasible trials no other feasible trial dominates (≤ in every objective, < in one).
  /// Trials missing an objective are left out.
  package static func paretoFront(_ trials: [TrialResult], objectives: [String]) -> [Int] {
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
  package func text(limit: Int) -> String {
    let ok = trials.filter { $0.status == .ok }.count
    var out = "\(trials.count) trials: \(ok) feasible, \(trials.count - ok) infeasible or failed\n"
    if validation.isEmpty {
      out += "No validation corpus: the figures are those the trials were fitted on.\n"
    } else {
      let budgetText = budgets.map { ", or validation \($0.name) > \(Self.number($0.max))" }.joined()
        + (tolerances.isEmpty ? "" : " (worse by no more than the tolerated " + tolerances.sorted { $0.key < $1.key }.map { "\($0.key) +\(Self.number($0.value))" }.joined(separator: ", ") + " counts as no worse)")
      out += "Validation corpus: \(validation.count) recording\(validation.count == 1 ? "" : "s") (\(validation.joined(separator: ", "))); val.* columns.\n"
      let paired = draws > 1 ? "the interval of its paired difference with shipped does not exclude worse" : "is worse than shipped"
      out += "A trial does not generalise when a validation objective (\(objective) or any other) \(paired)\(budgetText).\n"
    }
    if draws > 1 {
      out += "Scored on \(draws) detector draws of every recording (\(SeedDraws.derivation)): each figure is the mean [95% interval]; trials are compared with the shipped spec paired on the same draws.\n"
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
    if draws > 1, shipped != nil {
      out += "\nPaired differences with the shipped spec (trial − shipped on the same \(draws) draws, mean [95% interval]; below 0 is better):\n"
      let rows = points.compactMap { $0.first } + asked.filter { i in !points.contains { $0.first == i } }
      out += differencesTable(rows.compactMap { byIndex[$0] })
    }
    out += "\nTrials:\n"
    out += table(trials, limit: limit, shippedRow: true)
    return out
  }

  /// The front's distinct points: trials with equal values of every chosen objective are one
  /// point, listed by trial number (the first shown as its row), in front order.
  package var frontPoints: [[Int]] {
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
        ["shipped", "-"] + parameters.map { _ in "" } + columns.map { cell(shipped, $0) }
          + (validation.isEmpty ? [] : ["-"]) + (same == nil ? [] : [""]) + (reasons ? [""] : []))
    }
    let byIndex = Dictionary(uniqueKeysWithValues: trials.map { ($0.index, $0) })
    let shown = limit > 0 ? Array(rows.prefix(limit)) : rows
    for (n, t) in shown.enumerated() {
      var cells = ["#\(t.index)", t.status.rawValue]
      cells += parameters.indices.map { $0 < t.values.count ? t.values[$0].description : "" }
      cells += columns.map { cell(t.objectives, $0) }
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
  static func signed(_ d: Double) -> String { (d > 0 ? "+" : "") + number(d) }

  /// A cell of objective `key`: the value, or with several draws the mean and its 95% interval.
  func cell(_ objectives: [String: Double], _ key: String) -> String {
    guard draws > 1 else { return objectives[key].map(Self.number) ?? "-" }
    let v = SeedDraws.values(key, in: objectives, draws: draws)
    return v.isEmpty ? (objectives[key].map(Self.number) ?? "-") : DrawInterval(v).text
  }

  /// With several draws: per front point and asked trial, the paired difference trial −
  /// shipped of every column on the same draws (mean [95% interval]; below 0 is better).
  func differencesTable(_ rows: [TrialResult]) -> String {
    let columns = self.columns
    var lines: [[String]] = [["trial"] + columns]
    for t in rows {
      lines.append(["#\(t.index)"] + columns.map { k in
        guard let d = difference(t, k) else { return "-" }
        return "\(Self.signed(d.mean)) [\(Self.signed(d.low)), \(Self.signed(d.high))]"
      })
    }
    let widths = lines[0].indices.map { c in lines.map { $0[c].count }.max() ?? 0 }
    return lines.map { l in
      l.indices.map { l[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        .trimmingCharacters(in: .whitespaces) + "\n"
    }.joined()
  }

  /// One JSON object: parameters, objectives, the validation corpus, the shipped row, every
  /// trial (fit objectives, validation objectives, whether it generalises), the front. No
  /// path or time, so a merged study and an unsharded one give the same bytes.
  package var json: String {
    let rows: [JSONValue] = trials.map { t in
      var o: JSONObject = ["trial": .number(Double(t.index)), "status": .string(t.status.rawValue)]
      o["values"] = .object(JSONObject(zip(parameters, t.values).map { JSONMember($0, $1.json) }))
      o["objectives"] = Self.split(t.objectives, validation: false)
      if let g = generalisation(t) {
        o["validation"] = Self.split(t.objectives, validation: true)
        o["generalises"] = .bool(g.generalises)
        o["generalise_reasons"] = .array(g.reasons.map { .string($0) })
      }
      if draws > 1 {
        o["intervals"] = intervalsJSON(t.objectives)
        if shipped != nil {
          o["paired_differences"] = .object(JSONObject(columns.compactMap { k in difference(t, k).map { JSONMember(k, Self.triple($0)) } }))
        }
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
      "tolerate": .object(JSONObject(tolerances.sorted { $0.key < $1.key }.map { JSONMember($0.key, .number($0.value)) })),
    ]
    if let shipped {
      var o: JSONObject = ["objectives": Self.split(shipped, validation: false)]
      if !validation.isEmpty { o["validation"] = Self.split(shipped, validation: true) }
      doc["shipped"] = .object(o)
    }
    if draws > 1 {
      doc["draws"] = .number(Double(draws))
      doc["seed_derivation"] = .string(SeedDraws.derivation)
      if let shipped, var o = doc["shipped"]?.objectValue {
        o["intervals"] = intervalsJSON(shipped)
        doc["shipped"] = .object(o)
      }
    }
    doc["pareto_front"] = .array(front.map { .number(Double($0)) })
    doc["pareto_points"] = .array(frontPoints.map { .array($0.map { .number(Double($0)) }) })
    doc["trials"] = .array(rows)
    return JSONWriter.write(.object(doc), numbers: .shortest) + "\n"
  }

  /// `[mean, low, high]`.
  static func triple(_ d: DrawInterval) -> JSONValue { .array([d.mean, d.low, d.high].map { .number(($0 * 1e6).rounded() / 1e6) }) }

  /// Per column: the mean and 95% interval over the draws, `[mean, low, high]`.
  func intervalsJSON(_ objectives: [String: Double]) -> JSONValue {
    .object(
      JSONObject(
        columns.compactMap { k in
          let v = SeedDraws.values(k, in: objectives, draws: draws)
          return v.isEmpty ? nil : JSONMember(k, Self.triple(DrawInterval(v)))
        }))
  }

  /// The fit objectives, or the validation ones without their `val.` prefix, keys sorted
  /// (the mean over draws; each draw's `KEY@k` is in `intervals`).
  static func split(_ objectives: [String: Double], validation: Bool) -> JSONValue {
    let p = TuneRunner.validationPrefix
    let keys = objectives.keys.filter { $0.hasPrefix(p) == validation && SeedDraws.split($0) == nil }.sorted()
    return .object(JSONObject(keys.map { JSONMember(validation ? String($0.dropFirst(p.count)) : $0, .number(objectives[$0]!)) }))
  }
}
