import Foundation
import Lab
import PixScanPlugin
import PixScanScenarios
import Recording

/// `jpreplay faults` on a PixScan corpus (`--recordings Recordings/pixscan`, issue 26): the
/// scenarios' `expect:` rules against PixScan's planted faults (`PixFaultCheck`), reported as
/// Just Photo's faults are.
enum PixScanFaults {
  /// PixScan's planted faults, for `faults --list`.
  static var list: [(name: String, summary: String)] { PixScanSeamEngine.plantableFaults }

  /// The PixScan scenario files of `dir` (`*.yaml` whose top level says `engine: pixscan`),
  /// sorted; empty for a Just Photo corpus.
  static func scenarioFiles(in dir: String) -> [String] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
    return names.map { Paths.join(dir, $0) }.filter { f in
      (try? String(contentsOfFile: f, encoding: .utf8)).map(PixScanRecord.isPixScan) ?? false
    }
  }

  /// The report of `only` (default: every PixScan fault) over the scenarios of `files`; bad
  /// input for a scenario that does not parse, an unknown fault or an option of Just Photo's.
  static func report(files: [String], only: [String], mutants: Bool, spec: String?) throws -> FaultRun.Report {
    if mutants { throw CLIError.badInput("--mutants: spec mutants are Just Photo's; a PixScan corpus has no spec") }
    if spec != nil { throw CLIError.badInput("--spec: a PixScan corpus has no spec") }
    guard let faults = PixFaultCheck.faults(named: only) else {
      let known = list.map(\.name).joined(separator: ", ")
      throw CLIError.badInput("--fault \(only.joined(separator: ", ")): not a PixScan planted fault (a PixScan corpus knows \(known))")
    }
    var scenarios: [PixScenario] = []
    for f in files {
      let text: String
      do { text = try String(contentsOfFile: f, encoding: .utf8) } catch { throw CLIError.badInput("\(f): cannot read (\(SystemReason.of(error)))") }
      do { scenarios.append(try PixScenario.parse(yaml: text, file: f)) } catch { throw CLIError.badInput("\(error)") }
    }
    let withRules = scenarios.filter { !$0.expectations.isEmpty }
    guard !withRules.isEmpty else { throw CLIError.badInput("no PixScan scenario has expect: rules") }
    let run = PixFaultCheck.run(withRules, faults: faults)
    let outcomes = run.outcomes.map { o in
      FaultRun.Outcome(name: o.name, summary: o.summary, changed: o.changed, caughtBy: o.caughtBy, errors: o.errors)
    }
    return FaultRun.Report(recordings: withRules.map(\.name), outcomes: outcomes, unmetClean: run.unmetClean)
  }
}
