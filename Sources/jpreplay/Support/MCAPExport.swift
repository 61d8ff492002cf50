import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoIO
import JustPhotoPlugin
import Lab
import MCAP
import Recording
import Replay
import Verify

/// Writes one recording, its replay and (optionally) its golden into an `MCAPWriter`, in time
/// order (docs/INTEROP.md). The replay pushes its trace and A.13 lines (`trace`, `a13`); before
/// each, the recording's events and the golden's lines at or before its time are written, so
/// the file's messages never go back in time. Channels are registered on their first message.
final class MCAPExport {
  struct Options {
    /// Messages kept: those whose time is in the window (nil: all).
    var window: ClosedRange<Millis>?
    /// `cue_eval` entries kept as metric channels: these cues (empty: every cue).
    var cues: Set<String> = []
    /// The header's `wall_start_ms` (A.13 lines carry wall time).
    var wallStartMs: Int64 = 0
    /// The engine's name, on every channel's metadata.
    var engine: String
  }

  let writer: MCAPWriter
  let options: Options
  /// The recording's events, read a second time beside the replay, and the next one.
  private let events: any RecordingEventReader
  private var nextEvent: InputEvent?
  private var eventsDone = false
  /// The channel (`landmarks`, `ui`, …) of an event.
  private let channelOf: (InputEvent) -> String
  /// Kinds per recording channel (for the channel's schema).
  private let kindsOf: (String) -> [String]
  /// The golden's lines (trace and A.13), in time order, and the next to write.
  private var golden: [(t: Millis, topic: String, line: String)] = []
  private var goldenNext = 0
  private var channels: [String: UInt16] = [:]
  /// Per channel id (index), its topic and messages written (id 0: none).
  private var topics: [String] = [""]
  private var messageCounts: [Int] = [0]
  /// Per recording channel (`landmarks`, …), its `/input/…` channel id.
  private var inputChannels: [String: UInt16] = [:]
  /// Per cue, its `/metrics/…` channel id, and the threshold members of its last rules.
  private var metricCues: [String: (channel: UInt16, rules: CueMetricRules?, members: [UInt8])] = [:]
  /// The one buffer every message's text is written into, then handed to the writer.
  private var buffer = JSONBytes(capacity: 1 << 16)
  /// Schemas by name and text: channels that share one (every cue's metric) share its id.
  private var schemas: [String: UInt16] = [:]
  private var lastT: Millis = 0
  /// Messages per topic (the summary `export` prints).
  var counts: [String: Int] {
    var c: [String: Int] = [:]
    for id in topics.indices.dropFirst() where messageCounts[id] > 0 { c[topics[id]] = messageCounts[id] }
    return c
  }

  init(
    writer: MCAPWriter, options: Options, events: any RecordingEventReader, channelOf: @escaping (InputEvent) -> String,
    kindsOf: @escaping (String) -> [String]
  ) {
    self.writer = writer
    self.options = options
    self.events = events
    self.channelOf = channelOf
    self.kindsOf = kindsOf
  }

  /// Adds a golden's trace and A.13 lines (`--golden`), each already checked.
  func addGolden(trace: [TraceRecord], a13: [(t: Millis, line: String)]) {
    var all = trace.map { (t: $0.t, topic: "/golden/trace/\($0.out)", line: TraceFormat.line($0)) }
    all += a13.map { (t: $0.t, topic: "/golden/a13", line: $0.line) }
    // Stable by time: trace lines before A.13 lines of the same time, each in file order.
    golden = all.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
  }

  /// One trace record of the replay: a message on `/trace/<out>` holding its canonical line.
  func trace(_ record: TraceRecord, line: @autoclosure () -> String) throws {
    try drain(upTo: record.t)
    guard keeps(record.t) else { return }
    try write("/trace/\(record.out)", record.t, line())
  }

