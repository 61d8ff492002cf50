import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab
import Recording
import Replay
import JustPhotoScenarios
import Verify

extension JPReplay {
  struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "verify",
      abstract: "Replay recordings and compare them with their goldens.",
      discussion: """
        Replays every Recordings/<name>.jprec (or the ones named; quoted globs such as \
        'cov-*' select names) and compares the trace and A.13 outputs with \
        Golden/<name>.trace.jsonl and Golden/<name>.a13.jsonl. Every divergent hunk is listed \
        (the first with context), and the console groups the divergences of the whole run by \
        cue and kind.

        Update mode (--update, else the JPREPLAY_UPDATE environment variable): new writes \
        <golden>.new beside the golden for `jpreplay review`; always overwrites the golden \
        (the recording then counts as updated, exit 0); no writes nothing. The default is no \
        when CI is set or when --spec/--set explore another spec or options, new otherwise.

        A recording with a scenario file (Recordings/<name>.scenario.yaml) must hold exactly \
        what the scenario generates, otherwise it is reported stale ("run jpreplay record \
        <name>") and nothing is written for it; an unreadable scenario is bad input. Only the \
        scenario's meaning counts (its header generator_sha256; comments and formatting do \
        not), never its ground-truth labels: editing PoseSpec.json leaves no recording stale. \
        The scenario's expect: rules (docs/FORMAT.md) are checked against every replay, apart \
        from the goldens: a broken rule is "unmet" even when the goldens match; a rule whose \
        known: marker names the committed draw and that misses as it says is listed under \
        "known misses" (docs/SCENARIOS.md), not failed. A PixScan \
        recording is judged the same way against its scenario beside it, <name>.yaml with \
        engine: pixscan (docs/PIXSCAN.md).

        Categories: passed, failed (the replay differs), missing (no golden yet), stale, \
        unmet (an expect: rule broken), orphan (a golden without recording; --unreferenced ignore|fail|delete, default fail), \
        updated (--update always) and error (bad input). Each is counted on the summary line, \
        in the JUnit report (failure type and suite properties) and in --format json; with \
        GITHUB_ACTIONS=true each failing file is also printed as a ::error annotation.

        Exit codes: 0 every recording passed (or was updated, or is an ignored/deleted \
        orphan); 1 a behavioural difference or failed check: failed, missing, stale, unmet, orphan \
        with --unreferenced fail, a budget breach, a determinism difference; 2 bad input \
        (unreadable recording, scenario, golden or option; a name or glob that matches \
        nothing). The most severe case decides.

        --bisect is for `git bisect run jpreplay verify --bisect …`: nothing is written, \
        orphans are ignored, and the exit code is 0 (good) when every recording matches its \
        golden, 1 (bad) when some replay differs from its existing golden or breaks its \
        scenario's expect: rules (a recording that is not stale), 125 (skip) when \
        nothing could be judged — stale or unreadable recordings, missing goldens, bad input, \
        names that do not exist at that commit — so such a commit is never blamed. See \
        README "Find a regression" (goldens re-blessed after the culprit need --golden-dir \
        with a saved copy, or `jpreplay bisect commits`).

        Examples:
          jpreplay verify
          jpreplay verify --bisect s04-frame-left-enter drift-left-and-back
          jpreplay verify 's0*' --jobs 2
          jpreplay verify Recordings/drift-left-and-back.jprec --format json
          CI=true jpreplay verify 'cov-*' --junit /tmp/verify.xml
          jpreplay verify drift-left-and-back --spec PoseSpec.json --update new
          jpreplay verify 'cov-*' --unreferenced delete
          jpreplay verify 's0*' --budgets --budget minHoldMs=500

        --budgets checks each verified trace against the prompt budgets of the Camera Coach \
        guidance (one cue shown at most 3 times in 10 s, at most 2 prompts in 1 s, at most 8 \
        displayed-cue changes a minute, every display held at least 300 ms), prints the \
        changes per minute, and fails on a breach. --budget name=value changes a limit \
        (maxShowsOfOneCue, repeatWindowMs, maxPromptsPerSecond, maxCueChangesPerMinute, \
        minHoldMs). These are Just Photo's budgets: another engine's recording is listed as \
        having none.
        """)

    @Argument(help: "Recordings to verify (names, paths or quoted globs); default: the whole corpus.")
    var recordings: [String] = []

    @OptionGroup var corpus: CorpusOptions
    @OptionGroup var engine: EngineArguments
    @OptionGroup var planted: PlantFaultOption

    @Option(help: "Parallel replays (default: the number of cores).")
    var jobs: Int?

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Option(help: ArgumentHelp("Also write the run as one self-contained HTML page (divergence table, timelines, decisions; see `jpreplay report`).", valueName: "FILE"))
    var html: String?

    @Option(help: "Report on standard output as text or json.")
    var format: ReportFormat = .text

    @Option(help: ArgumentHelp("What to write on a difference: new (.new files), always (overwrite the golden) or no (default: JPREPLAY_UPDATE, else no on CI or with --spec/--set, else new).", valueName: "new|always|no"))
    var update: UpdateMode?

    @Option(help: ArgumentHelp("Goldens without a recording: ignore, fail or delete.", valueName: "ignore|fail|delete"))
    var unreferenced: UnreferencedPolicy = .fail

    @Option(help: "Colour: auto (a terminal without NO_COLOR), always or never.")
    var color: ColorChoice = .auto

    @Option(help: ArgumentHelp("Verify only shard i of n (1-based), e.g. 2/4.", valueName: "i/n"))
    var shard: String?

    @Option(name: .customLong("time-tolerance"), help: "Accept events shifted by up to N ms.")
    var timeToleranceMs: Int64 = 0

    @Flag(help: "Also replay each recording twice in separate processes (with and without SWIFT_DETERMINISTIC_HASHING) and compare bytes.")
    var determinism = false

    @Flag(help: "git bisect run mode: exit 0 good, 1 behavioural difference, 125 anything that cannot be judged.")
    var bisect = false

    @Flag(help: "Check the prompt budgets on every verified trace; a breach fails verify.")
    var budgets = false

    @Option(name: .customLong("budget"), help: ArgumentHelp("Change a budget limit (with --budgets).", valueName: "name=value"))
    var budgetSettings: [String] = []

    func validate() throws {
      if let jobs, jobs < 1 || jobs > VerifyOptions.jobsMax {
        throw ValidationError("--jobs must be 1…\(VerifyOptions.jobsMax), got \(jobs)")
      }
      if let shard, Shard(shard) == nil { throw ValidationError("--shard '\(shard)': expected i/n with 1 ≤ i ≤ n") }
      guard timeToleranceMs >= 0 else { throw ValidationError("--time-tolerance must be ≥ 0") }
      try planted.refuseGoldenWrites(update, unreferenced: unreferenced)
    }

    func run() throws {
      guard bisect else { return try verify() }
      // Whatever goes wrong, a bisect step that cannot judge says "skip" (125), never "bad".
      do { try verify() } catch let e as ExitCode where BisectVerdict(rawValue: e.rawValue) != nil {
        throw e
      } catch {
        printErr("bisect: skip (\(error))")
        throw ExitCode(BisectVerdict.skip.rawValue)
      }
    }

    func verify() throws {
      // Each engine takes the engine options it accepts (Just Photo: --spec/--set); an engine
      // whose default configuration is missing here (no ./PoseSpec.json) fails only its own
      // recordings, so a corpus of another engine's recordings verifies without one.
      let plugins = try configuredPlugins(EngineOptionValues(spec: engine.spec, overrides: try engine.parsedOverrides()))
      let mode: UpdateMode
      do {
        mode = try UpdateMode.resolve(
          flag: update, exploring: engine.spec != nil || !engine.overrides.isEmpty)
      } catch { throw CLIError.badInput(error.message) }
      var diff = DiffOptions()
      diff.timingToleranceMs = timeToleranceMs
      var options = VerifyOptions(
        names: try selectedNames(), jobs: jobs ?? VerifyOptions.defaultJobs,
        update: planted.isEmpty ? mode : .no, unreferenced: unreferenced, shard: shard.flatMap(Shard.init), diff: diff)
      if bisect { options = BisectVerdict.stepOptions(options) }
      // Each recording goes to the engine its header names.
      planted.warn()
      var verifier = Verifier(store: corpus.store, options: options) { (url: URL) throws(ReplayError) -> ReplayProducts in
        let plugin: EnginePlugin
        do { plugin = try EngineRegistry.route(url.path, plugins: plugins) } catch let e as CLIError { throw .badInput(BadInputError(message: e.message)) } catch { throw .badInput(BadInputError(message: "\(error)")) }
        return try plugin.products(url)
      }
      try addScenarioCheck(to: &verifier)
      let progress = ProgressLine(label: "verify")
      let report = try verifier.run { p in progress.update(p.completed, of: p.total, p.name) }
      progress.finish()
      // With --format json standard output holds the JSON document only.
      let say: (String) -> Void = format == .json ? { printErr($0) } : { print(ConsoleText.safe($0)) }
      try publish(report, say: say)
      if bisect {
        let verdict = BisectVerdict(report)
        say("bisect: \(verdict)")
        throw ExitCode(verdict.rawValue)
      }
      var code = report.exitCode
      if determinism && code == .ok {
        let same = try determinismHolds(report, say: say)
        if !same { code = .difference }
      }
      if budgets {
        let within = try budgetsHold(report, say: say)
        if !within && code == .ok { code = .difference }
      }
      if code != .ok { throw ExitCode(code.rawValue) }
    }

    /// Every engine's plug-in (with `--plant-fault`'s faults) configured with `options`: one
    /// that takes none of them replays as it is; one whose default configuration is missing
    /// here fails each of its recordings saying so. Exit 2 when the options are given and
    /// every recording selected is of an engine that takes none (they would be ignored), then
    /// for a bad value.
    func configuredPlugins(_ options: EngineOptionValues) throws -> [String: EnginePlugin] {
      let plugins = planted.plugins()
      var configured: [String: EnginePlugin] = [:]
      var refused: [String: EngineOptionError] = [:]
      var failure: CLIError? = nil
      for registration in EngineRegistry.engines {
        guard let engine = plugins[registration.name] else { continue }
        do { configured[engine.name] = try engine.configured(options) } catch {
          switch error {
          case .notAccepted:
            configured[engine.name] = engine
            refused[engine.name] = error
          case .unavailable(_, let reason, let remedy):
            var failing = engine
            failing.canonical = { (url, _) throws(ReplayError) -> ReplayProducts in
              throw .badInput(
                BadInputError(
                  recording: url.path, message: "a \(registration.title) recording: \(reason) to replay it with; \(remedy)"))
            }
            configured[engine.name] = failing
          case .badInput, .unknownTraceKind:
            failure = failure ?? EngineRegistry.refusal(error, plugin: engine, path: "")
          }
        }
      }
      if !refused.isEmpty { try refuseOptionsNoRecordingTakes(refused, plugins: plugins) }
      if let failure { throw failure }
      return configured
    }

    /// Exit 2 when every recording selected is of an engine in `refused` (the engine options
    /// given would be ignored), naming the first.
    func refuseOptionsNoRecordingTakes(_ refused: [String: EngineOptionError], plugins: [String: EnginePlugin]) throws {
      let names = recordings.isEmpty ? ((try? corpus.store.recordingNames()) ?? []) : recordings
      var other: (error: EngineOptionError, plugin: EnginePlugin, path: String)? = nil
      for name in names {
        let path = corpus.store.recordingURL(name).path
        let routed: EnginePlugin
        do { routed = try EngineRegistry.route(path, plugins: plugins) } catch { continue }  // reported by its replay
        guard let error = refused[routed.name] else { return }  // an engine that takes them
        other = other ?? (error, routed, path)
      }
      if let other { throw EngineRegistry.refusal(other.error, plugin: other.plugin, path: other.path) }
    }

    /// The recordings named on the command line (nil: the whole corpus). In bisect mode a
    /// recording that does not exist at this commit is skipped, not failed.
    func selectedNames() throws -> [String]? {
      guard let requested = recordings.isEmpty ? nil : recordings else { return nil }
      guard bisect else { return requested }
      let (present, absent) = BisectVerdict.judgeable(requested, store: corpus.store)
      for r in absent { printErr("bisect: \(r) does not exist here; skipped") }
      guard !present.isEmpty else { throw ExitCode(BisectVerdict.skip.rawValue) }
      return present
    }

    /// Scenario recordings are checked in the workers, before their replay: a stale one
    /// replays events its scenario no longer makes, so nothing is written for it. Each engine
    /// judges its own scenario files (Just Photo's hook first, then the plug-ins').
    func addScenarioCheck(to verifier: inout Verifier) throws {
      var engines = [try ScenarioCorpus.checks(recordingsDir: corpus.recordingsDir, specPath: engine.spec)]
      engines += try EngineRegistry.scenarioChecks(recordingsDir: corpus.recordingsDir)
      verifier.judgeScenarios(with: engines)
    }

    /// The report on standard output (text or JSON), GitHub annotations on CI, `--junit`.
    func publish(_ report: VerifyReport, say: (String) -> Void) throws {
      if format == .json {
        printJSON(VerifyJSONReport.render(report), terminator: "")
      } else {
        let painted = color.enabled(isTTY: stdoutIsTTY)
        printPainted(report.render(color: painted), color: painted, terminator: "")
      }
      if GitHubAnnotations.isEnabled() {
        let base = FileManager.default.currentDirectoryPath
        // Escaped by their writer; with --format json they go to stderr as built.
        for line in GitHubAnnotations.render(report, store: corpus.store, base: base) {
          if format == .json { printErrBuilt(line) } else { printBuilt(line) }
        }
      }
      if let html {
        try HTMLReportFile.writeVerify(
          report, to: html, store: corpus.store, engine: engine, title: "jpreplay verify", plugins: planted.plugins(),
          jobs: jobs ?? VerifyOptions.defaultJobs)
      }
      if let junit {
        // `--junit out/verify.xml` on a fresh checkout: create the report's folder.
        let folder = URL(fileURLWithPath: junit).folder
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // `file`: the recording as --recordings-dir names it (an orphan: its trace golden).
        let recordings = corpus.recordingsDir
        let goldens = corpus.goldenDir
        let file: (VerifyCase) -> String? = { c in
          c.category == .orphan ? "\(goldens)/\(c.name).trace.jsonl" : "\(recordings)/\(c.name).jprec"
        }
        do { try SafeFile.write(JUnitReport.render(report, file: file), to: junit) } catch {
          throw CLIError.badInput("\(junit): cannot write (\(error.message))")
        }
      }
    }

    /// `--determinism`: the passed recordings replayed again in two child processes of this
    /// executable (`ChildReplay`) give the same bytes. False (after naming each) when not.
    func determinismHolds(_ report: VerifyReport, say: (String) -> Void) throws -> Bool {
      let names = report.cases.filter(\.passed).map(\.name)
      let problems = try DeterminismCheck.run(
        names: names, store: corpus.store, specPath: engine.spec, overrides: engine.overrides,
        replayInAnotherProcess: ChildReplay.run)
      for p in problems { printErr("determinism: \(p)") }
      if problems.isEmpty { say("determinism: \(names.count) recordings byte-identical across processes") }
      return problems.isEmpty
    }

    /// `--budgets`: every passed recording's golden trace within the limits (`--budget`
    /// settings, then the recording's own header `budgets`). False when any is over budget.
    func budgetsHold(_ report: VerifyReport, say: (String) -> Void) throws -> Bool {
      var limits = BudgetLimits()
      for b in budgetSettings {
        do { try limits.set(b) } catch {
          printErr("jpreplay: \(error.message)")
          throw ExitCode(2)
        }
      }
      // Budgets are Just Photo's (prompt budgets); another engine's recordings have none.
      do { return try VerifyBudgets.check(report, store: corpus.store, say: say, judges: [JustPhotoVocabulary.engineName: limits.judge],
          definitions: JustPhotoVocabulary.eventDefinitions) } catch {
        printErr("jpreplay: \(error.message)")
        throw ExitCode(2)
      }
    }
  }
}

/// `verify --format`.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
  case text, json
}

extension UpdateMode: ExpressibleByArgument {}
extension UnreferencedPolicy: ExpressibleByArgument {}
