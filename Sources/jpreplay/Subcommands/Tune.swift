import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab

extension JPReplay {
  /// `jpreplay tune`: a resumable, shardable study of PoseSpec thresholds and engine options.
  struct Tune: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "tune",
      abstract: "Tune PoseSpec thresholds and engine options over a corpus (a resumable, shardable study).",
      discussion: """
        tune run SPACE (the default) replays the corpus in process for each trial and stores \
        the objectives in a SQLite study, with the same objectives on a validation corpus the \
        trials are not fitted on; tune report shows the Pareto front beside the shipped spec \
        and marks the trials that do not generalise; tune promote writes a trial into \
        PoseSpec.json (or a folder: --to) and reads the test set (test-*) once; tune merge joins \
        shards; tune export --optuna writes the study for optuna-dashboard; tune rebuild \
        RECIPE reruns a committed study recipe and rebuilds its files byte for byte \
        (docs/tuned/recipe.yaml). See docs/TUNING.md.

        Examples:
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/s.sqlite --trials 3 --corpus drift-left-and-back --validation s04-frame-left-enter
          jpreplay tune report /tmp/s.sqlite --objectives flicker_per_min,latency_p90_ms
        """,
      subcommands: [Run.self, Report.self, Promote.self, Merge.self, Export.self, Rebuild.self],
      defaultSubcommand: Run.self)
  }
}

