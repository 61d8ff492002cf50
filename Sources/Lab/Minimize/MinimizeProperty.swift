import CanonicalJSON
import CoachEngine
import EngineIO
import Foundation
import JustPhotoPlugin
import Recording
import Replay
import Verify

/// The properties `jpreplay minimize` keeps true, built on in-process replays.
public enum MinimizeProperty {
  /// The default: the replay still diverges from the golden in the same way, i.e. the trace
  /// lines within ±`windowMs` of the golden's first divergence are exactly those the original
  /// recording's replay shows there (which differ from the golden's).
  public static func keepsDivergence(
    driver: ReplayDriver<Engine>, name: String, golden: String, original: Minimizer.Candidate, windowMs: Millis = 500
  ) throws -> (at: Millis, property: (Minimizer.Candidate) throws -> Bool) {
    let replayed = try replayTrace(driver, original)
    let result = try TraceDiffer().diffTraces(golden: golden, replay: replayed.text)
    guard let d = result.divergence else { throw MinimizeError.noDivergence(name) }
    let window = (d.t - windowMs)...(d.t + windowMs)
    let reference = replayed.records.filter { window.contains($0.t) }
    return (
      d.t,
      { c in
        // A candidate the replayer refuses (e.g. an effect left without its result) does not
        // show the behaviour.
        guard let r = try? replay(driver, c, keep: { window.contains($0.t) }) else { return false }
        return r == reference
      }
    )
  }

  /// `--expect MATCHER`: some trace line matches.
  public static func expects(driver: ReplayDriver<Engine>, _ matcher: TraceMatcher) -> (Minimizer.Candidate) throws -> Bool {
    { c in (try? replay(driver, c) { matcher.matches($0) }).map { !$0.isEmpty } ?? false }
  }

  static func replay(_ driver: ReplayDriver<Engine>, _ c: Minimizer.Candidate, keep: @escaping (TimedOutput) -> Bool) throws
    -> [TraceRecord]
  {
    var source = InMemoryEventSource(header: c.header, events: c.events)
    var out = CollectingOutput(keep: keep)
    _ = try driver.replay(source: &source, into: &out, recording: "minimize candidate")
    return out.records
  }

  static func replayTrace(_ driver: ReplayDriver<Engine>, _ c: Minimizer.Candidate) throws -> (text: String, records: [TraceRecord]) {
    var source = InMemoryEventSource(header: c.header, events: c.events)
    var collected = CollectingOutput()
    _ = try driver.replay(source: &source, into: &collected, recording: "minimize candidate")
    var text = ""
    for r in collected.records { text += TraceFormat.line(r) + "\n" }
    return (text, collected.records)
  }
}

/// A trace-line matcher: `KIND [ID][/LEVEL] [key=value]…`, e.g. `cue_display FRAME_MOVE_LEFT/hard`
/// or `prompt key=odr_unavailable op=shown`. `ID` matches `cue_id` (or `key`), `LEVEL` `level`;
/// values compare with the field's canonical text.
public struct TraceMatcher: Sendable, Equatable, CustomStringConvertible {
  public var kind: OutputKind
  public var fields: [(String, String)]
  public var description: String

  public static func == (a: TraceMatcher, b: TraceMatcher) -> Bool { a.description == b.description }

  public init(parsing text: String) throws(HarnessFailure) {
    let words = text.split(separator: " ").map(String.init)
    guard let word = words.first, word.allSatisfy({ $0.isLetter || $0 == "_" }) else {
      throw .badInput("--expect '\(text)': expected KIND [ID][/LEVEL] [key=value]…, e.g. 'cue_display FRAME_MOVE_LEFT/hard'")
    }
    guard let kind = OutputKind(rawValue: word) else {
      throw .badInput("--expect '\(text)': unknown output kind '\(word)'; known kinds: \(TraceKinds.all.joined(separator: ", "))")
    }
    self.kind = kind
    self.description = text
    var fields: [(String, String)] = []
    for w in words.dropFirst() {
      if let eq = w.firstIndex(of: "=") {
        fields.append((String(w[..<eq]), String(w[w.index(after: eq)...])))
      } else {
        let parts = w.split(separator: "/", maxSplits: 1).map(String.init)
        if let id = parts.first, !id.isEmpty { fields.append((kind == .prompt ? "key" : "cue_id", id)) }
        if parts.count == 2 { fields.append(("level", parts[1])) }
      }
    }
    self.fields = fields
  }

  public func matches(_ o: TimedOutput) -> Bool {
    guard o.output.kind == kind else { return false }
    let r = o.record
    return fields.allSatisfy { key, value in
      guard let v = r.fields[key] else { return value == "null" }
      switch v {
      case .string(let s): return s == value
      case .null: return value == "null"
      default: return JSONWriter.write(v, sortKeys: true, numbers: .shortest) == value
      }
    }
  }
}

/// Reading a recording into memory and writing a minimized one.
public enum MinimizeFiles {
  public static func read(_ url: URL) throws -> Minimizer.Candidate {
    var source = try Harness.openSource(url)
    if let r = source as? RecordingReader, r.declaredEvents > Int64(Minimizer.Limits.eventsMax) {
      throw HarnessFailure.badInput("\(url.path): \(r.declaredEvents) events, more than Minimizer.Limits.eventsMax = \(Minimizer.Limits.eventsMax); cut it first")
    }
    var events: [InputEvent] = []
    while let e = try source.next() {
      guard events.count < Minimizer.Limits.eventsMax else {
        throw HarnessFailure.badInput("\(url.path): more than \(Minimizer.Limits.eventsMax) events (Minimizer.Limits.eventsMax); cut it first")
      }
      events.append(e)
    }
    var header = JSONObject(source.header.members.filter { !$0.key.hasPrefix("jprec.") })
    if header["duration_ms"] == nil { header["duration_ms"] = .number(Double(events.last?.t ?? 0)) }
    return Minimizer.Candidate(header: header, events: events)
  }

  /// The header a minimized recording is written with: generator keys go (the result is no
  /// longer what the scenario makes), `minimized_from` names the source, the name gets "-min".
  public static func writtenHeader(_ original: JSONObject, from name: String) -> JSONObject {
    var header = original
    for k in ["generator", "generator_sha256", "labels_spec_sha256", "labels"] { header[k] = nil }
    header["minimized_from"] = .string(name)
    if let n = header["name"]?.stringValue { header["name"] = .string(n + "-min") }
    return header
  }

  /// Writes `c` as a new `.jprec` at `path` (through a `SafeFile` temporary, so a failure
  /// leaves nothing behind and an old file untouched). The header says where it came from; generator keys go,
  /// since the result is no longer what the scenario makes.
  public static func write(_ c: Minimizer.Candidate, from name: String, to path: String, force: Bool) throws {
    let fm = FileManager.default
    if fm.fileExists(atPath: path), !force {
      throw HarnessFailure.badInput("\(path): already exists (pass --force to replace it)")
    }
    let header = writtenHeader(c.header, from: name)
    do {
      try SafeFile.produce(path, keepOpen: false, sqlite: true) { t in
        let recorder = try Recorder(path: t.path, header: header)
        for e in c.events { try recorder.append(e) }
        try recorder.finish()
      }
    } catch {
      throw HarnessFailure.badInput("\(path): cannot write the minimized recording (\(error))")
    }
  }
}
