import CanonicalJSON
import EngineIO
import Foundation
import Recording
import Replay

/// Everything the command line needs of one engine on the seam, in one value its plug-in
/// module builds: its replays (``EnginePlugin``), how people name it, where its corpus lives,
/// its planted faults, and its scenario files (``ScenarioSupport``). The CLI's registry is a
/// list of these, one line per engine; every command reaches an engine through it, so adding
/// an engine touches its own modules, that line and Package.swift (docs/ARCHITECTURE.md,
/// "Add an engine").
///
/// Example (a plug-in module):
/// ```swift
/// extension PixScanSeamEngine {
///   public static let registration = EngineRegistration(
///     plugin: plugin, title: "PixScan", corpus: CorpusFolders(engineName: "pixscan"),
///     plantableFaults: PixPlantedFault.allCases.map { PlantableFault(name: $0.rawValue, summary: $0.summary) },
///     withPlantedFaults: { plugin(plantedFaults: $0) }, scenarios: PixScanScenarioChecks.support)
/// }
/// ```
public struct EngineRegistration: Sendable {
  /// The engine's replays (header `engine` = ``name``).
  public var plugin: EnginePlugin
  /// The engine as messages and reports name it, e.g. `PixScan`, `Camera Coach`.
  public var title: String
  /// Where its recordings and goldens live in this repository (what `scripts/verify` replays).
  public var corpus: CorpusFolders
  /// Its planted faults, in the order `faults --list` prints them; empty when it has none.
  public var plantableFaults: [PlantableFault]
  /// The engine with the faults named planted in every engine it makes (the hidden
  /// `--plant-fault` of `replay` and `verify`); nil when a name is not one of
  /// ``plantableFaults``.
  public var withPlantedFaults: @Sendable (_ names: [String]) -> EnginePlugin?
  /// Its scenario files (`record`, `verify`'s scenario checks, `faults`); nil when it has none.
  public var scenarios: ScenarioSupport?

  /// A registration.
  ///
  /// - Parameters:
  ///   - plugin: the engine's replays.
  ///   - title: its name in messages and reports.
  ///   - corpus: its recordings and goldens folders.
  ///   - plantableFaults: its planted faults (none by default).
  ///   - withPlantedFaults: the engine with faults planted (default: none can be planted).
  ///   - scenarios: its scenario files (default: none).
  public init(
    plugin: EnginePlugin, title: String, corpus: CorpusFolders, plantableFaults: [PlantableFault] = [],
    withPlantedFaults: @escaping @Sendable (_ names: [String]) -> EnginePlugin? = { _ in nil },
    scenarios: ScenarioSupport? = nil
  ) {
    self.plugin = plugin
    self.title = title
    self.corpus = corpus
    self.plantableFaults = plantableFaults
    self.withPlantedFaults = withPlantedFaults
    self.scenarios = scenarios
  }

  /// The header's `engine` value (``EnginePlugin/name``).
  public var name: String { plugin.name }

  /// True when `fault` names one of ``plantableFaults``.
  ///
  /// - Parameter fault: a planted fault's name, e.g. `pix-undo-forgets-queue`.
  /// - Returns: whether this engine plants it.
  public func plants(_ fault: String) -> Bool { plantableFaults.contains { $0.name == fault } }
}

/// A recordings folder and its goldens folder, as `verify --recordings-dir … --golden-dir …`
/// takes them (relative to the repository root).
public struct CorpusFolders: Sendable, Equatable {
  /// The recordings (and scenario files), e.g. `Recordings/pixscan`.
  public var recordings: String
  /// The goldens, e.g. `Golden/pixscan`.
  public var golden: String

  /// Folders named explicitly.
  ///
  /// - Parameters:
  ///   - recordings: the recordings folder.
  ///   - golden: the goldens folder.
  public init(recordings: String, golden: String) {
    self.recordings = recordings
    self.golden = golden
  }

  /// The house rule: `Recordings/<engine>` and `Golden/<engine>`.
  ///
  /// - Parameter engineName: the header's `engine` value.
  ///
  /// Example: `CorpusFolders(engineName: "cameracoach")` is `Recordings/cameracoach`,
  /// `Golden/cameracoach`.
  public init(engineName: String) {
    self.init(recordings: "Recordings/\(engineName)", golden: "Golden/\(engineName)")
  }
}

/// A deliberate engine bug that only tests and `jpreplay faults` turn on.
public struct PlantableFault: Sendable, Equatable {
  /// Its name, e.g. `cc-y-not-flipped`.
  public var name: String
  /// What it does, in words.
  public var summary: String

  /// A fault.
  ///
  /// - Parameters:
  ///   - name: its name.
  ///   - summary: what it does.
  public init(name: String, summary: String) {
    self.name = name
    self.summary = summary
  }
}

/// What one scenario file generates: the recording `jpreplay record` writes as `<name>.jprec`
/// beside it.
public struct ScenarioRecording: Sendable {
  /// The scenario's `name:` (the recording's file name without `.jprec`).
  public var name: String
  /// The recording's header (with `engine` and the scenario's `generator_sha256`).
  public var header: JSONObject
  /// The recording's events, in time order.
  public var events: [InputEvent]

  /// A generated recording.
  ///
  /// - Parameters:
  ///   - name: the scenario's name.
  ///   - header: the recording's header.
  ///   - events: its events.
  public init(name: String, header: JSONObject, events: [InputEvent]) {
    self.name = name
    self.header = header
    self.events = events
  }
}

