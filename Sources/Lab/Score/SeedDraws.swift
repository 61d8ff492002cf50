import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import PoseSpec
import Recording
import JustPhotoPlugin
import JustPhotoScenarios
import ScenarioYAML

/// Seeds as a dimension (issue 35 item 2): a corpus drawn K times, each recording's scenario
/// generated in memory (no file written) with a derived detector/noise seed per draw.
///
/// Draw k of a scenario uses ``seed(_:name:draw:)``: draw 0 is the scenario's own `seed:` (the
/// committed recording, so K = 1 is exactly the corpus as committed), draw k ≥ 1 a pure
/// function of (name, seed, k). A recording without a scenario beside it (an imported
/// session) cannot be drawn again: every draw holds it unchanged.
package enum SeedDraws {
  /// How derived seeds are made; a study stores it (``TuneStudy``'s `seed_derivation`), so a
  /// resumed, extended or merged study refuses trials scored on other draws.
  package static let derivation = "splitmix64(seed ^ fnv1a64(name) ^ k) for k >= 1; k = 0: the scenario's seed"
  /// Draws of one corpus at most (each is the corpus again, in memory).
  package static let drawsMax = 64

  /// The seed of draw `k` of the scenario `name` whose own seed is `seed`.
  package static func seed(_ seed: UInt64, name: String, draw k: Int) -> UInt64 {
    guard k > 0 else { return seed }
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in name.utf8 {
      h ^= UInt64(b)
      h = h &* 0x0000_0100_0000_01B3
    }
    var r = SplitMix64(seed: seed ^ h ^ UInt64(k))
    return r.next()
  }

  /// The key of objective `key` on draw `k` in a trial's objectives (`flicker_per_min@2`).
  package static func key(_ key: String, draw k: Int) -> String { "\(key)@\(k)" }

  /// `flicker_per_min@2` → (`flicker_per_min`, 2); nil for a key of no draw.
  package static func split(_ key: String) -> (key: String, draw: Int)? {
    guard let at = key.lastIndex(of: "@"), let k = Int(key[key.index(after: at)...]), k >= 0 else { return nil }
    return (String(key[..<at]), k)
  }

  /// Whether `k` draws is a valid count (1…``drawsMax``).
  package static func check(_ k: Int, what: String = "--seeds") throws(HarnessFailure) {
    guard k >= 1, k <= drawsMax else { throw .badInput("\(what): expected 1…\(drawsMax) draws (SeedDraws.drawsMax), found \(k)") }
  }

  /// Recording `path`'s draw `k`: the file itself for k = 0 or when no scenario is beside it
  /// (`<dir>/<name>.scenario.yaml`), else its scenario generated with the derived seed.
  static func load(_ path: String, draw k: Int, eventsBudget: Int, eventsMax: Int) throws(HarnessFailure) -> LoadedRecording {
    let name = CorpusScorer.recordingName(path)
    let dir = Paths.parent(path)
    let scenarioPath = Paths.join(dir.isEmpty ? "." : dir, name + Scenario.suffix)
    guard k > 0, FileManager.default.fileExists(atPath: scenarioPath) else {
      return try CorpusScorer.load(path, eventsBudget: eventsBudget, eventsMax: eventsMax)
    }
    var scenario: Scenario
    do { scenario = try Scenario.load(path: scenarioPath) } catch { throw .badInput(error.description) }
    scenario.seed = seed(scenario.seed, name: name, draw: k)
    let reader: GeneratedReader
    do { reader = try GeneratedRecording(scenario: scenario).reader() } catch {
      throw .badInput("\(scenarioPath): draw \(k) (seed \(scenario.seed)): \(error.description)")
    }
    // Named as the recording (its expect: rules are found by name), the draw in messages.
    var r = try CorpusScorer.load(reader: reader, path: path, eventsBudget: eventsBudget, eventsMax: eventsMax)
    r.draw = k
    return r
  }
}

