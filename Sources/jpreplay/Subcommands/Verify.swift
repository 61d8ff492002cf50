import ArgumentParser
import Foundation
import Lab
import Replay

extension JPReplay {
  struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Replay recordings and compare them with their goldens.",
      discussion: """
        Replays every Recordings/<name>.jprec (or the ones named) and compares the trace and \
        A.13 outputs with Golden/<name>.trace.jsonl and Golden/<name>.a13.jsonl. On a \
        difference it writes <golden>.new beside the golden (see `jpreplay review`) and exits 1.

        When the CI environment variable is set nothing is written, a missing golden fails, \
        and a golden without a recording fails.

        A recording with a scenario file (Recordings/<name>.scenario.yaml) must hold exactly \
        what the scenario generates: otherwise verify reports it stale ("run jpreplay record \
        <name>") and exits 1; an unreadable scenario exits 2. The check generates in memory \
        and compares events; recordings without a scenario are not affected.

        Examples:
          jpreplay verify
          jpreplay verify Recordings/drift-left-and-back.jprec --jobs 2
          CI=true jpreplay verify --junit /tmp/verify.xml
          jpreplay verify --budgets --budget minHoldMs=500

        --budgets checks each verified trace against the prompt budgets of the Camera Coach \
        guidance (one cue shown at most 3 times in 10 s, at most 2 prompts in 1 s, at most 8 \
        displayed-cue changes a minute, every display held at least 300 ms), prints the \
        changes per minute, and fails on a breach. --budget name=value changes a limit \
        (maxShowsOfOneCue, repeatWindowMs, maxPromptsPerSecond, maxCueChangesPerMinute, \
        minHoldMs).
        """)

    @Argument(help: "Recordings to verify (names or paths); default: the whole corpus.")
    var recordings: [String] = []

    @OptionGroup var corpus: CorpusOptions
    @OptionGroup var engine: EngineArguments

    @Option(help: "Parallel replays.")
    var jobs = 1

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Option(help: ArgumentHelp("Verify only shard i of n (1-based), e.g. 2/4.", valueName: "i/n"))
    var shard: String?

    @Option(name: .customLong("time-tolerance"), help: "Accept events shifted by up to N ms.")
    var timeToleranceMs: Int64 = 0

    @Flag(help: "Also replay each recording twice in separate processes (with and without SWIFT_DETERMINISTIC_HASHING) and compare bytes.")
    var determinism = false

    @Flag(help: "Check the prompt budgets on every verified trace; a breach fails verify.")
    var budgets = false

    @Option(name: .customLong("budget"), help: ArgumentHelp("Change a budget limit (with --budgets).", valueName: "name=value"))
    var budgetSettings: [String] = []

    func validate() throws {
      guard jobs >= 1, jobs <= 64 else { throw ValidationError("--jobs must be 1…64, got \(jobs)") }
      if let shard, Shard(shard) == nil { throw ValidationError("--shard '\(shard)': expected i/n with 1 ≤ i ≤ n") }
      guard timeToleranceMs >= 0 else { throw ValidationError("--time-tolerance must be ≥ 0") }
    }

    func run() throws {
      let driver = try Harness.driver(specPath: engine.spec, overrides: try engine.parsedOverrides())
      var diff = DiffOptions()
      diff.timingToleranceMs = timeToleranceMs
      let options = VerifyOptions(
        names: recordings.isEmpty ? nil : recordings, jobs: jobs, ci: VerifyOptions.isCI(),
        shard: shard.flatMap(Shard.init), diff: diff)
      // Scenario recordings first: a stale one replays events its scenario no longer makes.
      let stale = try ScenarioCorpus.staleRecordings(
        recordingsDir: corpus.recordingsDir,
        names: recordings.isEmpty ? nil : recordings.map { corpus.store.name(of: $0) })
      for p in stale.problems { printErr(p.code == 1 ? p.message : "jpreplay: \(p.message)") }
      let verifier = Verifier(store: corpus.store, options: options, driver: driver)
      let progress = ProgressLine(label: "verify")
      let report = try verifier.run { p in progress.update(p.completed, of: p.total, p.name) }
      progress.finish()
      print(report.render(), terminator: "")
      if let junit {
        try Harness.writeAtomically(JUnitReport.render(report), to: junit)
      }
      var code = report.exitCode
      if let worst = stale.problems.map(\.code).max() {
        print("scenarios: \(stale.problems.count) of \(stale.checked) scenario recordings stale or unreadable")
        code = max(code, worst == 2 ? .badInput : .difference)
      } else if stale.checked > 0 {
        print("scenarios: \(stale.checked) scenario recordings up to date")
      }
      if determinism && code == .ok {
        let names = report.cases.filter(\.passed).map(\.name)
        let problems = try Harness.checkDeterminism(
          names: names, store: corpus.store, specPath: engine.spec, overrides: engine.overrides)
        for p in problems { printErr("determinism: \(p)") }
        if !problems.isEmpty { code = .difference } else { print("determinism: \(names.count) recordings byte-identical across processes") }
      }
      if budgets {
        var limits = BudgetLimits()
        for b in budgetSettings {
          do { try limits.set(b) } catch {
            printErr("jpreplay: \(error.message)")
            throw ExitCode(2)
          }
        }
        var breached = 0
        for c in report.cases where c.passed {
          guard let trace = try? corpus.store.readGolden(c.name, .trace) else { continue }
          // A recording may declare its own limits in its header (`budgets: {name: value}`),
          // e.g. a coverage sweep that shows many cues in one minute on purpose.
          var local = limits
          var own: [String] = []
          if let header = try? Harness.openReader(corpus.store.recordingURL(c.name).path).header,
            let declared = header["budgets"]?.objectValue
          {
            for m in declared.members {
              let setting = "\(m.key)=\(m.value.int64Value.map(String.init) ?? m.value.stringValue ?? "")"
              do { try local.set(setting) } catch {
                printErr("jpreplay: \(c.name): header budgets: \(error.message)")
                throw ExitCode(2)
              }
              own.append(setting)
            }
          }
          var r = BudgetCheck.check(name: c.name, trace: trace, limits: local)
          if !own.isEmpty { r.name += " (own limits \(own.joined(separator: ", ")))" }
          print(r.line)
          if !r.passed { breached += 1 }
        }
        print("budgets: \(breached == 0 ? "all within limits" : "\(breached) recording(s) over budget")")
        if breached > 0 && code == .ok { code = .difference }
      }
      if code != .ok { throw ExitCode(code.rawValue) }
    }
  }
}
