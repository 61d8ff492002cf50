import ArgumentParser
import Foundation
import Lab
import Recording

extension JPReplay.Tune {
  /// `tune rebuild RECIPE` (issue 35 item 1): the committed tuned configuration, rebuilt from
  /// its study recipe byte for byte — `tune run` with the recipe's settings, then `tune
  /// promote TRIAL --to` the recipe's folder through the same gates as every promote.
  struct Rebuild: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "rebuild",
      abstract: "Rebuild a tuned configuration (PoseSpec.json, options.txt) from its study recipe, byte for byte.",
      discussion: """
        RECIPE (YAML, e.g. docs/tuned/recipe.yaml) names the space, the spec, the fit and \
        validation corpora, the sampler, its seed, the trial count and TPE batch, the trial \
        promoted, and the SHA-256 of each file it makes (outputs:). rebuild runs that study \
        (in a temporary file, or --study FILE, resumed when it exists), promotes the trial \
        with `tune promote --to` into the recipe's folder (the promote's gates: an infeasible \
        trial or one that does not generalise is refused), reads the result on the test set, \
        and checks every expect: rule of the fit, validation and test recordings with the \
        rebuilt configuration — on each of the recipe's `seeds:` detector draws (default 1; \
        draw 0 is the committed recording, as score --seeds), since a rule that holds on one \
        draw is a rule about one draw. A rule's known: marker (docs/SCENARIOS.md) is honoured \
        as by score and tune: a known miss on a draw it names is printed, not a failure; a \
        hold there is one. A recipe's known_misses: N allows at most N known misses over every \
        draw (docs/tuned's says 0: the answer meets every rule itself). Exit 0 when the files equal the recipe's outputs and break no \
        rule; 1 when a file differs from outputs: (named with both hashes) or a rule is \
        broken (each named); 2 on a bad recipe. --check writes nothing into the folder: it \
        rebuilds into a temporary folder and compares the rebuilt files, and the committed \
        ones, with the recipe's outputs. The trial's values never depend on --jobs, so \
        neither do the files.

        --table runs no study and writes nothing: it prints the recipe's ablation (its \
        ablation: rows, each a label and a trial; default the promoted trial) read on the test \
        set (test-*), each objective's mean and 95% interval over the recipe's seeds: draws, as \
        the Markdown table docs/TUNING.md holds. A grid or random trial's values are a function \
        of the seed and its index alone, so no study is needed; a TPE or NSGA-II trial past the \
        first batch is exit 2.

        Examples:
          jpreplay tune rebuild Tests/Fixtures/recipe-short.yaml --check --jobs 2
          jpreplay tune rebuild Tests/Fixtures/recipe-short.yaml --table --jobs 2

        docs/tuned is rebuilt with `jpreplay tune rebuild docs/tuned/recipe.yaml` (docs/TUNING.md).
        """)

    @Argument(help: "The study recipe (YAML).")
    var recipe: String

    @Flag(help: "Rebuild into a temporary folder and compare with the recipe's folder; write nothing there.")
    var check = false

    @Option(help: "Keep the study here (resumed when it exists); default a temporary file, removed afterwards.")
    var study: String?

    @Flag(help: "Print the ablation's test-set table (mean [95% interval] over the recipe's draws); run no study, write nothing.")
    var table = false

    @Option(help: "Parallel trials (default: the number of CPU cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    func run() throws {
      let r: TuneRecipe
      do { r = try TuneRecipe.read(recipe) } catch { throw CLIError.badInput(error.message) }
      if table {
        guard !check, study == nil else { throw CLIError.badInput("--table runs no study: leave out --check and --study") }
        do {
          let t = try TuneRecipeTable.rows(recipe: r, jobs: max(1, jobs))
          print(TuneRecipeTable.text(recipe: r, names: t.names, rows: t.rows), terminator: "")
        } catch { throw CLIError.badInput(error.message) }
        return
      }
      let scratch: URL
      do { scratch = try SafeFile.temporaryDirectory("rebuild") } catch { throw CLIError.badInput(error.description) }
      defer { try? FileManager.default.removeItem(at: scratch) }
      let studyPath = study ?? Paths.join(scratch.path, "study.sqlite")
      printErr("tune rebuild: \(recipe): \(r.sampler) sampler, seed \(r.seed), \(r.trials) trials over \(r.space)\(r.seeds > 1 ? ", \(r.seeds) draws each" : ""); trial #\(r.trial) → \(r.folder)")
      try JPReplay.Tune.Run.parse(r.runArguments + ["--study", studyPath, "--jobs", String(max(1, jobs))]).run()
      let out = check ? Paths.join(scratch.path, "out") : r.folder
      try JPReplay.Tune.Promote.parse(
        [studyPath, String(r.trial), "--spec", r.spec, "--to", out, "--recordings-dir", r.recordingsDir]
      ).run()
      var problems: [String] = []
      // The files: equal to the recipe's outputs (and, with --check, to the committed ones).
      for m in r.outputMismatches(in: out) {
        problems.append("\(Paths.join(r.folder, m.name)): the recipe declares sha256 \(m.declared), the rebuild made \(m.found)")
      }
      if check {
        // The committed files against the same hashes; a folder holding only the recipe is
        // judged by its hashes alone.
        for m in r.outputMismatches(in: r.folder) {
          if m.found == "missing" {
            print("tune rebuild: \(Paths.join(r.folder, m.name)) is not in the folder; the recipe's sha256 is the reference")
          } else {
            problems.append("\(Paths.join(r.folder, m.name)): sha256 \(m.found), the recipe declares \(m.declared) (run without --check to write the rebuilt file)")
          }
        }
      }
      // Every rule of the fit, validation and test corpora holds with the rebuilt configuration.
      let judged: (broken: [String], known: [String])
      do { judged = try TuneRecipeRules.judge(recipe: r, folder: out, jobs: max(1, jobs)) } catch { throw CLIError.badInput(error.message) }
      problems += judged.broken.map { "rule broken by the rebuilt configuration: \($0)" }
      // Known misses (a rule's known: marker, docs/SCENARIOS.md): named, not problems — unless
      // the recipe's known_misses: budget is smaller than their count.
      let pastBudget = r.knownMissProblems(judged.known)
      if !pastBudget.isEmpty {
        problems += pastBudget
      } else {
        for k in judged.known { print(ConsoleText.line("tune rebuild: known miss, not a failure: \(k)")) }
      }
      guard problems.isEmpty else {
        for p in problems { printErr("jpreplay: \(ConsoleText.line(p))") }
        printErr("jpreplay: tune rebuild: \(problems.count) problem\(problems.count == 1 ? "" : "s"); \(recipe) and \(r.folder) do not agree (a changed answer: update the recipe's outputs after reviewing it)")
        throw ExitCode(1)
      }
      let everywhere = r.seeds > 1 ? " on each of \(r.seeds) draws" : ""
      print("tune rebuild: \(r.folder): \(TuneRecipe.outputNames.joined(separator: ", ")) equal the recipe's outputs; every expect: rule of the fit, validation and test recordings holds\(everywhere)\(judged.known.isEmpty ? "" : ", known misses aside (\(judged.known.count), above)")")
    }
  }
}
