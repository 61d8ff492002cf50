import CameraCoachPlugin
import EngineIO
import EngineSeam
import JustPhotoPlugin
import Lab
import PixScanPlugin
import Replay
import Verify

/// The engines this jpreplay replays, by the name a recording header gives in `engine`
/// (absent = Just Photo). Just Photo's commands build their drivers from a PoseSpec
/// (`ReplayHarness`); every other engine comes as an `EngineRegistration` its plug-in module
/// builds, one line each in ``engines`` (docs/ARCHITECTURE.md, "Add an engine"). Every command
/// reaches those engines through this list: replays (``route(_:plugins:)``), scenario files
/// (`record`, `verify`, `faults`), planted faults (`PlantFaultOption`) and `jpreplay engines`.
enum EngineRegistry {
  /// Every engine other than Just Photo, in the order listings print them.
  static let engines: [EngineRegistration] = [
    PixScanSeamEngine.registration,  // PixScan (issue 26, docs/PIXSCAN.md)
    CameraCoachSeamEngine.registration,  // Camera Coach (issue 36, docs/CAMERACOACH.md)
  ]

  /// The registered engines' replays, by name.
  static let plugins: [String: EnginePlugin] = Dictionary(
    engines.map { ($0.name, $0.plugin) }, uniquingKeysWith: { first, _ in first })

  /// The registered engines that have scenario files, with their hooks.
  static var scenarioEngines: [(engine: EngineRegistration, scenarios: ScenarioSupport)] {
    engines.compactMap { e in e.scenarios.map { (e, $0) } }
  }

  /// The engine whose scenario file `text` is (its top level says `engine: <name>`); nil for a
  /// Just Photo scenario.
  static func scenarioEngine(claiming text: String) -> (engine: EngineRegistration, scenarios: ScenarioSupport)? {
    scenarioEngines.first { $0.scenarios.claims(text) }
  }

  /// The plug-ins' hooks for `verify`'s scenario checks in `recordingsDir` (Just Photo's is
  /// `ScenarioCorpus.checks`), in registry order.
  static func scenarioChecks(recordingsDir: String) throws(CLIError) -> [ScenarioChecks] {
    do {
      var out: [ScenarioChecks] = []
      for e in scenarioEngines { out.append(try e.scenarios.checks(recordingsDir)) }
      return out
    } catch { throw .badInput(error.description) }
  }

  /// Every engine's scenario hooks for `recordingsDir`, Just Photo's first: what `review` and
  /// `accept` judge pending goldens by. A folder that cannot be listed has none.
  static func scenarioChecksOrNone(recordingsDir: String) -> [ScenarioChecks] {
    var out: [ScenarioChecks] = []
    if let justPhoto = try? ScenarioCorpus.checks(recordingsDir: recordingsDir) { out.append(justPhoto) }
    return out + ((try? scenarioChecks(recordingsDir: recordingsDir)) ?? [])
  }

  /// The event kind names of the engine `plugin` replays (Just Photo's when nil), in its
  /// vocabulary's order: what `cat --kind` may name.
  static func kindNames(of plugin: EnginePlugin?) -> [String] {
    (plugin?.kinds ?? JustPhotoVocabulary.kinds).map(\.name)
  }

  /// Just Photo as messages and listings name it.
  static let justPhotoTitle = "Just Photo"

  /// The engine `plugin` replays as messages name it (Just Photo when nil).
  /// The event definitions a recording of `plugin`'s engine is read with (Just Photo's
  /// vocabulary's when nil: a Just Photo recording).
  static func definitions(of plugin: EnginePlugin?) -> any EventDefinitions.Type {
    plugin?.definitions ?? JustPhotoVocabulary.eventDefinitions
  }

  /// The event definitions of the engine `path`'s header names, for a command that reads any
  /// recording (`info`, `doctor`): an unreadable header or an unknown engine is left to the
  /// reader, which reports it (Just Photo's definitions then).
  static func definitions(ofRecording path: String) -> any EventDefinitions.Type {
    definitions(of: (try? route(path)) ?? nil)
  }

  static func title(of plugin: EnginePlugin?) -> String {
    guard let plugin else { return justPhotoTitle }
    return engines.first { $0.name == plugin.name }?.title ?? plugin.name
  }

  /// Exit 2 when Just Photo's options are given for `path`, a recording of the engine
  /// `plugin` replays (not Just Photo): `--spec` and `--set` (`engine`) and `--cue` (`cues`)
  /// would be ignored there, a silent success.
  static func refuseJustPhotoOptions(
    _ engine: EngineArguments?, cues: some Collection<String> = [String](), for plugin: EnginePlugin, path: String
  ) throws(CLIError) {
    let given: [(flag: String, what: String)] = [
      (engine?.spec != nil, ("--spec", "names a Just Photo PoseSpec")),
      (engine?.overrides.isEmpty == false, ("--set", "overrides a Just Photo engine option")),
      (!cues.isEmpty, ("--cue", "names Just Photo cues")),
    ].filter(\.0).map(\.1)
    guard let (flag, what) = given.first else { return }
    throw .badInput("\(path): \(flag) \(what); a \(plugin.name) recording has none (leave \(flag) out)")
  }

  /// Every engine name this jpreplay knows.
  static var known: [String] { [justPhotoEngineName] + plugins.keys.sorted() }

  /// Where a command sends the recording at `path`: nil = Just Photo (the command's own path),
  /// else the plug-in of the engine its header names. Exit 2 for a malformed or unknown
  /// `engine`, naming the file and the header. A file that cannot be opened is left to the
  /// command, which reports it with its place. `plugins`: the registry's (the hidden
  /// `--plant-fault` passes an engine's with planted faults, `PlantFaultOption`).
  static func route(_ path: String, plugins: [String: EnginePlugin] = EngineRegistry.plugins) throws(CLIError) -> EnginePlugin? {
    let name: String?
    do { name = try RecordingEngine.name(ofRecording: path, definitions: JustPhotoVocabulary.eventDefinitions) } catch { throw .badInput(error.description) }
    guard let name, name != justPhotoEngineName else { return nil }
    guard let plugin = plugins[name] else {
      throw .badInput(RecordingEngine.unknown(name, path: path, known: known).description)
    }
    return plugin
  }

  /// For commands that judge Just Photo recordings only (a PoseSpec, its cues and prompts):
  /// exit 2 for another engine's recording, naming the engine and the command.
  static func requireJustPhoto(_ path: String, command: String, why: String) throws(CLIError) {
    guard let plugin = try route(path) else { return }
    throw .badInput(
      "\(path): header: \"engine\": a \(plugin.name) recording; `jpreplay \(command)` works on Just Photo recordings only (\(why))")
  }
}
