import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import Recording

/// Ground-truth `label` events to merge into a generated recording (sorted by t): the
/// scenario's declared intent (`ScenarioIntent`), never a computation through a spec or the
/// engine. Held compactly (counted in `ScenarioLimits.eventsMax` before generating), written out as lines when read.
public struct GeneratedLabels: Sendable {
  /// One `label {cue_id, holds, since?}` at `t`; `cue` indexes `cueIDs`. `since` (≤ t) is the
  /// start of the movement that led to the change (a ramp's `from`); equal to `t` for a step.
  public struct Mark: Sendable, Equatable {
    public var t: Int64
    public var cue: Int32
    public var holds: Bool
    public var since: Int64
    public init(t: Int64, cue: Int32, holds: Bool, since: Int64? = nil) {
      self.t = t
      self.cue = cue
      self.holds = holds
      self.since = min(since ?? t, t)
    }
  }

  public var cueIDs: [String]
  public var marks: [Mark]

  public init(cueIDs: [String], marks: [Mark]) {
    self.cueIDs = cueIDs
    self.marks = marks
  }

  /// The JSONL line of label `i`: `{"t":…,"kind":"label","cue_id":…,"holds":…}`, plus
  /// `"since"` when the change began before `t`.
  public func line(_ i: Int) -> String { JSONWriter.write(.object(object(i))) }

  /// Label `i` as the object its line writes.
  func object(_ i: Int) -> JSONObject {
    let m = marks[i]
    var event: JSONObject = [
      "t": .number(Double(m.t)), "kind": "label", "cue_id": .string(cueIDs[Int(m.cue)]), "holds": .bool(m.holds),
    ]
    if m.since < m.t { event["since"] = .number(Double(m.since)) }
    return event
  }
}

/// A generated recording read as it is generated: the JSONL header line, then each event
/// line (labels merged in after the events of their t), then each event decoded and checked
/// as `jpreplay import` checks a JSONL line (the event against its kind, time order, no event
/// after `duration_ms`). Memory stays flat whatever the duration: one frame at a time.
public final class GeneratedReader: RecordingEventReader {
  public let scenario: Scenario
  /// The header line and the header parsed back from it (as `import` reads it).
  public let headerLine: String
  public let header: JSONObject
  /// The name used in messages: `<scenario file> (generated)`.
  public let path: String
  /// 1-based number of the last line produced (the header is line 1).
  public private(set) var lineNumber = 1
  public private(set) var eventCount = 0

  var stream: ScenarioEventStream
  var peeked: (t: Int64, line: JSONObject)?
  let labels: GeneratedLabels?
  let labelCount: Int
  var nextLabel = 0
  var lastT: Int64 = 0
  let durationMs: Int64?

  public init(scenario: Scenario, labels: GeneratedLabels? = nil) throws(RecordingError) {
    self.scenario = scenario
    path = "\(scenario.file) (generated)"
    var h = scenario.header
    // A scenario that declares intent is labelled even when nothing should ever show.
    if labels != nil { h["labels"] = "intent" }
    self.labels = labels
    labelCount = labels?.marks.count ?? 0
    headerLine = JSONWriter.write(.object(h))
    let value: JSONValue
    do { value = try JSONParser.parse(headerLine) } catch {
      throw RecordingError(file: "\(path):1", "header is not valid JSON: \(error.message)")
    }
    header = try JSONLReader.checkHeader(value, file: "\(path):1")
    if let problem = EngineOptions.headerProblem(header) { throw RecordingError(file: "\(path):1", problem) }
    durationMs = header["duration_ms"]?.int64Value
    stream = ScenarioEventStream(scenario)
    peeked = stream.next()
  }

  /// The next event line (JSONL, no newline), or nil at the end. Labels go after every event
  /// of their t.
  public func nextLine() -> String? { nextObject().map { JSONWriter.write(.object($0)) } }

  /// The next event line's object (what `nextLine` writes), or nil at the end.
  func nextObject() -> JSONObject? {
    if nextLabel < labelCount, let labels, peeked.map({ labels.marks[nextLabel].t < $0.t }) ?? true {
      nextLabel += 1
      lineNumber += 1
      return labels.object(nextLabel - 1)
    }
    guard let e = peeked else { return nil }
    peeked = stream.next()
    lineNumber += 1
    return e.line
  }

  /// The next event (as `JSONLReader.next()`).
  public func next() throws(RecordingError) -> InputEvent? { try nextEvent() }

  /// The next event, decoded and checked like an imported line; nil at the end. The line's
  /// value is what parsing its text gives (`JSONValue.readBack`), so the text is written and
  /// parsed only when it would not read back (its error is then the parser's).
  public func nextEvent() throws(RecordingError) -> InputEvent? {
    guard let object = nextObject() else { return nil }
    let value: JSONValue
    if let v = JSONValue.object(object).readBack() { value = v } else {
      do { value = try JSONParser.parse(JSONWriter.write(.object(object))) } catch {
        throw RecordingError(file: "\(path):\(lineNumber):\(error.column)", "not valid JSON: \(error.message)")
      }
    }
    let event = try JSONLReader.checkedEvent(
      value, file: path, line: lineNumber, lastT: lastT, durationMs: durationMs, eventCount: eventCount,
      definitions: JustPhotoEvents.self)
    lastT = event.t
    eventCount += 1
    return event
  }
}
