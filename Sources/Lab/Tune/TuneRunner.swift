import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import JustPhotoPlugin
import PoseSpec
import Replay

/// Progress of a run, reported after each finished trial.
package struct TuneProgress: Sendable {
  package var finished: Int
  package var total: Int
  package var infeasible: Int
  package var best: (index: Int, value: Double)?
}

/// Runs the trials of one study (or one shard of it): proposes values, applies them to the
/// PoseSpec and engine options, evaluates, checks the constraints, stores each chunk.
package struct TuneRunner: Sendable {
  package var space: TuneSpace
  package var sampler: TuneSampler
  package var trials: Int
  package var shard: (index: Int, count: Int)
  package var jobs: Int
  package var baseSpec: JSONValue
  package var evaluator: any TrialEvaluator & Sendable
  /// Scores each trial on the validation corpus too (objectives stored as `val.KEY`); the
  /// sampler and the constraints never read them.
  package var validator: (any TrialEvaluator & Sendable)?
  /// The base spec's file and the space's file, as the user named them: a trial that fails
  /// names them with its values (`PoseSpec.json with a=1 (space.yaml:3)`).
  package var specName = "the spec"
  package var spaceName = "the space"
  /// Detector draws per recording (``SeedDraws``) the evaluators score each trial on; the
  /// study records it and ``SeedDraws/derivation`` (a rerun with another count is refused).
  package var draws = 1

  /// The prefix of validation objectives in a trial's objectives.
  package static let validationPrefix = "val."

  package init(
    space: TuneSpace, sampler: TuneSampler, trials: Int, shard: (index: Int, count: Int) = (0, 1), jobs: Int,
    baseSpec: JSONValue, evaluator: any TrialEvaluator & Sendable, validator: (any TrialEvaluator & Sendable)? = nil
  ) {
    self.space = space
    self.sampler = sampler
    self.trials = trials
    self.shard = shard
    self.jobs = jobs
    self.baseSpec = baseSpec
    self.evaluator = evaluator
    self.validator = validator
  }

  /// The settings that identify the study (``TuneStudy/identityKeys``).
  /// `validation`: the validation recordings' names (empty: none).
  package func studyMeta(specSHA256: String, corpus: [String], validation: [String] = []) -> [(String, String)] {
    [
      ("format", TuneStudy.format), ("space_sha256", SHA256.hex(Array(space.text.utf8))), ("space_file", space.file),
      ("space_text", space.text), ("sampler", sampler.kind.rawValue), ("seed", String(sampler.seed)),
      ("trials", String(trials)), ("objective", sampler.objective), ("tpe_batch", String(sampler.tpeBatch)),
      ("constraints", space.constraints.map { "\($0.name)<=\(JSONWriter.shortest($0.max))" }.joined(separator: ",")),
      ("spec_sha256", specSHA256), ("corpus", corpus.joined(separator: "\n")),
      ("parameters", space.parameters.map(\.path).joined(separator: "\n")),
      ("validation", validation.joined(separator: "\n")),
      ("generalise", space.generalise.map { "\($0.name)<=\(JSONWriter.shortest($0.max))" }.joined(separator: ",")),
      ("tolerate", space.tolerate.map { "\($0.name)<=\(JSONWriter.shortest($0.max))" }.joined(separator: ",")),
      ("draws", String(draws)), ("seed_derivation", SeedDraws.derivation),
    ]
  }

  /// The trial indices of this shard: i with i mod count = index.
  package var indices: [Int] { Array(stride(from: shard.index, to: trials, by: shard.count)) }

  /// Runs every trial of this shard not yet in `study`. Returns the number run now.
  @discardableResult
  package func run(study: TuneStudy, progress: (@Sendable (TuneProgress) -> Void)? = nil) throws(HarnessFailure) -> Int {
    try runStudy(study: study, progress: progress).ran
  }

  /// What ``runStudy(study:progress:)`` did.
  package struct Outcome: Sendable {
    /// Trials run now.
    package var ran: Int
    /// Trials of this shard already in the study.
    package var before: Int
    /// Set when the space ran out of untried points: the trials from `exhausted.index` on are
    /// not run (by any shard: the point sequence is the same everywhere).
    package var exhausted: TuneExhaustion?
  }

  /// Runs every trial of this shard not yet in `study`, up to the first index the sampler
  /// cannot give an untried point (the study then stops early: ``Outcome/exhausted``).
  package func runStudy(study: TuneStudy, progress: (@Sendable (TuneProgress) -> Void)? = nil) throws(HarnessFailure) -> Outcome {
    try recordShipped(study: study)
    var finished = try study.trials()
    let done = Set(finished.map(\.index))
    var pending = indices.filter { !done.contains($0) }
    let before = indices.count - pending.count
    var exhausted: TuneExhaustion?
    // Grid and random points never read results: the whole sequence (the same on every shard).
    var known: [[TuneValue]] = []
    if !sampler.isModelBased {
      let s = sampler.sequence(count: trials)
      known = s.points
      if let e = s.exhausted, e.index < trials {
        exhausted = e
        pending = pending.filter { $0 < e.index }
      }
    }
    let chunk = sampler.isModelBased ? sampler.tpeBatch : max(16, jobs * 8)
    let counter = Counter(total: indices.count, finished: before, objective: sampler.objective, seed: finished)
    var ran = 0
    var start = 0
    while start < pending.count {
      // A chunk never crosses a batch boundary, so its history is complete.
      var end = min(pending.count, start + chunk)
      var items: [(Int, [TuneValue])]
      if sampler.isModelBased {
        let batch = pending[start] / sampler.tpeBatch
        while end > start + 1, pending[end - 1] / sampler.tpeBatch != batch { end -= 1 }
        let first = batch * sampler.tpeBatch
        let points = first == 0 ? sampler.sequence(count: min(sampler.tpeBatch, trials)) : sampler.batch(containing: first, history: finished)
        items = []
        for i in pending[start..<end] {
          guard i - first < points.points.count else {
            if let e = points.exhausted { exhausted = e }
            break
          }
          items.append((i, points.points[i - first]))
        }
      } else {
        items = pending[start..<end].map { ($0, known[$0]) }
      }
      let results = ParallelMap.run(items, jobs: jobs) { item in evaluate(item.0, item.1) } finished: { _, _, r in
        if let p = counter.add(r) { progress?(p) }
      }
      try study.record(results)
      finished += results
      ran += results.count
      // A grid or random study's exhaustion is known up front (`pending` stops there); a
      // model-based batch that ran out ends the study here.
      if sampler.isModelBased, exhausted != nil { break }
      start = end
    }
    return Outcome(ran: ran, before: before, exhausted: exhausted)
  }

  /// One trial: the edited spec and options, the evaluator's objectives, the constraints.
  package func evaluate(_ index: Int, _ values: [TuneValue]) -> TrialResult {
    var spec = baseSpec
    var options = EngineOptions()
    for (p, v) in zip(space.parameters, values) where v != .inactive {
      switch p.target {
      case .spec(let places): for place in places { spec = TuneTarget.write(v, at: place, in: spec) }
      case .option(let name):
        // An option the engine refuses is the trial's failure, never a silent default.
        do { try options.set(name, v.description) } catch {
          return TrialResult(
            index: index, values: values, status: .infeasible, objectives: [:],
            reason: "invalid option (\(spaceName):\(p.line)): \(error.description)")
        }
      }
    }
    // What the trial ran: the base spec's file and the space's values, so a failure names them.
    let assignments = zip(space.parameters, values).filter { $0.1 != .inactive }.map { "\($0.path)=\($1.description)" }.joined(separator: ", ")
    let what = "\(specName) with \(assignments) (\(spaceName))"
    // The fit and validation corpora share one validation and compilation of the spec.
    let trial = PreparedTrial(specJSON: spec, options: options)
    var objectives: [String: Double]
    do { objectives = try evaluator.objectives(trial: trial) } catch let e as HarnessFailure where e.code == 2 {
      return TrialResult(
        index: index, values: values, status: .infeasible, objectives: [:], reason: "invalid spec or options: \(what): \(e.message)")
    } catch {
      let message = (error as? HarnessFailure)?.message ?? "\(error)"
      return TrialResult(index: index, values: values, status: .failed, objectives: [:], reason: "\(what): \(message)")
    }
    var notes: [String] = []
    if let validator {
      do {
        for (k, v) in try validator.objectives(trial: trial) { objectives[Self.validationPrefix + k] = v }
      } catch { notes.append("validation failed: \(what): \((error as? HarnessFailure)?.message ?? "\(error)")") }
    }
    var broken: [String] = []
    for c in space.constraints {
      if let v = objectives[c.name], v > c.max { broken.append("\(c.name) \(JSONWriter.shortest(v)) > \(JSONWriter.shortest(c.max))") }
    }
    let reasons = broken + notes
    return TrialResult(
      index: index, values: values, status: broken.isEmpty ? .ok : .infeasible, objectives: objectives,
      reason: reasons.isEmpty ? nil : reasons.joined(separator: "; "))
  }

  /// The unmodified base spec and default options on the fit corpus and (as `val.KEY`) the
  /// validation corpus: the row every trial is compared with.
  package func shippedObjectives() throws(HarnessFailure) -> [String: Double] {
    var out: [String: Double]
    do {
      let shipped = PreparedTrial(specJSON: baseSpec, options: EngineOptions())
      out = try evaluator.objectives(trial: shipped)
      if let validator {
        for (k, v) in try validator.objectives(trial: shipped) { out[Self.validationPrefix + k] = v }
      }
    } catch let e as HarnessFailure { throw e } catch {
      throw .badInput("the shipped spec: \(error)")
    }
    return out
  }

  /// Stores ``shippedObjectives()`` in `study` (key `shipped_objectives`) unless it is there.
  package func recordShipped(study: TuneStudy) throws(HarnessFailure) {
    guard try study.meta()[TuneStudy.shippedKey] == nil else { return }
    try study.setMeta(TuneStudy.shippedKey, TuneStudy.objectivesJSON(try shippedObjectives()))
  }
}

/// Thread-safe progress counts.
final class Counter: @unchecked Sendable {
  let lock = NSLock()
  var progress: TuneProgress
  let objective: String

  init(total: Int, finished: Int, objective: String, seed: [TrialResult]) {
    self.objective = objective
    progress = TuneProgress(finished: finished, total: total, infeasible: 0, best: nil)
    for r in seed { _ = note(r) }
  }

  func add(_ r: TrialResult) -> TuneProgress? {
    lock.lock()
    defer { lock.unlock() }
    progress.finished += 1
    return note(r)
  }

  func note(_ r: TrialResult) -> TuneProgress {
    if r.status != .ok { progress.infeasible += 1 }
    if r.status == .ok, let v = r.objectives[objective], v < (progress.best?.value ?? .infinity) {
      progress.best = (r.index, v)
    }
    return progress
  }
}