extension CorpusScorer {
  /// The corpus `paths` as draw `k` (``SeedDraws``): each recording with a scenario beside it
  /// generated in memory with the draw's seed. Draw 0 is `init(paths:)`.
  package init(paths: [String], draw k: Int, eventsMax: Int = ScoreLimits.corpusEventsMax) throws(HarnessFailure) {
    guard k > 0 else {
      try self.init(paths: paths, eventsMax: eventsMax)
      return
    }
    guard paths.count <= ScoreLimits.recordingsMax else {
      throw .badInput("\(paths.count) recordings, more than ScoreLimits.recordingsMax = \(ScoreLimits.recordingsMax)")
    }
    var loaded: [LoadedRecording] = []
    var budget = eventsMax
    for path in paths {
      let r = try SeedDraws.load(path, draw: k, eventsBudget: budget, eventsMax: eventsMax)
      budget -= r.events.count + (r.labels?.changes.count ?? 0)
      loaded.append(r)
    }
    self.init(recordings: loaded)
  }
}

/// A trial scored on K draws of a corpus (``SeedDraws``), as `tune`'s evaluator: the objectives
/// of every draw (`KEY@k`) and their mean under the plain key (what constraints and samplers
/// read: a rule broken on one draw makes the mean of `expectation_failures` > 0). With one draw
/// it returns exactly that draw's objectives, as before draws existed.
package struct SeededScorer: TrialEvaluator, Sendable {
  package var draws: [CorpusScorer]

  package init(draws: [CorpusScorer]) { self.draws = draws }

  /// Replays one trial costs: every recording of every draw (K × the corpus).
  package var replaysPerTrial: Int { draws.reduce(0) { $0 + $1.recordings.count } }

  package func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double] {
    try objectives(trial: PreparedTrial(specJSON: specJSON, options: options))
  }

  /// Every draw scores the trial's one validated, compiled spec.
  package func objectives(trial: PreparedTrial) throws -> [String: Double] {
    guard draws.count > 1 else { return try draws.first?.objectives(trial: trial) ?? [:] }
    var out: [String: Double] = [:]
    var sums: [String: Double] = [:]
    for (k, scorer) in draws.enumerated() {
      for (key, v) in try scorer.objectives(trial: trial) {
        out[SeedDraws.key(key, draw: k)] = v
        sums[key, default: 0] += v
      }
    }
    for (key, s) in sums { out[key] = s / Double(draws.count) }
    return out
  }
}

/// A mean over draws with its 95% interval (Student's t on K − 1 degrees of freedom; a
/// single draw has no spread: the interval is the value).
package struct DrawInterval: Sendable, Equatable {
  package var mean: Double
  package var low: Double
  package var high: Double
  package var draws: Int

  package init(_ values: [Double]) {
    draws = values.count
    guard !values.isEmpty else {
      (mean, low, high) = (.nan, .nan, .nan)
      return
    }
    let n = Double(values.count)
    mean = values.reduce(0, +) / n
    guard values.count > 1 else {
      (low, high) = (mean, mean)
      return
    }
    let m = mean
    let variance = values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / (n - 1)
    let half = Self.t975(values.count - 1) * (variance / n).squareRoot()
    (low, high) = (mean - half, mean + half)
  }

  /// The 0.975 quantile of Student's t with `df` degrees of freedom (1…30 tabulated; 1.96 beyond).
  static func t975(_ df: Int) -> Double {
    let table: [Double] = [
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
      2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ]
    return df >= 1 && df <= table.count ? table[df - 1] : 1.96
  }

  /// Lower is better: the whole interval lies above 0 (worse beyond noise), for a difference.
  package var worse: Bool { worse(by: 0) }
  /// The interval excludes worse (its upper end ≤ 0), for a difference.
  package var excludesWorse: Bool { excludesWorse(by: 0) }
  /// Worse beyond noise by more than a non-inferiority `margin` (≥ 0): the whole interval lies
  /// above it. ``worse`` is `worse(by: 0)`.
  package func worse(by margin: Double) -> Bool { low > margin }
  /// The interval excludes worse by more than `margin`: its upper end is at most the margin.
  package func excludesWorse(by margin: Double) -> Bool { high <= margin }

  /// `2.86 [2.1, 3.6]`, or the value alone for one draw.
  package var text: String {
    func n(_ d: Double) -> String { JSONWriter.formatNumber((d * 1000).rounded() / 1000) }
    return draws > 1 ? "\(n(mean)) [\(n(low)), \(n(high))]" : n(mean)
  }
}

