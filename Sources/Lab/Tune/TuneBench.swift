import Foundation
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
    package var jobs: Int
    package var seconds: Double
    package var infeasible: Int
    /// The process's peak resident set size after the run.
    package var peakRSSBytes: Int64 = 0
    package var trialsPerSecond: Double { Double(trials) / max(seconds, 1e-9) }

    package func render() -> String {
      String(
        format: "bench tune: %d trials × %d recordings, %d jobs: %.2f s, %.1f trials/s (%d infeasible), peak RSS %.1f MiB\n",
        trials, recordings, jobs, seconds, trialsPerSecond, infeasible, Double(peakRSSBytes) / 1_048_576)
        + BenchTarget.render(targets)
    }

    package var json: String {
      String(
        format: "{\"tune_trials\":%d,\"recordings\":%d,\"jobs\":%d,\"seconds\":%.3f,\"trials_per_second\":%.3f,\"infeasible\":%d,",
        trials, recordings, jobs, seconds, trialsPerSecond, infeasible)
        + "\"peak_rss_bytes\":\(peakRSSBytes),\"targets\":\(BenchTarget.json(targets))}"
    }
  }

  /// Runs `trials` trials of `spacePath` (or ``defaultSpace``) over `corpus` in a temporary study.
  package static func run(
    trials: Int, spacePath: String?, specPath: String?, corpus: [String], recordingsDir: String, jobs: Int,
    progress: @escaping @Sendable (TuneProgress) -> Void
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
      corpus: corpus, noValidation: true, recordingsDir: recordingsDir, jobs: jobs)
    let study = try TuneStudy.open(dir.joined("bench.sqlite").path, create: true)
    try study.bind(setup.runner.studyMeta(specSHA256: setup.specSHA, corpus: setup.corpusNames))
    let start = Date()
    try setup.runner.run(study: study, progress: progress)
    let seconds = Date().timeIntervalSince(start)
    let results = try study.trials()
    return Report(
      trials: results.count, recordings: setup.corpusNames.count, jobs: setup.runner.jobs, seconds: seconds,
      infeasible: results.filter { $0.status != .ok }.count, peakRSSBytes: Bench.peakRSSBytes())
  }
}
