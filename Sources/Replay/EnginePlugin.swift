import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import Recording

/// One engine as the commands route to it by a recording's header `engine`: its name, its
/// kinds (for `import`), and replay entry points built once from its ``SeamEngine`` type, so
/// each replay is specialized for the engine (only the line sinks are boxed).
///
/// Just Photo's commands build their drivers from a PoseSpec (`ReplayHarness`); another
/// engine's plug-in module provides an `EnginePlugin` and the CLI's registry lists it.
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
  /// Why the engine refuses an event (``EngineVocabulary/refusal(of:)``): `import` and `doctor`.
  public var refusal: @Sendable (InputEvent) -> EventRefusal?

  /// A plug-in for the engine `E`, each replay's engine made by `make` from the header.
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
        trace: AnyLineSink(trace), a13: AnyLineSink(a13), traceKinds: settings.traceKinds, vocabulary: E.Vocabulary.self)
      defer {
        trace = out.trace.base
        a13 = out.a13.base
      }
      return try driver.replay(url, into: &out)
    }
  }

  /// The canonical trace and A.13 texts of `url` (what `verify` compares).
  public func products(_ url: URL, _ settings: PluginSettings = PluginSettings()) throws(ReplayError) -> ReplayProducts {
    var trace: any LineSink = RecordLineSink()
    var a13: any LineSink = MemoryLineSink()
    let summary = try replay(url, settings, &trace, &a13)
    let kept = trace as? RecordLineSink
    return ReplayProducts(
      trace: kept?.text ?? "", records: kept?.records ?? [],
      a13: writesDiagnostics ? (a13 as? MemoryLineSink)?.text ?? "" : nil, summary: summary)
  }

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
