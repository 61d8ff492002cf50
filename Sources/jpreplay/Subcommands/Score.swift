import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab
import Replay

extension JPReplay {
  struct Score: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "score",
      abstract: "Score recordings against their ground-truth labels: flicker, latency, misses, false alarms.",
      discussion: """
        Replays each recording in process with the current spec (or --spec, --set) and \
        compares what the coach displayed with the recording's `label` events (the noise-free \
        truth, docs/FORMAT.md). Per recording and in total (docs/SCORING.md defines each \
        rule and its windows): flicker/min = displayed-cue changes per minute not explained \
        by a label change (neither cue's label nor the ideal display changed from 3 s before \
        to 0.5 s after); lat p50/p90 = label onset, or the moment no higher-priority cue hid \
        it, to display; misses = labelled intervals of at least 1 s never displayed though \
        available for 1 s; false al. = display spans whose cue's label never held (0.5 s \
        grace); praise/min = praise grants per minute; budget = breaches of the guidance \
        budgets of `verify --budgets`; expect = failed expectations (expect: blocks).

        --details lists, under the table, every display change counted as flicker: the \
        recording, t, the cue before → after, and why it is unexplained (the nearest label \
        change of either cue and the window it would explain, the nearest change of the ideal \
        display); then each miss, false alarm, budget breach and failed expectation. --json has \
        the same lists (flicker_list, miss_list, …).

        onset p90 = the start of the declared movement toward a cue (or the moment no \
        higher-priority cue hid it) to its display; clear p90 = how long a cue stayed displayed \
        after the subject returned (--json: onset_p50_ms, onset_p90_ms, clear_p50_ms, clear_p90_ms).

        --seeds K scores K draws of the corpus: draw 0 is each recording as committed, draw k ≥ 1 \
        its scenario (beside it) generated in memory with a seed derived from (name, seed, k) \
        (a recording without a scenario is the same in every draw). It prints each objective's \
        mean with its 95% interval and every draw's total, then each expect: rule that fails on \
        some draw, with the draws: a rule that holds on draw 0 only is a rule about one draw. \
        A rule marked known: {draws: […], why: …} (docs/SCENARIOS.md) that misses on a draw it \
        names is listed apart as a known miss, not a failure; one that holds on such a draw \
        fails ("known miss no longer misses"). That strictness is for the committed \
        configuration the markers record (PoseSpec.json, each recording's own options); with \
        --spec naming another spec or any --set that changes an option, a marked rule's miss on \
        any draw is a known miss and a hold is met. \
        With --details it then lists, per failing rule, what each failing draw saw instead.

        Recordings without labels (imported sessions) get praise, budgets and expectations \
        only. A folder argument scores the recordings in it; with no recording named, score \
        scores Recordings/ (as verify and coverage default to the corpus; --all says so \
        explicitly). Each \
        recording is decoded once and replayed on --jobs threads.

        Examples:
          jpreplay score Recordings/drift-left-and-back.jprec
          jpreplay score Recordings --jobs 2 --json > /tmp/score.json
          jpreplay score Recordings/drift-left-and-back.jprec --spec Tests/Fixtures/reference-posespec.json --details
          jpreplay score Recordings/s05-head-level-flicker.jprec --details
          jpreplay score Recordings/drift-left-and-back.jprec --budget maxCueChangesPerMinute=4
          jpreplay score Recordings/drift-left-and-back.jprec Recordings/s05-head-level-flicker.jprec --repeat 20 --jobs 2
          jpreplay score Recordings/drift-left-and-back.jprec --seeds 3

        Exit codes: 0 scored; 2 bad input (unreadable recording or spec, bad option).
        """)

    @Argument(help: "Recordings (.jprec, .jsonl, .jsonl.zst) or folders of them.")
    var recordings: [String] = []

    @Flag(help: "Score every recording in Recordings/ (the default when no recording is named).")
    var all = false

    @OptionGroup var engine: EngineArguments

    @Option(help: "Parallel replays (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "Print the scores as JSON (keys sorted).")
    var json = false

    @Flag(help: "List each flicker (t, from → to, why no label change explains it), miss, false alarm, budget breach and failed expectation under the table.")
    var details = false

    @Option(help: "Score the corpus this many times and print trials/s on stderr (a speed check for tune).")
    var `repeat` = 1

    @Option(name: .customLong("budget"), help: ArgumentHelp("Change a budget limit (as verify --budget).", valueName: "name=value"))
    var budgetSettings: [String] = []

    @Option(
      help: ArgumentHelp(
        "Score K detector draws of every recording with a scenario beside it (draw 0: the recording; the others generated in memory with derived seeds): each objective's mean [95% interval] and per-draw totals, and the expect: rules failing on some draws.",
        valueName: "K"))
    var seeds = 1

    func validate() throws {
      if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
      if `repeat` < 1 { throw ValidationError("--repeat must be at least 1") }
    }

    func run() throws {
      let corpus = all || recordings.isEmpty
      if corpus {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: "Recordings", isDirectory: &isDir), isDir.boolValue else {
          throw CLIError.badInput("Recordings: no such folder here; name recordings or folders to score (score Recordings/x.jprec)")
        }
      }
      let paths = try CorpusScorer.recordingPaths(recordings + (corpus ? ["Recordings"] : []))
      guard !paths.isEmpty else { throw CLIError.badInput("\(recordings.joined(separator: " ")): no recordings found") }
      for p in paths {
        try EngineRegistry.requireJustPhoto(
          p, command: "score", why: "it scores Just Photo's displayed cues against the labels its scenarios declare; a PixScan scenario's intent is its expect: rules")
      }
      let spec = try Harness.loadSpec(path: engine.spec ?? Harness.defaultSpecPath)
      let overrides = try engine.parsedOverrides()
      // known: markers are strict for the committed configuration, lenient for another one.
      let scope = TuneSetup.markerScope(
        specText: String(decoding: try Harness.readSpecBytes(path: engine.spec ?? Harness.defaultSpecPath), as: UTF8.self),
        options: overrides)
      var scorer = try CorpusScorer(paths: paths)
      scorer.jobs = jobs ?? ProcessInfo.processInfo.activeProcessorCount
      scorer.expectations = ScenarioCorpus.scoreExpectations(scope)
      for b in budgetSettings {
        do { try scorer.budgets.set(b) } catch { throw CLIError.badInput(error.message) }
      }
      if seeds != 1 {
        guard !json, `repeat` == 1 else { throw CLIError.badInput("--seeds: prints its own summary; leave out --json and --repeat") }
        let budgets = scorer.budgets
        let draws = try DrawsScore.score(paths: paths, count: seeds, spec: spec, overrides: overrides) { s in
          s.jobs = scorer.jobs
          s.expectations = ScenarioCorpus.scoreExpectations(scope)
          s.budgets = budgets
        }
        print(draws.text(), terminator: "")
        if details { print(draws.details(), terminator: "") }
        return
      }
      let clock = ContinuousClock()
      let start = clock.now
      var score = try scorer.score(spec: spec, overrides: overrides)
      for _ in 1..<`repeat` { score = try scorer.score(spec: spec, overrides: overrides) }
      let elapsed = clock.now - start
      if json {
        printJSON(score.json(), terminator: "")
        return
      }
      print(score.table(), terminator: "")
      if details { print(score.details(), terminator: "") }
      let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
      printErr(
        String(
          format: "score: %d recording(s), %.1f min, %d trial(s) in %.0f ms (%.1f trials/s, %d thread(s))", paths.count,
          score.totals.minutes, `repeat`, ms, Double(`repeat`) * 1000 / max(ms, 0.001), scorer.jobs))
    }
  }
}
