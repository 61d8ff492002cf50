import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoPlugin
import PoseSpec
import Replay

/// Collects a report timeline from one replay with metric tracing: the trace records a lane
/// shows (`cue_display`, `script_card`, `praise`, `prompt`), per T0 evaluation the focus cues'
/// error and level and the gate's counters, and the whole `cue_eval` records inside `windows`
/// (the causes of the rows, as `diff` explains them).
struct HTMLReportOutput: ReplayOutput {
  let windows: [ClosedRange<Millis>]
  var focus: [String] = [] {
    didSet {
      series.values = focus.map { _ in [] }
      series.levels = focus.map { _ in [] }
      series.states = focus.map { _ in [] }
      series.thresholds = focus.map { _ in nil }
    }
  }
  var lanes = HTMLReportLanes()
  var series = HTMLReportSeries()
  var causes: [TraceRecord] = []

  init(windows: [ClosedRange<Millis>]) { self.windows = windows }

  mutating func emit(_ output: EngineOutput, at t: Millis) {
    if case .cueEval(let e) = output {
      if windows.contains(where: { $0.contains(t) }) { causes.append(TraceRecord(output, at: t)) }
      if case .t0(let t0) = e { add(t0, at: t) }
      return
    }
    let record = TraceRecord(output, at: t)
    lanes.add(t: t, kind: record.out, fields: record.fields)
  }

  mutating func emit(_ line: DiagnosticLine) {}

  mutating func add(_ e: CueEvalT0, at t: Millis) {
    series.evalT.append(t)
    for (i, cue) in focus.enumerated() {
      let entry = e.entries.first { $0.id == cue }
      series.values[i].append(entry?.error)
      series.levels[i].append(entry?.level ?? .none)
      series.states[i].append(entry?.state ?? "")
      if series.thresholds[i] == nil, let th = entry?.thresholds { series.thresholds[i] = th }
    }
    let g = e.gate
    series.gateShown.append(g.cueId)
    series.gateStable.append(g.stableFrames)
    series.gatePersist.append(g.persistFrames)
    series.gateHeldMs.append(g.heldMs)
    series.gateCooling.append(g.cooldownUntil != nil)
    series.persistFrames = g.persistFrames
    series.minHoldMs = g.minHoldMs
  }
}
