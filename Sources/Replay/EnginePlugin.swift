import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import Recording

/// One engine as the commands route to it by a recording's header `engine`: its name, its
/// kinds (for `import`), and replay entry points built once from its ``SeamEngine`` type, so
/// each replay is specialized for the engine (only the line sinks are boxed).
///
/// Every engine's plug-in module provides one and the CLI's registry lists it (Just Photo's is
/// `Harness.plugin`, made from a PoseSpec). A command hands it the engine options it was
/// given (``configured(_:)``) before replaying: an engine that takes options (Just Photo's
/// `--spec`, `--set`, `--trace metrics`, `--cue`) builds its replays from them, the others
/// refuse any (``acceptingNoOptions(_:)``).
public struct EnginePlugin: Sendable {
  /// The header's `engine` value.
  public var name: String
  /// The engine's event kinds (what `import` checks and where `.jprec` stores each).
  public var kinds: [EventKindInfo]
  /// The definitions its recordings are read with (``EngineVocabulary/eventDefinitions``).
  public var definitions: any EventDefinitions.Type
  /// Whether it writes A.13 lines (``EngineVocabulary/writesDiagnostics``).
  public var writesDiagnostics: Bool
  /// What coverage looks for (``EngineVocabulary/coverageFacets``).
  public var coverageFacets: [CoverageFacet]
  /// Replays `url` into a trace sink and an A.13 sink (the `replay` command).
  public var replay:
    @Sendable (_ url: URL, _ settings: PluginSettings, _ trace: inout any LineSink, _ a13: inout any LineSink)
      throws(ReplayError) -> ReplaySummary
  /// Replays a recording held in memory (header and events; `minimize`'s candidates, `plot`)
  /// and returns the trace records the selection keeps; `recording` names it in messages.
  public var records:
    @Sendable (_ header: JSONObject, _ events: [InputEvent], _ selection: TraceSelection, _ settings: PluginSettings, _ recording: String)
      throws(ReplayError) -> [TraceRecord]
  /// Every `out` name of the engine's trace (``EngineVocabulary/outputKinds``).
  public var outputKinds: [String]
  /// What `plot` draws of its replays (``EngineVocabulary/timeline``).
  public var timeline: TraceTimeline
  /// Why the engine refuses an event (``EngineVocabulary/refusal(of:)``): `import` and `doctor`;
  /// nil for an engine that checks its events elsewhere (Just Photo: its decoder and its
  /// step's rejection), whose recordings `doctor` then does not read again.
  public var refusal: (@Sendable (InputEvent) -> EventRefusal?)?
  /// What is wrong with a recording header for this engine (its `options`, read through the
  /// engine's catalogue), in words; nil when nothing is (the default): `import` refuses such a
  /// header.
  public var headerProblem: @Sendable (_ header: JSONObject) -> String?
  /// Replays `url` into the canonical trace and A.13 texts (``products(_:_:)``).
  public var canonical: @Sendable (_ url: URL, _ settings: PluginSettings) throws(ReplayError) -> ReplayProducts
  /// How the engine applies engine options (``configured(_:)``); nil = it takes none
  /// (``acceptingNoOptions(_:)``).
  public var configurer: (@Sendable (_ plugin: EnginePlugin, _ options: EngineOptionValues) throws(EngineOptionError) -> EnginePlugin)?

  /// A plug-in for the engine `E`, each replay's engine made by `make` from the header.
  ///
  /// Inlinable, so the plug-in module that names `E` builds these closures for it: the replay
  /// loop behind ``replay`` is then specialized for the engine, the prefetching source and the
  /// trace output (built here in the generic form, it went through the runtime for the
  /// engine's associated types on every event).
  @inlinable
  public init<E: SeamEngine & Sendable>(
    _ engine: E.Type, make: @escaping @Sendable (RecordingHeader) throws -> E
  ) {
    name = E.Vocabulary.engineName
    kinds = E.Vocabulary.kinds
    definitions = E.Vocabulary.eventDefinitions
    outputKinds = E.Vocabulary.outputKinds
    coverageFacets = E.Vocabulary.coverageFacets
    writesDiagnostics = E.Vocabulary.writesDiagnostics
    timeline = E.Vocabulary.timeline
    refusal = { E.Vocabulary.refusal(of: $0) }
    records = { (header, events, selection, settings, recording) throws(ReplayError) -> [TraceRecord] in
      try Self.driver(E.self, make: make, settings).records(header: header, events: events, selection: selection, recording: recording)
    }
    replay = { (url, settings, trace, a13) throws(ReplayError) -> ReplaySummary in
      let driver = Self.driver(E.self, make: make, settings)
      var out = TraceOutput(
        trace: AnyLineSink(trace), a13: AnyLineSink(a13), traceKinds: settings.traceKinds, cues: settings.cues,
        vocabulary: E.Vocabulary.self)
      defer {
        trace = out.trace.base
        a13 = out.a13.base
      }
      return try driver.replay(url, into: &out)
    }
    canonical = { (url, settings) throws(ReplayError) -> ReplayProducts in
      let driver = Self.driver(E.self, make: make, settings)
      var out = TraceOutput(
        trace: RecordLineSink(), a13: MemoryLineSink(), traceKinds: settings.traceKinds, cues: settings.cues,
        vocabulary: E.Vocabulary.self)
      let summary = try driver.replay(url, into: &out)
      return ReplayProducts(
        trace: out.trace.text, records: out.trace.records,
        a13: E.Vocabulary.writesDiagnostics ? out.a13.text : nil, summary: summary)
    }
    configurer = nil
    headerProblem = { _ in nil }
  }