  /// One cue entry of a `cue_eval` evaluation at `t` (Just Photo): a message on `/metrics/<cue>`
  /// when the cue is kept (`--cue`).
  func metric(_ entry: CueMetricEntry, at t: Millis) throws {
    guard options.cues.isEmpty || options.cues.contains(entry.id) else { return }
    try drain(upTo: t)
    guard keeps(t) else { return }
    var cue: (channel: UInt16, rules: CueMetricRules?, members: [UInt8])
    if let known = metricCues[entry.id] {
      cue = known
    } else {
      cue = (try channel("/metrics/\(entry.id)"), entry.rules, MCAPMessages.thresholdMembers(entry.rules))
      metricCues[entry.id] = cue
    }
    if cue.rules != entry.rules {
      cue.rules = entry.rules
      cue.members = MCAPMessages.thresholdMembers(entry.rules)
      metricCues[entry.id] = cue
    }
    buffer.removeAll()
    MCAPMessages.appendMetric(entry, thresholds: cue.members, to: &buffer)
    try writeBuffer(cue.channel, t)
  }

  /// One A.13 line of the replay, at wall time `tsMs` (its virtual time is `tsMs - wall_start_ms`).
  func a13(_ line: String, tsMs: Int64?) throws {
    let t = tsMs.map { max(lastT, $0 - options.wallStartMs) } ?? lastT
    try drain(upTo: t)
    guard keeps(t) else { return }
    try write("/a13", t, line)
  }

  /// Writes what is left (events and golden lines after the replay's last output), then the
  /// file's summary and footer.
  func finish() throws {
    try drain(upTo: .max)
    try writer.finish()
  }

  private func keeps(_ t: Millis) -> Bool { options.window?.contains(t) ?? true }

  /// Writes the events and golden lines at or before `t`.
  private func drain(upTo t: Millis) throws {
    while true {
      if nextEvent == nil && !eventsDone {
        nextEvent = try events.nextEvent()
        if nextEvent == nil { eventsDone = true }
      }
      guard let e = nextEvent, e.t <= t else { break }
      nextEvent = nil
      try drainGolden(upTo: e.t)
      guard keeps(e.t) else { continue }
      let name = channelOf(e)
      let input: UInt16
      if let known = inputChannels[name] {
        input = known
      } else {
        input = try channel("/input/\(name)")
        inputChannels[name] = input
      }
      buffer.removeAll()
      JSONLEventEncoder.append(e, to: &buffer)
      try writeBuffer(input, e.t)
      if case .landmarks(let f) = e.payload {
        let id = try channel("/foxglove/landmarks")
        buffer.removeAll()
        MCAPMessages.appendAnnotations(f, t: e.t, to: &buffer)
        try writeBuffer(id, e.t)
      }
    }
    try drainGolden(upTo: t)
  }

  private func drainGolden(upTo t: Millis) throws {
    while goldenNext < golden.count, golden[goldenNext].t <= t {
      let g = golden[goldenNext]
      goldenNext += 1
      if keeps(g.t) { try write(g.topic, g.t, g.line) }
    }
  }

  private func write(_ topic: String, _ t: Millis, _ text: String) throws {
    let id = try channel(topic)
    lastT = max(lastT, t)
    var text = text
    try text.withUTF8 { try writer.addMessage(channel: id, logTime: UInt64(max(0, t)) &* 1_000_000, data: UnsafeRawBufferPointer($0)) }
    messageCounts[Int(id)] += 1
  }

  /// Writes `buffer` as a message on channel `id` at `t`.
  private func writeBuffer(_ id: UInt16, _ t: Millis) throws {
    lastT = max(lastT, t)
    try buffer.bytes.withUnsafeBytes { try writer.addMessage(channel: id, logTime: UInt64(max(0, t)) &* 1_000_000, data: $0) }
    messageCounts[Int(id)] += 1
  }

  /// `topic`'s channel id, registered on first use.
  private func channel(_ topic: String) throws -> UInt16 {
    try channels[topic] ?? register(topic)
  }

