import JustPhotoEngine
import Foundation
import JustPhotoPlugin
import PoseSpec
import Replay
import JustPhotoScenarios

/// What one audit grid point showed: per cue the levels reached, the error range, why it was
/// unavailable, and what the gate displayed instead; Match and prompt budgets.
package struct AuditPointResult: Sendable {
  package var point: AuditPoint
  /// Cue id → highest observed level rank (CueLevel.rank) in this point's own mode.
  package var maxRank: [String: Int] = [:]
  /// Cue id → (min, max) of the available error.
  package var errorRange: [String: (lo: Double, hi: Double)] = [:]
  /// Cues made unavailable by a confidence gate (`low_confidence`) at some evaluation.
  package var lowConfidence: Set<String> = []
  /// Cue id → the displayed (or best-ranked) cue while it was at warn/hard and not shown,
  /// or "(not a candidate)" when the multi-person filter removed it.
  package var outrankedBy: [String: String] = [:]
  /// Cue ids displayed (`cue_display`).
  package var displayed: Set<String> = []
  /// withRef: Match became true; the last `blocked_by`.
  /// Evaluations where the fallback cue was a candidate requested by a cue (not tracking lost).
  package var fallbackRequests = 0
  /// The cue the gate shows now (from `cue_display`).
  var shown: String?
  package var matched = false
  /// withRef: some evaluation ran in withRef mode (the reference passed its gates).
  package var withRefActive = false
  package var blockedBy: [String] = []
  package var praises = 0
  /// The praised dimensions (noRef: the displayed cue that exit-crossed), in time order.
  package var praised: [String] = []
  package var displayChanges = 0
  package var budgetBreaches: [String] = []
  /// The cues those breaches are about (`BudgetReport.breachCues`).
  package var budgetBreachCues: [String] = []
  /// A replay failure (the point is skipped by the analysis, and reported).
  package var failure: String?
}

/// Replays audit grid points in process, in parallel.
package enum AuditRun {
  /// Replays every point with `spec` on `jobs` threads.
  package static func run(spec: PoseSpecDocument, points: [AuditPoint], jobs: Int) throws(HarnessFailure)
    -> [AuditPointResult]
  {
    let driver = try Harness.driver(spec: spec, traceMetrics: true, sessionStore: .none)
    return ParallelMap.run(points, jobs: jobs) { point in replay(point, driver: driver) }
  }

  /// Generates the point's scenario and replays it.
  static func replay(_ point: AuditPoint, driver: ReplayDriver<Engine>) -> AuditPointResult {
    var result = AuditPointResult(point: point)
    let file = "\(point.name)\(Scenario.suffix)"
    do {
      let scenario = try Scenario.parse(bytes: Array(point.yaml.utf8), file: file)
      var source = try GeneratedRecording(scenario: scenario).reader()
      var output = CollectingOutput()
      _ = try driver.replay(source: &source, into: &output, recording: file)
      analyse(output.outputs, into: &result)
    } catch {
      result.failure = "\(error)"
    }
    return result
  }

  static func analyse(_ outputs: [TimedOutput], into r: inout AuditPointResult) {
    var records: [TraceRecord] = []
    for o in outputs {
      switch o.output {
      case .cueEval(let e):
        evaluation(e, into: &r)
        continue
      case .cueDisplay(let d):
        if let id = d.cueId { r.displayed.insert(id) }
        r.shown = d.cueId
        r.displayChanges += 1
      case .praise(let p) where p.state == .on:
        r.praises += 1
        r.praised.append(p.dimension)
      case .match(let m):
        if m.match { r.matched = true }
        r.blockedBy = m.blockedBy
      default: break
      }
      records.append(o.record)
    }
    if r.point.noisy {
      let report = BudgetCheck.check(name: r.point.name, records: records, limits: BudgetLimits())
      r.budgetBreaches = report.breaches
      r.budgetBreachCues = report.breachCues
    }
  }

  static func evaluation(_ e: CueEval, into r: inout AuditPointResult) {
    var gate: String?
    var ranked: [String] = []
    var isT0 = false
    if case .t0(let t0) = e {
      (gate, ranked, isT0) = (t0.gate.cueId, t0.ranked, true)
      if t0.mode == .withRef { r.withRefActive = true }
    }
    for entry in e.entries {
      let id = entry.id
      if let e = entry.error {
        let old = r.errorRange[id] ?? (e, e)
        r.errorRange[id] = (min(old.lo, e), max(old.hi, e))
      }
      let reason = entry.reason ?? ""
      if reason.hasSuffix("low_confidence") { r.lowConfidence.insert(id) }
      if entry.state == "candidate", reason.hasPrefix("fallback:"), !reason.contains("tracking_lost") {
        r.fallbackRequests += 1
      }
      let level = entry.level
      r.maxRank[id] = max(r.maxRank[id] ?? 0, level.rank)
      guard level == .warn || level == .hard, r.outrankedBy[id] == nil, gate != id else { continue }
      if !isT0 || !ranked.contains(id) {
        // A T1 evaluation: what the gate shows meanwhile (once it shows something).
        if isT0 { r.outrankedBy[id] = "(not a candidate)" } else if let s = r.shown, s != id { r.outrankedBy[id] = s }
      } else if let winner = gate ?? ranked.first, winner != id {
        r.outrankedBy[id] = winner
      }
    }
  }
}
