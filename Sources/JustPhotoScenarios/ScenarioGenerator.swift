import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoIO
import Recording
import ScenarioYAML

/// A scenario's recording, generated on demand (never held whole): read it with `reader()`,
/// write it as a `.jprec` with `writeRecording(to:)`, or compare it with a recording on disk
/// with `difference(fromRecordingAt:)`, each in flat memory. Deterministic from the file
/// alone — no dictionary order, no clock, no libm (SplitMix64 noise, series sin/cos), numbers
/// rounded like the Python's `round(v, 6)` and printed by the repository's `JSONWriter`. The
/// `.jprec` gets the events `jpreplay import` would read from the JSONL text.
public struct GeneratedRecording: Sendable {
  public let scenario: Scenario
  /// Ground-truth labels merged in: the scenario's declared intent (`ScenarioIntent`); nil
  /// when it declares none (the recording is then unlabelled).
  public let labels: GeneratedLabels?

  public init(scenario: Scenario) {
    self.scenario = scenario
    self.labels = scenario.intent.labels()
  }

  /// A recording with the given labels instead of the scenario's own (tests).
  public init(scenario: Scenario, labels: GeneratedLabels?) {
    self.scenario = scenario
    self.labels = labels
  }

  /// A reader over the generated recording, from its first event.
  public func reader() throws(RecordingError) -> GeneratedReader {
    try GeneratedReader(scenario: scenario, labels: labels)
  }

  /// The JSONL lines, header first, without newlines. Holds the whole recording: for tests
  /// and small scenarios; everything else streams through `reader()`.
  public var lines: [String] {
    guard let r = try? reader() else { return [] }
    var out = [r.headerLine]
    while let l = r.nextLine() { out.append(l) }
    return out
  }

  /// The JSONL text (one line per event, `\n` line ends); see `lines`.
  public var jsonl: [UInt8] {
    var out: [UInt8] = []
    for l in lines {
      out.append(contentsOf: l.utf8)
      out.append(0x0A)
    }
    return out
  }

  /// Writes a NEW `.jprec` at `path` (which must not exist), chunk by chunk, and returns the
  /// event count. On an error the partial file is removed.
  @discardableResult
  public func writeRecording(to path: String) throws(RecordingError) -> Int {
    let r = try reader()
    let recorder = try Recorder(path: path, header: r.header, definitions: JustPhotoEvents.self)
    do {
      while let e = try r.nextEvent() { try recorder.append(e) }
      try recorder.finish()
      return r.eventCount
    } catch {
      RecordingFiles.remove(path)
      throw error
    }
  }

  /// Whether the recording at `path` holds exactly what this scenario generates: the same
  /// header and the same events (compared in their canonical JSONL form, after the `.jprec`
  /// quantization), one event at a time, independent of the SQLite version that wrote the
  /// file. Returns nil when it does, else what differs first.
  public func difference(fromRecordingAt path: String) -> String? { compare(withRecordingAt: path).difference }

  /// `difference(fromRecordingAt:)`, and the event count when there is none (else the
  /// number of the first event that differs). Labels are compared like every other event:
  /// they come from the scenario's declared intent alone (DESIGN §9), so a recording whose
  /// labels differ is stale, and a spec edit never changes them.
  /// `eventsMatch`: every compared event is equal (only the header may differ).
  public func compare(withRecordingAt path: String) -> (difference: String?, events: Int, eventsMatch: Bool) {
    let (d, n, same) = compareEvents(path)
    return (d, d == nil ? n - 1 : n, same)
  }

  private func compareEvents(_ path: String) -> (String?, Int, Bool) {
    guard FileManager.default.fileExists(atPath: path) else { return ("\(path) does not exist", 0, false) }
    var n = 0
    let committed: RecordingReader
    do { committed = try RecordingReader(path: path, definitions: JustPhotoEvents.self) } catch { return ("cannot read it (\(error.description))", n, false) }
    let generated: GeneratedReader
    do { generated = try reader() } catch {
      return ("the scenario does not generate a valid recording (\(error.description))", n, false)
    }
    func next(_ read: () throws(RecordingError) -> InputEvent?) throws(RecordingError) -> InputEvent? { try read() }
    while true {
      let a: InputEvent?
      let b: InputEvent?
      do { a = try next(generated.nextEvent) } catch {
        return ("the scenario does not generate a valid recording (\(error.description))", n, false)
      }
      do { b = try next(committed.next) } catch { return ("cannot read it (\(error.description))", n, false) }
      n += 1
      switch (a, b) {
      case (nil, nil):
        // Events equal: the header (options, initial, notes, the scenario's sha256, …).
        let g = generated.header
        let c = committed.header
        let h1 = JSONWriter.write(.object(g.sortedRecursively()))
        let h2 = JSONWriter.write(.object(c.sortedRecursively()))
        if h1 == h2 { return (nil, n, true) }
        let keys = Set(g.keys).union(c.keys).sorted()
        let differing = keys.filter { g[$0] != c[$0] }
        return ("same events, header differs: \(differing.joined(separator: ", "))", n, true)
      case (let a?, nil): return ("event \(n) (t=\(a.t) \(a.kindName)) is missing from the recording", n, false)
      case (nil, let b?): return ("the recording has an extra event \(n) (t=\(b.t) \(b.kindName))", n, false)
      case (let a?, let b?):
        if JSONLEventEncoder.line(a) != JSONLEventEncoder.line(b) {
          return ("event \(n) differs (t=\(a.t) \(a.kindName) vs t=\(b.t) \(b.kindName))", n, false)
        }
      }
    }
  }
}

