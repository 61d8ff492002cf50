import CanonicalJSON
import Foundation
import Recording
import JustPhotoPlugin
import JustPhotoScenarios
import Verify
import Yams

/// A study recipe (issue 35 item 1): everything that makes a committed tuned configuration —
/// the space, the spec it starts from, the corpora, the sampler, its seed and trial count, the
/// trial promoted — and the SHA-256 of the files it makes, so `jpreplay tune rebuild RECIPE`
/// rebuilds them byte for byte and a test can see that the committed files are the recipe's.
///
/// ```yaml
/// space: docs/tune-space.filter.yaml   # required; paths are relative to the current folder
/// spec: PoseSpec.json                  # default PoseSpec.json
/// recordings_dir: Recordings           # default Recordings
/// corpus: ["tune-*"]                   # required: the fit corpus (names or globs)
/// validation: ["val-*"]                # required: globs, or none
/// sampler: tpe                         # required: grid | random | tpe | nsga2
/// seed: 7                              # required
/// trials: 400                          # required
/// tpe_batch: 32                        # default 32
/// trial: 288                           # required: the trial promoted into the recipe's folder
/// known_misses: 0                      # optional: the most known misses the rebuild may show
/// outputs:                             # required: the SHA-256 of each file made
///   PoseSpec.json: 9f…
///   options.txt: 3a…
/// ```
///
/// The outputs go to the recipe's own folder (docs/tuned for docs/tuned/recipe.yaml).
package struct TuneRecipe: Sendable, Equatable {
  package var file: String
  package var space: String
  package var spec = "PoseSpec.json"
  package var recordingsDir = "Recordings"
  package var corpus: [String] = []
  /// Empty: `validation: none`.
  package var validation: [String] = []
  package var sampler: String
  package var seed: UInt64
  package var trials: Int
  package var tpeBatch = 32
  /// Detector draws of every recording with a scenario (``SeedDraws``): the study scores each
  /// trial on all of them (`tune run --seeds`), and every `expect:` rule of the fit, validation
  /// and test recordings must hold on each (issue 35 item 2: a rule that holds on one draw is a
  /// rule about one draw).
  package var seeds = 1
  package var trial: Int
  /// `known_misses: N`: the most rule misses excused by `known:` markers (docs/SCENARIOS.md) the
  /// rebuilt configuration may show over every draw (nil: any). A marker records the shipped
  /// engine's miss; `known_misses: 0` asks the answer to meet every rule itself.
  package var knownMisses: Int?
  /// The configurations `tune rebuild --table` reads on the test set: a label and a trial of
  /// the study each, in the file's order (empty: the promoted trial alone).
  package var ablation: [(label: String, trial: Int)] = []
  /// File name (in the recipe's folder) → SHA-256 hex, in the file's order.
  package var outputs: [(name: String, sha256: String)]

  package static func == (a: TuneRecipe, b: TuneRecipe) -> Bool {
    a.file == b.file && a.space == b.space && a.spec == b.spec && a.recordingsDir == b.recordingsDir && a.corpus == b.corpus
      && a.validation == b.validation && a.sampler == b.sampler && a.seed == b.seed && a.trials == b.trials
      && a.tpeBatch == b.tpeBatch && a.seeds == b.seeds && a.trial == b.trial && a.knownMisses == b.knownMisses && a.ablation.map(\.label) == b.ablation.map(\.label)
      && a.ablation.map(\.trial) == b.ablation.map(\.trial) && a.outputs.map(\.name) == b.outputs.map(\.name)
      && a.outputs.map(\.sha256) == b.outputs.map(\.sha256)
  }

  /// The known misses of a rebuilt configuration that its `known_misses:` budget does not
  /// allow, each a problem line (empty: within the budget, or no budget).
  package func knownMissProblems(_ known: [String]) -> [String] {
    guard let budget = knownMisses, known.count > budget else { return [] }
    return known.map { "known miss past the recipe's known_misses: \(budget): \($0)" }
  }

  /// The largest `known_misses:` budget a recipe may name.
  package static let knownMissesMax = 1_000_000

  /// The files a recipe makes (`tune promote --to`).
  package static let outputNames = ["PoseSpec.json", "options.txt"]
  package static let keys = [
    "space", "spec", "recordings_dir", "corpus", "validation", "sampler", "seed", "trials", "tpe_batch", "seeds", "trial", "known_misses", "ablation", "outputs",
  ]
  static let required = ["space", "corpus", "validation", "sampler", "seed", "trials", "trial", "outputs"]
  /// The largest recipe file.
  package static let bytesMax = 64 * 1024
  /// The most globs of `corpus` or `validation`.
  package static let globsMax = 256
  /// The most rows of `ablation`, and the longest label (bytes).
  package static let ablationRowsMax = 16
  package static let ablationLabelBytesMax = 80

  /// The folder the outputs go to: the recipe's.
  package var folder: String { Paths.parent(file) }

  /// The `tune run` words of the recipe's study (without `--study` and `--jobs`).
  package var runArguments: [String] {
    var a = [space, "--spec", spec, "--sampler", sampler, "--seed", String(seed), "--trials", String(trials), "--tpe-batch", String(tpeBatch)]
    a += ["--recordings-dir", recordingsDir]
    if seeds > 1 { a += ["--seeds", String(seeds)] }
    for c in corpus { a += ["--corpus", c] }
    if validation.isEmpty { a.append("--no-validation") } else { for v in validation { a += ["--validation", v] } }
    return a
  }

  package static func read(_ path: String) throws(HarnessFailure) -> TuneRecipe {
    let bytes: [UInt8]
    do { bytes = try InputFile.read(path, what: "study recipe", bytesMax: bytesMax, bound: "TuneRecipe.bytesMax") } catch {
      throw .badInput(error.description)
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { throw .badInput("\(path): not UTF-8 text; a recipe is a YAML file") }
    return try parse(text: text, file: path)
  }

  package static func parse(text: String, file: String) throws(HarnessFailure) -> TuneRecipe {
    let root: Node
    do {
      guard let r = try Yams.compose(yaml: text) else { throw HarnessFailure.badInput("\(file): empty recipe; expected the keys \(required.joined(separator: ", "))") }
      root = r
    } catch let e as HarnessFailure { throw e } catch {
      throw .badInput("\(file): YAML syntax: \(Excerpt.short("\(error)"))")
    }
    let at = { (n: Node) in TuneSpace.place(file, n) }
    guard case .mapping(let members) = root else { throw .badInput("\(at(root)): expected a mapping (\(keys.joined(separator: ", "))), found \(TuneSpace.kind(root))") }
    var seen: [String: Node] = [:]
    for (k, v) in members {
      guard case .scalar(let ks) = k, keys.contains(ks.string) else {
        throw .badInput("\(at(k)): unknown recipe key \(Excerpt.short(k.scalar?.string ?? TuneSpace.kind(k))); expected one of: \(keys.joined(separator: ", "))")
      }
      seen[ks.string] = v
    }
    for k in required where seen[k] == nil { throw .badInput("\(file): missing key \"\(k)\"") }
    func string(_ k: String) throws(HarnessFailure) -> String? {
      guard let n = seen[k] else { return nil }
      guard let s = n.scalar?.string, !s.isEmpty else { throw .badInput("\(at(n)): \(k): expected a path or a word, found \(TuneSpace.kind(n))") }
      return s
    }
    func int(_ k: String, _ range: ClosedRange<Int>) throws(HarnessFailure) -> Int? {
      guard let n = seen[k] else { return nil }
      guard let s = n.scalar?.string, let v = Int(s), range.contains(v) else {
        throw .badInput("\(at(n)): \(k): expected an integer \(range.lowerBound)…\(range.upperBound), found \(Excerpt.short(n.scalar?.string ?? TuneSpace.kind(n)))")
      }
      return v
    }
    func globs(_ k: String) throws(HarnessFailure) -> [String] {
      guard let n = seen[k] else { return [] }
      if k == "validation", n.scalar?.string == "none" { return [] }
      guard case .sequence(let seq) = n, !seq.isEmpty, seq.count <= globsMax else {
        throw .badInput("\(at(n)): \(k): expected a list of 1…\(globsMax) recording names or globs\(k == "validation" ? ", or none" : "")")
      }
      var out: [String] = []
      for item in seq {
        guard let s = item.scalar?.string, !s.isEmpty else { throw .badInput("\(at(item)): \(k): expected a name or a glob") }
        out.append(s)
      }
      return out
    }
    var r = TuneRecipe(
      file: file, space: try string("space")!, sampler: try string("sampler")!,
      seed: UInt64(try int("seed", 0...Int.max)!), trials: try int("trials", 1...TuneLimits.trialsMax)!,
      trial: try int("trial", 0...TuneLimits.trialsMax)!, outputs: [])
    if let s = try string("spec") { r.spec = s }
    if let s = try string("recordings_dir") { r.recordingsDir = s }
    if let b = try int("tpe_batch", 1...10_000) { r.tpeBatch = b }
    if let k = try int("seeds", 1...SeedDraws.drawsMax) { r.seeds = k }
    if let n = try int("known_misses", 0...TuneRecipe.knownMissesMax) { r.knownMisses = n }
    r.corpus = try globs("corpus")
    r.validation = try globs("validation")
    guard r.trial < r.trials, let trialNode = seen["trial"] else {
      throw .badInput("\(at(seen["trial"]!)): trial: #\(r.trial) is not one of the study's \(r.trials) trials (0…\(r.trials - 1))")
    }
    _ = trialNode
    if let ab = seen["ablation"] { try parseAblation(ab, into: &r, at: at) }
    try parseOutputs(seen["outputs"]!, into: &r, at: at)
    return r
  }

  /// Reads `ablation:` (label → trial number of the study) into `r.ablation`.
  static func parseAblation(_ ab: Node, into r: inout TuneRecipe, at: (Node) -> String) throws(HarnessFailure) {
    guard case .mapping(let rows) = ab, !rows.isEmpty, rows.count <= ablationRowsMax else {
      throw .badInput("\(at(ab)): ablation: expected a mapping of 1…\(ablationRowsMax) labels (TuneRecipe.ablationRowsMax) to trial numbers")
    }
    for (k, v) in rows {
      guard let label = k.scalar?.string, !label.isEmpty, label.utf8.count <= ablationLabelBytesMax,
        !label.contains(where: { $0 == "|" || $0.isNewline }), !r.ablation.contains(where: { $0.label == label })
      else {
        throw .badInput("\(at(k)): ablation: expected a label of 1…\(ablationLabelBytesMax) bytes (TuneRecipe.ablationLabelBytesMax), no '|', each once")
      }
      guard let t = v.scalar.flatMap({ Int($0.string) }), t >= 0, t < r.trials else {
        throw .badInput("\(at(v)): ablation: \(label): expected a trial of the study (0…\(r.trials - 1)), found \(Excerpt.short(v.scalar?.string ?? TuneSpace.kind(v)))")
      }
      r.ablation.append((label, t))
    }
  }

  /// Reads `outputs:` (each output file → its SHA-256) into `r.outputs`.
  static func parseOutputs(_ outputs: Node, into r: inout TuneRecipe, at: (Node) -> String) throws(HarnessFailure) {
    guard case .mapping(let om) = outputs else { throw .badInput("\(at(outputs)): outputs: expected a mapping of \(outputNames.joined(separator: ", ")) to SHA-256") }
    for (k, v) in om {
      guard let name = k.scalar?.string, outputNames.contains(name), !r.outputs.contains(where: { $0.name == name }) else {
        throw .badInput("\(at(k)): outputs: expected each of \(outputNames.joined(separator: ", ")) once, found \(Excerpt.short(k.scalar?.string ?? TuneSpace.kind(k)))")
      }
      guard let h = v.scalar?.string, h.count == 64, h.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
        throw .badInput("\(at(v)): outputs: \(name): expected a SHA-256 (64 lowercase hex digits)")
      }
      r.outputs.append((name, h))
    }
    for n in outputNames where !r.outputs.contains(where: { $0.name == n }) {
      throw .badInput("\(at(outputs)): outputs: missing \(n)")
    }
  }

  /// The SHA-256 (hex) of `bytes`.
  package static func sha256(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }

  /// The declared outputs that differ from the files in `folder` (name, declared, found; found
  /// "missing" when there is no file).
  package func outputMismatches(in folder: String) -> [(name: String, declared: String, found: String)] {
    var out: [(String, String, String)] = []
    for o in outputs {
      let path = Paths.join(folder, o.name)
      guard let data = FileManager.default.contents(atPath: path) else {
        out.append((o.name, o.sha256, "missing"))
        continue
      }
      let found = Self.sha256(Array(data))
      if found != o.sha256 { out.append((o.name, o.sha256, found)) }
    }
    return out
  }
}

