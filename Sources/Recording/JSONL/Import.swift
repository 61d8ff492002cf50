import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation

/// `jpreplay import`: a JSONL recording into a new `.jprec`, streamed (DESIGN §3).
public enum RecordingImport {
  /// How far an import is, reported every 16,384 events and once at the end.
  public struct Progress: Sendable {
    /// Bytes of the source consumed so far (compressed bytes for `.zst`).
    public var bytesRead: Int64
    /// The source file's size in bytes.
    public var totalBytes: Int64
    /// Events written to the destination so far.
    public var events: Int
  }

  /// Reads `source` (.jsonl / .jsonl.zst) and writes `destination`, which must not exist; the
  /// typed kinds are read with `definitions` (the recording's engine's).
  /// On bad input the partial destination is removed and the error names the source line.
  /// (A crash or `kill -9` leaves the committed chunks, readable, marked incomplete.)
  @discardableResult
  public static func run(
    from source: String, to destination: String, chunkRawLimit: Int = Recorder.defaultChunkRawLimit,
    definitions: any EventDefinitions.Type,
    kinds: [EventKindInfo] = [], refusal: ((InputEvent) -> EventRefusal?)? = nil,
    headerProblem: ((JSONObject) -> String?)? = nil, progress: ((Progress) -> Void)? = nil
  ) throws(RecordingError) -> Int {
    try run(
      reader: JSONLReader(path: source, definitions: definitions), to: destination, chunkRawLimit: chunkRawLimit, kinds: kinds, refusal: refusal,
      headerProblem: headerProblem, progress: progress)
  }

  /// The same, from an open reader (a file, or JSONL text in memory: `jpreplay record`).
  @discardableResult
  ///
  /// `kinds` is the vocabulary of the engine when its events are named events (its definitions
  /// say so, ``EventDefinitions/namedEvents(in:)``; typed kinds the decoder checks itself): every
  /// event's kind must be one of them and carry its required fields, and each kind is stored in
  /// its declared channel. `refusal` is that
  /// engine's own check (``EngineVocabulary/refusal(of:)``): an event it refuses is bad input
  /// naming the line and the field, never written. `headerProblem` is that engine's check of
  /// the header (Just Photo's `EngineOptions.headerProblem`: its `options`): a problem it names
  /// is bad input at line 1, and nothing is written.
  public static func run(
    reader: JSONLReader, to destination: String, chunkRawLimit: Int = Recorder.defaultChunkRawLimit,
    kinds: [EventKindInfo] = [], refusal: ((InputEvent) -> EventRefusal?)? = nil,
    headerProblem: ((JSONObject) -> String?)? = nil, progress: ((Progress) -> Void)? = nil
  ) throws(RecordingError) -> Int {
    if let problem = headerProblem?(reader.header) { throw RecordingError(file: "\(reader.path):1", problem) }
    let recorder = try Recorder(
      path: destination, header: reader.header, chunkRawLimit: chunkRawLimit, definitions: reader.definitions)
    for k in kinds { recorder.namedChannels[k.name] = k.channel }
    let check = recorder.namedEvents
    do throws(RecordingError) {
      var n = 0
      while let e = try reader.next() {
        if check {
          let place = "\(reader.path):\(reader.lineNumber)"
          try checkNamed(e, kinds: kinds, engine: recorder.engine, place: place)
          if let r = refusal?(e) { throw refused(r, event: e, engine: recorder.engine, place: place) }
        }
        try recorder.append(e)
        n += 1
        if n & 0x3FFF == 0, let progress {
          progress(Progress(bytesRead: reader.bytesRead, totalBytes: reader.totalBytes, events: n))
        }
      }
      try recorder.finish()
      progress?(Progress(bytesRead: reader.totalBytes, totalBytes: reader.totalBytes, events: n))
      return n
    } catch {
      RecordingFiles.remove(destination)
      throw error
    }
  }

  /// The error for an event its engine refuses: `place: field "kind.field": message`.
  public static func refused(_ r: EventRefusal, event e: InputEvent, engine: String, place: String) -> RecordingError {
    let field = e.kindName + (r.field.map { ".\($0)" } ?? "")
    var err = RecordingError(file: place, "field \"\(field)\": \(r.message) (the \(engine) engine refuses this event)")
    err.field = r.field.map { String($0.prefix { $0 != "." && $0 != "[" }) } ?? "kind"
    return err
  }

