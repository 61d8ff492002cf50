import JustPhotoEngine
import EngineIO
import Foundation
import JustPhotoPlugin
import PoseSpec
import Replay

/// Bounds of a timeline plot.
package enum PlotLimits {
  /// Cue panels in one plot (explicit `--cue`s beyond it are bad input; chosen cues are cut).
  package static let cuesMax = 12
  /// Metric points kept per cue before drawing (long replays are thinned per pixel column).
  package static let pointsPerCueMax = 2_000_000
  /// Steps (changes of value) kept per series of an engine's ``SeriesTimelineData``.
  package static let stepsPerSeriesMax = 2_000_000
  /// Marks kept per lane of an engine's ``SeriesTimelineData``.
  package static let marksPerLaneMax = 1_000_000
  /// Steps of one series that each get a tooltip; a series with more is drawn without them.
  package static let titledStepsMax = 5_000
}

/// What a timeline plot shows, collected from one replay with `cue_eval` tracing.
package struct TimelineData: Sendable {
  /// One evaluation of one cue: its error (metric value compared with the thresholds; nil when
  /// unavailable), the level observed, and the thresholds it was judged against.
  package struct Point: Sendable, Equatable {
    package var t: Millis
    package var value: Double?
    package var level: CueLevel
    /// nil when the evaluation carried none (the cue was not judged).
    package var thresholds: ThresholdSet?
  }

  package struct Marker: Sendable, Equatable {
    package var t: Millis
    package var text: String
    package init(t: Millis, text: String) {
      self.t = t
      self.text = text
    }
  }

  /// The gate's verdict at one T0 evaluation (ENGINE §3.9): why it kept its output (`none`:
  /// it did not hold anything back), what it was given and what it showed.
  package struct GateSample: Sendable, Equatable {
    package var t: Millis
    package var reason: GateReason
    package var input: String?
    package var shown: String?
    /// The counters behind the reason (kept as numbers: one sample per evaluation).
    package var stableFrames: Int
    package var persistFrames: Int
    package var heldMs: Millis
    package var minHoldMs: Int
    package var cooldownUntil: Millis?

    /// "stable 2/3 frames, held 400/1000 ms[, cooling down until 3933]".
    package var detail: String {
      "stable \(stableFrames)/\(persistFrames) frames, held \(heldMs)/\(minHoldMs) ms"
        + (cooldownUntil.map { ", cooling down until \($0)" } ?? "")
    }
  }

  /// The ranked candidates at one T0 evaluation, best first (§3.7).
  package struct RankSample: Sendable, Equatable {
    package var t: Millis
    package var ranked: [String]
  }

  package var name: String
  package var from: Millis
  package var to: Millis
  /// The cues plotted, in panel order.
  package var cues: [String]
  package var points: [String: [Point]] = [:]
  package var labels: LabelTrack?
  package var displays: DisplayTrack
  /// Praise grants and prompts shown, in the range.
  package var praise: [Marker] = []
  package var prompts: [Marker] = []
  /// The gate's reason and the ranking at every T0 evaluation in the range (`--trace metrics`).
  package var gate: [GateSample] = []
  package var ranks: [RankSample] = []

  package init(name: String, from: Millis, to: Millis, cues: [String], labels: LabelTrack?, displays: DisplayTrack) {
    self.name = name
    self.from = from
    self.to = to
    self.cues = cues
    self.labels = labels
    self.displays = displays
  }
}

/// Collects the plot's inputs from a replay: `cue_eval` entries of `cues` only (the ones drawn:
/// memory follows what is plotted, not the spec's size), the ids of every cue evaluated,
/// `cue_display`, `praise` on, `prompt` shown.
struct TimelineOutput: ReplayOutput {
  let cues: Set<String>
  var points: [String: [TimelineData.Point]] = [:]
  var evaluated: Set<String> = []
  var displays: [(t: Millis, cue: String?)] = []
  var praise: [TimelineData.Marker] = []
  var prompts: [TimelineData.Marker] = []
  var gate: [TimelineData.GateSample] = []
  var ranks: [TimelineData.RankSample] = []
  var full = false

