import ArgumentParser
import CanonicalJSON
import Foundation
import JustPhotoPlugin
import Lab
import Recording
import Verify

extension JPReplay {
  /// `jpreplay faults`: do the `expect:` rules catch a wrong engine? (issue 24)
  struct Faults: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "faults",
      abstract: "Replay the recordings with expect: rules under planted engine faults and spec mutants; report which rules catch each.",
      discussion: """
        Every recording whose scenario has expect: rules is replayed as it is, then once per \
        planted fault (a deliberate engine bug that only this command and the tests can turn \
        on; --list names them) and, with --mutants, once per spec mutant (one cue's threshold, \
        exit, persistence, hold, cooldown, levels or error sign changed). Goldens are not read: \
        a fault is caught when a rule that held without it fails. A fault that changes no trace \
        is "silent" (the corpus never exercises it); the catch rate counts the others. Names \
        or quoted globs ('s0*') limit the run to those recordings of --recordings. Exit 1 \
        when the rate is under --require, 2 on bad input.

        A PixScan corpus (--recordings Recordings/pixscan: scenarios with engine: pixscan) is \
        judged the same way against PixScan's planted faults (pix-…; docs/PIXSCAN.md "Planted \
        faults"), each scenario run straight through the engine; spec mutants are Just \
        Photo's. A Camera Coach corpus (--recordings Recordings/cameracoach: engine: \
        cameracoach) likewise against its planted faults (cc-…; docs/CAMERACOACH.md), its \
        budget invariants counting as rules.

        Examples:
          jpreplay faults --list
          jpreplay faults --recordings Recordings/pixscan --fault pix-undo-forgets-queue --fault pix-blank-text-kept
          jpreplay faults 's0*' --fault gate-min-hold-ignored --fault exit-threshold-ignored
          jpreplay faults --jobs 2    # not run: slow (the corpus per fault)
          jpreplay faults --mutants --json > /tmp/faults.json    # not run: slow
          jpreplay faults --require 90    # not run: slow; exit 1 below 90 %
        """)

    @Argument(help: "Only these recordings of --recordings (names or quoted globs such as 's0*'); default: every one with expect: rules.")
    var names: [String] = []

    @Flag(help: "List the planted faults and exit.")
    var list = false

    @Option(name: .customLong("fault"), help: "Only this planted fault (repeatable; default: all).")
    var only: [String] = []

    @Flag(help: "Also run spec mutants of the cues the recordings with rules show.")
    var mutants = false

    @Flag(name: .customLong("no-faults"), help: "Skip the planted faults (with --mutants: mutants only).")
    var noFaults = false

    @Option(help: "The folder of recordings and scenarios.")
    var recordings = "Recordings"

    @Option(help: "The PoseSpec (default: ./PoseSpec.json).")
    var spec: String?

    @Option(help: "Exit 1 when fewer than this percentage of the behaviour-changing faults (and, with --mutants, mutants) are caught.")
    var require: Double = 0

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(help: "Parallel replays (default: the number of CPU cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    /// The scenario files of `dir` that `scenarios` claims (`*.yaml` whose top level names
    /// its engine), sorted; empty for another engine's corpus.
    static func scenarioFiles(in dir: String, of scenarios: ScenarioSupport) -> [String] {
      let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
      return names.map { Paths.join(dir, $0) }.filter { f in
        (try? String(contentsOfFile: f, encoding: .utf8)).map(scenarios.claims) ?? false
      }
    }

    /// A scenario file's recording name: its file name without `.scenario.yaml` or `.yaml`.
    static func recordingName(_ file: String) -> String {
      let base = Paths.name(file)
      for suffix in [".scenario.yaml", ".yaml"] where base.hasSuffix(suffix) { return String(base.dropLast(suffix.count)) }
      return base
    }

    func run() throws {
      if list {
        for f in FaultRun.plantedFaults { print("\(f.name): \(f.summary)") }
        for e in EngineRegistry.engines { for f in e.plantableFaults { print("\(f.name): \(f.summary)") } }
        return
      }
      // Another engine's corpus (scenario files whose top level names a registered engine).
      for e in EngineRegistry.scenarioEngines {
        let files = Self.scenarioFiles(in: recordings, of: e.scenarios)
        guard !files.isEmpty else { continue }
        let title = e.engine.title
        guard !noFaults else { throw CLIError.badInput("nothing to run: --no-faults on a \(title) corpus (it has no spec mutants)") }
        guard require.isFinite, (0...100).contains(require) else { throw CLIError.badInput("--require \(require): expected a percentage 0…100") }
        if mutants { throw CLIError.badInput("--mutants: spec mutants are Just Photo's; a \(title) corpus has no spec") }
        if spec != nil { throw CLIError.badInput("--spec: a \(title) corpus has no spec") }
        let chosen = try FaultRun.select(files, named: Self.recordingName, by: names, in: recordings)
        let run: PlantedFaultRun
        do { run = try e.scenarios.faults(chosen, only) } catch { throw CLIError.badInput(error.description) }
        let outcomes = run.outcomes.map { o in
          FaultRun.Outcome(name: o.name, summary: o.summary, changed: o.changed, caughtBy: o.caughtBy, errors: o.errors)
        }
        let report = FaultRun.Report(recordings: run.recordings, outcomes: outcomes, unmetClean: run.unmetClean)
        if json { printJSON(report.json, terminator: "") } else { print(report.text(title: "faults (\(title))"), terminator: "") }
        if report.catchRate * 100 < require { throw ExitCode(1) }
        return
      }
      guard (1...256).contains(jobs) else { throw CLIError.badInput("--jobs \(jobs): expected 1…256") }
      guard require.isFinite, (0...100).contains(require) else { throw CLIError.badInput("--require \(require): expected a percentage 0…100") }
      let specPath = spec ?? Harness.defaultSpecPath
      let doc = try Harness.loadSpec(path: specPath)
      for e in EngineRegistry.engines {
        if let other = only.first(where: e.plants) {
          throw CLIError.badInput(
            "--fault \(other): a \(e.title) fault; judge it on a \(e.title) corpus (--recordings \(e.corpus.recordings))")
        }
      }
      let chosen = try FaultRun.names(in: recordings, matching: names)
      var variants = noFaults ? [] : try FaultRun.faultVariants(only)
      if mutants {
        let json = try JSONParser.parse(bytes: try Harness.readSpecBytes(path: specPath))
        let cues = try FaultRun.cuesSeen(spec: doc, recordingsDir: recordings, names: chosen, jobs: jobs)
        variants += SpecMutants.variants(specJSON: json, cues: cues)
      }
      guard !variants.isEmpty else {
        guard mutants else { throw CLIError.badInput("nothing to run: --no-faults without --mutants") }
        throw CLIError.badInput(
          "nothing to run: --no-faults, and --mutants made no spec mutant (no cue of \(specPath) appears in a clean replay of a recording with expect: rules in \(recordings))")
      }
      let progress = ProgressLine(label: "faults")
      let report = try FaultRun.run(variants: variants, spec: doc, recordingsDir: recordings, names: chosen, jobs: jobs) { done, total in
        progress.update(done, of: total)
      }
      progress.finish()
      if json { printJSON(report.json, terminator: "") } else { print(report.text(title: "faults"), terminator: "") }
      if report.catchRate * 100 < require { throw ExitCode(1) }
    }
  }
}