/// The rule check of a tuned configuration (issue 35 item 1): every `expect:` rule of the fit,
/// validation and test recordings must hold with it, or it cannot be committed. `tune rebuild`
/// runs it on what it made; a test runs it on docs/tuned.
package enum TuneRecipeRules {
  /// The fit, validation and test recordings of `recipe` (its globs; the test set: every
  /// `test-*` recording), in that order.
  package static func recordings(_ recipe: TuneRecipe) throws(HarnessFailure) -> [String] {
    let all = try TuneSetup.recordingNames(recipe.recordingsDir)
    let what = { (p: String) in "\(recipe.file): '\(p)'" }
    let fit = try TuneSetup.select(recipe.corpus, all: all, what: what, recordingsDir: recipe.recordingsDir)
    let val = recipe.validation.isEmpty ? [] : try TuneSetup.select(recipe.validation, all: all, what: what, recordingsDir: recipe.recordingsDir)
    let test = try TuneTestSet.names(recordingsDir: recipe.recordingsDir)
    var out: [String] = []
    for n in fit + val + test where !out.contains(n) { out.append(n) }
    return out
  }

  /// The rules broken by `folder`/PoseSpec.json with `folder`/options.txt on the recipe's
  /// recordings, on every one of its `seeds` draws (``SeedDraws``: draw 0 is the committed
  /// recording), as `recording: rule` lines, each naming the draws it fails on when the recipe
  /// has more than one (empty: every rule holds on every draw).
  package static func broken(recipe: TuneRecipe, folder: String, jobs: Int = 1) throws(HarnessFailure) -> [String] {
    try judge(recipe: recipe, folder: folder, jobs: jobs).broken
  }

  /// `broken`, and the known misses (rules missing on draws their `known:` marker names:
  /// reported, not broken), as `recording: rule (…): known miss (why): misses on draws …`.
  package static func judge(recipe: TuneRecipe, folder: String, jobs: Int = 1) throws(HarnessFailure) -> (broken: [String], known: [String]) {
    let specPath = Paths.join(folder, "PoseSpec.json")
    let text = String(decoding: try Harness.readSpecBytes(path: specPath), as: UTF8.self)
    let options = try SpecOptionsFile.options(forSpec: specPath)
    let names = try recordings(recipe)
    let spec = try Harness.validateSpec(bytes: Array(text.utf8), path: specPath)
    let committedText = String(decoding: try Harness.readSpecBytes(path: recipe.spec), as: UTF8.self)
    let scope = TuneSetup.markerScope(specText: text, committedText: committedText, options: options)
    // A tuned configuration other than the committed one is judged as `.other`; the markers'
    // own draws are then checked on the committed configuration too (strictly), so a marker
    // cannot go stale because docs/tuned moved away from it.
    let committed = scope == .recorded ? nil : try Harness.validateSpec(bytes: Array(committedText.utf8), path: recipe.spec)
    var strict: ExpectationChecker?
    if committed != nil {
      do { strict = try ScenarioCorpus.preloadedExpectations(recordingsDir: recipe.recordingsDir, names: names, scope: .recorded) } catch {
        throw .badInput(error.description)
      }
    }
    var scores: [CorpusScore] = []
    var committedScores: [CorpusScore] = []
    for k in 0..<recipe.seeds {
      var scorer = try TuneSetup.scorer(names, recordingsDir: recipe.recordingsDir, draw: k, memoize: false, scope: scope)
      scorer.jobs = max(1, jobs)
      scores.append(try scorer.score(spec: spec, overrides: options))
      if let committed {
        scorer.expectations = strict
        committedScores.append(try scorer.score(spec: committed, overrides: []))
      }
    }
    let all = DrawsScore(draws: scores)
    let markers = DrawsScore(draws: committedScores).ruleFailures.map {
      "\($0.recording): \($0.rule): not met by the committed configuration (\(recipe.spec), default options)\(draws($0.draws))"
    }
    func draws(_ d: [Int]) -> String {
      guard recipe.seeds > 1 else { return "" }
      return " on draw\(d.count == 1 ? "" : "s") \(d.map(String.init).joined(separator: ", ")) of \(recipe.seeds)"
    }
    guard recipe.seeds > 1 else {
      // One draw: the failures as the scorer words them (what was seen instead), as before.
      var failures: [String] = []
      for r in scores[0].recordings { failures += r.objectives.expectationFailures.map { "\(r.name): \($0)" } }
      return (failures + markers, all.knownMisses.map { "\($0.recording): \($0.rule): misses\(draws($0.draws))" })
    }
    return (
      all.ruleFailures.map { "\($0.recording): \($0.rule): not met\(draws($0.draws))" } + markers,
      all.knownMisses.map { "\($0.recording): \($0.rule): misses\(draws($0.draws))" }
    )
  }
}
