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
        every chosen objective) and the table of trials; --json prints one JSON object \
        instead (the same bytes for a merged study and an unsharded one); --svg writes the \
        first two objectives against each other with the front highlighted.

        Examples:
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/s.sqlite --trials 3 --corpus drift-left-and-back
          jpreplay tune report /tmp/s.sqlite --objectives flicker_per_min,latency_p90_ms --svg /tmp/front.svg
          jpreplay tune report /tmp/s.sqlite --json
        """)

    @Argument(help: "The study file.")
    var study: String

    @Option(help: "Comma-separated objectives of the front (lower is better).")
    var objectives = "flicker_per_min,latency_p90_ms"

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    @Option(help: "Write an SVG plot of the first two objectives here.")
    var svg: String?

    @Option(help: "Rows of the trial table (0 = all).")
    var limit = 0

    func run() throws {
      let keys = objectives.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      guard !keys.isEmpty else { throw CLIError.badInput("--objectives: give at least one objective") }
      let report = try TuneReport(study: TuneStudy.open(study, create: false), objectives: keys)
      if let svg {
        do { try SafeFile.write(TuneSVG.render(report), to: svg) } catch {
          throw CLIError.badInput("\(svg): cannot write (\(error.message))")
        }
        printErr("tune report: wrote \(svg)")
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

        Examples:
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/s.sqlite --trials 2 --corpus drift-left-and-back
          jpreplay tune promote /tmp/s.sqlite 1 --dry-run
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

    func run() throws {
      let s = try TuneStudy.open(study, create: false)
      guard let t = try s.trials().first(where: { $0.index == trial }) else {
        throw CLIError.badInput("\(study): no finished trial #\(trial)")
      }
      if t.status != .ok { printErr("warning: trial #\(trial) is \(t.status.rawValue): \(t.reason ?? "")") }
      let text: String
      do { text = try String(contentsOfFile: spec, encoding: .utf8) } catch { throw CLIError.badInput("\(spec): cannot read") }
      let result = try TunePromote.apply(trial: t, meta: try s.meta(), specText: text, specFile: spec)
      for e in result.edits { print("\(e.place): \(e.old) → \(e.new)") }
      for o in result.options { print("engine option (not in the PoseSpec): --set \(o.name)=\(o.value)") }
      if result.edits.isEmpty { print("tune promote: \(spec) already has trial #\(trial)'s values") }
      guard !dryRun, !result.edits.isEmpty else { return }
      _ = try Harness.validateSpec(bytes: Array(result.text.utf8), path: spec)
      do { try SafeFile.write(result.text, to: spec) } catch {
        throw CLIError.badInput("\(spec): cannot write (\(error.message))")
      }
      print("tune promote: \(result.edits.count) values written to \(spec)")
      guard !noVerify else { return }
      var verify = try JPReplay.Verify.parse(["--update", "new"])
      do { try verify.run() } catch let e as ExitCode where e.rawValue == 1 {
        print("tune promote: goldens changed; walk them with `jpreplay review`")
      }
    }
  }
}
