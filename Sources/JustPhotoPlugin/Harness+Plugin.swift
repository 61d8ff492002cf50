import JustPhotoEngine
import JustPhotoIO
import Replay
import Verify

extension Harness {
  /// Just Photo as the CLI's registry lists it, first (issue 36): its replays (``plugin``), its
  /// corpus (Recordings, Golden). Its planted faults and scenario files are still the CLI's
  /// own (`jpreplay faults`, `ScenarioCorpus`), not this registration's.
  public static let registration = EngineRegistration(
    plugin: plugin, title: "Just Photo", corpus: CorpusFolders(recordings: "Recordings", golden: "Golden"))

  /// Just Photo's replays as a plug-in: ``EnginePlugin/configured(_:)`` takes `--spec`,
  /// `--set`, `--trace metrics|kinds` and `--cue` (``configured(_:)``) and builds the engine
  /// maker once from them. Replayed without being configured, it uses the defaults
  /// (./PoseSpec.json), loaded per replay.
  public static let plugin: EnginePlugin = {
    var p = EnginePlugin(Engine.self, make: { _ in throw HarnessFailure.badInput("Just Photo's plug-in is not configured") })
    p.configurer = { (_, options) throws(EngineOptionError) -> EnginePlugin in try configured(options) }
    p.headerProblem = { EngineOptions.headerProblem($0) }
    // Its events are checked by its decoder and, at replay, by its step (`Effects.refused`).
    p.refusal = nil
    p.replay = { (url, settings, trace, a13) throws(ReplayError) -> ReplaySummary in
      try defaults().replay(url, settings, &trace, &a13)
    }
    p.records = { (header, events, selection, settings, recording) throws(ReplayError) -> [TraceRecord] in
      try defaults().records(header, events, selection, settings, recording)
    }
    p.canonical = { (url, settings) throws(ReplayError) -> ReplayProducts in try defaults().canonical(url, settings) }
    return p
  }()

  /// The plug-in configured with no option (the spec ./PoseSpec.json); its failure is the
  /// replay's bad input.
  static func defaults() throws(ReplayError) -> EnginePlugin {
    do { return try configured(EngineOptionValues()) } catch {
      switch error {
      case .badInput(let m, _), .unavailable(let m, _, _): throw .badInput(BadInputError(message: m))
      case .notAccepted(let flag): throw .badInput(BadInputError(message: "\(flag): not accepted"))
      case .unknownTraceKind(let k, _): throw .badInput(BadInputError(message: "--trace: unknown trace kind '\(k)'"))
      }
    }
  }

  /// Just Photo with a command line's engine options: `--trace metrics` adds `cue_eval` lines
  /// (`--cue` narrows them), other `--trace` values name kinds to keep; `--spec` (default
  /// ./PoseSpec.json) and its options file, then `--set`, make each replay's engine
  /// (``driver(specPath:overrides:traceMetrics:strictEffects:sessionStore:)``'s rules).
  ///
  /// - Parameter options: the command line's engine options.
  /// - Returns: the plug-in whose replays use them.
  /// - Throws: ``EngineOptionError/unavailable(message:reason:remedy:)`` when there is no
  ///   `--spec` and no ./PoseSpec.json; bad input for an unknown trace kind, `--cue` without
  ///   `--trace metrics`, a spec or options file that does not load, or a bad `--set`.
  public static func configured(_ options: EngineOptionValues) throws(EngineOptionError) -> EnginePlugin {
    let metrics = options.trace == "metrics"
    var kinds: Set<String>? = nil
    if let trace = options.trace, !metrics {
      switch TraceKinds.parse(trace) {
      case .success(let k): kinds = Set(k.map(\.rawValue))
      case .failure(let e): throw .badInput("--trace: \(e)", code: 2)
      }
    }
    if !options.cues.isEmpty && !metrics { throw .badInput("--cue narrows cue_eval lines: use it with --trace metrics", code: 2) }
    if options.spec == nil, let missing = missingDefaultSpec() {
      throw .unavailable(message: missing.message, reason: missing.reason, remedy: missing.remedy)
    }
    let make: @Sendable (RecordingHeader) throws -> Engine
    let strict: Bool?
    do {
      let (spec, overrides) = try specAndOptions(specPath: options.spec, overrides: options.overrides)
      make = try engineMaker(spec: spec, explicitSpec: options.spec != nil, overrides: overrides, traceMetrics: metrics)
      strict = overrides.last(where: { $0.name == "strictEffects" }).map { $0.value == "true" }
    } catch { throw .badInput(error.message, code: error.code) }
    let fresh = EnginePlugin(Engine.self, make: make)
    var p = plugin
    (p.replay, p.records, p.canonical) = (fresh.replay, fresh.records, fresh.canonical)
    return p.narrowed(traceKinds: kinds, cues: Set(options.cues), strictEffects: strict)
  }
}
