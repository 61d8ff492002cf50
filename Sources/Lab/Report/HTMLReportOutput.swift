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
/// The series are collected in page form (``HTMLReportColumns``), at full rate.
struct HTMLReportOutput: ReplayOutput {
  let windows: [ClosedRange<Millis>]
  var lanes = HTMLReportLanes()
  var series: HTMLReportColumns
  var causes: [TraceRecord] = []

  init(windows: [ClosedRange<Millis>], focus: [String]) {
    self.windows = windows
    series = HTMLReportColumns(cues: focus)
  }

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
    let focus = series.cues
    let g = e.gate
    series.appendEvaluation(
      t: t,
      cue: { i in
        e.entries.first { $0.id == focus[i] }.map { ($0.error, $0.level, $0.state, $0.thresholds) }
      }, shown: g.cueId, stable: g.stableFrames, persist: g.persistFrames, heldMs: g.heldMs, cooling: g.cooldownUntil != nil)
    series.persistFrames = g.persistFrames
    series.minHoldMs = g.minHoldMs
  }
}