extension SeedDraws {
  /// The values of `key` on each draw in `objectives` (draw order), or the plain value when
  /// the trial was scored on one draw; empty when absent.
  package static func values(_ key: String, in objectives: [String: Double], draws: Int) -> [Double] {
    guard draws > 1 else { return objectives[key].map { [$0] } ?? [] }
    let v = (0..<draws).compactMap { objectives[Self.key(key, draw: $0)] }
    return v.count == draws ? v : []
  }

  /// The paired difference trial − shipped of `key` on the same draws, with its interval; nil
  /// when either lacks a draw.
  package static func pairedDifference(_ key: String, trial: [String: Double], shipped: [String: Double], draws: Int) -> DrawInterval? {
    let a = values(key, in: trial, draws: draws)
    let b = values(key, in: shipped, draws: draws)
    guard !a.isEmpty, a.count == b.count else { return nil }
    return DrawInterval(zip(a, b).map { $0 - $1 })
  }
}

/// `jpreplay score --seeds K`: one corpus scored on K draws (``SeedDraws``) — each objective's
/// mean with its 95% interval and per-draw values, and the `expect:` rules that fail on some
/// draws but not on others (rules about one draw, issue 35 item 2).
package struct DrawsScore: Sendable {
  /// Draw k's score, k = 0…K − 1.
  package var draws: [CorpusScore]

  package init(draws: [CorpusScore]) { self.draws = draws }

  /// The corpus `paths` scored on `count` draws; `configure` sets each draw's scorer up as
  /// `score` does (jobs, expectations, budgets).
  package static func score(
    paths: [String], count: Int, spec: PoseSpecDocument, overrides: [(name: String, value: String)],
    configure: (inout CorpusScorer) throws(HarnessFailure) -> Void
  ) throws(HarnessFailure) -> DrawsScore {
    try SeedDraws.check(count)
    var out: [CorpusScore] = []
    for k in 0..<count {
      var scorer = try CorpusScorer(paths: paths, draw: k)
      try configure(&scorer)
      out.append(try scorer.score(spec: spec, overrides: overrides))
    }
    return DrawsScore(draws: out)
  }

  /// One failing rule: the recording, the rule (its place and summary) and the draws it fails on.
  package struct RuleFailure: Sendable, Equatable {
    package var recording: String
    package var rule: String
    package var draws: [Int]
  }

  /// Every `expect:` rule failing on at least one draw, by recording then rule, with the draws
  /// it fails on (a rule failing on every draw is listed too: `draws.count == K`).
  package var ruleFailures: [RuleFailure] {
    var order: [String] = []
    var byKey: [String: RuleFailure] = [:]
    for (k, score) in draws.enumerated() {
      for r in score.recordings {
        for f in r.objectives.expectationFailures {
          // "place (summary): not met; observed" → the rule without what this draw observed.
          let rule = f.range(of: ": not met").map { String(f[..<$0.lowerBound]) } ?? f
          let key = r.name + "\u{1}" + rule
          if byKey[key] == nil {
            order.append(key)
            byKey[key] = RuleFailure(recording: r.name, rule: rule, draws: [])
          }
          if byKey[key]!.draws.last != k { byKey[key]!.draws.append(k) }
        }
      }
    }
    return order.map { byKey[$0]! }.sorted { ($0.recording, $0.rule) < ($1.recording, $1.rule) }
  }

  /// Every known miss (a rule missing on a draw its `known:` marker names: reported, not a
  /// failure), by recording then rule, with the draws it misses on; `rule` ends with the
  /// marker's words (`… (no cue displayed in [0, 9500]): known miss (G-52: …)`).
  package var knownMisses: [RuleFailure] {
    var byKey: [String: RuleFailure] = [:]
    for (k, score) in draws.enumerated() {
      for r in score.recordings {
        for f in r.objectives.knownMisses {
          // "place (summary): known miss (why); observed" → without what this draw observed.
          let rule = Self.knownRule(f)
          let key = r.name + "\u{1}" + rule
          if byKey[key] == nil { byKey[key] = RuleFailure(recording: r.name, rule: rule, draws: []) }
          if byKey[key]!.draws.last != k { byKey[key]!.draws.append(k) }
        }
      }
    }
    return byKey.values.sorted { ($0.recording, $0.rule) < ($1.recording, $1.rule) }
  }

  /// A known miss's line up to the end of its marker's words (`…): known miss (why)`).
  static func knownRule(_ line: String) -> String {
    guard let at = line.range(of: "): \(Expectations.knownMissWord) (") else { return line }
    // The marker's `why` is one line without "); " at its end: cut at the last "); ".
    let rest = line[at.upperBound...]
    guard let end = rest.range(of: "); ", options: .backwards) else { return line }
    return String(line[..<end.lowerBound]) + ")"
  }

  /// What each failing rule saw on each draw it fails on (`score --seeds K --details`): the
  /// rule, then one line per draw with the failure's own words after `not met` (what was
  /// displayed instead, when), so a rule about one draw can be read against the spec draw by draw.
  package func details() -> String {
    var seen: [String: [(draw: Int, observed: String)]] = [:]
    for (k, score) in draws.enumerated() {
      for r in score.recordings {
        for f in r.objectives.expectationFailures {
          let cut = f.range(of: ": not met")
          let rule = cut.map { String(f[..<$0.lowerBound]) } ?? f
          var observed = cut.map { String(f[$0.upperBound...]) } ?? ""
          if observed.hasPrefix(";") { observed.removeFirst() }
          seen[r.name + "\u{1}" + rule, default: []].append((k, observed.trimmingCharacters(in: .whitespaces)))
        }
      }
    }
    var out = ""
    for f in ruleFailures {
      out += ConsoleText.line("\(f.recording): \(f.rule)") + "\n"
      for o in seen[f.recording + "\u{1}" + f.rule] ?? [] {
        out += ConsoleText.line("  draw \(o.draw): \(o.observed.isEmpty ? "not met" : o.observed)") + "\n"
      }
    }
    return out
  }

  /// The text `score --seeds K` prints: per objective the mean [95% interval] and each draw's
  /// total, then the rules that fail on some draw.
  package func text() -> String {
    let totals = draws.map { $0.totals.dictionary }
    var rows: [[String]] = [["objective", "mean [95% interval]"] + draws.indices.map { "draw \($0)" }]
    for key in CorpusScore.objectiveKeys {
      let v = totals.map { $0[key] ?? 0 }
      rows.append([key, DrawInterval(v).text] + v.map { CorpusScore.fmt($0) })
    }
    let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
    var out = "\(draws.count) draws of every recording with a scenario (\(SeedDraws.derivation)):\n"
    for row in rows {
      out += row.enumerated().map { i, c in
        let pad = String(repeating: " ", count: widths[i] - c.count)
        return i == 0 ? c + pad : pad + c
      }.joined(separator: "  ") + "\n"
    }
    let failures = ruleFailures
    let some = failures.filter { $0.draws.count < draws.count }
    let all = failures.count - some.count
    out += "expect: rules failing on some draws but not all: \(some.count) (on every draw: \(all))\n"
    for f in failures {
      let which = f.draws.count == draws.count ? "every draw" : "draws \(f.draws.map(String.init).joined(separator: ", ")) of \(draws.count)"
      out += ConsoleText.line("\(f.recording): \(f.rule): fails on \(which)") + "\n"
    }
    out += knownText()
    return out
  }

  /// The known misses, one line each with their draws (empty when there are none, so output
  /// of a corpus without `known:` markers is as before).
  package func knownText() -> String {
    let known = knownMisses
    guard !known.isEmpty else { return "" }
    var out = "expect: known misses (marked known:, not failures): \(known.count)\n"
    for f in known {
      out += ConsoleText.line("\(f.recording): \(f.rule): misses on draw\(f.draws.count == 1 ? "" : "s") \(f.draws.map(String.init).joined(separator: ", ")) of \(draws.count)") + "\n"
    }
    return out
  }
}