  /// The canonical trace and A.13 texts of `url` (what `verify` compares).
  public func products(_ url: URL, _ settings: PluginSettings = PluginSettings()) throws(ReplayError) -> ReplayProducts {
    try canonical(url, settings)
  }

  /// This engine with the engine options a command was given applied: what every replaying
  /// command replays with (built once per command, so each replay reuses what the options
  /// made, e.g. Just Photo's loaded PoseSpec).
  ///
  /// - Parameter options: the command line's engine options (none by default).
  /// - Returns: the plug-in whose replays honour them.
  /// - Throws: ``EngineOptionError/notAccepted(flag:)`` for an option the engine takes none
  ///   of, or the engine's own complaint about a value.
  ///
  /// Example: `try plugin.configured(EngineOptionValues(trace: "cue_display")).replay(…)`.
  public func configured(_ options: EngineOptionValues = EngineOptionValues()) throws(EngineOptionError) -> EnginePlugin {
    if let configurer { return try configurer(self, options) }
    return try acceptingNoOptions(options)
  }

  /// The default ``configured(_:)``: an engine that takes no `--spec`, `--set` or `--cue`,
  /// whose `--trace` names some of its ``outputKinds``.
  ///
  /// - Parameter options: the command line's engine options.
  /// - Returns: this plug-in, its traces keeping only the `--trace` kinds named.
  /// - Throws: ``EngineOptionError/notAccepted(flag:)`` for the first of `--spec`, `--set`,
  ///   `--cue` given; ``EngineOptionError/unknownTraceKind(_:known:)`` for a `--trace` name it
  ///   never writes (it would keep nothing).
  public func acceptingNoOptions(_ options: EngineOptionValues) throws(EngineOptionError) -> EnginePlugin {
    if options.spec != nil { throw .notAccepted(flag: "--spec") }
    if !options.overrides.isEmpty { throw .notAccepted(flag: "--set") }
    if !options.cues.isEmpty { throw .notAccepted(flag: "--cue") }
    guard let trace = options.trace else { return self }
    let names = trace.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    for name in names where !outputKinds.contains(name) { throw .unknownTraceKind(name, known: outputKinds) }
    return narrowed(traceKinds: Set(names))
  }

  /// This plug-in with `traceKinds`, `cues` and `strictEffects` the defaults of every replay
  /// (a command's settings still choose when they name one).
  ///
  /// - Parameters:
  ///   - traceKinds: the `out` names kept; nil = all.
  ///   - cues: the cues Just Photo-style `cue_eval` records narrow to; empty = all.
  ///   - strictEffects: strict effect correlation; nil = the recording's.
  /// - Returns: the narrowed plug-in.
  public func narrowed(traceKinds: Set<String>? = nil, cues: Set<String> = [], strictEffects: Bool? = nil) -> EnginePlugin {
    let apply: @Sendable (PluginSettings) -> PluginSettings = { s in
      var s = s
      s.traceKinds = s.traceKinds ?? traceKinds
      if s.cues.isEmpty { s.cues = cues }
      s.strictEffects = s.strictEffects ?? strictEffects
      return s
    }
    var out = self
    let (replay, records, canonical) = (self.replay, self.records, self.canonical)
    out.replay = { (url, settings, trace, a13) throws(ReplayError) -> ReplaySummary in
      try replay(url, apply(settings), &trace, &a13)
    }
    out.records = { (header, events, selection, settings, recording) throws(ReplayError) -> [TraceRecord] in
      try records(header, events, selection, apply(settings), recording)
    }
    out.canonical = { (url, settings) throws(ReplayError) -> ReplayProducts in try canonical(url, apply(settings)) }
    return out
  }

  @usableFromInline
  static func driver<E: SeamEngine & Sendable>(
    _: E.Type, make: @escaping @Sendable (RecordingHeader) throws -> E, _ settings: PluginSettings
  ) -> ReplayDriver<E> {
    var options = ReplayOptions()
    options.strictEffects = settings.strictEffects
    return ReplayDriver(
      options: options, sessionStore: settings.sessionStore,
      open: { url in
        do { return try RecordingFiles.open(url.path, definitions: E.Vocabulary.eventDefinitions) } catch let error as RecordingError {
          throw BadInputError(recording: error.file, message: error.place.map { "\($0): \(error.message)" } ?? error.message)
        }
      },
      makeEngine: make)
  }
}

