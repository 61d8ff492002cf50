import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation

/// Streams a JSONL recording (`.jsonl`, or `.jsonl.zst` compressed with zstd): the header line,
/// then one event per line (DESIGN §3, ENGINE §1.4–1.6), in bounded memory.
///
/// Checks as it goes: the header, every event against its kind, times never going back, no
/// event after `duration_ms`, and the bounds of ``RecordingLimits`` (line length, event count,
/// time span). Errors read `file:line: what was expected`.
public final class JSONLReader {
  /// The file as the caller named it (or the name given to in-memory text); messages start with it.
  public let path: String
  /// The checked header line (ENGINE §1.4), members in file order.
  public private(set) var header: JSONObject
  /// Bytes of the file consumed so far (compressed bytes for `.zst`) and the file size.
  public var bytesRead: Int64 { zstd?.compressedBytesRead ?? plainBytesRead }
  /// The file's size in bytes (of the compressed file for `.zst`); with ``bytesRead``, a progress fraction.
  public let totalBytes: Int64
  /// The 1-based number of the last line read.
  public private(set) var lineNumber = 0
  /// Events handed out so far; never more than `RecordingLimits.eventsMax`.
  public private(set) var eventCount = 0

  private let handle: FileHandle?
  private let zstd: ZstdFileReader?
  private var plainBytesRead: Int64 = 0
  private var buffer = [UInt8]()
  private var start = 0
  /// `buffer[start..<scanned]` holds no newline: a refill searches only the new bytes, so a
  /// long line costs linear time.
  private var scanned = 0
  /// Bytes the newline search has looked at so far (each byte once: tests check it).
  private(set) var bytesSearched = 0
  private var atEOF = false
  private var lastT: Millis = 0
  /// `RecordingLimits.eventsMax`; tests lower it to reach the bound cheaply.
  var eventsMax = RecordingLimits.eventsMax
  private var durationMs: Millis?
  /// The header names an engine whose events are named events with these definitions
  /// (``EventDefinitions/namedEvents(in:)``).
  private var namedKinds = false
  /// The recording's engine's event definitions (its typed kinds' fields and decoding).
  public let definitions: any EventDefinitions.Type

  /// Whether `path` names a JSONL recording by its suffix (`.jsonl` or `.jsonl.zst`); anything else is taken for `.jprec`.
  public static func isJSONL(_ path: String) -> Bool {
    path.hasSuffix(".jsonl") || path.hasSuffix(".jsonl.zst")
  }

