import ArgumentParser
import Foundation
import Lab
import Recording

extension JPReplay.Tune {
  struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show a study's trials and the Pareto front over chosen objectives.",
      discussion: """
        Prints a summary, the Pareto front (feasible trials no other feasible trial beats in \
        every chosen objective, on the fit corpus; trials with equal values of the chosen \
        objectives are one row, whose "same point" column counts and names them) and the \
        table of trials (every objective, chosen ones first, and the reason of each \
        infeasible or failed trial); --trial N adds trial N beside the front. Each table \
        starts with the shipped spec's row; with a validation corpus each objective has its val.* column beside it, \
        and a trial "does not generalise" when its validation value of the study's objective \
        is worse than the shipped spec's, or when it breaks a generalise: budget of the \
        space. --json prints one JSON object instead (shipped, each trial's validation \
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
      print(json ? report.json : report.text(limit: limit), terminator: "")
    }
  }

  struct Promote: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Write a trial's values into PoseSpec.json, then verify (changed goldens land as .new files).",
      discussion: """
        Only the tuned numbers change, edited in place in the text (key order, indentation \
        and every other byte stay), so `git diff PoseSpec.json` shows exactly the tuned \
        paths. Then runs `verify --update new`: each recording whose trace changes leaves \
        Golden/<name>.*.new for `jpreplay review`. Engine options of the trial are printed \
        (they are not PoseSpec values). --dry-run prints the edits and writes nothing.

        A trial that does not generalise (see tune report: its validation objective worse \
        than the shipped spec's, or a generalise: budget broken) is refused with exit 2 \
        naming the figure; --force promotes it with a warning. --to DIR leaves --spec alone \
        and writes DIR/PoseSpec.json (--spec's text with the trial's values) and \
        DIR/options.txt (the trial's engine options, one name=value per line in the space's \
        order, as replay --set takes them; empty when none), creating DIR; no verify runs.

        Examples:
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/s.sqlite --trials 2 --corpus drift-left-and-back --no-validation
          jpreplay tune promote /tmp/s.sqlite 1 --dry-run
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

    @Flag(help: "Promote a trial that does not generalise (a warning instead of exit 2).")
    var force = false

    @Option(help: ArgumentHelp("Write DIR/PoseSpec.json (--spec's text with the trial's values) and DIR/options.txt (its engine options, name=value per line) instead of editing --spec; no verify.", valueName: "DIR"))
    var to: String?

    func run() throws {
      let s = try TuneStudy.open(study, create: false)
      guard let t = try s.trials().first(where: { $0.index == trial }) else {
        throw CLIError.badInput("\(study): no finished trial #\(trial)")
      }
      if t.status != .ok { printErr("warning: trial #\(trial) is \(t.status.rawValue): \(t.reason ?? "")") }
      let meta = try s.meta()
      try checkGeneralises(t, study: s, objective: meta["objective"] ?? "flicker_per_min")
      let text: String
      do { text = String(decoding: try Harness.readSpecBytes(path: spec), as: UTF8.self) } catch {
        throw CLIError.badInput(error.message)
      }
      let result = try TunePromote.apply(trial: t, meta: meta, specText: text, specFile: spec)
      for e in result.edits { print("\(e.place): \(e.old) → \(e.new)") }
      if let to { return try write(result, to: to) }
      for o in result.options { print("engine option (not in the PoseSpec): --set \(o.name)=\(o.value)") }
      if result.edits.isEmpty { print("tune promote: \(spec) already has trial #\(trial)'s values") }
      guard !dryRun, !result.edits.isEmpty else { return }
      _ = try Harness.validateSpec(bytes: Array(result.text.utf8), path: spec)
      do { try SafeFile.write(result.text, to: spec) } catch {
        throw CLIError.badInput("\(spec): cannot write (\(error.message))")
      }
      print("tune promote: \(result.edits.count) values written to \(spec)")
      guard !noVerify else { return }
      let verify = try JPReplay.Verify.parse(["--update", "new"])
      do { try verify.run() } catch let e as ExitCode where e.rawValue == 1 {
        print("tune promote: goldens changed; walk them with `jpreplay review --group` (one decision per group of like changes) or `jpreplay review`")
      }
    }

    /// Exit 2 (a warning with --force) when the study has a validation corpus and the trial
    /// does not generalise.
    func checkGeneralises(_ t: TrialResult, study s: TuneStudy, objective: String) throws {
      guard let g = try TuneReport(study: s, objectives: [objective]).generalisation(t), !g.generalises else { return }
      let why = "trial #\(t.index) does not generalise: \(g.reasons.joined(separator: "; "))"
      guard force else { throw CLIError.badInput("\(study): \(why) (--force promotes it anyway)") }
      printErr("warning: \(why); promoted anyway (--force)")
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
