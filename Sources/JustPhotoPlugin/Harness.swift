import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Foundation
import PoseSpec
import Recording
import Replay

/// What a replay of a recording needs, for the CLI, the lab and an app's test target alike:
/// load a PoseSpec, open a recording, build replay drivers.
///
/// Every failure is a `HarnessFailure` whose message names the file and the place, and whose
/// code is the CLI exit code (2 bad input, 1 check failed).
public enum Harness {
  /// The project spec used when `--spec` is not given.
  public static let defaultSpecPath = "PoseSpec.json"

  /// Loads and validates a PoseSpec (ENGINE §2.3). A failure carries the prompt key, the
  /// spec's message and the place in the file.
  public static func loadSpec(path: String) throws(HarnessFailure) -> PoseSpecDocument {
    let bytes: [UInt8]
    if path == defaultSpecPath, let missing = missingDefaultSpec() { throw .badInput(missing.message) }
    bytes = try readSpecBytes(path: path)
    return try validateSpec(bytes: bytes, path: path)
  }

  /// Why ./PoseSpec.json cannot be the spec (there is none in the current directory), in the
  /// words of a command that needs it now (`message`) and in parts (`reason`, `remedy`); nil
  /// when it is there.
  static func missingDefaultSpec() -> (message: String, reason: String, remedy: String)? {
    guard !FileManager.default.fileExists(atPath: defaultSpecPath) else { return nil }
    let reason = "no PoseSpec.json in the current directory (\(FileManager.default.currentDirectoryPath))"
    let remedy = "run from the repository root or pass --spec FILE"
    return ("\(defaultSpecPath): \(reason); \(remedy)", reason, remedy)
  }

  /// The bytes of the PoseSpec file at `path`: a regular file of at most
  /// `PoseSpecLimits.specBytesMax` bytes (a FIFO, a device or a larger file is refused unread).
  public static func readSpecBytes(path: String) throws(HarnessFailure) -> [UInt8] {
    do { return try InputFile.read(path, what: "PoseSpec", bytesMax: PoseSpecLimits.specBytesMax, bound: "PoseSpecLimits.specBytesMax") } catch {
      throw .badInput(error.description)
    }
  }

  /// A driver that replays recordings with the spec at `specPath` (default ./PoseSpec.json),
  /// engine options from each recording's header, then the spec's options file
  /// (`SpecOptionsFile`: `options.txt` beside the spec, when there is one), then `overrides`.
  /// Each replay persists to
  /// its own SQLite session store (DESIGN §1): by default a fresh file in a temporary
  /// directory, removed after the replay.
  public static func driver(
    specPath: String?, overrides: [(name: String, value: String)] = [], traceMetrics: Bool = false,
    strictEffects: Bool? = nil, sessionStore: SessionStorePolicy = .temporary
  ) throws(HarnessFailure) -> ReplayDriver<Engine> {
    let (spec, all) = try specAndOptions(specPath: specPath, overrides: overrides)
    return try driver(
      spec: spec, explicitSpec: specPath != nil, overrides: all, traceMetrics: traceMetrics,
      strictEffects: strictEffects, sessionStore: sessionStore)
  }

  /// The spec at `specPath` (default ./PoseSpec.json) and the engine options to replay with:
  /// the spec's options file (`SpecOptionsFile`), checked, then `overrides`.
  static func specAndOptions(
    specPath: String?, overrides: [(name: String, value: String)]
  ) throws(HarnessFailure) -> (PoseSpecDocument, [(name: String, value: String)]) {
    let spec = try loadSpec(path: specPath ?? defaultSpecPath)
    let fileOptions = try SpecOptionsFile.options(forSpec: specPath ?? defaultSpecPath)
    var probe = EngineOptions()
    for o in fileOptions {
      do { try probe.set(o.name, o.value) } catch {
        throw .badInput("\(SpecOptionsFile.path(forSpec: specPath ?? defaultSpecPath)): \(error.description)")
      }
    }
    return (spec, fileOptions + overrides)
  }

