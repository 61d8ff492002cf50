import ScenarioYAML
import CanonicalJSON
import EngineIO

/// Ground truth declared by the scenario's author (DESIGN §9, docs/SCORING.md "Intent"): which
/// cues *should* be shown when. Nothing here evaluates a formula, a threshold or the engine, so
/// the labels depend on the scenario file alone — changing a spec never moves them.
///
/// Two ways to say it, which may be combined:
///
/// ```yaml
/// timeline:
///   - {at: 0, intent: none}                                     # a still, well-framed subject
///   - {from: 20000, to: 21500, subject: {x: 0.64}, intent: FRAME_MOVE_LEFT}
///   - {from: 32500, to: 34000, subject: {x: 0.5}, intent: none}
///   - {at: 60000, subject: {eye_tilt: 14}, intent: [HEAD_LEVEL]}
/// truth:                                                        # should-show intervals
///   - {cue: CAFE_12_CAFE_THIRDS_COMPOSE, from: 100000, to: 120000}
/// ```
///
/// - `intent` on a timeline step sets the **should-show set** (a cue id, a list of ids, or
///   `none`) from that step on, until the next step with an intent. Before the first one the
///   set is empty. A keyframe's intent takes effect at its `at`; a ramp's when the subject has
///   arrived, at `to` — the movement `[from, to)` is the early side of the reaction allowance:
///   the label change carries `since: from`, and the scorer accepts a reaction from then on.
/// - `{at, intent}` without `subject` declares intent without moving the subject.
/// - `truth:` lists intervals `[from, to)` in which a cue should show, in addition to the
///   steps' sets (`truth: []` declares "nothing should show" for the whole recording).
///
/// A scenario that declares either is *labelled*: its recording carries one `label {cue_id,
/// holds, since?}` event per change and the header `labels: "intent"`. Cue ids are checked for
/// their shape only (capitals, digits, `_`), never against a spec: truth must survive a spec
/// change.
public struct ScenarioIntent: Sendable, Equatable {
  /// One change of the should-show set: effective at `t`, the movement toward it since `since`.
  public struct Step: Sendable, Equatable {
    public var t: Int64
    public var since: Int64
    public var cues: [String]
  }

  /// A should-show interval of the `truth:` block.
  public struct Interval: Sendable, Equatable {
    public var cue: String
    public var from: Int64
    public var to: Int64
  }

  public var steps: [Step] = []
  public var truth: [Interval] = []
  /// Whether the scenario declared any intent or a `truth:` block (possibly empty).
  public var declared = false

  public init() {}

  /// `intent: CUE | [CUE, …] | none` of a timeline entry.
  static func parseCues(_ n: YNode) throws(ScenarioError) -> [String] {
    let items: [YNode]
    if case .scalar = n.node {
      if case .string("none") = try n.scalar() { return [] }
      items = [n]
    } else {
      items = try n.sequence(max: ScenarioLimits.intentCuesMax, bound: "ScenarioLimits.intentCuesMax")
    }
    var out: [String] = []
    for i in items {
      guard let cue = try ScenarioExpectation.cueID(i, allowAny: false) else { continue }
      guard !out.contains(cue) else { throw i.error("\(cue) is listed twice") }
      out.append(cue)
    }
    return out
  }

  /// `truth: [{cue, from, to}, …]`.
  static func parseTruth(_ n: YNode, duration: Int64) throws(ScenarioError) -> [Interval] {
    var out: [Interval] = []
    for e in try n.sequence(max: ScenarioLimits.truthIntervalsMax, bound: "ScenarioLimits.truthIntervalsMax") {
      let m = try e.mapping(allowed: ScenarioSchema.truthKeys, what: "truth key")
      func v(_ k: String) throws(ScenarioError) -> YNode {
        guard let x = m.first(where: { $0.key == k })?.value else { throw e.error("missing key \"\(k)\"; expected {cue, from, to}") }
        return x
      }
      let cue = try ScenarioExpectation.cueID(try v("cue"), allowAny: false)!
      let from = try v("from").millis(max: duration)
      let toNode = try v("to")
      let to = try toNode.millis(max: duration)
      guard to > from else { throw toNode.error("expected to > from (\(from)), found \(to)") }
      out.append(Interval(cue: cue, from: from, to: to))
    }
    return out
  }

  /// The label marks: per cue, a `holds: true` where it enters the should-show set (steps or
  /// truth intervals) and `holds: false` where it leaves it, in time order (at one t: cues
  /// leaving first, then entering; each group in byte order of the cue id).
  public func labels() -> GeneratedLabels? {
    guard declared else { return nil }
    // Per cue, its should-show intervals [start, end) with the `since` of each boundary.
    var bounds: [String: [(start: Int64, startSince: Int64, end: Int64, endSince: Int64)]] = [:]
    let ordered = steps.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    var open: [String: (Int64, Int64)] = [:]
    for step in ordered {
      for (cue, s) in open where !step.cues.contains(cue) {
        bounds[cue, default: []].append((s.0, s.1, step.t, step.since))
        open[cue] = nil
      }
      for cue in step.cues where open[cue] == nil { open[cue] = (step.t, step.since) }
    }
    for (cue, s) in open { bounds[cue, default: []].append((s.0, s.1, .max, .max)) }
    for i in truth { bounds[i.cue, default: []].append((i.from, i.from, i.to, i.to)) }

    var marks: [(t: Int64, since: Int64, cue: String, holds: Bool)] = []
    for (cue, list) in bounds {
      // Union of the cue's intervals (steps and truth may overlap).
      var merged: [(start: Int64, startSince: Int64, end: Int64, endSince: Int64)] = []
      for b in list.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) where b.end > b.start {
        if let last = merged.last, b.start <= last.end {
          if b.end > last.end { merged[merged.count - 1].end = b.end; merged[merged.count - 1].endSince = b.endSince }
        } else {
          merged.append(b)
        }
      }
      for m in merged {
        marks.append((m.start, m.startSince, cue, true))
        if m.end != .max { marks.append((m.end, m.endSince, cue, false)) }
      }
    }
    marks.sort { a, b in
      if a.t != b.t { return a.t < b.t }
      if a.holds != b.holds { return !a.holds }
      return a.cue.utf8.lexicographicallyPrecedes(b.cue.utf8)
    }
    var out = GeneratedLabels(cueIDs: [], marks: [])
    var index: [String: Int32] = [:]
    for m in marks {
      let i = index[m.cue] ?? Int32(out.cueIDs.count)
      if index[m.cue] == nil {
        index[m.cue] = i
        out.cueIDs.append(m.cue)
      }
      out.marks.append(GeneratedLabels.Mark(t: m.t, cue: i, holds: m.holds, since: m.since))
    }
    return out
  }
}
