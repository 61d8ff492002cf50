import CanonicalJSON
import Foundation
import ScenarioYAML

/// The events of a scenario's recording, one at a time in recording order, without holding
/// the recording: a frame's luma plane and landmarks are made when the stream reaches it.
///
/// The order is the one a stable sort by t of (all frames, then the timeline's events in
/// file order, then the references in file order) gives: at one t, luma, landmarks, timeline
/// events, references. Noise comes from one SplitMix64 drawn frame by frame, so the bytes do
/// not depend on how the stream is consumed.
public struct ScenarioEventStream: IteratorProtocol {
  let scenario: Scenario
  var clock: FrameClock
  var cursor: SubjectCursor
  var rng: SplitMix64
  /// The realistic-noise episodes, drift and sway (`Nuisance`), with their own seeded streams.
  var nuisance: NuisanceStream
  /// The detector's jitter, outliers, swaps, confidence and luma noise (`DetectorModel`).
  var detector: DetectorStream?
  /// Timeline events and references by t (stable), small enough to hold: they are the file.
  let extras: [(t: Int64, line: JSONObject)]
  var nextExtra = 0
  /// The rest of the current frame's events (luma first, then landmarks).
  var pending: [(t: Int64, line: JSONObject)] = []

  init(_ s: Scenario) {
    scenario = s
    clock = FrameClock(s)
    cursor = SubjectCursor(baseline: s.subject, track: s.track())
    rng = SplitMix64(seed: s.seed)
    nuisance = NuisanceStream(s.noise.nuisance, seed: s.seed)
    detector = s.detector?.profile(seed: s.seed).map { DetectorStream($0, seed: s.seed) }
    var extras: [(t: Int64, line: JSONObject)] = []
    for e in s.timeline {
      if case .event(let at, let line) = e { extras.append((at, line)) }
    }
    for r in s.references { extras.append((r.at, s.referenceEvent(r))) }
    self.extras = extras.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
  }

  /// The next event (its t and JSONL object), or nil at the end.
  public mutating func next() -> (t: Int64, line: JSONObject)? {
    if !pending.isEmpty { return pending.removeFirst() }
    let frameT = clock.peek()
    if let tf = frameT, nextExtra == extras.count || tf <= extras[nextExtra].t {
      pending = frameEvents(k: clock.k, t: tf)
      clock.k += 1
      return pending.removeFirst()
    }
    guard nextExtra < extras.count else { return nil }
    nextExtra += 1
    return extras[nextExtra - 1]
  }

  /// Emitted frame `k`: its luma plane (every `luma.every` emitted frames) and its landmarks;
  /// its `frame` field is the detector's frame number (k · stride).
  mutating func frameEvents(k: Int, t: Int64) -> [(t: Int64, line: JSONObject)] {
    let frame = k * (scenario.detector?.stride ?? 1)
    detector?.advance(to: frame)
    var s = cursor.state(at: t)
    let lost = nuisance.apply(to: &s, at: t)
    let noise = scenario.noise
    let missed = noise.missRate > 0 && rng.unit() < noise.missRate
    var out: [(t: Int64, line: JSONObject)] = []
    if let every = scenario.lumaEvery, k % every == 0 {
      let (w, h) = (scenario.lumaW, scenario.lumaH)
      var plane = SubjectModel.lumaPlane(s, w: w, h: h)
      if detector != nil { plane = detector!.noisy(plane) }
      out.append(
        (t, JSONObject([
          JSONMember("t", .number(Double(t))), JSONMember("kind", "luma"), JSONMember("frame", .number(Double(frame))),
          JSONMember("w", .number(Double(w))), JSONMember("h", .number(Double(h))), JSONMember("enc", "u8-b64"),
          JSONMember("data", .string(Data(plane).base64EncodedString())),
        ])))
    }
    var body: JSONValue = .null
    var faces: [JSONValue] = []
    var people = 0
    if !(s.absent || missed) {
      var (b, f) = SubjectModel.bodyAndFace(s, rng: &rng, landmarkSigma: noise.landmarkSigma, confSigma: noise.confSigma)
      if let d = detector { (b, f) = (d.body(b, subjectConf: s[.conf]), d.face(f, faceConf: s[.face_conf])) }
      // A dropout still draws the jitter it hides, so the noise after it does not move.
      if !lost {
        body = .object(b)
        faces = s.noFace ? [] : [.object(f)]
        people = s.people
      }
    }
    out.append(
      (t, JSONObject([
        JSONMember("t", .number(Double(t))), JSONMember("kind", "landmarks"), JSONMember("frame", .number(Double(frame))),
        JSONMember("src_t", .number(Double(t))),
        JSONMember("image", .object(JSONObject([JSONMember("w", 1080), JSONMember("h", 1920)]))),
        JSONMember("coords", "canonical"), JSONMember("body", body), JSONMember("faces", .array(faces)),
        JSONMember("people", .number(Double(people))),
      ])))
    return out
  }
}
