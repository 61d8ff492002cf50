import CanonicalJSON
import EngineIO
import EngineSeam
import Replay

/// Tolerances and presentation of a structural diff.
public struct DiffOptions: Sendable, Equatable {
  /// Records whose times differ by at most this many ms are aligned (±N ms).
  public var timingToleranceMs: Millis
  /// Absolute tolerance per top-level field name for numbers (nested numbers of that field
  /// included); the key "*" applies to every field without its own entry.
  public var numericTolerance: [String: Double]
  /// Lines of context shown around the first divergence.
  public var contextLines: Int

  public init(
    timingToleranceMs: Millis = 0, numericTolerance: [String: Double] = [:], contextLines: Int = 3
  ) {
    self.timingToleranceMs = timingToleranceMs
    self.numericTolerance = numericTolerance
    self.contextLines = contextLines
    self.reading = .plain
  }

  /// How the records' lines are read (cues, subjects, summaries): the engine's reading;
  /// ``TraceReading/plain`` (no cues) by default.
  public var reading: TraceReading

  /// Options; `reading` is the engine's way of reading its lines (``TraceReading/plain``: no cues).
  public init(
    timingToleranceMs: Millis = 0, numericTolerance: [String: Double] = [:], contextLines: Int = 3,
    reading: TraceReading
  ) {
    self.init(timingToleranceMs: timingToleranceMs, numericTolerance: numericTolerance, contextLines: contextLines)
    self.reading = reading
  }

  /// These options reading lines through `reading` instead.
  public func reading(_ reading: TraceReading) -> DiffOptions {
    var o = self
    o.reading = reading
    return o
  }

  /// Whether any tolerance is set (otherwise only identical records align).
  public var isExact: Bool {
    timingToleranceMs == 0 && numericTolerance.values.allSatisfy { $0 == 0 }
  }
}

/// One line of a trace or A.13 file, parsed for alignment: a time, a kind, and the other fields.
public struct StructuredLine: Equatable, Sendable {
  /// 1-based line number in its file.
  public var line: Int
  /// `t` of a trace record, `ts_ms` of an A.13 line.
  public var t: Millis
  /// `out` of a trace record, `event` of an A.13 line.
  public var kind: String
  public var fields: JSONObject
  /// The line as written.
  public var text: String

  /// Reads a trace file (canonical JSONL: a golden, a pending `.new`, a file given to `diff`)
  /// through the one reader, ``GoldenTrace/read(_:)``. Blank lines are skipped.
  public static func parseTrace(_ text: String, file: String = "trace") throws(BadInputError)
    -> [StructuredLine]
  {
    do {
      return try GoldenTrace.read(text).map {
        StructuredLine(line: $0.number, t: $0.record.t, kind: $0.record.out, fields: $0.record.fields, text: $0.text)
      }
    } catch {
      throw BadInputError(
        recording: "\(file):\(error.line)",
        message: error.isJSON ? "expected an object with an integer \"t\" and a string \"out\"" : error.message)
    }
  }

  /// A replay's trace in memory: one line per record, numbered from 1, each as its canonical
  /// line shows it (``TraceFormat/canonical(_:)``, ``TraceFormat/line(_:)``): what
  /// ``parseTrace(_:file:)`` of the replay's text would give, without the text round trip.
  public static func lines(of records: [TraceRecord]) -> [StructuredLine] {
    records.enumerated().map { i, r in
      let c = TraceFormat.canonical(r)
      return StructuredLine(line: i + 1, t: c.t, kind: c.out, fields: c.fields, text: TraceFormat.line(c))
    }
  }

  /// Parses a canonical A.13 file.
  public static func parseA13(_ text: String, file: String = "a13") throws(BadInputError)
    -> [StructuredLine]
  {
    try parse(text, file: file, timeKey: "ts_ms", kindKey: "event")
  }

  /// A.13 lines (the trace has its one reader, ``GoldenTrace/read(_:)``).
  private static func parse(_ text: String, file: String, timeKey: String, kindKey: String)
    throws(BadInputError)
    -> [StructuredLine]
  {
    var out: [StructuredLine] = []
    var number = 0
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      let line = String(raw)
      if line.trimmingSpaces.isEmpty { continue }
      let value: JSONValue
      do { value = try JSONParser.parse(line) } catch {
        throw BadInputError(recording: "\(file):\(number)", message: error.description)
      }
      guard var object = value.objectValue, let t = object[timeKey]?.int64Value,
        let kind = object[kindKey]?.stringValue
      else {
        throw BadInputError(
          recording: "\(file):\(number)",
          message: "expected an object with an integer \"\(timeKey)\" and a string \"\(kindKey)\"")
      }
      object[timeKey] = nil
      object[kindKey] = nil
      out.append(StructuredLine(line: number, t: t, kind: kind, fields: object, text: line))
    }
    return out
  }
}

