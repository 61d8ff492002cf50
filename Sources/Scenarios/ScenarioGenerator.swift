import CoachEngine
import Foundation
import PoseSpec
import Recording

/// Turns a `Scenario` into a recording: JSONL interchange lines (header + events sorted by
/// t, stable), deterministic from the file alone — no dictionary order, no clock, no libm
/// (SplitMix64 noise, series sin/cos), numbers rounded like the Python's `round(v, 6)` and
/// printed by the repository's `JSONWriter`. The `.jprec` is written through the same code
/// path as `jpreplay import` (`RecordingImport.run(reader:to:)` on the JSONL text).
public struct GeneratedRecording: Sendable {
  public let scenario: Scenario
  /// The JSONL lines, header first, without newlines.
  public let lines: [String]

  public init(scenario: Scenario, lines: [String]) {
    self.scenario = scenario
    self.lines = lines
  }

  /// The JSONL text (one line per event, `\n` line ends).
  public var jsonl: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
    for l in lines {
      out.append(contentsOf: l.utf8)
      out.append(0x0A)
    }
    return out
  }

  /// A reader over the generated JSONL: the checks of `jpreplay import` (header, every event
  /// against its kind, time order, duration).
  public func reader() throws(RecordingError) -> JSONLReader {
    try JSONLReader(bytes: jsonl, path: "\(scenario.file) (generated)")
  }

  /// Writes a NEW `.jprec` at `path` (which must not exist) and returns the event count.
  @discardableResult
  public func writeRecording(to path: String) throws(RecordingError) -> Int {
    try RecordingImport.run(reader: reader(), to: path)
  }

  /// Whether the recording at `path` holds exactly what this scenario generates: the same
  /// header and the same events (compared in their canonical JSONL form, after the `.jprec`
  /// quantization), independent of the SQLite version that wrote the file. Returns nil when
  /// it does, else what differs first.
  public func difference(fromRecordingAt path: String) -> String? {
    guard FileManager.default.fileExists(atPath: path) else { return "\(path) does not exist" }
    let committed: RecordingReader
    do { committed = try RecordingReader(path: path) } catch { return "cannot read it (\(error.description))" }
    let generated: JSONLReader
    do { generated = try reader() } catch { return "the scenario does not generate a valid recording (\(error.description))" }
    var n = 0
    while true {
      let a: InputEvent?
      let b: InputEvent?
      do { a = try generated.next() } catch { return "the scenario does not generate a valid recording (\(error.description))" }
      do { b = try committed.next() } catch { return "cannot read it (\(error.description))" }
      n += 1
      switch (a, b) {
      case (nil, nil):
        // Events equal: the header (options, initial, notes, the scenario's sha256, …).
        let h1 = JSONWriter.write(.object(generated.header.sortedRecursively()))
        let h2 = JSONWriter.write(.object(committed.header.sortedRecursively()))
        if h1 == h2 { return nil }
        let keys = Set(generated.header.keys).union(committed.header.keys).sorted()
        let differing = keys.filter { generated.header[$0] != committed.header[$0] }
        return "same events, header differs: \(differing.joined(separator: ", "))"
      case (let a?, nil): return "event \(n) (t=\(a.t) \(a.kind.rawValue)) is missing from the recording"
      case (nil, let b?): return "the recording has an extra event \(n) (t=\(b.t) \(b.kind.rawValue))"
      case (let a?, let b?):
        if JSONLEventEncoder.line(a) != JSONLEventEncoder.line(b) {
          return "event \(n) differs (t=\(a.t) \(a.kind.rawValue) vs t=\(b.t) \(b.kind.rawValue))"
        }
      }
    }
  }
}