  /// A driver that replays recordings with an already loaded `spec` (bisect and tune replay
  /// many specs in one process). `explicitSpec: false` notes when a recording pinned another
  /// spec (ENGINE §1.4).
  public static func driver(
    spec: PoseSpecDocument, explicitSpec: Bool = true, overrides: [(name: String, value: String)] = [],
    traceMetrics: Bool = false, strictEffects: Bool? = nil, sessionStore: SessionStorePolicy = .temporary,
    plantedFaults: PlantedFaults = PlantedFaults()
  ) throws(HarnessFailure) -> ReplayDriver<Engine> {
    let make = try engineMaker(
      spec: spec, explicitSpec: explicitSpec, overrides: overrides, traceMetrics: traceMetrics, plantedFaults: plantedFaults)
    var options = ReplayOptions()
    options.strictEffects = strictEffects ?? overrides.last(where: { $0.name == "strictEffects" }).map { $0.value == "true" }
    return ReplayDriver(
      options: options,
      sessionStore: sessionStore,
      open: { url in try openSource(url) },
      makeEngine: make)
  }

  /// What makes each replay's engine from its recording's header: `spec` (compiled once, on
  /// first need), the header's options, then `overrides` (checked here, so a typo fails
  /// before any replay).
  static func engineMaker(
    spec: PoseSpecDocument, explicitSpec: Bool, overrides: [(name: String, value: String)], traceMetrics: Bool,
    plantedFaults: PlantedFaults = PlantedFaults()
  ) throws(HarnessFailure) -> @Sendable (RecordingHeader) throws -> Engine {
    var probe = EngineOptions()
    for o in overrides {
      do { try probe.set(o.name, o.value) } catch { throw .badInput("--set: \(error.description)") }
    }
    let sha = spec.sha256
    let compiled = CompiledSpecCache(spec)
    return { header in
      if !explicitSpec, let recorded = header.posespecSHA256, recorded != sha {
        // ENGINE §1.4 pins the spec; we note the mismatch instead of refusing (see docs).
        SpecMismatchNotice.shared.note(recorded: recorded, used: sha)
      }
      var config = try EngineConfiguration(
        spec: spec, header: header, overrides: overrides, traceMetrics: traceMetrics)
      config.plantedFaults = plantedFaults
      return Engine(configuration: config, compiled: compiled.get(formulaFirst: config.options.errorSourceFormulaFirst))
    }
  }

  /// The driver's spec compiled once per `errorSource` option in use, on first need, and
  /// shared by every engine it makes (compiling per replay was half the engine time of a
  /// one-minute replay).
  package final class CompiledSpecCache: @unchecked Sendable {
    package let spec: PoseSpecDocument
    private let lock = NSLock()
    private var byOption: [Bool: CompiledSpec] = [:]

    package init(_ spec: PoseSpecDocument) { self.spec = spec }

    package func get(formulaFirst: Bool) -> CompiledSpec {
      lock.lock()
      defer { lock.unlock() }
      if let c = byOption[formulaFirst] { return c }
      let c = CompiledSpec(spec: spec, errorSourceFormulaFirst: formulaFirst)
      byOption[formulaFirst] = c
      return c
    }
  }

  /// Validates PoseSpec bytes; a failure (ENGINE §2.3) becomes exit 2 with the prompt key,
  /// its zh/en texts and the place in the file.
  public static func validateSpec(bytes: [UInt8], path: String) throws(HarnessFailure) -> PoseSpecDocument {
    // The error's description starts with the file name given here: the path as typed.
    do { return try PoseSpecLoader.load(bytes: bytes, fileName: path) } catch {
      throw .badInput(error.description)
    }
  }

  /// Opens a recording for replay (`.jprec`, `.jsonl`, `.jsonl.zst`).
  public static func openSource(_ url: URL) throws -> any EventSource {
    do { return try RecordingFiles.open(url.path, definitions: JustPhotoVocabulary.eventDefinitions) } catch {
      throw BadInputError(recording: error.file, message: error.place.map { "\($0): \(error.message)" } ?? error.message)
    }
  }}

/// A failure with the CLI exit code it maps to and a one-line message.
public struct HarnessFailure: Error, CustomStringConvertible, Sendable {
  public var code: Int32
  public var message: String
  public init(code: Int32, message: String) {
    self.code = code
    self.message = message
  }
  public static func badInput(_ message: String) -> HarnessFailure { HarnessFailure(code: 2, message: message) }
  public var description: String { message }
}

/// Prints one note per distinct (recorded, used) PoseSpec pair on stderr.
final class SpecMismatchNotice: @unchecked Sendable {
  static let shared = SpecMismatchNotice()
  private let lock = NSLock()
  private var seen: Set<String> = []
  func note(recorded: String, used: String) {
    lock.lock()
    defer { lock.unlock() }
    guard seen.insert(recorded + used).inserted else { return }
    StandardError.write(
      "note: recording made with PoseSpec \(recorded.prefix(12))…, replaying with \(used.prefix(12))… (goldens show any difference; pass --spec to choose explicitly)\n")
  }
}
