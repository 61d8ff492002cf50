import CanonicalJSON
import EngineIO
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
  public func line(_ i: Int) -> String {
    let m = marks[i]
    var event: JSONObject = [
      "t": .number(Double(m.t)), "kind": "label", "cue_id": .string(cueIDs[Int(m.cue)]), "holds": .bool(m.holds),
    ]
    if m.since < m.t { event["since"] = .number(Double(m.since)) }
    return JSONWriter.write(.object(event))
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
    durationMs = header["duration_ms"]?.int64Value
    stream = ScenarioEventStream(scenario)
    peeked = stream.next()
  }

  /// The next event line (JSONL, no newline), or nil at the end. Labels go after every event
  /// of their t.
  public func nextLine() -> String? {
    switch nextItem() {
    case .none: nil
    case .label(let line): line
    case .event(let object): JSONWriter.write(.object(object))
    }
  }

  /// The next label's line or event's object, in ``nextLine()``'s order.
  enum Item {
    case label(String)
    case event(JSONObject)
  }

  func nextItem() -> Item? {
    if nextLabel < labelCount, let labels, peeked.map({ labels.marks[nextLabel].t < $0.t }) ?? true {
      nextLabel += 1
      lineNumber += 1
      return .label(labels.line(nextLabel - 1))
    }
    guard let e = peeked else { return nil }
    peeked = stream.next()
    lineNumber += 1
    return .event(e.line)
  }

  /// `value` as its JSONL line reads back (``JSONWriter/shortest``, then the parser): the same
  /// tree, except that a number that is not finite reads back as null and -0 as 0; every other
  /// Double prints as its shortest round-trip text and parses back to itself. Copies only
  /// when some number changes.
  static func asReadBack(_ value: JSONValue) -> JSONValue {
    guard changesWhenReadBack(value) else { return value }
    switch value {
    case .number(let d): return d.isFinite ? .number(d == 0 ? 0 : d) : .null
    case .array(let a): return .array(a.map(asReadBack))
    case .object(let o): return .object(JSONObject(o.members.map { JSONMember($0.key, asReadBack($0.value)) }))
    default: return value
    }
  }

  static func changesWhenReadBack(_ value: JSONValue) -> Bool {
    switch value {
    case .number(let d): !d.isFinite || (d == 0 && d.sign == .minus)
    case .array(let a): a.contains(where: changesWhenReadBack)
    case .object(let o): o.members.contains { changesWhenReadBack($0.value) }
    default: false
    }
  }

  /// The next event (as `JSONLReader.next()`).
  public func next() throws(RecordingError) -> InputEvent? { try nextEvent() }

  /// The next event, decoded and checked like an imported line; nil at the end.
  /// An event's object is taken as its line reads back (``asReadBack(_:)``), without writing
  /// and parsing the text (a sixth of `verify`'s CPU through the staleness check, issue 38
  /// item 5); a label goes through its line.
  public func nextEvent() throws(RecordingError) -> InputEvent? {
    let value: JSONValue
    switch nextItem() {
    case .none: return nil
    case .event(let object): value = Self.asReadBack(.object(object))
    case .label(let line):
      do { value = try JSONParser.parse(line) } catch {
        throw RecordingError(file: "\(path):\(lineNumber):\(error.column)", "not valid JSON: \(error.message)")
      }
    }
    let event = try JSONLReader.checkedEvent(
      value, file: path, line: lineNumber, lastT: lastT, durationMs: durationMs, eventCount: eventCount)
    lastT = event.t
    eventCount += 1
    return event
  }
}