/// What `jpreplay faults` found on one engine's scenarios: per planted fault, the scenarios
/// whose trace changed and the rules that caught it (the CLI prints it as Just Photo's report).
public struct PlantedFaultRun: Sendable, Equatable {
  /// What one fault did.
  public struct Outcome: Sendable, Equatable {
    /// The fault's name.
    public var name: String
    /// What it does.
    public var summary: String
    /// Scenarios whose trace differs from the clean run's.
    public var changed: [String]
    /// `scenario: rule` lines that held clean and fail with the fault.
    public var caughtBy: [String]
    /// Scenarios that could not be run with the fault.
    public var errors: [String]

    /// An outcome.
    ///
    /// - Parameters:
    ///   - name: the fault's name.
    ///   - summary: what it does.
    ///   - changed: scenarios whose trace changed.
    ///   - caughtBy: the rules that caught it.
    ///   - errors: scenarios that could not be run.
    public init(name: String, summary: String, changed: [String], caughtBy: [String], errors: [String]) {
      self.name = name
      self.summary = summary
      self.changed = changed
      self.caughtBy = caughtBy
      self.errors = errors
    }
  }

  /// The scenarios judged (those with rules).
  public var recordings: [String]
  /// One outcome per fault run, in the engine's order.
  public var outcomes: [Outcome]
  /// Rules unmet on the clean run (`scenario: rule`): they cannot catch anything.
  public var unmetClean: [String]

  /// A run.
  ///
  /// - Parameters:
  ///   - recordings: the scenarios judged.
  ///   - outcomes: one per fault.
  ///   - unmetClean: rules unmet without a fault.
  public init(recordings: [String], outcomes: [Outcome], unmetClean: [String]) {
    self.recordings = recordings
    self.outcomes = outcomes
    self.unmetClean = unmetClean
  }

  /// The scenario files of a fault run, each read and parsed by the engine's `parse`, in order.
  ///
  /// - Parameters:
  ///   - files: the corpus's scenario files of the engine.
  ///   - parse: the engine's parser of one file (`file`, its text).
  /// - Returns: the parsed scenarios.
  /// - Throws: bad input `FILE: cannot read (why)` or the parser's message.
  ///
  /// Example: `try PlantedFaultRun.scenarios(files) { try CCScenario.parse(yaml: $1, file: $0) }`.
  public static func scenarios<S>(_ files: [String], parse: (_ file: String, _ text: String) throws -> S) throws(BadInputError) -> [S] {
    var out: [S] = []
    for f in files {
      let text: String
      do { text = try String(contentsOfFile: f, encoding: .utf8) } catch {
        throw BadInputError(message: "\(f): cannot read (\(SystemReason.of(error)))")
      }
      do { out.append(try parse(f, text)) } catch { throw BadInputError(message: "\(error)") }
    }
    return out
  }
}

/// An engine's scenario files, as `record`, `verify` and `faults` use them: which files are
/// its, what one generates, how a recording differs from it, `verify`'s hook and the fault run.
///
/// Example (`jpreplay record` of one file, as the CLI does it):
/// ```swift
/// if let s = registration.scenarios, s.claims(text) {
///   let generated = try s.recording(file, text)
///   if s.difference(out, generated) == nil { print("unchanged …") } else { /* write it */ }
/// }
/// ```
public struct ScenarioSupport: Sendable {
  /// True for a scenario file of this engine, given its text (its top level says
  /// `engine: <name>`).
  public var claims: @Sendable (_ text: String) -> Bool
  /// The recording the scenario file `file` (read as `text`) generates; bad input naming the
  /// file, line and key when it does not parse.
  public var recording: @Sendable (_ file: String, _ text: String) throws(BadInputError) -> ScenarioRecording
  /// How the recording at `path` differs from `generated`, in words; nil when it holds exactly
  /// its header and events (what `record` leaves unchanged and `verify` calls up to date).
  public var difference: @Sendable (_ path: String, _ generated: ScenarioRecording) -> String?
  /// `verify`'s scenario checks for a recordings folder (staleness and `expect:` rules).
  public var checks: @Sendable (_ recordingsDir: String) throws(BadInputError) -> ScenarioChecks
  /// `faults`: the scenario files `files` replayed clean and under the planted faults named
  /// `only` (empty: all); bad input for an unknown fault, an unreadable or bad scenario, or a
  /// corpus with nothing to judge.
  public var faults: @Sendable (_ files: [String], _ only: [String]) throws(BadInputError) -> PlantedFaultRun

  /// The hooks.
  ///
  /// - Parameters:
  ///   - claims: which files are this engine's.
  ///   - recording: what a file generates.
  ///   - difference: how a recording differs from it.
  ///   - checks: `verify`'s hook for a folder.
  ///   - faults: the fault run over files.
  public init(
    claims: @escaping @Sendable (_ text: String) -> Bool,
    recording: @escaping @Sendable (_ file: String, _ text: String) throws(BadInputError) -> ScenarioRecording,
    difference: @escaping @Sendable (_ path: String, _ generated: ScenarioRecording) -> String?,
    checks: @escaping @Sendable (_ recordingsDir: String) throws(BadInputError) -> ScenarioChecks,
    faults: @escaping @Sendable (_ files: [String], _ only: [String]) throws(BadInputError) -> PlantedFaultRun
  ) {
    self.claims = claims
    self.recording = recording
    self.difference = difference
    self.checks = checks
    self.faults = faults
  }
}
