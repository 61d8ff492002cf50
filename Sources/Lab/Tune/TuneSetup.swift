import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoIO
import JustPhotoPlugin
import JustPhotoScenarios
import PoseSpec
import Recording
import Verify

/// Everything `tune run` (and `bench --tune-trials`) needs, from the command line's words:
/// the space parsed against the spec, the sampler, the shard, the fit and validation corpora
/// decoded once.
package struct TuneSetup: Sendable {
  package var runner: TuneRunner
  package var specSHA: String
  package var corpusNames: [String]
  /// The validation recordings (empty: none), never one of `corpusNames`.
  package var validationNames: [String]
  /// ``TuneStudy/recordingsKey``'s text: the SHA-256 of each fit and validation recording and
  /// of its scenario (`NAME.scenario.yaml`, whose `expect:` rules are a constraint) when
  /// there is one, as `FILE SHA` lines sorted by file.
  package var recordingHashes = ""

  /// `validation`: `--validation` globs (empty: the space file's `validation:`, else the
  /// `val-*` recordings when any exist); `noValidation`: `--no-validation`.
  package static func make(
    spacePath: String, specPath: String?, sampler: String?, seed: UInt64?, trials: Int?, tpeBatch: Int,
    shard: String, corpus: [String], validation: [String] = [], noValidation: Bool = false, recordingsDir: String, jobs: Int,
    draws: Int = 1
  ) throws(HarnessFailure) -> TuneSetup {
    try SeedDraws.check(draws)
    let specFile = specPath ?? Harness.defaultSpecPath
    let doc = try Harness.loadSpec(path: specFile)
    let specJSON: JSONValue
    let specBytes = try Harness.readSpecBytes(path: specFile)
    do { specJSON = try JSONParser.parse(bytes: specBytes) } catch { throw .badInput("\(specFile): \(error)") }
    let text: String
    let bytes: [UInt8]
    do { bytes = try InputFile.read(spacePath, what: "search space", bytesMax: TuneLimits.spaceBytesMax, bound: "TuneLimits.spaceBytesMax") } catch {
      throw .badInput(error.description)
    }
    guard let t = String(validating: bytes, as: UTF8.self) else {
      throw .badInput("\(spacePath): not UTF-8 text; a search space is a YAML file")
    }
    text = t
    var space = try TuneSpace.parse(text: text, file: spacePath, spec: specJSON)
    let kindText = sampler ?? space.sampler ?? "random"
    guard let kind = TuneSamplerKind(rawValue: kindText) else { throw .badInput("--sampler: expected grid, random, tpe or nsga2, found '\(kindText)'") }
    let objective = space.objective ?? "flicker_per_min"
    let s = TuneSampler(
      kind: kind, domains: space.parameters.map(\.domain), seed: seed ?? space.seed ?? 1, tpeBatch: tpeBatch,
      objective: objective, conditions: space.parameters.map(\.condition), objectives: space.objectives ?? [objective],
      constraints: space.constraints)
    let count = try trialCount(kind: kind, sampler: s, requested: trials ?? space.trials, space: space)
    if let note = gridNote(kind: kind, sampler: s, count: count) { space.warnings.append(note) }
    let (index, of) = try parseShard(shard)
    guard !s.isModelBased || of == 1 else {
      throw .badInput("--shard \(shard): the \(kind.rawValue) sampler learns from earlier batches, which other shards hold; shard a grid or random study")
    }
    guard tpeBatch >= 1, tpeBatch <= 10_000 else { throw .badInput("--tpe-batch: expected 1…10000") }
    let all = try recordingNames(recordingsDir)
    let valNames = try validationNames(cli: validation, none: noValidation, space: space, all: all, recordingsDir: recordingsDir)
    let names = try corpusNames(corpus, all: all, recordingsDir: recordingsDir, excluding: valNames)
    // The test set is never selected on (issue 35 item 3): tune promote reads it once.
    if let t = (names + valNames).first(where: TuneTestSet.isTest) {
      throw .badInput("\(recordingsDir)/\(t).jprec is in the test set (test-*), which no study fits or validates on: tune promote reads it once (docs/TUNING.md, \"The test set\"); narrow --corpus or --validation")
    }
    if let both = names.first(where: valNames.contains) {
      throw .badInput("\(recordingsDir)/\(both).jprec is in both the fit corpus and the validation corpus: validation judges trials on recordings they were not fitted on (narrow --corpus or --validation)")
    }
    // One bound on the observation tapes of every corpus and draw of the study.
    let budget = ObservationBudget(ScoreLimits.observationsMax)
    var runner = TuneRunner(
      space: space, sampler: s, trials: count, shard: (index, of), jobs: max(1, jobs), baseSpec: specJSON,
      evaluator: try evaluator(names, recordingsDir: recordingsDir, draws: draws, budget: budget),
      validator: valNames.isEmpty ? nil : try evaluator(valNames, recordingsDir: recordingsDir, draws: draws, budget: budget))
    runner.draws = draws
    runner.specName = specFile
    runner.spaceName = spacePath
    var setup = TuneSetup(runner: runner, specSHA: doc.sha256, corpusNames: names, validationNames: valNames)
    setup.recordingHashes = try hashes(of: names + valNames, recordingsDir: recordingsDir)
    return setup
  }

  /// The settings that identify the study, the recordings' hashes among them.
  package var studyMeta: [(String, String)] {
    runner.studyMeta(specSHA256: specSHA, corpus: corpusNames, validation: validationNames)
      + [(TuneStudy.recordingsKey, recordingHashes)]
  }

  /// See ``recordingHashes``.
  static func hashes(of names: [String], recordingsDir: String) throws(HarnessFailure) -> String {
    var lines: [String] = []
    for name in names {
      lines.append("\(name).jprec \(try fileSHA256("\(recordingsDir)/\(name).jprec"))")
      let scenario = "\(recordingsDir)/\(name).scenario.yaml"
      if FileManager.default.fileExists(atPath: scenario) { lines.append("\(name).scenario.yaml \(try fileSHA256(scenario))") }
    }
    return lines.sorted().joined(separator: "\n")
  }

  /// The SHA-256 (hex) of the regular file at `path`, read in 64 KiB pieces.
  static func fileSHA256(_ path: String) throws(HarnessFailure) -> String {
    do { try InputFile.checkRegular(path, what: "recording") } catch { throw .badInput(error.description) }
    guard let handle = FileHandle(forReadingAtPath: path) else { throw .badInput("\(path): cannot open for reading") }
    defer { try? handle.close() }
    var hasher = SHA256.Hasher()
    do {
      while let piece = try handle.read(upToCount: 1 << 16), !piece.isEmpty { hasher.update(piece) }
    } catch { throw .badInput("\(path): cannot read (\(SystemReason.of(error)))") }
    return hasher.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }

  /// A scorer of `names`, decoded once, for one thread per trial: with `draws` K > 1, the
  /// corpus drawn K times in memory (``SeedDraws``), a trial scored on all K (``SeededScorer``).
  /// Replays per trial: K × the recordings (and as many again on a validation corpus).
  static func evaluator(
    _ names: [String], recordingsDir: String, draws: Int, budget: ObservationBudget? = nil
  ) throws(HarnessFailure) -> any TrialEvaluator & Sendable {
    guard draws > 1 else { return try scorer(names, recordingsDir: recordingsDir, budget: budget) }
    var scorers: [CorpusScorer] = []
    for k in 0..<draws { scorers.append(try scorer(names, recordingsDir: recordingsDir, draw: k, budget: budget)) }
    return SeededScorer(draws: scorers)
  }

  /// A scorer of `names` (draw `draw` of each, ``SeedDraws``), decoded once, for one thread per trial.
  /// `memoize`: remember pixel reads and cue observations across scores (false for a corpus
  /// scored once).
  /// `scope`: whether the trials replay the committed configuration (`Expectations.judge`;
  /// a study's trials are judged as `.other`, whatever their values).
  /// `budget`: the study's bound on observation tapes (nil: this corpus's own).
  static func scorer(
    _ names: [String], recordingsDir: String, draw: Int = 0, memoize: Bool = true, scope: MarkerScope = .other,
    budget: ObservationBudget? = nil
  ) throws(HarnessFailure) -> CorpusScorer {
    // Trials run in parallel (--jobs); each one replays its recordings on one thread.
    // Every trial replays the same events: their pixel reads are remembered (LumaReadMemo), and
    // their cue observations for trials of the same observation key (ObservationTape).
    var scorer = try CorpusScorer(paths: names.map { "\(recordingsDir)/\($0).jprec" }, draw: draw)
    if memoize {
      scorer = scorer.memoizingLumaReads().memoizingObservations(budget: budget ?? ObservationBudget(ScoreLimits.observationsMax))
    }
    scorer.jobs = 1
    // The scenarios' expect: rules are hard constraints (objective expectation_failures).
    do { scorer.expectations = try ScenarioCorpus.preloadedExpectations(recordingsDir: recordingsDir, names: names, scope: scope) } catch {
      throw .badInput(error.description)
    }
    return scorer
  }

  static func trialCount(kind: TuneSamplerKind, sampler: TuneSampler, requested: Int?, space: TuneSpace) throws(HarnessFailure) -> Int {
    if let requested { guard requested >= 1, requested <= TuneLimits.trialsMax else { throw .badInput("--trials: expected 1…\(TuneLimits.trialsMax)") } }
    guard kind == .grid else { return requested ?? 100 }
    guard let raw = sampler.gridSize else {
      let p = space.parameters.first { $0.domain.count == nil }
      throw .badInput("\(space.file):\(p?.line ?? 0): \(p?.path ?? "a parameter"): the grid sampler needs a finite domain ({min, max, step} or a list), or the grid is larger than \(Int.max)")
    }
    // With `when:` conditions, combinations that differ only in inactive parameters are one point.
    guard let size = sampler.distinctPoints else {
      throw .badInput("\(space.file): the grid has \(raw) combinations, more than trialsMax = \(TuneLimits.trialsMax); narrow a domain or use the random or tpe sampler")
    }
    // Never cut a grid silently (issue 23.5): too large to run is refused; a --trials under
    // the grid's size runs its first points, and the space's warnings say so.
    guard size <= TuneLimits.trialsMax else {
      throw .badInput("\(space.file): the grid has \(size) points, more than trialsMax = \(TuneLimits.trialsMax); narrow a domain or use the random or tpe sampler")
    }
    return min(requested ?? size, size)
  }

  /// A note when a grid study runs fewer trials than its grid has points.
  static func gridNote(kind: TuneSamplerKind, sampler: TuneSampler, count: Int) -> String? {
    guard kind == .grid, let size = sampler.distinctPoints, count < size else { return nil }
    return "--trials \(count) runs the first \(count) of the grid's \(size) points (mixed radix order); the rest are not tried"
  }

  /// `i/n` with 1 ≤ i ≤ n (as `verify --shard`) → (i - 1, n): shard i runs the trials whose
  /// index mod n is i - 1.
  package static func parseShard(_ text: String) throws(HarnessFailure) -> (Int, Int) {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 100_000, i >= 1, i <= n else {
      throw .badInput("--shard '\(text)': expected i/n with 1 ≤ i ≤ n, e.g. 1/4")
    }
    return (i - 1, n)
  }

  static func recordingNames(_ recordingsDir: String) throws(HarnessFailure) -> [String] {
    let store = GoldenStore(
      recordingsDir: URL(fileURLWithPath: recordingsDir, isDirectory: true), goldenDir: URL(fileURLWithPath: "Golden", isDirectory: true))
    do { return try store.recordingNames() } catch { throw .badInput("\(recordingsDir): cannot list recordings (\(error))") }
  }

  /// The names selected by `patterns` (default `tune-*`, else every recording not in
  /// `excluding`, the validation corpus), sorted.
  static func corpusNames(_ patterns: [String], all: [String], recordingsDir: String, excluding: [String]) throws(HarnessFailure) -> [String] {
    if patterns.isEmpty {
      let tune = all.filter { $0.hasPrefix("tune-") }
      let rest = all.filter { !excluding.contains($0) && !TuneTestSet.isTest($0) }
      guard rest.count > 0 else { throw .badInput("\(recordingsDir): no recordings") }
      return tune.isEmpty ? rest : tune
    }
    return try select(patterns, all: all, what: { "--corpus '\($0)'" }, recordingsDir: recordingsDir)
  }

  /// The validation names: `--validation` globs, none with `--no-validation` or `validation:
  /// none`, the space file's globs, else the `val-*` recordings (none when there are none).
  static func validationNames(cli: [String], none: Bool, space: TuneSpace, all: [String], recordingsDir: String) throws(HarnessFailure) -> [String] {
    guard cli.isEmpty || !none else { throw .badInput("--validation and --no-validation: give one of them") }
    if none { return [] }
    if !cli.isEmpty { return try select(cli, all: all, what: { "--validation '\($0)'" }, recordingsDir: recordingsDir) }
    guard let globs = space.validation else { return all.filter { $0.hasPrefix("val-") }.sorted() }
    let at = space.validationPlace ?? space.file
    return try select(globs, all: all, what: { "\(at): validation: '\($0)'" }, recordingsDir: recordingsDir)
  }

  /// The recordings matched by `patterns`, sorted; a pattern matching none is exit 2.
  static func select(_ patterns: [String], all: [String], what: (String) -> String, recordingsDir: String) throws(HarnessFailure) -> [String] {
    var out: [String] = []
    for p in patterns {
      let hits = all.filter { GoldenStore.glob(p, matches: $0) }
      guard !hits.isEmpty else { throw .badInput("\(what(p)): matches no recording in \(recordingsDir)/") }
      for h in hits where !out.contains(h) { out.append(h) }
    }
    return out.sorted()
  }
}

extension TuneSetup {
  /// Whether `specText` with engine `options` is the configuration the corpus is committed with
  /// — the `known:` markers' own (`.recorded`: the committed spec's bytes, every option at its
  /// default) — or another (`.other`), for `Expectations.judge`.
  package static func markerScope(specText: String, committedText: String, options: [(name: String, value: String)]) -> MarkerScope {
    guard specText == committedText else { return .other }
    var set = EngineOptions()
    for o in options {
      do { try set.set(o.name, o.value) } catch { return .other }
    }
    return set == EngineOptions() ? .recorded : .other
  }

  /// `markerScope` against the repository's spec (`Harness.defaultSpecPath` in the folder the
  /// command runs in); `.other` when there is none to read.
  package static func markerScope(specText: String, options: [(name: String, value: String)]) -> MarkerScope {
    guard let bytes = try? Harness.readSpecBytes(path: Harness.defaultSpecPath) else { return .other }
    return markerScope(specText: specText, committedText: String(decoding: bytes, as: UTF8.self), options: options)
  }
}