extension Scenario {
  /// The frame times of the recording (all of them: for tests and small scenarios).
  public var frameTimes: [Int64] {
    var clock = FrameClock(self)
    var out: [Int64] = []
    while let t = clock.peek() {
      out.append(t)
      clock.k += 1
    }
    return out
  }

  /// The subject entries in start order (stable), with each ramp's start values.
  struct Track {
    enum Step {
      case keyframe(SubjectPatch)
      case ramp(to: Int64, targets: [(SubjectParam, Double, start: Double)])
    }
    var steps: [(start: Int64, step: Step)] = []
    var oscillations: [(from: Int64, to: Int64, Oscillation)] = []
  }

  func track() -> Track {
    var entries: [(start: Int64, entry: TimelineEntry)] = []
    for e in timeline {
      switch e {
      case .keyframe(let at, _): entries.append((at, e))
      case .ramp(let from, _, _): entries.append((from, e))
      default: break
      }
    }
    // Stable sort by start time: entries at one time apply in file order.
    let ordered = entries.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
    var tr = Track()
    // The steps so far, evaluated incrementally (all start at or before this entry).
    var base = SubjectCursor.Base(state: subject)
    for (start, e) in ordered {
      let step: Track.Step
      switch e {
      case .keyframe(_, let p): step = .keyframe(p)
      case .ramp(let from, let to, let p):
        // "The value at from": what the entries before this one give at `from`.
        let before = base.state(at: from)
        step = .ramp(to: to, targets: p.numbers.map { ($0.0, $0.1, before[$0.0]) })
      default: continue
      }
      tr.steps.append((start, step))
      base.apply(start: start, step)
    }
    for e in timeline {
      if case .oscillate(let from, let to, let params) = e {
        for p in params { tr.oscillations.append((from, to, p)) }
      }
    }
    return tr
  }

  /// The subject state at time `t` (keyframes, ramps, then oscillations added).
  public func subjectState(at t: Int64) -> SubjectState {
    var c = SubjectCursor(baseline: subject, track: track())
    return c.state(at: t)
  }

  /// The header of the generated recording, in a fixed key order.
  public var header: JSONObject {
    var h = JSONObject()
    h.members.append(JSONMember("format", "jp-replay/1"))
    h.members.append(JSONMember("name", .string(name)))
    h.members.append(JSONMember("wall_start_ms", .number(Double(wallStartMs))))
    h.members.append(JSONMember("options", .object(options)))
    h.members.append(JSONMember("initial", .object(initial)))
    h.members.append(JSONMember("fps", .number(Double(fps))))
    h.members.append(JSONMember("seed", .number(Double(seed))))
    h.members.append(JSONMember("duration_ms", .number(Double(durationMs))))
    h.members.append(JSONMember("generator", .string(fileName)))
    h.members.append(JSONMember("generator_sha256", .string(sha256)))
    if let notes { h.members.append(JSONMember("notes", .string(notes))) }
    if !budgets.isEmpty {
      h.members.append(JSONMember("budgets", .object(JSONObject(budgets.map { JSONMember($0.name, .number(Double($0.value))) }))))
    }
    return h
  }

  /// The recording this scenario generates (made as it is read).
  public func generate() -> GeneratedRecording { GeneratedRecording(scenario: self) }

  /// The scenario's events one at a time (no labels, no checks).
  public func events() -> ScenarioEventStream { ScenarioEventStream(self) }

  /// reference(): a `ref_analysis` event from a noise-free subject (the model's defaults plus
  /// the reference's own `subject`, not the scenario's baseline — a reference is another photo).
  func referenceEvent(_ r: Reference) -> JSONObject {
    var s = SubjectState()
    s.apply(r.subject)
    for j in r.drop where !s.drop.contains(j) { s.drop.append(j) }
    var rng = SplitMix64(seed: 0)
    var (body, face) = SubjectModel.bodyAndFace(s, rng: &rng, landmarkSigma: 0, confSigma: 0)
    for (j, c) in r.conf {
      guard let i = body.members.firstIndex(where: { $0.key == j.name }), case .array(var a) = body.members[i].value else { continue }
      a[2] = .number(c)
      body.members[i].value = .array(a)
    }
    var o = JSONObject([
      JSONMember("t", .number(Double(r.at))), JSONMember("kind", "ref_analysis"), JSONMember("ref_id", .string(r.refID)),
      JSONMember("coords", "canonical"),
    ])
    if s.absent {
      o.members += [JSONMember("body", .null), JSONMember("faces", []), JSONMember("people", 0)]
    } else {
      // `faces`: each entry the model's face with the given fields changed (reference(faces=)).
      let faces = r.faces.map { $0.map { JSONValue.object(Self.merge(face, $0)) } } ?? (s.noFace ? [] : [.object(face)])
      o.members += [
        JSONMember("body", .object(body)), JSONMember("faces", .array(faces)),
        JSONMember("people", .number(Double(s.people))),
      ]
    }
    if let scalars = r.scalars {
      o.members.append(JSONMember("frame_scalars", .object(JSONObject([JSONMember("values", .object(scalars))]))))
    }
    return o
  }

  /// `base` with `edit` applied: a mapping in both merges, any other value replaces (in its
  /// place); new keys go last. Python's `dict(face, conf=0.7)`.
  static func merge(_ base: JSONObject, _ edit: JSONObject) -> JSONObject {
    var out = base
    for m in edit.members {
      if let i = out.members.firstIndex(where: { $0.key == m.key }) {
        if case .object(let a) = out.members[i].value, case .object(let b) = m.value {
          out.members[i].value = .object(merge(a, b))
        } else {
          out.members[i].value = m.value
        }
      } else {
        out.members.append(m)
      }
    }
    return out
  }
}
