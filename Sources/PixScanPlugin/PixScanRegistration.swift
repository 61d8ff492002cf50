import PixScanEngine
import PixScanScenarios
import Replay
import Verify

extension PixScanSeamEngine {
  /// PixScan as the CLI's registry lists it (issue 26, docs/PIXSCAN.md): its replays, its
  /// corpus (Recordings/pixscan, Golden/pixscan), its planted faults (`pix-…`) and its
  /// `engine: pixscan` scenario files.
  public static let registration = EngineRegistration(
    plugin: plugin, title: "PixScan", corpus: CorpusFolders(engineName: PixScanVocabulary.engineName),
    plantableFaults: plantableFaults.map { PlantableFault(name: $0.name, summary: $0.summary) },
    withPlantedFaults: { plugin(plantedFaults: $0) },
    scenarios: PixScanScenarioChecks.support)
}

extension PixScanScenarioChecks {
  /// PixScan's scenario files for `record`, `verify` and `faults`.
  public static let support = ScenarioSupport(
    claims: { isScenario($0) },
    recording: { (file, text) throws(BadInputError) -> ScenarioRecording in
      let s: PixScenario
      do { s = try PixScenario.parse(yaml: text, file: file) } catch { throw BadInputError(message: "\(error)") }
      return ScenarioRecording(name: s.name, header: s.header, events: events(of: s))
    },
    difference: { path, generated in difference(path, header: generated.header, events: generated.events) },
    checks: { (dir) throws(BadInputError) -> ScenarioChecks in try checks(recordingsDir: dir) },
    faults: { (files, only) throws(BadInputError) -> PlantedFaultRun in try faultRun(files: files, only: only) })

  /// `jpreplay faults` on a PixScan corpus: the scenarios' `expect:` rules against the planted
  /// faults `only` (all for none), each scenario run straight through the engine
  /// (``PixFaultCheck``).
  ///
  /// - Parameters:
  ///   - files: the corpus's PixScan scenario files.
  ///   - only: planted fault names; empty = every PixScan fault.
  /// - Returns: what each fault did to the scenarios with rules.
  /// - Throws: bad input for an unknown fault, a file that cannot be read or parsed, or a
  ///   corpus without `expect:` rules.
  static func faultRun(files: [String], only: [String]) throws(BadInputError) -> PlantedFaultRun {
    guard let faults = PixFaultCheck.faults(named: only) else {
      let known = PixPlantedFault.allCases.map(\.rawValue).joined(separator: ", ")
      throw BadInputError(message: "--fault \(only.joined(separator: ", ")): not a PixScan planted fault (a PixScan corpus knows \(known))")
    }
    let scenarios = try PlantedFaultRun.scenarios(files) { file, text in try PixScenario.parse(yaml: text, file: file) }
    let withRules = scenarios.filter { !$0.expectations.isEmpty }
    guard !withRules.isEmpty else { throw BadInputError(message: "no PixScan scenario has expect: rules") }
    let run = PixFaultCheck.run(withRules, faults: faults)
    let outcomes = run.outcomes.map { o in
      PlantedFaultRun.Outcome(name: o.name, summary: o.summary, changed: o.changed, caughtBy: o.caughtBy, errors: o.errors)
    }
    return PlantedFaultRun(recordings: withRules.map(\.name), outcomes: outcomes, unmetClean: run.unmetClean)
  }
}
