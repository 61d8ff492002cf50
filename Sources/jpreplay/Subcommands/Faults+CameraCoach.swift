import CameraCoachPlugin
import CameraCoachScenarios
import Foundation
import Lab
import Recording

/// `jpreplay faults` on a Camera Coach corpus (`--recordings Recordings/cameracoach`): the
/// scenarios' `expect:` rules and the budget invariants against Camera Coach's planted faults
/// (`CCFaultCheck`), reported as the other engines' faults are.
enum CameraCoachFaults {
  /// Camera Coach's planted faults, for `faults --list`.
  static var list: [(name: String, summary: String)] { CameraCoachSeamEngine.plantableFaults }

  /// The Camera Coach scenario files of `dir`, sorted; empty for another corpus.
  static func scenarioFiles(in dir: String) -> [String] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
    return names.map { Paths.join(dir, $0) }.filter { f in
      (try? String(contentsOfFile: f, encoding: .utf8)).map(CameraCoachRecord.isCameraCoach) ?? false
    }
  }

  /// The report of `only` (default: every Camera Coach fault) over the scenarios of `files`.
  static func report(files: [String], only: [String], mutants: Bool, spec: String?) throws -> FaultRun.Report {
    if mutants { throw CLIError.badInput("--mutants: spec mutants are Just Photo's; a Camera Coach corpus has no spec") }
    if spec != nil { throw CLIError.badInput("--spec: a Camera Coach corpus has no spec") }
    guard let faults = CCFaultCheck.faults(named: only) else {
      let known = list.map(\.name).joined(separator: ", ")
      throw CLIError.badInput("--fault \(only.joined(separator: ", ")): not a Camera Coach planted fault (a Camera Coach corpus knows \(known))")
    }
    var scenarios: [CCScenario] = []
    for f in files {
      let text: String
      do { text = try String(contentsOfFile: f, encoding: .utf8) } catch { throw CLIError.badInput("\(f): cannot read (\(SystemReason.of(error)))") }
      do { scenarios.append(try CCScenario.parse(yaml: text, file: f)) } catch { throw CLIError.badInput("\(error)") }
    }
    let run = CCFaultCheck.run(scenarios, faults: faults)
    let outcomes = run.outcomes.map { o in
      FaultRun.Outcome(name: o.name, summary: o.summary, changed: o.changed, caughtBy: o.caughtBy, errors: o.errors)
    }
    return FaultRun.Report(recordings: scenarios.map(\.name), outcomes: outcomes, unmetClean: run.unmetClean)
  }
}
