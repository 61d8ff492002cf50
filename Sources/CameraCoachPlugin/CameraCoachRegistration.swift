import CameraCoachEngine
import CameraCoachScenarios
import Replay
import Verify

extension CameraCoachSeamEngine {
  /// Camera Coach as the CLI's registry lists it (issue 36, docs/CAMERACOACH.md): its replays,
  /// its corpus (Recordings/cameracoach, Golden/cameracoach), its planted faults (`cc-…`) and
  /// its `engine: cameracoach` scenario files.
  public static let registration = EngineRegistration(
    plugin: plugin, title: "Camera Coach", corpus: CorpusFolders(engineName: CameraCoachVocabulary.engineName),
    plantableFaults: plantableFaults.map { PlantableFault(name: $0.name, summary: $0.summary) },
    withPlantedFaults: { plugin(plantedFaults: $0) },
    scenarios: CameraCoachScenarioChecks.support)
}

extension CameraCoachScenarioChecks {
  /// Camera Coach's scenario files for `record`, `verify` and `faults`.
  public static let support = ScenarioSupport(
    claims: { isScenario($0) },
    recording: { (file, text) throws(BadInputError) -> ScenarioRecording in
      let s: CCScenario
      do { s = try CCScenario.parse(yaml: text, file: file) } catch { throw BadInputError(message: "\(error)") }
      return ScenarioRecording(name: s.name, header: s.header, events: events(of: s))
    },
    difference: { path, generated in difference(path, header: generated.header, events: generated.events) },
    checks: { (dir) throws(BadInputError) -> ScenarioChecks in try checks(recordingsDir: dir) },
    faults: { (files, only) throws(BadInputError) -> PlantedFaultRun in try faultRun(files: files, only: only) })

  /// `jpreplay faults` on a Camera Coach corpus: the scenarios' `expect:` rules and the budget
  /// invariants against the planted faults `only` (all for none), ``CCFaultCheck``.
  ///
  /// - Parameters:
  ///   - files: the corpus's Camera Coach scenario files.
  ///   - only: planted fault names; empty = every Camera Coach fault.
  /// - Returns: what each fault did to the scenarios.
  /// - Throws: bad input for an unknown fault or a file that cannot be read or parsed.
  static func faultRun(files: [String], only: [String]) throws(BadInputError) -> PlantedFaultRun {
    guard let faults = CCFaultCheck.faults(named: only) else {
      let known = CCPlantedFault.allCases.map(\.rawValue).joined(separator: ", ")
      throw BadInputError(message: "--fault \(only.joined(separator: ", ")): not a Camera Coach planted fault (a Camera Coach corpus knows \(known))")
    }
    let scenarios = try PlantedFaultRun.scenarios(files) { file, text in try CCScenario.parse(yaml: text, file: file) }
    let run = CCFaultCheck.run(scenarios, faults: faults)
    let outcomes = run.outcomes.map { o in
      PlantedFaultRun.Outcome(name: o.name, summary: o.summary, changed: o.changed, caughtBy: o.caughtBy, errors: o.errors)
    }
    return PlantedFaultRun(recordings: scenarios.map(\.name), outcomes: outcomes, unmetClean: run.unmetClean)
  }
}