  /// Opens `path` (a regular file; `.zst` is decompressed as it streams) and reads and checks
  /// its header line. Throws a `RecordingError` naming `path:1` when the header is missing or wrong.
  /// Its typed kinds are checked and decoded with `definitions` (the recording's engine's).
  public init(path: String, definitions: any EventDefinitions.Type) throws(RecordingError) {
    self.path = path
    self.definitions = definitions
    try InputFile.checkRegular(path, what: "recording")
    guard let h = FileHandle(forReadingAtPath: path) else {
      throw RecordingError(file: path, FileManager.default.fileExists(atPath: path) ? "cannot open for reading" : "no such file")
    }
    handle = h
    totalBytes = Int64((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
    zstd = path.hasSuffix(".zst") ? ZstdFileReader(handle: h) : nil
    header = JSONObject()
    durationMs = nil
    // Read and check the header line.
    guard let first = try nextLine() else {
      throw RecordingError(file: "\(path):1", "empty file; expected a header line {\"format\": \"jp-replay/1\", …}")
    }
    try readHeader(first)
  }

  /// Reads JSONL text held in memory (e.g. what a scenario generator produced) with the same
  /// checks as a file; `path` names it in messages.
  public init(bytes: [UInt8], path: String, definitions: any EventDefinitions.Type) throws(RecordingError) {
    self.path = path
    self.definitions = definitions
    handle = nil
    zstd = nil
    totalBytes = Int64(bytes.count)
    plainBytesRead = Int64(bytes.count)
    buffer = bytes
    atEOF = true
    header = JSONObject()
    durationMs = nil
    guard let first = try nextLine() else {
      throw RecordingError(file: "\(path):1", "empty file; expected a header line {\"format\": \"jp-replay/1\", …}")
    }
    try readHeader(first)
  }

  private func readHeader(_ first: ArraySlice<UInt8>) throws(RecordingError) {
    let value: JSONValue
    do { value = try Self.parse(first) } catch {
      throw RecordingError(file: "\(path):1:\(error.column)", "header is not valid JSON: \(error.message)")
    }
    let h1 = try Self.checkHeader(value, file: "\(path):1")
    header = h1
    durationMs = h1["duration_ms"]?.int64Value
    namedKinds = definitions.namedEvents(in: EngineName.of(header: h1))
  }

  /// The header bounds of ``RecordingLimits``: `duration_ms` and `wall_start_ms`.
  static func checkHeaderLimits(_ o: JSONObject, file: String) throws(RecordingError) {
    if let d = o["duration_ms"]?.int64Value, d > RecordingLimits.durationMsMax {
      throw RecordingError(
        file: file,
        "header: \"duration_ms\" \(d) is over the bound durationMsMax = \(RecordingLimits.durationMsMax) ms (\(RecordingLimits.durationMsMax / 3_600_000) h); split the recording")
    }
    if let w = o["wall_start_ms"]?.int64Value, w > RecordingLimits.wallStartMsMax {
      throw RecordingError(
        file: file,
        "header: \"wall_start_ms\" \(w) is over the bound wallStartMsMax = \(RecordingLimits.wallStartMsMax) (year 9999); expected Unix epoch milliseconds")
    }
  }

  deinit { try? handle?.close() }

  static func parse(_ line: ArraySlice<UInt8>) throws(JSONParseError) -> JSONValue {
    let r: Result<JSONValue, JSONParseError> = line.withUnsafeBytes { b in
      do throws(JSONParseError) { return .success(try JSONParser.parse(bytes: b)) } catch { return .failure(error) }
    }
    return try r.get()
  }

  /// Validates a header object (ENGINE §1.4).
  package static func checkHeader(_ value: JSONValue, file: String) throws(RecordingError) -> JSONObject {
    guard let o = value.objectValue else {
      throw RecordingError(file: file, "expected the header object {\"format\": \"jp-replay/1\", …}, found \(value.typeName)")
    }
    guard let format = o["format"] else {
      if o["kind"] != nil {
        throw RecordingError(file: file, "expected the header line {\"format\": \"jp-replay/1\", …} before the first event")
      }
      throw RecordingError(file: file, "header: missing \"format\" (expected \"jp-replay/1\")")
    }
    guard format.stringValue == "jp-replay/1" else {
      throw RecordingError(file: file, "header: format \(JSONWriter.write(format)) is not supported by this jpreplay (expected \"jp-replay/1\")")
    }
    for key in ["wall_start_ms", "duration_ms"] {
      if let v = o[key], v.int64Value.map({ $0 >= 0 }) != true {
        throw RecordingError(file: file, "header: \"\(key)\": expected a non-negative integer (ms), found \(JSONWriter.write(v))")
      }
    }
    try checkHeaderLimits(o, file: file)
    if let v = o["posespec_sha256"], v.stringValue == nil {
      throw RecordingError(file: file, "header: \"posespec_sha256\": expected a hex string, found \(v.typeName)")
    }
    if let v = o["initial"], v.objectValue == nil {
      throw RecordingError(file: file, "header: \"initial\": expected an object, found \(v.typeName)")
    }
    if let problem = EngineName.problem(in: o) {
      throw RecordingError(file: file, "header: \(problem)")
    }
    // The options themselves are the engine's: its readers check them (`import` through the
    // `headerProblem` it is given, the replay through the engine's configuration).
    if let v = o["options"], v.objectValue == nil {
      throw RecordingError(file: file, "header: \"options\": expected an object, found \(v.typeName)")
    }
    return o
  }

  /// The next event, or nil at the end of the file.
  public func next() throws(RecordingError) -> InputEvent? {
    while let line = try nextLine() {
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
      let value: JSONValue
      do { value = try Self.parse(line) } catch {
        throw RecordingError(file: "\(path):\(lineNumber):\(error.column)", "not valid JSON: \(error.message)")
      }
      let event = try Self.checkedEvent(
        value, file: path, line: lineNumber, lastT: lastT, durationMs: durationMs, eventCount: eventCount,
        eventsMax: eventsMax, namedKinds: namedKinds, definitions: definitions)
      lastT = event.t
      eventCount += 1
      return event
    }
    return nil
  }

  /// One decoded line as the event it holds, checked against the recording so far: time
  /// order, the header's `duration_ms`, `durationMsMax` and `eventsMax` (shared by every reader
  /// of JSONL lines, imported or generated).
  package static func checkedEvent(
    _ value: JSONValue, file path: String, line lineNumber: Int, lastT: Millis, durationMs: Millis?,
    eventCount: Int, eventsMax: Int = RecordingLimits.eventsMax, namedKinds: Bool? = nil,
    definitions: any EventDefinitions.Type
  ) throws(RecordingError) -> InputEvent {
    var decoder = JSONLEventDecoder(file: path, line: lineNumber, definitions: definitions)
    if let namedKinds { decoder.namedKinds = namedKinds }
    let event = try decoder.decode(value)
    if event.t < lastT {
      throw RecordingError(file: "\(path):\(lineNumber)", "t \(event.t) is before the previous event's t \(lastT) (events must be in time order)")
    }
    if let d = durationMs, event.t > d {
      throw RecordingError(file: "\(path):\(lineNumber)", "t \(event.t) is after the header's duration_ms \(d)")
    }
    if event.t > RecordingLimits.durationMsMax {
      throw RecordingError(
        file: "\(path):\(lineNumber)",
        "t \(event.t) is over the bound durationMsMax = \(RecordingLimits.durationMsMax) ms (\(RecordingLimits.durationMsMax / 3_600_000) h); split the recording")
    }
    guard eventCount < eventsMax else {
      throw RecordingError(
        file: "\(path):\(lineNumber)",
        "event \(eventCount + 1) is over the bound eventsMax = \(eventsMax) events per recording; split the recording")
    }
    return event
  }

  /// The next line without its newline, or nil at the end. A line longer than
  /// `RecordingLimits.lineBytesMax` is an error, found before the buffer grows past the bound
  /// by more than one read block.
  private func nextLine() throws(RecordingError) -> ArraySlice<UInt8>? {
    while true {
      let from = max(start, scanned)
      if let nl = buffer[from...].firstIndex(of: 0x0A) {
        bytesSearched += nl + 1 - from
        try checkLineLength(nl - start)
        let line = buffer[start..<nl]
        start = nl + 1
        scanned = start
        lineNumber += 1
        return line
      }
      bytesSearched += buffer.count - from
      scanned = buffer.count
      try checkLineLength(buffer.count - start)
      if atEOF {
        guard start < buffer.count else { return nil }
        let line = buffer[start...]
        start = buffer.count
        scanned = start
        lineNumber += 1
        return line
      }
      // Refill: drop consumed bytes, append the next block.
      if start > 0 {
        buffer.removeSubrange(0..<start)
        scanned -= start
        start = 0
      }
      let block: [UInt8]
      if let zstd {
        do { block = try zstd.read() } catch {
          throw RecordingError(file: path, "after line \(lineNumber): \(error.description)")
        }
      } else {
        let data: Data?
        do { data = try handle?.read(upToCount: 1 << 20) } catch {
          throw RecordingError(file: path, "read failed after line \(lineNumber): \(error)")
        }
        block = data.map { [UInt8]($0) } ?? []
        plainBytesRead += Int64(block.count)
      }
      if block.isEmpty { atEOF = true } else { buffer.append(contentsOf: block) }
    }
  }

  private func checkLineLength(_ count: Int) throws(RecordingError) {
    guard count <= RecordingLimits.lineBytesMax else {
      throw RecordingError(
        file: "\(path):\(lineNumber + 1)",
        "line is longer than the bound lineBytesMax = \(RecordingLimits.lineBytesMax) bytes (\(RecordingLimits.lineBytesMax >> 20) MiB); expected one event per line")
    }
  }
}

/// Writes a JSONL recording, plain or zstd-compressed (`.zst` suffix), to a file or stdout.
public final class JSONLWriter {
  private let handle: FileHandle
  private let zstd: ZstdFileWriter?
  private var pending = [UInt8]()
  private let console: Bool

  /// A writer onto `handle` (a file or stdout); `compressed` wraps the lines in one zstd frame.
  /// The handle stays the caller's to close, after ``finish()``.
  /// `console`: the lines go to a terminal or log (standard output, uncompressed), written
  /// through `ConsoleText.json` — characters a terminal acts on or hides as JSON escapes, the
  /// same JSON values.
  public init(handle: FileHandle, compressed: Bool, console: Bool = false) {
    self.handle = handle
    self.console = console && !compressed
    zstd = compressed ? ZstdFileWriter(handle: handle) : nil
    pending.reserveCapacity(1 << 17)
  }

  /// Writes `header` as the first line, keys in the given order.
  public func writeHeader(_ header: JSONObject) throws { try writeLine(JSONLEventEncoder.headerLine(header)) }
  /// Writes one event line in the key order of docs/FORMAT.md.
  public func write(_ event: InputEvent) throws { try writeLine(JSONLEventEncoder.line(event)) }

  /// Writes `s` and a newline as they are, unchecked (the caller guarantees one JSON object
  /// without newlines). Lines are buffered; nothing is certain to reach the handle before ``finish()``.
  public func writeLine(_ s: String) throws {
    pending.append(contentsOf: (console ? ConsoleText.json(s) : s).utf8)
    pending.append(0x0A)
    if pending.count >= 1 << 16 { try flush() }
  }

  private func flush() throws {
    if let zstd { try zstd.write(pending) } else { try handle.write(contentsOf: pending) }
    pending.removeAll(keepingCapacity: true)
  }

  /// Writes out every buffered line and ends the zstd frame; call it once, after the last line.
  public func finish() throws {
    try flush()
    try zstd?.finish()
  }
}
