import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Foundation
import JustPhotoPlugin
import Recording
import Replay
import Verify

/// One in-process replay of a minimization candidate, for any engine on the seam: the trace
/// records (rendered by the engine's vocabulary) that a selection keeps. A replay the engine
/// or the replayer refuses throws.
package struct CandidateReplay {
  package var run: (Minimizer.Candidate, TraceSelection) throws -> [TraceRecord]

  package init(run: @escaping (Minimizer.Candidate, TraceSelection) throws -> [TraceRecord]) { self.run = run }

  /// The replays of `driver`'s engine.
  package init<E: ReplayableEngine>(driver: ReplayDriver<E>) {
    run = { c, selection in
      try driver.records(header: c.header, events: c.events, selection: selection, recording: "minimize candidate")
    }
  }
}

/// The properties `jpreplay minimize` keeps true, built on in-process replays of any engine
/// (``CandidateReplay``).
package enum MinimizeProperty {
  /// The default: the replay still diverges from the golden in the same way, i.e. the trace
  /// lines within ±`windowMs` of the golden's first divergence are exactly those the original
  /// recording's replay shows there (which differ from the golden's).
  package static func keepsDivergence(
    replay: CandidateReplay, name: String, golden: String, original: Minimizer.Candidate, windowMs: Millis = 500
  ) throws -> (at: Millis, property: (Minimizer.Candidate) throws -> Bool) {
    let replayed = try replay.run(original, .all)
    let result = try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraces(golden: golden, replay: replayed)
    guard let d = result.divergence else { throw MinimizeError.noDivergence(name) }
    let window = (d.t - windowMs)...(d.t + windowMs)
    let reference = replayed.filter { window.contains($0.t) }
    return (
      d.t,
      { c in
        // A candidate the replayer refuses (e.g. an effect left without its result) does not
        // show the behaviour.
        guard let r = try? replay.run(c, TraceSelection(window: window)) else { return false }
        return r == reference
      }
    )
  }

  /// The default property for `driver`'s engine.
  package static func keepsDivergence<E: ReplayableEngine>(
    driver: ReplayDriver<E>, name: String, golden: String, original: Minimizer.Candidate, windowMs: Millis = 500
  ) throws -> (at: Millis, property: (Minimizer.Candidate) throws -> Bool) {
    try keepsDivergence(replay: CandidateReplay(driver: driver), name: name, golden: golden, original: original, windowMs: windowMs)
  }

  /// `--expect MATCHER`: some trace line matches.
  package static func expects(replay: CandidateReplay, _ matcher: TraceMatcher) -> (Minimizer.Candidate) throws -> Bool {
    { c in (try? replay.run(c, TraceSelection(kinds: [matcher.kind]))).map { $0.contains(where: matcher.matches) } ?? false }
  }

  /// `--expect MATCHER` for `driver`'s engine.
  package static func expects<E: ReplayableEngine>(driver: ReplayDriver<E>, _ matcher: TraceMatcher) -> (Minimizer.Candidate) throws -> Bool {
    expects(replay: CandidateReplay(driver: driver), matcher)
  }
}