extension Scenario {
  /// The frame times of the recording.
  public var frameTimes: [Int64] {
    switch frames {
    case .none: return []
    case .times(let t): return t
    case .every(let ms): return Array(stride(from: Int64(0), through: durationMs, by: Int(ms)))
    case .fps:
      var out: [Int64] = []
      var k = 0
      while true {
        // Python: round(k * 1000 / FPS), half to even.
        let t = Int64((Double(k * 1000) / Double(fps)).rounded(.toNearestOrEven))
        if t > durationMs { return out }
        out.append(t)
        k += 1
      }
    }
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
    for (start, e) in ordered {
      switch e {
      case .keyframe(_, let p): tr.steps.append((start, .keyframe(p)))
      case .ramp(let from, let to, let p):
        // "The value at from": what the entries before this one give at `from`.
        let before = Self.baseState(subject, tr, at: from)
        tr.steps.append((start, .ramp(to: to, targets: p.numbers.map { ($0.0, $0.1, before[$0.0]) })))
      default: break
      }
    }
    for e in timeline {
      if case .oscillate(let from, let to, let params) = e {
        for p in params { tr.oscillations.append((from, to, p)) }
      }
    }
    return tr
  }

  static func baseState(_ baseline: SubjectState, _ tr: Track, at t: Int64) -> SubjectState {
    var s = baseline
    for (start, step) in tr.steps where start <= t {
      switch step {
      case .keyframe(let p): s.apply(p)
      case .ramp(let to, let targets):
        for (p, target, v0) in targets {
          // Python interp(): prev + (full - prev) * a, a = (t - prev_t) / (kt - prev_t).
          s[p] = t >= to ? target : v0 + (target - v0) * (Double(t - start) / Double(to - start))
        }
      }
    }
    return s
  }

  static func state(_ baseline: SubjectState, _ tr: Track, at t: Int64) -> SubjectState {
    var s = baseState(baseline, tr, at: t)
    for (from, to, o) in tr.oscillations where from <= t && t < to {
      s[o.param] += o.amplitude * _sin(2 * Double.pi * Double(t - from) / o.periodMs)
    }
    return s
  }

  /// The subject state at time `t` (keyframes, ramps, then oscillations added).
  public func subjectState(at t: Int64) -> SubjectState { Self.state(subject, track(), at: t) }

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

  /// Generates the recording.
  public func generate() -> GeneratedRecording {
    let tr = track()
    var rng = SplitMix64(seed: seed)
    var events: [(t: Int64, line: JSONObject)] = []
    for (k, t) in frameTimes.enumerated() {
      let s = Self.state(subject, tr, at: t)
      let missed = noise.missRate > 0 && rng.unit() < noise.missRate
      if let every = lumaEvery, k % every == 0 {
        let plane = SubjectModel.lumaPlane(s, w: lumaW, h: lumaH)
        events.append(
          (t, JSONObject([
            JSONMember("t", .number(Double(t))), JSONMember("kind", "luma"), JSONMember("frame", .number(Double(k))),
            JSONMember("w", .number(Double(lumaW))), JSONMember("h", .number(Double(lumaH))), JSONMember("enc", "u8-b64"),
            JSONMember("data", .string(Data(plane).base64EncodedString())),
          ])))
      }
      var body: JSONValue = .null
      var faces: [JSONValue] = []
      var people = 0
      if !(s.absent || missed) {
        let (b, f) = SubjectModel.bodyAndFace(
          s, rng: &rng, landmarkSigma: noise.landmarkSigma, confSigma: noise.confSigma)
        body = .object(b)
        faces = s.noFace ? [] : [.object(f)]
        people = s.people
      }
      events.append(
        (t, JSONObject([
          JSONMember("t", .number(Double(t))), JSONMember("kind", "landmarks"), JSONMember("frame", .number(Double(k))),
          JSONMember("src_t", .number(Double(t))),
          JSONMember("image", .object(JSONObject([JSONMember("w", 1080), JSONMember("h", 1920)]))),
          JSONMember("coords", "canonical"), JSONMember("body", body), JSONMember("faces", .array(faces)),
          JSONMember("people", .number(Double(people))),
        ])))
    }
    for e in timeline {
      if case .event(let at, let line) = e { events.append((at, line)) }
    }
    for r in references { events.append((r.at, referenceEvent(r))) }
    // Stable: at equal t, frames first (luma before landmarks), then timeline events, then
    // references, each in file order.
    let sorted = events.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }
    var lines = [JSONWriter.write(.object(header))]
    lines.reserveCapacity(sorted.count + 1)
    for e in sorted { lines.append(JSONWriter.write(.object(e.element.line))) }
    return GeneratedRecording(scenario: self, lines: lines)
  }

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