  mutating func emit(_ output: EngineOutput, at t: Millis) {
    switch output {
    case .cueEval(let e):
      if case .t0(let t0) = e, gate.count < PlotLimits.pointsPerCueMax {
        let g = t0.gate
        gate.append(
          TimelineData.GateSample(
            t: t, reason: g.reason, input: g.input, shown: g.cueId, stableFrames: g.stableFrames,
            persistFrames: g.persistFrames, heldMs: g.heldMs, minHoldMs: g.minHoldMs, cooldownUntil: g.cooldownUntil))
        ranks.append(TimelineData.RankSample(t: t, ranked: t0.ranked))
      }
      for entry in e.entries {
        evaluated.insert(entry.id)
        guard cues.contains(entry.id) else { continue }
        if points[entry.id, default: []].count >= PlotLimits.pointsPerCueMax {
          full = true
          continue
        }
        points[entry.id, default: []].append(
          TimelineData.Point(t: t, value: entry.error, level: entry.level, thresholds: entry.thresholds))
      }
    case .cueDisplay(let d):
      displays.append((t, d.cueId))
    case .praise(let p) where p.state == .on:
      praise.append(TimelineData.Marker(t: t, text: "praise \(p.trigger) \(p.dimension)"))
    case .prompt(let fields) where fields[.op]?.stringValue == "shown":
      let key = fields[.key]?.stringValue ?? "?"
      let level = fields[.level]?.stringValue ?? ""
      let en = fields[.en]?.stringValue ?? ""
      prompts.append(TimelineData.Marker(t: t, text: "\(key) \(level): \(en)"))
    default: break
    }
  }

  mutating func emit(_ line: DiagnosticLine) {}
}

extension TimelineData {
  /// Replays `recording` with `spec` (and `overrides`) with per-evaluation tracing and keeps
  /// `[from, to]` (nil: the whole replay). `cues` empty: the cues labelled or displayed in
  /// the range (label first, byte order), at most `PlotLimits.cuesMax`.
  package static func collect(
    _ recording: LoadedRecording, spec: PoseSpecDocument, overrides: [(name: String, value: String)] = [],
    cues wanted: [String] = [], from: Millis? = nil, to: Millis? = nil
  ) throws(HarnessFailure) -> TimelineData {
    guard wanted.count <= PlotLimits.cuesMax else {
      throw .badInput("--cue: \(wanted.count) cues, more than PlotLimits.cuesMax = \(PlotLimits.cuesMax)")
    }
    let known = Set(spec.cues.map(\.id))
    if let unknown = wanted.first(where: { !known.contains($0) }) {
      throw .badInput("--cue \(unknown): no such cue in \(spec.fileName)")
    }
    let lo = max(0, from ?? 0)
    let hi = min(to ?? recording.durationMs, recording.durationMs)
    guard lo < hi else { throw .badInput("--from \(lo) --to \(hi): empty range (the replay ends at \(recording.durationMs) ms)") }
    let config: EngineConfiguration
    do {
      config = try EngineConfiguration(spec: spec, header: RecordingHeader(recording.header), overrides: overrides, traceMetrics: true)
    } catch { throw .badInput("\(recording.path): \(error.description)") }
    func replay(_ cues: Set<String>) throws(HarnessFailure) -> TimelineOutput {
      var source = InMemoryEventSource(header: recording.header, events: recording.events)
      var output = TimelineOutput(cues: cues)
      var options = ReplayOptions()
      options.stopAfterMs = hi
      var replayer = Replayer(engine: Engine(configuration: config), options: options, sessionStore: MemorySessionStore())
      do { _ = try replayer.run(&source, into: &output, recording: recording.path) } catch {
        throw HarnessFailure(code: error.exitCode.rawValue, message: error.description)
      }
      return output
    }
    // Without --cue, a first replay keeps no points and only says what was shown and
    // evaluated; the cues are chosen from that, and a second replay keeps their points alone
    // (issue 23.7: an hour with a 1,024-cue spec no longer holds every cue's points).
    var output = try replay(Set(wanted))
    var data = TimelineData(
      name: recording.name, from: lo, to: hi, cues: [], labels: recording.labels,
      displays: DisplayTrack(displays: output.displays, endMs: hi))
    if wanted.isEmpty {
      data.cues = chooseCues(data, evaluated: output.evaluated)
      if !data.cues.isEmpty { output = try replay(Set(data.cues)) }
    } else {
      data.cues = wanted
    }
    for c in data.cues { data.points[c] = (output.points[c] ?? []).filter { $0.t >= lo && $0.t <= hi } }
    data.praise = output.praise.filter { $0.t >= lo && $0.t <= hi }
    data.prompts = output.prompts.filter { $0.t >= lo && $0.t <= hi }
    data.gate = output.gate.filter { $0.t >= lo && $0.t <= hi }
    data.ranks = output.ranks.filter { $0.t >= lo && $0.t <= hi }
    return data
  }

  /// Labelled cues first, then displayed ones, each in byte order, restricted to the range.
  static func chooseCues(_ d: TimelineData, evaluated: Set<String>) -> [String] {
    let range = ScoreInterval(d.from, d.to + 1)
    let byteOrder: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    let labelled = (d.labels?.cues ?? []).filter { d.labels!.holds($0, during: range) }
    let shown = Set(d.displays.spans.filter { $0.interval.overlap(range) > 0 }.map(\.cue))
      .subtracting(labelled).sorted(by: byteOrder)
    return Array((labelled + shown).filter { evaluated.contains($0) }.prefix(PlotLimits.cuesMax))
  }
}
