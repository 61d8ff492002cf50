import Foundation
import JustPhotoPlugin
import Recording

/// `jpreplay bench --tune-trials N`: trials/s of a tune study over the corpus (random sampler,
/// a fresh temporary study), the figure that says whether tuning is interactive.
package enum TuneBench {
  /// The 3-parameter space used when no `--tune-space` is given. Its budget constraint is the
  /// shipped spec's own figure on the tune corpus (7 breaches, docs/TUNING.md): with the
  /// default 0 every trial would be infeasible and the count would say nothing.
  package static let defaultSpace = """
    sampler: random
    seed: 1
    constraints: {budget_violations: 7, expectation_failures: 0}
    cues[*].antiJitter.persistFrames: [2..8]
    cues[*].antiJitter.minHoldMs: {min: 1000, max: 4000, step: 250}
    cues[*].antiJitter.cooldownMs: {min: 200, max: 1600, step: 100}

    """

  package struct Report: Sendable {
    package var trials: Int
    package var recordings: Int
    /// Validation recordings each trial was also scored on (0: none, bench's default).
    package var validationRecordings = 0
    package var jobs: Int
    package var seconds: Double
    package var infeasible: Int
    /// The process's peak resident set size after the run.
    package var peakRSSBytes: Int64 = 0
    package var trialsPerSecond: Double { Double(trials) / max(seconds, 1e-9) }

    package func render() -> String {
      "bench tune: \(trials) trials × \(recordings) recordings"
        + (validationRecordings > 0 ? " + \(validationRecordings) validation" : "")
        + String(
          format: ", %d jobs: %.2f s, %.1f trials/s (%d infeasible), peak RSS %.1f MiB\n",
          jobs, seconds, trialsPerSecond, infeasible, Double(peakRSSBytes) / 1_048_576)
        + BenchTarget.render(targets)
    }

    package var json: String {
      String(
        format: "{\"tune_trials\":%d,\"recordings\":%d,\"jobs\":%d,\"seconds\":%.3f,\"trials_per_second\":%.3f,\"infeasible\":%d,",
        trials, recordings, jobs, seconds, trialsPerSecond, infeasible)
        + (validationRecordings > 0 ? "\"validation_recordings\":\(validationRecordings)," : "")
        + "\"peak_rss_bytes\":\(peakRSSBytes),\"targets\":\(BenchTarget.json(targets))}"
    }
  }

  /// Runs `trials` trials of `spacePath` (or ``defaultSpace``) over `corpus` in a temporary study.
  /// `validation`: score every trial on the validation corpus too (the space file's
  /// `validation:`, else the `val-*` recordings), as `tune run` does by default.
  package static func run(
    trials: Int, spacePath: String?, specPath: String?, corpus: [String], recordingsDir: String, jobs: Int,
    validation: Bool = false, progress: @escaping @Sendable (TuneProgress) -> Void
  ) throws(HarnessFailure) -> Report {
    let dir: URL
    do { dir = try SafeFile.temporaryDirectory("tune-bench") } catch { throw .badInput(error.description) }
    defer { try? FileManager.default.removeItem(at: dir) }
    var space = spacePath
    if space == nil {
      let p = dir.joined("space.yaml").path
      do { try defaultSpace.write(toFile: p, atomically: true, encoding: .utf8) } catch { throw .badInput("\(p): cannot write") }
      space = p
    }
    let setup = try TuneSetup.make(
      spacePath: space!, specPath: specPath, sampler: nil, seed: nil, trials: trials, tpeBatch: 32, shard: "1/1",
      corpus: corpus, noValidation: !validation, recordingsDir: recordingsDir, jobs: jobs)
    let study = try TuneStudy.open(dir.joined("bench.sqlite").path, create: true)
    try study.bind(setup.studyMeta)
    let start = Date()
    try setup.runner.run(study: study, progress: progress)
    let seconds = Date().timeIntervalSince(start)
    let results = try study.trials()
    return Report(
      trials: results.count, recordings: setup.corpusNames.count, validationRecordings: setup.validationNames.count,
      jobs: setup.runner.jobs, seconds: seconds,
      infeasible: results.filter { $0.status != .ok }.count, peakRSSBytes: Bench.peakRSSBytes())
  }
}
