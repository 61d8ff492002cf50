import CanonicalJSON
import Foundation
import PoseSpec
import Recording
import JustPhotoPlugin
import JustPhotoScenarios

/// `tune rebuild RECIPE --table` (issue 35 item 9): the recipe's ablation read on the test set,
/// each objective's mean and 95% interval over the recipe's `seeds:` draws — the table of
/// docs/TUNING.md, rebuilt by one command (a test keeps the two equal).
///
/// A grid or random sampler's trial *i* is a pure function of the seed and *i* (docs/TUNING.md,
/// "Samplers and determinism"), so the table needs no study: each row's values come from the
/// sampler, are applied to the recipe's spec exactly as `tune promote --to` applies them, and the
/// test set (`test-*`, never used for selection) is scored once per row and draw. A row whose
/// trial learns from earlier batches (TPE, NSGA-II past the first batch) cannot be told without
/// the study: exit 2.
package enum TuneRecipeTable {
  /// The columns: objective key, header, decimals.
  package static let columns: [(key: String, title: String, decimals: Int)] = [
    ("flicker_per_min", "flicker/min", 2),
    ("latency_p90_ms", "latency p90 ms", 0),
    ("onset_p90_ms", "onset p90 ms", 0),
    ("clear_p90_ms", "clear p90 ms", 0),
    ("false_alarms", "false alarms", 1),
    ("expectation_failures", "rules broken", 1),
  ]

  /// One row: the label, the trial, and each draw's totals (``CorpusScore/objectiveKeys``).
  package struct Row: Sendable {
    package var label: String
    package var trial: Int
    package var draws: [[String: Double]]
  }

  /// The engine configuration of trial `trial` of `recipe`'s study: the spec text with its
  /// values and the engine options (as `tune promote --to` writes them).
  package static func configuration(recipe: TuneRecipe, trial: Int) throws(HarnessFailure) -> TunePromote.Result {
    let specText = String(decoding: try Harness.readSpecBytes(path: recipe.spec), as: UTF8.self)
    let specJSON: JSONValue
    do { specJSON = try JSONParser.parse(bytes: Array(specText.utf8)) } catch { throw .badInput("\(recipe.spec): \(error)") }
    let bytes: [UInt8]
    do { bytes = try InputFile.read(recipe.space, what: "search space", bytesMax: TuneLimits.spaceBytesMax, bound: "TuneLimits.spaceBytesMax") } catch {
      throw .badInput(error.description)
    }
    guard let spaceText = String(validating: bytes, as: UTF8.self) else { throw .badInput("\(recipe.space): not UTF-8 text; a search space is a YAML file") }
    let space = try TuneSpace.parse(text: spaceText, file: recipe.space, spec: specJSON)
    guard let kind = TuneSamplerKind(rawValue: recipe.sampler) else {
      throw .badInput("\(recipe.file): sampler: expected grid, random, tpe or nsga2, found '\(recipe.sampler)'")
    }
    let objective = space.objective ?? "flicker_per_min"
    let sampler = TuneSampler(
      kind: kind, domains: space.parameters.map(\.domain), seed: recipe.seed, tpeBatch: recipe.tpeBatch, objective: objective,
      conditions: space.parameters.map(\.condition), objectives: space.objectives ?? [objective], constraints: space.constraints)
    guard sampler.historyBound(for: trial) == 0 else {
      throw .badInput(
        "\(recipe.file): trial #\(trial) of a \(kind.rawValue) study learns from the trials before its batch; --table reads grid and random recipes (and a model-based study's first batch) without running the study"
      )
    }
    guard let values = sampler.values(for: trial, history: []) else {
      throw .badInput("\(recipe.file): trial #\(trial): the space is exhausted before it")
    }
    let result = TrialResult(index: trial, values: values, status: .ok, objectives: [:], reason: nil)
    return try TunePromote.apply(trial: result, meta: ["space_text": spaceText, "space_file": recipe.space], specText: specText, specFile: recipe.spec)
  }

  /// Scores every row of the recipe's ablation (the promoted trial alone when it has none) on
  /// the test set's `seeds:` draws.
  package static func rows(recipe: TuneRecipe, jobs: Int) throws(HarnessFailure) -> (names: [String], rows: [Row]) {
    let names = try TuneTestSet.names(recordingsDir: recipe.recordingsDir)
    guard !names.isEmpty else { throw .badInput("\(recipe.recordingsDir): no test-* recordings; --table reads the test set") }
    let plan = recipe.ablation.isEmpty ? [(label: "trial #\(recipe.trial)", trial: recipe.trial)] : recipe.ablation
    let committed = String(decoding: try Harness.readSpecBytes(path: recipe.spec), as: UTF8.self)
    var configurations: [(spec: PoseSpecDocument, options: [(name: String, value: String)], scope: MarkerScope)] = []
    for p in plan {
      let c = try configuration(recipe: recipe, trial: p.trial)
      configurations.append(
        (
          try Harness.validateSpec(bytes: Array(c.text.utf8), path: recipe.spec), c.options,
          TuneSetup.markerScope(specText: c.text, committedText: committed, options: c.options)
        ))
    }
    // The scorer judges as `.other`; a row of the committed configuration takes the strict checker.
    let strict: ExpectationChecker?
    do { strict = try ScenarioCorpus.preloadedExpectations(recordingsDir: recipe.recordingsDir, names: names, scope: .recorded) } catch {
      throw .badInput(error.description)
    }
    var rows = plan.map { Row(label: $0.label, trial: $0.trial, draws: []) }
    for k in 0..<recipe.seeds {
      // Each draw is generated once and replayed for every row.
      var scorer = try TuneSetup.scorer(names, recordingsDir: recipe.recordingsDir, draw: k)
      scorer.jobs = max(1, jobs)
      let lenient = scorer.expectations
      for (i, c) in configurations.enumerated() {
        scorer.expectations = c.scope == .recorded ? strict : lenient
        rows[i].draws.append(try scorer.score(spec: c.spec, overrides: c.options).totals.dictionary)
      }
    }
    return (names, rows)
  }

  /// The Markdown table (a comment line naming the command, then the table).
  package static func text(recipe: TuneRecipe, names: [String], rows: [Row]) -> String {
    let k = recipe.seeds
    var out = "<!-- jpreplay tune rebuild \(recipe.file) --table: the test set (\(names.joined(separator: ", "))), "
    out += k > 1 ? "mean [95% interval] over \(k) draws -->\n" : "one draw -->\n"
    out += "| configuration | trial | " + columns.map(\.title).joined(separator: " | ") + " |\n"
    out += "|---|---|" + String(repeating: "---|", count: columns.count) + "\n"
    for row in rows {
      var cells = [row.label, "#\(row.trial)"]
      for c in columns {
        let interval = DrawInterval(row.draws.map { $0[c.key] ?? 0 })
        func n(_ v: Double) -> String {
          let s = String(format: "%.\(c.decimals)f", v)
          return s.hasPrefix("-") && Double(s) == 0 ? String(s.dropFirst()) : s
        }
        cells.append(k > 1 ? "\(n(interval.mean)) [\(n(interval.low)), \(n(interval.high))]" : n(interval.mean))
      }
      out += "| " + cells.joined(separator: " | ") + " |\n"
    }
    return out
  }
}