extension JPReplay.Tune {
  struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "run",
      abstract: "Run (or continue) a study over a search space file.",
      discussion: """
        SPACE is YAML: PoseSpec paths (cues[*].antiJitter.persistFrames, \
        cues[FRAME_MOVE_*].trigger.noRef.exit, defaults.antiJitter.minHoldMs) or engine \
        options (options.angleFix) mapped to [2..6], a list of values, {min, max, step} or \
        {min, max} (a parameter with when: "PATH == VALUE" is active only when that earlier \
        parameter has that value: {min: 0, max: 30, when: "options.landmarkFilter == oneEuro"}, \
        {values: [a, b], when: ...}); optional keys sampler (grid, random, tpe, nsga2), seed, \
        trials, objective, objectives (nsga2's list), constraints, validation, generalise (see \
        docs/TUNING.md). Trial i's values depend only on the seed and i (TPE and NSGA-II: also \
        on the trials of the batches before i's), so a rerun after kill -9 continues where the study \
        stopped and never reruns a finished trial, and --shard i/n (1 ≤ i ≤ n: the trials whose index mod \
        n is i - 1; each machine its own study file) merged with `tune merge` equals one unsharded run. \
        No point is proposed twice: a repeat (inactive parameters blanked) is drawn again. \
        A trial breaking a constraint (default budget_violations ≤ 0, expectation_failures ≤ \
        0) or giving an invalid spec is infeasible. Each trial is also scored on the \
        validation corpus (--validation, else the space's validation:, else the val-* \
        recordings when any exist; --no-validation for none), which must not share a \
        recording with --corpus; those figures are stored beside the fit ones and never steer \
        the sampler or the constraints. The shipped spec is scored on both once, when the \
        study starts. The study file follows the output rule (a link, a directory or a device \
        is refused) and must be a study: another program's database or any other file is \
        refused, unchanged; a new study is put at its path only once made (its file name at most \
        247 bytes: SQLite's -journal goes beside it). It stores the \
        SHA-256 of each recording (and scenario) its trials read: a rerun or --extend over a \
        changed one is refused naming it (a study made before has none: --adopt-recordings). \
        A run locks its study: a second run on it is refused with the first one's pid. \
        --seeds K scores every trial (and the shipped spec) on K draws of each recording whose \
        scenario is beside it: draw 0 is the committed recording, draw k ≥ 1 its scenario \
        generated in memory with a seed derived from (name, seed, k); each objective is then the \
        mean over the draws (constraints read it: a rule broken on one draw makes the trial \
        infeasible) and each draw's value is kept (KEY@k) for tune report's intervals and paired \
        differences. The study records K and the seed derivation: a rerun, --extend or merge \
        with another is refused naming it. A trial costs K times the replays of one draw. Exit 0 \
        when the study is complete, 2 on bad input (the message names the file, line and \
        column), 3 when the space is exhausted: every distinct point tried, or 64 re-draws of \
        one trial all repeated tried points; the trials before it are stored, and a rerun stops \
        at the same trial.

        Examples:
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/a.sqlite --trials 4 --corpus drift-left-and-back --no-validation --shard 1/2
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/b.sqlite --trials 4 --corpus drift-left-and-back --no-validation --shard 2/2
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/r.sqlite --sampler random --seed 3 --trials 2 --corpus 's0*' --no-validation --jobs 2
          jpreplay tune run docs/tune-space.validation.yaml --study /tmp/v.sqlite --corpus drift-left-and-back
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/k.sqlite --trials 2 --corpus drift-left-and-back --no-validation --seeds 3
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/n.sqlite --sampler nsga2 --tpe-batch 2 --trials 4 --corpus drift-left-and-back --no-validation
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/x.sqlite --corpus 'drift-*' --validation drift-left-and-back   # exit 2

        --extend adds trials to a finished (or unfinished) study: run it again with the same \
        space, options and corpus and a larger --trials; only the new trials run. Because trial \
        i's values never depend on the trial count, the extended study's trials are those of a \
        study run with the larger count from the start. A grid never grows past its size.

          jpreplay tune run docs/tune-space.example.yaml --study /tmp/e.sqlite --sampler random --trials 2 --corpus drift-left-and-back --no-validation
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/e.sqlite --sampler random --trials 3 --corpus drift-left-and-back --no-validation --extend
        """)

    @Argument(help: "The search space file (YAML).")
    var space: String

    @Option(help: "The study file (SQLite); created when absent, continued when present.")
    var study = "tune-study.sqlite"

    @Option(help: "grid, random, tpe or nsga2 (default: the space file's sampler, else random).")
    var sampler: String?

    @Option(help: "Seed of the random and TPE samplers (default: the space file's, else 1).")
    var seed: UInt64?

    @Option(help: "Number of trials (default: the space file's; grid: the grid size; else 100).")
    var trials: Int?

    @Option(help: "Trials per TPE batch, and NSGA-II's population size (each batch learns from the batches before it).")
    var tpeBatch = 32

    @Option(help: ArgumentHelp("Run shard i of n (1 ≤ i ≤ n, as verify --shard): the trials whose index mod n is i - 1.", valueName: "i/n"))
    var shard = "1/1"

    @Option(name: .customLong("corpus"), help: "Recording names or quoted globs (default 'tune-*', else every recording). Repeatable.")
    var corpus: [String] = []

    @Option(
      name: .customLong("validation"),
      help: "Validation recordings, names or quoted globs (default: the space file's validation:, else 'val-*' when any exist). Repeatable.")
    var validation: [String] = []

    @Flag(name: .customLong("no-validation"), help: "No validation corpus (overrides the space file's validation:).")
    var noValidation = false

    @Option(name: .customLong("recordings-dir"), help: "Folder of <name>.jprec recordings.")
    var recordingsDir = "Recordings"

    @Option(help: "PoseSpec to start from (default ./PoseSpec.json).")
    var spec: String?

    @Option(help: "Parallel trials (default: the number of CPU cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Add trials to an existing study: --trials is its new, larger count; every other setting must be the study's.")
    var extend = false

    @Option(
      help: ArgumentHelp(
        "Score each trial on K detector draws of every recording with a scenario (draw 0: the committed seed; the others derived from it, in memory), reporting means with 95% intervals (1…\(SeedDraws.drawsMax)).",
        valueName: "K"))
    var seeds = 1

    @Flag(
      name: .customLong("adopt-recordings"),
      help: "Continue a study made before studies held recording hashes: store the present recordings' hashes (only when they are the ones its trials ran).")
    var adoptRecordings = false

    func validate() throws {
      if extend && trials == nil { throw ValidationError("--extend needs --trials N (the study's new trial count)") }
    }

    func run() throws {
      let setup = try TuneSetup.make(
        spacePath: space, specPath: spec, sampler: sampler, seed: seed, trials: trials, tpeBatch: tpeBatch,
        shard: shard, corpus: corpus, validation: validation, noValidation: noValidation, recordingsDir: recordingsDir, jobs: jobs,
        draws: seeds)
      for w in setup.runner.space.warnings { printErr("warning: \(w)") }
      let settings = setup.studyMeta
      // A new study is made whole (settings, the shipped row) before it has its name; an
      // existing one is locked, then checked against this run's settings and recordings.
      let studyFile = try TuneStudy.open(study, create: true) { fresh throws(HarnessFailure) in
        guard !extend else {
          throw .badInput("\(study): --extend adds trials to an existing study, and there is none; run it without --extend")
        }
        try fresh.bind(settings)
        try setup.runner.recordShipped(study: fresh)
      }
      if extend {
        let before = try studyFile.extend(settings, adopt: adoptRecordings)
        printErr("tune: extending \(study) from \(before) to \(setup.runner.trials) trials")
      } else {
        // A study this run just made passes (its settings are these); any other is checked.
        try studyFile.bind(settings, adopt: adoptRecordings)
      }
      let total = setup.runner.indices.count
      let n = setup.validationNames.count
      let val = n == 0 ? "no validation corpus" : "\(n) validation recording\(n == 1 ? "" : "s")"
      let drawn = seeds > 1 ? ", \(seeds) draws each" : ""
      printErr("tune: \(setup.runner.sampler.kind.rawValue) sampler, \(total) trials (shard \(shard)), \(setup.corpusNames.count) recordings\(drawn), \(val), \(jobs) jobs → \(study)")
      let start = Date()
      let last = LastPrint()
      let outcome = try setup.runner.runStudy(study: studyFile) { p in
        guard last.due(p.finished == p.total) else { return }
        let rate = Double(p.finished) / max(Date().timeIntervalSince(start), 1e-3)
        let best = p.best.map { "best \(setup.runner.sampler.objective) \(String(format: "%.3f", $0.value)) (#\($0.index))" } ?? "no feasible trial yet"
        printErr("tune: \(p.finished)/\(p.total) trials, \(p.infeasible) infeasible, \(String(format: "%.1f", rate)) trials/s (this run), \(best)")
      }
      let seconds = Date().timeIntervalSince(start)
      let ran = outcome.ran
      print("tune: \(ran) trials run now, \(outcome.before) already in \(study); \(String(format: "%.1f", Double(ran) / max(seconds, 1e-3))) trials/s")
      print("next: jpreplay tune report \(study)")
      if let e = outcome.exhausted {
        printErr(
          "tune: the space is exhausted at trial #\(e.index) of \(setup.runner.trials): \(e.reason); the study stops there (exit 3; a larger space or another seed explores further)")
        throw ExitCode(3)
      }
    }
  }

  struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "merge",
      abstract: "Merge shard studies of one study into a new study file.",
      discussion: """
        Each input must have been made with the same space, sampler, seed, trial count, spec, \
        corpus and validation corpus (the shipped row is carried over); a trial present in two inputs must be identical. The merged study is the \
        study one unsharded run would have written (`tune report --json` prints the same \
        bytes).

        Examples:
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/a.sqlite --trials 2 --corpus drift-left-and-back --no-validation --shard 1/2
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/b.sqlite --trials 2 --corpus drift-left-and-back --no-validation --shard 2/2
          jpreplay tune merge /tmp/a.sqlite /tmp/b.sqlite -o /tmp/all.sqlite
        """)

    @Argument(help: "Shard study files.")
    var studies: [String]

    @Option(name: .short, help: "The merged study file (must not exist).")
    var output: String

    func run() throws {
      let n = try TuneStudy.merge(studies, into: output)
      print("tune merge: \(n) trials from \(studies.count) studies → \(output)")
    }
  }
}

/// Prints at most once a second (and always the last time).
final class LastPrint: @unchecked Sendable {
  let lock = NSLock()
  var last = Date.distantPast
  func due(_ force: Bool) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    let now = Date()
    guard force || now.timeIntervalSince(last) >= 1 else { return false }
    last = now
    return true
  }
}