/// What a command asks of a plug-in's replay.
public struct PluginSettings: Sendable {
  /// nil = the recording's `options.strictEffects` (default true).
  public var strictEffects: Bool?
  /// Where the replay's session store lives (a temporary one by default, or `--keep-store`'s).
  public var sessionStore: SessionStorePolicy
  /// Only outputs whose `out` is listed reach the trace; nil = all.
  public var traceKinds: Set<String>?
  /// Outputs narrowed to these cues (``EngineVocabulary/narrow(_:toCues:)``); empty = all.
  public var cues: Set<String> = []
  /// Settings (the defaults: the recording's strictness, a temporary store, every trace kind).
  ///
  /// - Parameters:
  ///   - strictEffects: strict effect correlation; nil = the recording's.
  ///   - sessionStore: where the store lives.
  ///   - traceKinds: the `out` names kept; nil = all.
  public init(strictEffects: Bool? = nil, sessionStore: SessionStorePolicy = .temporary, traceKinds: Set<String>? = nil) {
    self.strictEffects = strictEffects
    self.sessionStore = sessionStore
    self.traceKinds = traceKinds
  }
}

/// The engine options a command line gives (`--spec FILE`, `--set NAME=VALUE`, `--trace`,
/// `--cue ID`), for ``EnginePlugin/configured(_:)``: Just Photo takes them all; an engine
/// that takes none refuses each but `--trace` (its own output kinds).
public struct EngineOptionValues: Sendable {
  /// `--spec`: the engine's specification file; nil = its default.
  public var spec: String?
  /// `--set NAME=VALUE`, in order.
  public var overrides: [(name: String, value: String)]
  /// `--trace`: the output kinds to keep (comma separated), or an engine's own word
  /// (Just Photo's `metrics`); nil = every kind.
  public var trace: String?
  /// `--cue ID`: the cues detailed output narrows to; empty = all.
  public var cues: [String]

  /// Options (none by default).
  ///
  /// - Parameters:
  ///   - spec: `--spec`.
  ///   - overrides: `--set`, in order.
  ///   - trace: `--trace`.
  ///   - cues: `--cue`.
  public init(spec: String? = nil, overrides: [(name: String, value: String)] = [], trace: String? = nil, cues: [String] = []) {
    self.spec = spec
    self.overrides = overrides
    self.trace = trace
    self.cues = cues
  }
}

/// Why an engine cannot take the engine options a command was given.
public enum EngineOptionError: Error, Sendable {
  /// The engine takes no such option (`--spec`, `--set` or `--cue`): it would be ignored.
  case notAccepted(flag: String)
  /// `--trace` names a kind the engine never writes; `known`: the kinds it writes.
  case unknownTraceKind(String, known: [String])
  /// The engine's default configuration is missing here (Just Photo: no ./PoseSpec.json):
  /// `message` for a command that needs it now, `reason` and `remedy` for one that replays
  /// other engines' recordings first (`verify`).
  case unavailable(message: String, reason: String, remedy: String)
  /// A bad value (a spec that does not load, an unknown `--set` name): the message and the
  /// exit code.
  case badInput(String, code: Int32)
}

/// The engine a recording file is for (its header `engine`, Just Photo when absent).
public enum RecordingEngine {
  /// Opens `path` just far enough to read its header. A file that cannot be opened is left to
  /// the command's own reader (nil), which reports it with its place.
  ///
  /// - Parameters:
  ///   - path: the recording.
  ///   - definitions: the event definitions of a recording whose header names no engine (the
  ///     opening checks its declared event counts against them).
  /// - Returns: the engine's name; nil when the file cannot be opened.
  public static func name(ofRecording path: String, definitions: any EventDefinitions.Type) throws(BadInputError) -> String? {
    guard let source = try? RecordingFiles.open(path, definitions: definitions) else { return nil }
    guard let name = EngineName.of(header: source.header) else {
      throw BadInputError(recording: path, message: "header: \(EngineName.problem(in: source.header) ?? "bad engine")")
    }
    return name
  }

  /// The message for an engine this jpreplay has no plug-in for.
  public static func unknown(_ name: String, path: String, known: [String]) -> BadInputError {
    BadInputError(
      recording: path,
      message: "header: \"engine\": unknown engine \"\(name)\" (this jpreplay knows \(known.sorted().joined(separator: ", ")))")
  }
}

/// Any line sink behind one type (a plug-in's replay writes to whatever the command opened).
public struct AnyLineSink: LineSink {
  /// The sink written to.
  public var base: any LineSink
  /// Wraps `base`.
  public init(_ base: any LineSink) { self.base = base }
  /// Writes one line to ``base``.
  public mutating func write(line: String) throws { try base.write(line: line) }
  /// Writes one record to ``base`` (which may keep the record itself).
  public mutating func write(record: TraceRecord) throws { try base.write(record: record) }
}