/// A trace-line matcher: `KIND [key=value]…`, e.g. `queue count=3` (PixScan) or `prompt
/// key=odr_unavailable op=shown` (Just Photo); values compare with the field's canonical text
/// (`null` also matches an absent field). Just Photo also takes `KIND ID[/LEVEL]`, e.g.
/// `cue_display FRAME_MOVE_LEFT/hard`: `ID` matches `cue_id` (`key` for `prompt`), `LEVEL`
/// `level`.
package struct TraceMatcher: Sendable, Equatable, CustomStringConvertible {
  /// What a matcher may say for one engine: its trace kinds (empty: any name is taken), an
  /// example for messages, and the fields `ID` and `LEVEL` stand for (nil: no shorthand).
  package struct Grammar: Sendable {
    package var kinds: [String]
    package var example: String
    package var shorthand: (@Sendable (_ kind: String) -> (id: String, level: String))?

    package init(
      kinds: [String], example: String, shorthand: (@Sendable (_ kind: String) -> (id: String, level: String))? = nil
    ) {
      self.kinds = kinds
      self.example = example
      self.shorthand = shorthand
    }

    /// Just Photo's: its `OutputKind`s and the `ID[/LEVEL]` shorthand.
    package static let justPhoto = Grammar(
      kinds: TraceKinds.all, example: "cue_display FRAME_MOVE_LEFT/hard",
      shorthand: { kind in (kind == OutputKind.prompt.rawValue ? "key" : "cue_id", "level") })

    /// The grammar of `plugin`'s traces: Just Photo's (``justPhoto``) for its plug-in, else
    /// ``fields(kinds:)`` of the engine's `out` names.
    package static func of(_ plugin: EnginePlugin) -> Grammar {
      plugin.name == JustPhotoVocabulary.engineName ? justPhoto : fields(kinds: plugin.outputKinds)
    }

    /// Another engine's: its `out` names, `key=value` fields only.
    package static func fields(kinds: [String]) -> Grammar {
      Grammar(kinds: kinds, example: "\(kinds.first ?? "KIND") key=value")
    }

    var syntax: String { shorthand == nil ? "KIND [key=value]…" : "KIND [ID][/LEVEL] [key=value]…" }
  }

  package var kind: String
  package var fields: [(String, String)]
  package var description: String

  package static func == (a: TraceMatcher, b: TraceMatcher) -> Bool { a.description == b.description }

  /// A Just Photo matcher (``Grammar/justPhoto``).
  package init(parsing text: String) throws(HarnessFailure) { try self.init(parsing: text, grammar: .justPhoto) }

  package init(parsing text: String, grammar: Grammar) throws(HarnessFailure) {
    let words = text.split(separator: " ").map(String.init)
    guard let word = words.first, word.allSatisfy({ $0.isLetter || $0 == "_" }) else {
      throw .badInput("--expect '\(text)': expected \(grammar.syntax), e.g. '\(grammar.example)'")
    }
    guard grammar.kinds.isEmpty || grammar.kinds.contains(word) else {
      throw .badInput("--expect '\(text)': unknown output kind '\(word)'; known kinds: \(grammar.kinds.sorted().joined(separator: ", "))")
    }
    self.kind = word
    self.description = text
    var fields: [(String, String)] = []
    for w in words.dropFirst() {
      if let eq = w.firstIndex(of: "=") {
        fields.append((String(w[..<eq]), String(w[w.index(after: eq)...])))
      } else if let shorthand = grammar.shorthand {
        let names = shorthand(word)
        let parts = w.split(separator: "/", maxSplits: 1).map(String.init)
        if let id = parts.first, !id.isEmpty { fields.append((names.id, id)) }
        if parts.count == 2 { fields.append((names.level, parts[1])) }
      } else {
        throw .badInput("--expect '\(text)': '\(w)': expected key=value (\(grammar.syntax)), e.g. '\(grammar.example)'")
      }
    }
    self.fields = fields
  }

  /// True when `r` is a line of the kind with every field's value.
  package func matches(_ r: TraceRecord) -> Bool {
    guard r.out == kind else { return false }
    return fields.allSatisfy { key, value in
      guard let v = r.fields[key] else { return value == "null" }
      switch v {
      case .string(let s): return s == value
      case .null: return value == "null"
      default: return JSONWriter.write(v, sortKeys: true, numbers: .shortest) == value
      }
    }
  }

  /// True when Just Photo's output `o` matches.
  package func matches(_ o: TimedOutput) -> Bool { o.output.kind.rawValue == kind && matches(o.record) }
}

/// Reading a recording into memory and writing a minimized one.
package enum MinimizeFiles {
  package static func read(_ url: URL) throws -> Minimizer.Candidate {
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
  package static func writtenHeader(_ original: JSONObject, from name: String) -> JSONObject {
    var header = original
    for k in ["generator", "generator_sha256", "labels_spec_sha256", "labels"] { header[k] = nil }
    header["minimized_from"] = .string(name)
    if let n = header["name"]?.stringValue { header["name"] = .string(n + "-min") }
    return header
  }

  /// Writes `c` as a new `.jprec` at `path` (through a `SafeFile` temporary, so a failure
  /// leaves nothing behind and an old file untouched). The header says where it came from; generator keys go,
  /// since the result is no longer what the scenario makes.
  /// `channels`: the `.jprec` channel of each named event kind (another engine's kinds, as
  /// `record` stores them). `definitions`: the recording's engine's event definitions (Just
  /// Photo's by default; another engine's events are named events, stored by `channels`).
  package static func write(
    _ c: Minimizer.Candidate, from name: String, to path: String, force: Bool, channels: [String: String] = [:],
    definitions: any EventDefinitions.Type = JustPhotoVocabulary.eventDefinitions
  ) throws {
    let fm = FileManager.default
    if fm.fileExists(atPath: path), !force {
      throw HarnessFailure.badInput("\(path): already exists (pass --force to replace it)")
    }
    let header = writtenHeader(c.header, from: name)
    do {
      try SafeFile.produce(path, keepOpen: false, sqlite: true) { t in
        let recorder = try Recorder(path: t.path, header: header, definitions: definitions)
        recorder.namedChannels = channels
        for e in c.events { try recorder.append(e) }
        try recorder.finish()
      }
    } catch {
      throw HarnessFailure.badInput("\(path): cannot write the minimized recording (\(error))")
    }
  }
}