/// A field that differs between two aligned records.
public struct FieldChange: Equatable, Sendable {
  public var field: String
  public var golden: String
  public var replay: String
  public init(field: String, golden: String, replay: String) {
    self.field = field
    self.golden = golden
    self.replay = replay
  }
}

/// The first place where a replay departs from its golden (DESIGN §4).
public struct Divergence: Equatable, Sendable, CustomStringConvertible {
  public enum Kind: Equatable, Sendable {
    /// The golden has a record the replay lacks.
    case missingInReplay
    /// The replay has a record the golden lacks.
    case extraInReplay
    /// The same kind at the same time (± tolerance), with different fields; or the same record
    /// shifted by more than ``TraceDiffer/movedFramesMax`` frames, a different behaviour rather
    /// than a move (its one change is then the time field, `t` or `ts_ms`).
    case changed([FieldChange])
    /// The same record at another time: beyond the timing tolerance, within
    /// ``TraceDiffer/movedFramesMax`` frames (``TraceDiffer/movedMsMax`` ms).
    case moved(byMs: Millis)
  }
  public var kind: Kind
  /// The time the divergence is reported at (the earlier of the two records).
  public var t: Millis
  public var golden: StructuredLine?
  public var replay: StructuredLine?
  /// One sentence, e.g. "at t=1600 golden has cue_display FRAME_MOVE_LEFT/hard, replay has none".
  public var explanation: String
  /// A few lines around it, unified-diff style ("  " both, "- " golden only, "+ " replay only).
  public var context: [String]
  /// Cue ids named by the records involved (for metric explanations). A record that clears a
  /// cue (`cue_display` or `script_card` with `cue_id` null) names the cue it cleared: the one
  /// its file showed before it.
  public var cueIDs: [String]
  /// When the records name no cue (a shutter, praise or A.13 line): the cues on screen at `t`
  /// in the golden and the replay, so the explanation still has a cue to show.
  public var cuesOnScreen: [String] = []
  /// Whether one of its records clears a cue (``TraceReading/clearsCue(out:fields:)``).
  public var clearsCue = false
  /// What its records are about when they name no cue (``TraceReading/subject(_:)``): the
  /// golden's, else the replay's; nil when neither says.
  public var subject: String?
  /// The golden line where its hunk starts (1-based; for annotations).
  public var anchorLine: Int = 0

  public var description: String { ([explanation] + context).joined(separator: "\n") }
}

/// The outcome of a structural diff.
public struct DiffResult: Equatable, Sendable {
  /// nil when the two files align completely (within tolerance); the first of `divergences`.
  public var divergence: Divergence?
  /// One divergence per divergent hunk, in file order, at most `TraceDiffer.divergencesMax`;
  /// only the first carries context lines.
  public var divergences: [Divergence] = []
  /// Divergent hunks in all (may exceed `divergences.count`).
  public var hunkCount = 0
  /// Records only in the golden / only in the replay (after alignment).
  public var goldenOnly: Int
  public var replayOnly: Int
  public var goldenCount: Int
  public var replayCount: Int

  public var isMatch: Bool { divergence == nil }
  /// 0 when the files match, 1 otherwise.
  public var exitCode: ExitDecision { isMatch ? .ok : .difference }

  /// A plain-text report: the first divergence with its context, then the counts.
  public func render() -> String {
    guard let d = divergence else { return "no difference (\(goldenCount) records)\n" }
    var out = "first divergence: \(d.explanation)\n"
    for line in d.context { out += line + "\n" }
    for (n, other) in divergences.enumerated().dropFirst() {
      out += "divergence \(n + 1): \(other.explanation)\n"
    }
    if hunkCount > divergences.count {
      out += "… and \(hunkCount - divergences.count) more divergent hunks\n"
    }
    out +=
      "\(goldenOnly) of \(goldenCount) golden records and \(replayOnly) of \(replayCount) replay records do not align\n"
    return out
  }
}
