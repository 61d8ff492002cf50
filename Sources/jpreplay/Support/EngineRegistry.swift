import CameraCoachPlugin
import EngineIO
import EngineSeam
import JustPhotoPlugin
import Lab
import PixScanPlugin
import Replay
import Verify

/// The engines this jpreplay replays, by the name a recording header gives in `engine`
/// (absent = Just Photo). Every engine comes as an `EngineRegistration` its plug-in module
/// builds (Just Photo's: `Harness.registration`, its replays made from a PoseSpec), one line
/// each in ``engines`` (docs/ARCHITECTURE.md, "Add an engine"). Every command reaches those
/// engines through this list: replays (``route(_:plugins:)``, then the plug-in configured
/// with the command's engine options, ``configured(_:_:path:)``), scenario files (`record`,
/// `verify`, `faults`), planted faults (`PlantFaultOption`) and `jpreplay engines`.
enum EngineRegistry {
  /// Every engine, Just Photo first, in the order listings print them.
  static let engines: [EngineRegistration] = [
    Harness.registration,  // Just Photo (docs/ENGINE.md)
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
  static let justPhotoTitle = Harness.registration.title

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
    (try? route(path))?.definitions ?? JustPhotoVocabulary.eventDefinitions
  }

  static func title(of plugin: EnginePlugin?) -> String {
    guard let plugin else { return justPhotoTitle }
    return engines.first { $0.name == plugin.name }?.title ?? plugin.name
  }

  /// Every engine name this jpreplay knows.
  static var known: [String] { engines.map(\.name) }

  /// The plug-in of the engine the recording at `path` names in its header `engine` (Just
  /// Photo's when it names none). Exit 2 for a malformed or unknown `engine`, naming the file
  /// and the header. A file that cannot be opened goes to Just Photo's, whose replay reports
  /// it with its place. `plugins`: the registry's (the hidden `--plant-fault` passes an
  /// engine's with planted faults, `PlantFaultOption`).
  static func route(_ path: String, plugins: [String: EnginePlugin] = EngineRegistry.plugins) throws(CLIError) -> EnginePlugin {
    let name: String?
    do { name = try RecordingEngine.name(ofRecording: path, definitions: JustPhotoVocabulary.eventDefinitions) } catch { throw .badInput(error.description) }
    let engine = name ?? justPhotoEngineName
    guard let plugin = plugins[engine] else {
      throw .badInput(RecordingEngine.unknown(engine, path: path, known: known).description)
    }
    return plugin
  }

  /// The engines with lab tools of their own (``EngineLab``), by name: Just Photo's PoseSpec
  /// tools. Lab sits above the plug-ins, so these are listed here, not on a registration.
  static let labs: [String: EngineLab] = [justPhotoEngineName: .justPhoto]

  /// What the lab's commands make of `plugin`'s recordings (``EngineLab/vocabulary`` for an
  /// engine without tools of its own).
  static func lab(of plugin: EnginePlugin) -> EngineLab { labs[plugin.name] ?? .vocabulary }

  /// How the HTML report draws the timeline of the recording at `path`: its routed engine's
  /// lab's (`plugins`: verify's, `--plant-fault`'s included); a recording that cannot be routed
  /// is drawn under the report's PoseSpec, whose replay then reports why it has no timeline.
  static func timelineSource(_ path: String, plugins: [String: EnginePlugin] = EngineRegistry.plugins) -> HTMLReportTimelineSource {
    let routed = try? route(path, plugins: plugins)
    return routed.map { lab(of: $0).timeline($0) } ?? .spec
  }

  /// The engine a recording without a header `engine` is for (Just Photo): the first of
  /// ``engines``.
  static var defaultEngine: EngineRegistration { engines[0] }

  /// `plugin` configured with a command's engine options (`EnginePlugin.configured`): exit 2
  /// naming `path` (the recording it is for) when the engine takes no such option, a
  /// `--trace` kind it never writes, or a bad value.
  static func configured(_ plugin: EnginePlugin, _ options: EngineOptionValues, path: String) throws(CLIError) -> EnginePlugin {
    do { return try plugin.configured(options) } catch { throw refusal(error, plugin: plugin, path: path) }
  }

  /// The message of `error`, `plugin`'s refusal of the engine options given for `path`.
  static func refusal(_ error: EngineOptionError, plugin: EnginePlugin, path: String) -> CLIError {
    switch error {
    case .notAccepted(let flag):
      let what = optionMeanings[flag] ?? "is an engine option"
      return .badInput("\(path): \(flag) \(what); a \(plugin.name) recording has none (leave \(flag) out)")
    case .unknownTraceKind(let name, let known):
      let hint = name == "metrics" ? " ('metrics' adds Just Photo's cue_eval lines)" : ""
      return .badInput(
        "--trace: unknown trace kind '\(name)' for \(path), a \(plugin.name) recording\(hint); known kinds: \(known.sorted().joined(separator: ", "))")
    case .unavailable(let message, _, _): return .badInput(message)
    case .badInput(let message, let code): return CLIError(code: code, message: message)
    }
  }

  /// What the engine options mean, as a refusal names them.
  static let optionMeanings = [
    "--spec": "names a Just Photo PoseSpec", "--set": "overrides a Just Photo engine option", "--cue": "names Just Photo cues",
  ]

  /// For commands that judge Just Photo recordings only (a PoseSpec, its cues and prompts):
  /// exit 2 for another engine's recording, naming the engine and the command.
  static func requireJustPhoto(_ path: String, command: String, why: String) throws(CLIError) {
    let plugin = try route(path)
    guard plugin.name != justPhotoEngineName else { return }
    throw .badInput(
      "\(path): header: \"engine\": a \(plugin.name) recording; `jpreplay \(command)` works on Just Photo recordings only (\(why))")
  }
}
