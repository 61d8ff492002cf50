import ArgumentParser
import Foundation
import Lab
import Recording
import JustPhotoPlugin
import Verify

extension JPReplay.Tune {
  struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "report",
      abstract: "Show a study's trials and the Pareto front over chosen objectives.",
      discussion: """
        Prints a summary, the Pareto front (feasible trials no other feasible trial beats in \
        every chosen objective, on the fit corpus; trials with equal values of the chosen \
        objectives are one row, whose "same point" column counts and names them) and the \
        table of trials (every objective, chosen ones first, and the reason of each \
        infeasible or failed trial); --trial N adds trial N beside the front. Each table \
        starts with the shipped spec's row; with a validation corpus each objective has its val.* column beside it, \
        and a trial "does not generalise" when one of its validation objectives (the study's \
        objective or any other) is worse than the shipped spec's, or when it breaks a \
        generalise: budget of the space. A study run with --seeds K shows each figure as the \
        mean over the K draws with its 95% interval, then a table of paired differences \
        (trial − shipped on the same draws) for the front and the trials asked for; such a trial \
        generalises only when every difference's interval excludes worse. --json prints one JSON object instead (shipped, each trial's validation \
        figures, generalises and generalise_reasons; the same bytes for a merged study and \
        an unsharded one); --svg writes the first two objectives against each other with the \
        front highlighted, the shipped spec as a diamond, and ticks at round values on both axes. \
        --html writes one page with the plot and the sortable trial table; for each front trial \
        (the first --timelines, default 3) the page also holds the timeline of the fit recording \
        the trial made worst (its value of the study's objective minus the shipped spec's, \
        largest first), shipped spec against trial, one click from the trial's row. That replays \
        the fit corpus from --recordings-dir with --spec, which must be the spec the study ran \
        (its SHA-256 is checked); --timelines 0 skips it.

        Examples:
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/s.sqlite --trials 3 --corpus drift-left-and-back --no-validation
          jpreplay tune report /tmp/s.sqlite --objectives flicker_per_min,latency_p90_ms --svg /tmp/front.svg
          jpreplay tune report /tmp/s.sqlite --json
          jpreplay tune report /tmp/s.sqlite --html /tmp/tune.html
          jpreplay tune run docs/tune-space.validation.yaml --study /tmp/v.sqlite --corpus drift-left-and-back
          jpreplay tune report /tmp/v.sqlite --objectives latency_p90_ms --trial 2
        """)

    @Argument(help: "The study file.")
    var study: String

    @Option(help: "Comma-separated objectives of the front (lower is better).")
    var objectives = "flicker_per_min,latency_p90_ms"

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    @Option(help: "Write an SVG plot of the first two objectives here.")
    var svg: String?

    @Option(help: ArgumentHelp("Write one self-contained HTML page: the Pareto front plot (fit vs validation with a validation corpus) and every trial's parameters, sortable.", valueName: "FILE"))
    var html: String?

    @Option(help: ArgumentHelp("With --html: front trials given their worst recording's timeline (0…\(TuneTimelines.trialsMax)).", valueName: "N"))
    var timelines = 3

    @Option(help: "With --html and --timelines: the spec the study ran.")
    var spec = "PoseSpec.json"

    @Option(help: "With --html and --timelines: where the fit corpus's recordings are.")
    var recordingsDir = "Recordings"

    @Option(help: "Rows of the trial table (0 = all).")
    var limit = 0

    @Option(name: .customLong("trial"), help: ArgumentHelp("Show this trial beside the front, with the shipped row (as `tune report` numbers it, without #). Repeatable.", valueName: "N"))
    var asked: [Int] = []

    func validate() throws {
      guard (0...TuneTimelines.trialsMax).contains(timelines) else {
        throw ValidationError("--timelines: expected 0…\(TuneTimelines.trialsMax) (TuneTimelines.trialsMax), found \(timelines)")
      }
    }

    func run() throws {
      let keys = objectives.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      guard !keys.isEmpty else { throw CLIError.badInput("--objectives: give at least one objective") }
      let opened = try TuneStudy.open(study, create: false)
      let report = try TuneReport(study: opened, objectives: keys, asked: asked)
      if let svg {
        do { try SafeFile.write(TuneSVG.render(report), to: svg) } catch {
          throw CLIError.badInput("\(svg): cannot write (\(error.message))")
        }
        printErr("tune report: wrote \(svg)")
      }
      if let html {
        var drawn: (document: HTMLReportDocument, worst: [TuneTimelines.Worst])?
        if timelines > 0, !report.front.isEmpty {
          let text = String(decoding: try Harness.readSpecBytes(path: spec), as: UTF8.self)
          printErr("tune report: replaying the fit corpus for \(min(timelines, report.front.count)) front trial(s)")
          drawn = try TuneTimelines.build(
            report: report, meta: opened.meta(), specText: text, specFile: spec, recordingsDir: recordingsDir, count: timelines)
        }
        do { try SafeFile.write(TuneHTML.render(report, timelines: drawn), to: html) } catch {
          throw CLIError.badInput("\(html): cannot write (\(error.message))")
        }
        printErr("tune report: wrote \(html)")
      }
      if json { printJSON(report.json, terminator: "") } else { print(report.text(limit: limit), terminator: "") }
    }
  }

  struct Promote: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "promote",
      abstract: "Write a trial's values into PoseSpec.json, then verify (changed goldens land as .new files).",
      discussion: """
        Only the tuned numbers change, edited in place in the text (key order, indentation \
        and every other byte stay), so `git diff PoseSpec.json` shows exactly the tuned \
        paths. Then runs `verify --update new`: each recording whose trace changes leaves \
        Golden/<name>.*.new for `jpreplay review`. Engine options of the trial (not PoseSpec \
        values) are written to options.txt beside --spec, one name=value per line, which every \
        replay with that spec reads (verify, CI, replay; --set still overrides), so the \
        verify replays the configuration the study scored. --dry-run prints the edits and \
        writes nothing.

        An infeasible or failed trial (a constraint broken, e.g. expectation_failures 9 > 0) \
        is refused by the gate accept and review use (exit 1, nothing written); --force \
        promotes it with a warning. A trial that does not generalise is refused by the same gate \
        with exit 2 naming the figures: with a validation corpus, an objective (any, not only the \
        study's) worse than the shipped spec's beyond noise — for a study run with --seeds K, the \
        95% interval of the paired difference on the same K draws lies above 0; with one draw, \
        any excess — or a generalise: budget broken; without validation, with K > 1, the same \
        on the fit corpus. --force promotes it with a warning. Once written, the trial and the \
        shipped spec are read on the test set (--test-set, default the test-* recordings: \
        never fitted, never validated, never read by any gate) and the two columns printed. \
        --to DIR leaves --spec alone \
        and writes DIR/PoseSpec.json (--spec's text with the trial's values) and \
        DIR/options.txt (the trial's engine options, one name=value per line in the space's \
        order, as replay --set takes them; empty when none), creating DIR; no verify runs.

        Examples:
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/s.sqlite --trials 2 --corpus drift-left-and-back --no-validation
          jpreplay tune promote /tmp/s.sqlite 0 --dry-run
          jpreplay tune promote /tmp/s.sqlite 1 --dry-run   # exit 1: trial #1 is infeasible (expectation_failures 1 > 0)
          jpreplay tune run docs/tune-space.validation.yaml --study /tmp/v.sqlite --corpus drift-left-and-back
          jpreplay tune promote /tmp/v.sqlite 2 --dry-run   # exit 2
          jpreplay tune promote /tmp/v.sqlite 1 --to /tmp/tuned
          jpreplay replay Recordings/drift-left-and-back.jprec --spec /tmp/tuned/PoseSpec.json $(sed 's/^/--set /' /tmp/tuned/options.txt) -o /tmp/t.jsonl
        """)

    @Argument(help: "The study file.")
    var study: String

    @Argument(help: "The trial number (as `tune report` shows it, without #).")
    var trial: Int

    @Option(help: "The PoseSpec file to edit.")
    var spec = "PoseSpec.json"

    @Flag(help: "Print the edits; write nothing, run nothing.")
    var dryRun = false

    @Flag(help: "Skip the verify run after writing.")
    var noVerify = false

    @Flag(help: "Promote a trial that is infeasible (exit 1 otherwise) or does not generalise (exit 2 otherwise), with a warning.")
    var force = false

    @Option(help: ArgumentHelp("Write DIR/PoseSpec.json (--spec's text with the trial's values) and DIR/options.txt (its engine options, name=value per line) instead of editing --spec; no verify.", valueName: "DIR"))
    var to: String?

    @Option(name: .customLong("test-set"), help: ArgumentHelp("The test recordings read once after the promote (never used for selection; `none`: skip).", valueName: "GLOB"))
    var testSet = TuneTestSet.defaultGlob

    @Option(name: .customLong("recordings-dir"), help: "Folder of the test recordings.")
    var recordingsDir = "Recordings"

    func run() throws {
      let s = try TuneStudy.open(study, create: false)
      guard let t = try s.trials().first(where: { $0.index == trial }) else {
        throw CLIError.badInput("\(study): no finished trial #\(trial)")
      }
      let meta = try s.meta()
      try checkGate(t, study: s, objective: meta["objective"] ?? "flicker_per_min")
      let text: String
      do { text = String(decoding: try Harness.readSpecBytes(path: spec), as: UTF8.self) } catch {
        throw CLIError.badInput(error.message)
      }
      let result = try TunePromote.apply(trial: t, meta: meta, specText: text, specFile: spec)
      for e in result.edits { print("\(e.place): \(e.old) → \(e.new)") }
      if let to {
        try write(result, to: to)
        if !dryRun { try reportTestSet(result, shippedText: text) }
        return
      }
      // The trial's engine options go where every replay with this spec reads them
      // (`SpecOptionsFile`: options.txt beside the spec), so the verify below — and CI's —
      // replays the configuration the study scored.
      let optionsFile = SpecOptionsFile.path(forSpec: spec)
      let optionsText = SpecOptionsFile.text(result.options)
      let optionsNow: String?
      do {
        optionsNow = FileManager.default.fileExists(atPath: optionsFile) ? SpecOptionsFile.text(try SpecOptionsFile.options(forSpec: spec)) : nil
      } catch { throw CLIError.badInput(error.message) }
      // No file and no option: nothing to write (an empty file says the same).
      let writeOptions = optionsNow.map { $0 != optionsText } ?? !result.options.isEmpty
      for o in result.options { print("engine option: \(o.name)=\(o.value) (\(optionsFile))") }
      if result.edits.isEmpty { print("tune promote: \(spec) already has trial #\(trial)'s values") }
      if writeOptions && dryRun { print("tune promote: would write \(optionsFile) (\(result.options.count) engine options)") }
      guard !dryRun, !result.edits.isEmpty || writeOptions else { return }
      _ = try Harness.validateSpec(bytes: Array(result.text.utf8), path: spec)
      if !result.edits.isEmpty {
        do { try SafeFile.write(result.text, to: spec) } catch {
          throw CLIError.badInput("\(spec): cannot write (\(error.message))")
        }
        print("tune promote: \(result.edits.count) values written to \(spec)")
      }
      if writeOptions {
        do { try SafeFile.write(optionsText, to: optionsFile) } catch {
          throw CLIError.badInput("\(optionsFile): cannot write (\(error.message))")
        }
        print("tune promote: \(result.options.count) engine options written to \(optionsFile) (verify and every replay with \(spec) read it)")
      }
      try reportTestSet(result, shippedText: text)
      guard !noVerify else { return }
      let verify = try JPReplay.Verify.parse(["--update", "new"] + (spec == Harness.defaultSpecPath ? [] : ["--spec", spec]))
      do { try verify.run() } catch let e as ExitCode where e.rawValue == 1 {
        print("tune promote: goldens changed; walk them with `jpreplay review --group` (one decision per group of like changes) or `jpreplay review`")
      }
    }

    /// The gate (`GoldenGate`, the one every blessing path runs): a trial that broke a
    /// constraint (infeasible) or failed is refused, exit 1; one worse than the shipped spec
    /// beyond noise on any objective, or over a generalise: budget (`TuneReport.worseThanShipped`),
    /// exit 2; --force turns both into warnings.
    func checkGate(_ t: TrialResult, study s: TuneStudy, objective: String) throws {
      let why = t.status == .ok ? nil : "\(t.status.rawValue) (\(t.reason ?? "no reason recorded"))"
      let worse = try TuneReport(study: s, objectives: [objective]).worseThanShipped(t)
      let gate = GoldenGate(store: GoldenStore(root: URL(fileURLWithPath: ".")), engines: [])
      let verdict = GoldenGate.verdict(
        gate.check([], trial: GoldenGate.Trial(index: t.index, infeasibility: why, worse: worse)), force: force)
      for f in verdict.warned { printErr("warning: \(f.message); promoted anyway (--force)") }
      guard let code = verdict.exitCode else { return }
      for f in verdict.refused { printErr("jpreplay: \(ConsoleText.line(study)): \(f.message)") }
      printErr(
        "jpreplay: "
          + GoldenGate.closing(
            verdict, nothing: "nothing promoted",
            override: verdict.refused.contains { $0.check == .generalises }
              ? "pick a feasible trial that generalises (tune report), or pass --force to promote it anyway"
              : "pick a feasible trial (tune report), or pass --force to promote it anyway"))
      throw ExitCode(code)
    }

    /// `--to DIR`: the edited spec and the engine options, each file written atomically.
    func write(_ result: TunePromote.Result, to dir: String) throws {
      let specOut = Paths.join(dir, "PoseSpec.json")
      let optionsOut = Paths.join(dir, "options.txt")
      let options = result.options.map { "\($0.name)=\($0.value)\n" }.joined()
      guard !dryRun else {
        print("tune promote: would write \(specOut) (\(result.edits.count) values changed) and \(optionsOut) (\(result.options.count) engine options)")
        return
      }
      _ = try Harness.validateSpec(bytes: Array(result.text.utf8), path: spec)
      do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
        throw CLIError.badInput("\(dir): cannot create the folder (\(SystemReason.of(error)))")
      }
      for (path, text) in [(specOut, result.text), (optionsOut, options)] {
        do { try SafeFile.write(text, to: path) } catch { throw CLIError.badInput("\(path): cannot write (\(error.message))") }
      }
      print("tune promote: trial #\(trial) → \(specOut) (\(result.edits.count) values changed from \(spec)), \(optionsOut) (\(result.options.count) engine options)")
    }
  }
}
