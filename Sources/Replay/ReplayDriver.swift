import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import Recording

/// How to replay a recording file: open it, build an engine for its header, run.
///
/// This is the piece the CLI and `verify` share. `open` is the `Recording` reader (or a JSONL
/// reader); `makeEngine` builds the engine from the header (spec, `--set` overrides and
/// metric tracing are captured by the closure). Each call builds a fresh engine value, so one
/// driver can serve several threads.
public struct ReplayDriver<E: ReplayableEngine>: Sendable {
  /// Opens a recording as an event source.
  public var open: @Sendable (URL) throws -> any EventSource
  /// Makes the engine for a recording from its header.
  public var makeEngine: @Sendable (RecordingHeader) throws -> E
  /// How the replay runs (strict effects, bounds).
  public var options: ReplayOptions
  /// The session store each replay gets (DESIGN §1): `.temporary` = a fresh SQLite file per
  /// replay, removed afterwards; `.keep(path)` writes it at `path` (one replay only: a second
  /// replay finds the file and fails); `.none` = no persistence.
  public var sessionStore: SessionStorePolicy

  /// A driver.
  ///
  /// - Parameters:
  ///   - options: how the replay runs.
  ///   - sessionStore: where the session store lives.
  ///   - open: opens a recording.
  ///   - makeEngine: makes its engine from the header.
  public init(
    options: ReplayOptions = ReplayOptions(),
    sessionStore: SessionStorePolicy = .none,
    open: @escaping @Sendable (URL) throws -> any EventSource,
    makeEngine: @escaping @Sendable (RecordingHeader) throws -> E
  ) {
    self.open = open
    self.makeEngine = makeEngine
    self.options = options
    self.sessionStore = sessionStore
  }

  /// Replays `url` into `output` (streaming: nothing is kept in memory). The file is decoded
  /// on a second thread while the engine replays (`PrefetchingSource`; same events, same
  /// errors, same places).
  @inlinable
  public func replay<O: ReplayOutput>(_ url: URL, into output: inout O) throws(ReplayError)
    -> ReplaySummary where O.Output == E.Step.Output
  {
    let opened: any EventSource
    do { opened = try open(url) } catch { throw Self.badInput(error, url) }
    var source = PrefetchingSource(opened)
    return try replay(source: &source, into: &output, recording: url.path)
  }

  /// Replays an already opened source.
  @inlinable
  public func replay<S: EventSource, O: ReplayOutput>(
    source: inout S, into output: inout O, recording: String? = nil
  ) throws(ReplayError) -> ReplaySummary where O.Output == E.Step.Output {
    let header = RecordingHeader(source.header)
    guard let named = header.engine else {
      throw .badInput(BadInputError(recording: recording, message: "header: \(EngineName.problem(in: header.json) ?? "bad engine")"))
    }
    guard named == E.Vocabulary.engineName else {
      throw .badInput(
        BadInputError(
          recording: recording,
          message: "header: \"engine\": the recording is for engine \"\(named)\", this replay drives \"\(E.Vocabulary.engineName)\""))
    }
    let engine: E
    do { engine = try makeEngine(header) } catch {
      if let e = error as? ReplayError { throw e }
      if var e = error as? BadInputError {
        e.recording = e.recording ?? recording
        throw .badInput(e)
      }
      throw .badInput(BadInputError(recording: recording, message: "\(error)"))
    }
    let lease: EngineStoreLease<E.Vocabulary>?
    do { lease = try EngineStoreLease<E.Vocabulary>.open(sessionStore, label: recording ?? "replay") } catch {
      throw .badInput(BadInputError(recording: recording, message: error.description))
    }
    defer { lease?.finish() }
    var replayer = Replayer(engine: engine, options: options, sessionStore: lease)
    return try replayer.run(&source, into: &output, recording: recording)
  }

  /// Replays `url` and returns the canonical trace and A.13 texts (what `verify` compares).
  @inlinable
  public func canonicalProducts(_ url: URL) throws(ReplayError) -> ReplayProducts {
    var output = TraceOutput(trace: RecordLineSink(), a13: MemoryLineSink(), vocabulary: E.Vocabulary.self)
    let summary = try replay(url, into: &output)
    return ReplayProducts(
      trace: output.trace.text, records: output.trace.records,
      a13: E.Vocabulary.writesDiagnostics ? output.a13.text : nil, summary: summary)
  }

  package static func mentions(_ object: JSONObject, _ cues: Set<String>) -> Bool {
    object.members.contains { cues.contains($0.key) || mentions($0.value, cues) }
  }

  package static func mentions(_ value: JSONValue, _ cues: Set<String>) -> Bool {
    switch value {
    case .string(let s): cues.contains(s)
    case .array(let a): a.contains { mentions($0, cues) }
    case .object(let o): mentions(o, cues)
    default: false
    }
  }

  @usableFromInline static func badInput(_ error: any Error, _ url: URL) -> ReplayError {
    if let e = error as? ReplayError { return e }
    if var e = error as? BadInputError {
      e.recording = e.recording ?? url.path
      return .badInput(e)
    }
    return .badInput(
      BadInputError(recording: url.path, message: "cannot open the recording: \(SystemReason.message(error))"))
  }
}

/// The canonical outputs of one replay, in memory.
public struct ReplayProducts: Sendable, Equatable {
  /// Canonical trace JSONL (each line ends with "\n"): what a golden is compared with.
  public var trace: String
  /// The trace's records in memory, one per line of `trace`, as the line reads back
  /// (``TraceFormat/canonical(_:)``): what the checks read (`expect:` rules, the differ's
  /// replay side, reports), so nothing parses `trace` again.
  public var records: [TraceRecord]
  /// Canonical A.13 JSONL; nil for an engine that writes no diagnostics
  /// (``EngineVocabulary/writesDiagnostics``): it has no A.13 golden.
  public var a13: String?
  /// What the replay did besides its outputs.
  public var summary: ReplaySummary

  /// The products of one replay: its trace text and the same trace's records.
  public init(trace: String, records: [TraceRecord], a13: String?, summary: ReplaySummary = ReplaySummary()) {
    self.trace = trace
    self.records = records
    self.a13 = a13
    self.summary = summary
  }

  /// The products of a trace read from a file (a pending golden): its records through the
  /// one reader, ``GoldenTrace/read(_:)``.
  public init(goldenTrace trace: String, a13: String) throws(TraceParseError) {
    self.init(trace: trace, records: try GoldenTrace.records(trace).map(TraceFormat.canonical), a13: a13)
  }
}
