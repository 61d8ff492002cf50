import CanonicalJSON
import CoachEngine
import EngineIO
import Foundation
import PoseSpec
import Replay

/// Scores one trial: a PoseSpec (as JSON, already edited) and the engine options to replay
/// with; returns objectives by key (``TrialObjectives/keys``, lower is better). Shared with
/// `jpreplay score` (its `CorpusScorer` conforms); `tune` only needs this.
public protocol TrialEvaluator {
  func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double]
}

/// The objective keys `tune` knows, in report order (lower is better for all of them).
public enum TrialObjectives {
  public static let keys = [
    "flicker_per_min", "latency_p50_ms", "latency_p90_ms", "misses", "false_alarms", "praise_per_min",
    "budget_violations", "expectation_failures",
  ]
}

/// A recording decoded once into memory, replayed by every trial.
public struct DecodedRecording: Sendable {
  public var name: String
  public var header: JSONObject
  public var events: [InputEvent]

  /// Reads every event of the recording at `path` (labels included).
  public static func load(_ path: String) throws(HarnessFailure) -> DecodedRecording {
    let name = URL(fileURLWithPath: path).lastPathComponent
    do {
      var source = try Harness.openSource(URL(fileURLWithPath: path))
      var events: [InputEvent] = []
      while let e = try source.next() { events.append(e) }
      return DecodedRecording(name: name, header: source.header, events: events)
    } catch let e as HarnessFailure { throw e } catch { throw .badInput("\(path): \(error)") }
  }
}

/// The evaluator `tune` uses until `CorpusScorer` is available: replays each recording in
/// process with the trial's spec and scores the trace against the recording's `label`
/// events (ground truth) and the guidance budgets (`verify --budgets` limits).
///
/// It measures every key but `expectation_failures` (scenario `expect:` blocks are scored by
/// `CorpusScorer`), which it leaves out, so a constraint on it is not checked.
public struct ReplayTrialEvaluator: TrialEvaluator, Sendable {
  public var recordings: [DecodedRecording]
  public var budgets: BudgetLimits

  public init(recordings: [DecodedRecording], budgets: BudgetLimits = BudgetLimits()) {
    self.recordings = recordings
    self.budgets = budgets
  }

  public func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double] {
    let bytes = Array(JSONWriter.write(specJSON).utf8)
    let spec = try Harness.validateSpec(bytes: bytes, path: "PoseSpec.json (trial)")
    let overrides = options.nonDefault.members.map { (name: $0.key, value: $0.value.stringValue ?? "\($0.value)") }
    let driver = try Harness.driver(spec: spec, overrides: overrides, sessionStore: .none)
    var total = TraceScore()
    for rec in recordings {
      var source = InMemoryEventSource(header: rec.header, events: rec.events)
      var output = CollectingOutput { if case .cueEval = $0.output { false } else { true } }
      _ = try driver.replay(source: &source, into: &output, recording: rec.name)
      total.add(TraceScore(outputs: output.outputs, recording: rec, budgets: budgets))
    }
    return total.objectives
  }
}

/// Counts from one or more traces, against their labels.
struct TraceScore {
  var minutes = 0.0
  var unexplainedChanges = 0
  var latencies: [Double] = []
  var misses = 0
  var falseAlarms = 0
  var praises = 0
  var budgetBreaches = 0

  /// A displayed-cue change within this long after a label change counts as explained.
  static let explainWindowMs: Int64 = 1500
  /// Labelled intervals shorter than this are not counted as misses.
  static let missMinMs: Int64 = 1000

  init() {}

  init(outputs: [TimedOutput], recording: DecodedRecording, budgets: BudgetLimits) {
    let labels = recording.events.compactMap { e -> (t: Int64, cue: String, holds: Bool)? in
      guard case .generic(let g) = e.payload, g.kind == .label, let cue = g.fields["cue_id"]?.stringValue,
        let holds = g.fields["holds"]?.boolValue
      else { return nil }
      return (e.t, cue, holds)
    }
    let end = RecordingHeader(recording.header).durationMs ?? recording.events.last?.t ?? 0
    minutes = Double(max(end, 1)) / 60_000
    var shown: String?
    var displays: [(t: Int64, cue: String?)] = []
    for o in outputs {
      switch o.output {
      case .cueDisplay(let d):
        if d.cueId != shown { displays.append((o.t, d.cueId)) }
        shown = d.cueId
      case .praise(let p) where p.state == .on: praises += 1
      default: break
      }
    }
    scoreAgainstLabels(displays: displays, labels: labels, end: end)
    let trace = outputs.map { TraceFormat.line($0.record) }.joined(separator: "\n")
    budgetBreaches = BudgetCheck.check(name: recording.name, trace: trace, limits: budgets).breaches.count
  }

  mutating func scoreAgainstLabels(displays: [(t: Int64, cue: String?)], labels: [(t: Int64, cue: String, holds: Bool)], end: Int64) {
    var li = 0
    var lastLabelChange: Int64 = .min / 2
    var holding: Set<String> = []
    for d in displays {
      while li < labels.count, labels[li].t <= d.t {
        if labels[li].holds { holding.insert(labels[li].cue) } else { holding.remove(labels[li].cue) }
        lastLabelChange = labels[li].t
        li += 1
      }
      if d.t - lastLabelChange > Self.explainWindowMs { unexplainedChanges += 1 }
      if !labels.isEmpty, let cue = d.cue, !holding.contains(cue) { falseAlarms += 1 }
    }
    // Labelled intervals per cue: latency to the first display inside, or a miss.
    var open: [String: Int64] = [:]
    var intervals: [(cue: String, from: Int64, to: Int64)] = []
    for l in labels {
      if l.holds, open[l.cue] == nil { open[l.cue] = l.t }
      if !l.holds, let from = open.removeValue(forKey: l.cue) { intervals.append((l.cue, from, l.t)) }
    }
    for (cue, from) in open.sorted(by: { $0.key < $1.key }) { intervals.append((cue, from, end)) }
    for iv in intervals {
      if let hit = displays.first(where: { $0.cue == iv.cue && $0.t >= iv.from && $0.t < iv.to }) {
        latencies.append(Double(hit.t - iv.from))
      } else if displays.last(where: { $0.t <= iv.from })?.cue == iv.cue {
        latencies.append(0)  // already displayed when the label began
      } else if iv.to - iv.from >= Self.missMinMs {
        misses += 1
      }
    }
  }

  mutating func add(_ o: TraceScore) {
    minutes += o.minutes
    unexplainedChanges += o.unexplainedChanges
    latencies += o.latencies
    misses += o.misses
    falseAlarms += o.falseAlarms
    praises += o.praises
    budgetBreaches += o.budgetBreaches
  }

  var objectives: [String: Double] {
    let sorted = latencies.sorted()
    func percentile(_ p: Double) -> Double {
      guard !sorted.isEmpty else { return 0 }
      return sorted[min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))]
    }
    return [
      "flicker_per_min": Double(unexplainedChanges) / max(minutes, 1e-9),
      "latency_p50_ms": percentile(0.5),
      "latency_p90_ms": percentile(0.9),
      "misses": Double(misses),
      "false_alarms": Double(falseAlarms),
      "praise_per_min": Double(praises) / max(minutes, 1e-9),
      "budget_violations": Double(budgetBreaches),
    ]
  }
}