  /// Registers `topic`'s schema and channel (on its first message).
  private func register(_ topic: String) throws -> UInt16 {
    let (name, schema, source) = Self.describe(topic, kindsOf: kindsOf)
    let key = name + "\u{0}" + schema
    let schemaID = try schemas[key] ?? writer.addSchema(name: name, encoding: "jsonschema", data: Array(schema.utf8))
    schemas[key] = schemaID
    let id = try writer.addChannel(
      topic: topic, messageEncoding: "json", schema: schemaID, metadata: [("source", source), ("engine", options.engine)])
    channels[topic] = id
    while topics.count <= Int(id) {
      topics.append("")
      messageCounts.append(0)
    }
    topics[Int(id)] = topic
    return id
  }

  /// A topic's schema name, JSON Schema and source (`recording`, `replay`, `golden`).
  static func describe(_ topic: String, kindsOf: (String) -> [String]) -> (String, String, String) {
    let parts = topic.split(separator: "/", maxSplits: 2).map(String.init)
    switch parts.first {
    case "input": return ("jpreplay.input.\(parts[1])", MCAPMessages.inputSchema(channel: parts[1], kinds: kindsOf(parts[1])), "recording")
    case "foxglove": return ("foxglove.ImageAnnotations", MCAPMessages.imageAnnotationsSchema, "recording")
    case "trace": return ("jpreplay.trace.\(parts[1])", MCAPMessages.traceSchema(out: parts[1], golden: false), "replay")
    case "a13": return ("jpreplay.a13", MCAPMessages.a13Schema(golden: false), "replay")
    case "metrics": return ("jpreplay.metric", MCAPMessages.metricSchema, "replay")
    default:
      let sub = parts.count > 1 ? parts[1] : ""
      if sub == "a13" { return ("jpreplay.a13", MCAPMessages.a13Schema(golden: true), "golden") }
      let out = parts.count > 2 ? parts[2] : ""
      return ("jpreplay.trace.\(out)", MCAPMessages.traceSchema(out: out, golden: true), "golden")
    }
  }
}

/// The golden of a recording for `export --golden`: its trace lines as records and its A.13
/// lines with their virtual times, read from `dir` (`<name>.trace.jsonl`, `<name>.a13.jsonl`;
/// a missing A.13 file is none). Each file within `GoldenStore.fileBytesMax`; a line that is
/// not a trace record (or, for A.13, a JSON object) is exit 2 naming the file and line.
enum GoldenLines {
  static func read(dir: String, recording: String, wallStartMs: Int64) throws
    -> (trace: [TraceRecord], a13: [(t: Millis, line: String)])
  {
    let name = CorpusScorer.recordingName(recording)
    let tracePath = Paths.join(dir, "\(name).trace.jsonl")
    guard FileManager.default.fileExists(atPath: tracePath) else {
      throw CLIError.badInput("\(tracePath): no golden trace for \(recording) (--golden-dir names the folder; default Golden)")
    }
    let trace: [TraceRecord]
    do { trace = try GoldenTrace.records(try text(tracePath)) } catch let error as TraceParseError {
      throw CLIError.badInput("\(tracePath): line \(error.line): \(error.message)")
    }
    var a13: [(t: Millis, line: String)] = []
    let a13Path = Paths.join(dir, "\(name).a13.jsonl")
    if FileManager.default.fileExists(atPath: a13Path) {
      for (n, line) in try lines(a13Path).enumerated() {
        guard let ts = (try? JSONParser.parse(line))?["ts_ms"]?.int64Value else {
          throw CLIError.badInput("\(a13Path): line \(n + 1): expected a JSON object with an integer \"ts_ms\"")
        }
        a13.append((max(0, ts - wallStartMs), line))
      }
    }
    return (trace, a13)
  }

  static func lines(_ path: String) throws -> [String] {
    try text(path).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
  }

  /// The golden file at `path`, within `GoldenStore.fileBytesMax`.
  static func text(_ path: String) throws -> String {
    let bytes: [UInt8]
    do { bytes = try InputFile.read(path, what: "golden", bytesMax: GoldenStore.fileBytesMax, bound: "GoldenStore.fileBytesMax") } catch {
      throw CLIError.badInput(error.description)
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