  /// A named event against its engine's kinds: a declared kind with its required fields.
  public static func checkNamed(_ e: InputEvent, kinds: [EventKindInfo], engine: String, place: String) throws(RecordingError) {
    let name = e.kindName
    guard let info = kinds.first(where: { $0.name == name }) else {
      var err = RecordingError(
        file: place,
        "field \"kind\": unknown \(engine) event kind \"\(name)\" (expected one of \(kinds.map(\.name).joined(separator: ", ")))")
      err.field = "kind"
      throw err
    }
    if let fields = e.jsonFields, let problem = info.problem(in: fields) {
      var err = RecordingError(file: place, problem.message)
      err.field = problem.field
      throw err
    }
  }

  public static func export(_ source: any RecordingEventReader, to writer: JSONLWriter, includeHeader: Bool = true) throws -> Int {
    if includeHeader { try writer.writeHeader(source.header) }
    var n = 0
    while let e = try source.nextEvent() {
      try writer.write(e)
      n += 1
    }
    try writer.finish()
    return n
  }
}

/// Either kind of recording file, read event by event. Every reader is an `EventSource`
/// (its `next()`), so the replayer reads it directly; `nextEvent()` is the same call on a
/// reference that need not be `var`.
public protocol RecordingEventReader: AnyObject, EventSource {
  /// The next event of the recording, or nil at its end; each reader's own `next()`.
  func nextEvent() throws(RecordingError) -> InputEvent?
}

extension JSONLReader: RecordingEventReader {
  /// ``JSONLReader/next()``, through the protocol.
  public func nextEvent() throws(RecordingError) -> InputEvent? { try next() }
}

extension RecordingReader: RecordingEventReader {
  /// ``RecordingReader/next()``, through the protocol.
  public func nextEvent() throws(RecordingError) -> InputEvent? { try next() }
}

/// Recording files by path, whatever their form.
public enum RecordingFiles {
  /// Opens `path` by its suffix: `.jsonl` / `.jsonl.zst` as JSONL, anything else as `.jprec`.
  ///
  /// - Parameters:
  ///   - path: the recording file.
  ///   - definitions: the recording's engine's event definitions (its typed kinds are decoded
  ///     with them; ``NoEventDefinitions`` when only the header is read).
  /// - Returns: a reader at its first event.
  public static func open(_ path: String, definitions: any EventDefinitions.Type) throws(RecordingError) -> any RecordingEventReader {
    if JSONLReader.isJSONL(path) { return try JSONLReader(path: path, definitions: definitions) }
    return try RecordingReader(path: path, definitions: definitions)
  }

  /// How the recording at `path` differs from `header` and `events` (events first, then the
  /// header), in words; nil when it holds exactly them. `contrast` words an event that differs
  /// (the scenario's event first, then the recording's). A scenario engine's record and
  /// staleness checks use it to tell a recording that is its scenario's from one that is not.
  public static func difference(
    _ path: String, header: JSONObject, events: [InputEvent], definitions: any EventDefinitions.Type,
    contrast: (_ scenario: InputEvent, _ recording: InputEvent) -> String
  ) -> String? {
    guard FileManager.default.fileExists(atPath: path) else { return "\(path) does not exist" }
    var source: any RecordingEventReader
    do { source = try open(path, definitions: definitions) } catch { return "cannot read it (\(error.description))" }
    var n = 0
    for e in events {
      n += 1
      let got: InputEvent?
      do { got = try source.next() } catch { return "cannot read it (\(error))" }
      guard let got else { return "event \(n) (t=\(e.t) \(e.kindName)) is missing from the recording" }
      if got != e { return "event \(n) \(contrast(e, got))" }
    }
    let extra: InputEvent?
    do { extra = try source.next() } catch { return "cannot read it (\(error))" }
    if let b = extra { return "the recording has an extra event \(n + 1) (t=\(b.t) \(b.kindName))" }
    let recorded = source.header
    guard recorded != header else { return nil }
    let keys = Set(header.keys).union(recorded.keys).sorted()
    return "same events, header differs: \(keys.filter { header[$0] != recorded[$0] }.joined(separator: ", "))"
  }

  /// Removes a database file and its SQLite side files.
  public static func remove(_ path: String) {
    for p in [path, path + "-wal", path + "-shm", path + "-journal"] { try? FileManager.default.removeItem(atPath: p) }
  }
}
