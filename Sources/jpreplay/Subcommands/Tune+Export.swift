import ArgumentParser
import Foundation
import Lab
import Recording

extension JPReplay.Tune {
  struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "export",
      abstract: "Write a study in Optuna's journal format (for optuna-dashboard and the optuna package).",
      discussion: """
        --optuna FILE writes STUDY as the JSON-lines operation log of Optuna's JournalStorage: \
        `optuna-dashboard FILE` opens it, and Python reads it with \
        optuna.load_study(study_name=NAME, storage=JournalStorage(JournalFileBackend(FILE))). \
        Every direction is minimise, one per objective (--objectives; default the space's \
        objectives:, else its objective). A trial with every objective is COMPLETE (an \
        infeasible one too: its constraints system attribute, value − max per constraint, \
        says which it broke, as Optuna's constrained samplers store it); a failed trial, or one \
        with no objectives (an invalid spec), is FAIL. Each trial keeps jpreplay's index, \
        status, reason and every objective (val.* included) as user attributes; a parameter \
        inactive under its when: is absent from that trial's params. A list domain is a \
        CategoricalDistribution, {min, max} a FloatDistribution. The file depends only on the \
        study (no timestamps), so two exports are the same bytes. FILE follows jpreplay's output \
        rule (see jpreplay --help; /dev/stdout writes the log to standard output, the summary \
        line goes to standard error).

        Examples:
          jpreplay tune run docs/tune-space.example.yaml --study /tmp/o.sqlite --trials 3 --corpus drift-left-and-back --no-validation
          jpreplay tune export --optuna /tmp/o.jsonl /tmp/o.sqlite
          jpreplay tune export --optuna /tmp/o2.jsonl /tmp/o.sqlite --objectives flicker_per_min,latency_p90_ms --study-name drift
        """)

    @Argument(help: "The study file.")
    var study: String

    @Option(help: ArgumentHelp("Write the study here in Optuna's JournalStorage (journal file) format.", valueName: "FILE"))
    var optuna: String

    @Option(help: "The Optuna study name (default: the study file's name without extension).")
    var studyName: String?

    @Option(help: "Comma-separated objectives, one minimised direction each (default: the space's objectives:, else its objective).")
    var objectives: String?

    func run() throws {
      let keys = objectives.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
      if let keys, keys.isEmpty || keys.contains(where: \.isEmpty) { throw CLIError.badInput("--objectives: give comma-separated objectives") }
      let opened = try TuneStudy.open(study, create: false)
      let name = studyName ?? Paths.stem(study)
      let out = try TuneExport.optuna(study: opened, name: name, objectives: keys)
      do { try SafeFile.write(out.text, to: optuna) } catch {
        throw CLIError.badInput("\(optuna): cannot write (\(error.message))")
      }
      printErr("tune export: \(out.trials) trials of \(study) → \(optuna) (Optuna journal, study \"\(name)\", minimise \(out.objectives.joined(separator: ", ")))")
    }
  }
}
