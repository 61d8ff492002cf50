import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import Recording

/// Where a replay's outputs go, in generation order.
public protocol ReplayOutput {
  /// The engine's typed output (Just Photo: `EngineOutput`).
  associatedtype Output
  /// One engine output of the call at `t` (typed; the engine's vocabulary renders it).
  mutating func emit(_ output: Output, at t: Millis) throws
  mutating func emit(_ line: DiagnosticLine) throws
}

/// The canonical writers for any engine on the seam: each output rendered by its vocabulary
/// `V` (``EngineVocabulary/traceRecord(_:)``) as a canonical trace line (``TraceFormat``), each
/// diagnostic line through ``A13Canonicalizer``. For Just Photo it writes exactly what
/// ``CanonicalOutput`` writes.
public struct TraceOutput<Trace: LineSink, A13: LineSink, V: EngineVocabulary>: ReplayOutput {
  public var trace: Trace
  public var a13: A13
  /// Only outputs whose `out` is in this set reach the trace; nil = all.
  public var traceKinds: Set<String>?
  /// Narrowing to cues (`replay --cue`, Just Photo); empty = none.
  public var cues: Set<String>
  private var canonicalizer = A13Canonicalizer()

  public init(trace: Trace, a13: A13, traceKinds: Set<String>? = nil, cues: Set<String> = [], vocabulary: V.Type = V.self) {
    self.trace = trace
    self.a13 = a13
    self.traceKinds = traceKinds
    self.cues = cues
  }

  public mutating func emit(_ output: V.Output, at t: Millis) throws {
    if let traceKinds, !traceKinds.contains(V.outputKind(output)) { return }
    // Without cues the output is written as it is: no `V.Output?` on this path (this code is
    // not specialized for the engine, so an optional of it costs a metadata look-up per line).
    let r: (out: String, fields: JSONObject)
    if cues.isEmpty {
      r = V.traceRecord(output)
    } else {
      guard let narrowed = Self.narrowedRecord(output, cues) else { return }
      r = narrowed
    }
    try trace.write(record: TraceRecord(t: t, out: r.out, fields: r.fields))
  }

  /// The record of `output` narrowed to `cues`, nil when nothing of it is left.
  static func narrowedRecord(_ output: V.Output, _ cues: Set<String>) -> (out: String, fields: JSONObject)? {
    guard let kept = V.narrow(output, toCues: cues) else { return nil }
    return V.traceRecord(kept)
  }

  public mutating func emit(_ line: DiagnosticLine) throws {
    try a13.write(line: canonicalizer.canonicalize(line))
  }
}

/// A destination for text lines (a file, a pipe, memory).
public protocol LineSink {
  /// Writes `line` followed by "\n".
  mutating func write(line: String) throws
  /// Writes one trace record: by default its canonical line (``TraceFormat/line(_:)``, the one
  /// writer). A sink that wants the record itself (``RecordLineSink``, an export) takes it
  /// here, so nothing parses a replay's own line back.
  mutating func write(record: TraceRecord) throws
}

extension LineSink {
  /// Writes the canonical line of `record`.
  public mutating func write(record: TraceRecord) throws { try write(line: TraceFormat.line(record)) }
}

/// A replay's trace kept both ways in memory: the canonical text (what a golden is compared
/// with and written from) and the records (``TraceFormat/canonical(_:)``, what every check
/// reads). ``ReplayDriver/canonicalProducts(_:)`` and `EnginePlugin.products` fill one.
public struct RecordLineSink: LineSink, Sendable {
  /// The canonical lines, each ending with "\n".
  public var text = ""
  /// The records written, in order, in their canonical form.
  public var records: [TraceRecord] = []
  /// An empty sink.
  public init() {}
  /// Appends `line` (text that is not a record: kept as text only).
  public mutating func write(line: String) {
    text += line
    text += "\n"
  }
  /// Appends the record's canonical line and the record.
  public mutating func write(record: TraceRecord) {
    write(line: TraceFormat.line(record))
    records.append(TraceFormat.canonical(record))
  }
}

/// Lines collected in memory as one text (each line ends with "\n").
public struct MemoryLineSink: LineSink, Sendable {
  /// The lines written, each ending with "\
  /// ".
  public var text = ""
  /// How many lines were written.
  public var lineCount = 0
  /// An empty sink.
  public init() {}
  /// Appends `line` and a newline.
  public mutating func write(line: String) {
    text += line
    text += "\n"
    lineCount += 1
  }
}

/// Lines written to a file handle through a 64 KiB buffer, so memory stays flat however long
/// the replay. Call ``finish()`` to flush; the handle is closed only if this sink opened it.
public final class FileLineSink: LineSink {
  private let handle: FileHandle
  private let ownsHandle: Bool
  private var buffer = JSONBytes(capacity: FileLineSink.limit + 4096)
  private static let limit = 1 << 16
  /// The layouts of the lines written so far (a line of a known layout is written from it).
  private var shapes = TraceLineShapes()

  /// Lines printed on a console are written through `ConsoleText.json` (characters a terminal
  /// acts on or hides as JSON escapes: the same JSON value); a file gets them as they are.
  private let console: Bool

  /// Writes to an open handle (e.g. standard output) without taking ownership; `console` for
  /// standard output (see `console`).
  public init(handle: FileHandle, console: Bool = false) {
    self.handle = handle
    self.ownsHandle = false
    self.console = console
  }

  /// Creates (or truncates) the file at `url`.
  public init(creating url: URL) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
    }
    self.handle = try FileHandle(forWritingTo: url)
    self.ownsHandle = true
    self.console = false
  }

  public func write(line: String) throws {
    buffer.text(console ? ConsoleText.json(line) : line)
    buffer.byte(0x0A)
    if buffer.count >= Self.limit { try flush() }
  }

  /// Writes the record's canonical line (``TraceFormat/append(_:to:)``'s bytes, through the
  /// line's ``TraceLineShapes`` shape) straight into the buffer; on a console through
  /// ``write(line:)``.
  public func write(record: TraceRecord) throws {
    if console { return try write(line: TraceFormat.line(record)) }
    shapes.append(record, to: &buffer)
    buffer.byte(0x0A)
    if buffer.count >= Self.limit { try flush() }
  }

  /// Whether a write failed because the reader closed the pipe (EPIPE: `jpreplay replay … | head`).
  /// The replay stops with ``ReplayError/output(_:)``; the CLI reads this to end quietly.
  public private(set) var readerClosed = false

  public func flush() throws {
    guard buffer.count > 0 else { return }
    do { try handle.write(contentsOf: buffer.bytes) } catch {
      if SystemReason.isBrokenPipe(error) { readerClosed = true }
      throw error
    }
    buffer.removeAll()
  }

  /// Flushes, and closes the file if this sink created it.
  public func finish() throws {
    try flush()
    if ownsHandle { try handle.close() }
  }
}

/// A sink that drops everything (e.g. `replay` without A.13 output).
public struct DiscardLineSink: LineSink, Sendable {
  /// A sink that keeps nothing.
  public init() {}
  /// Drops `line`.
  public func write(line: String) {}
}
