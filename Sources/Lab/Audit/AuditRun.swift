import CoachEngine
import Foundation
import PoseSpec
import Replay
import Scenarios

/// What one audit grid point showed: per cue the levels reached, the error range, why it was
/// unavailable, and what the gate displayed instead; Match and prompt budgets.
public struct AuditPointResult: Sendable {
  public var point: AuditPoint
  /// Cue id → highest observed level rank (CueLevel.rank) in this point's own mode.
  public var maxRank: [String: Int] = [:]
  /// Cue id → (min, max) of the available error.
  public var errorRange: [String: (lo: Double, hi: Double)] = [:]
  /// Cues made unavailable by a confidence gate (`low_confidence`) at some evaluation.
  public var lowConfidence: Set<String> = []
  /// Cue id → the displayed (or best-ranked) cue while it was at warn/hard and not shown,
  /// or "(not a candidate)" when the multi-person filter removed it.
  public var outrankedBy: [String: String] = [:]
  /// Cue ids displayed (`cue_display`).
  public var displayed: Set<String> = []
  /// withRef: Match became true; the last `blocked_by`.
  /// Evaluations where the fallback cue was a candidate requested by a cue (not tracking lost).
  public var fallbackRequests = 0
  /// The cue the gate shows now (from `cue_display`).
  var shown: String?
  public var matched = false
  /// withRef: some evaluation ran in withRef mode (the reference passed its gates).
  public var withRefActive = false
  public var blockedBy: [String] = []
  public var praises = 0
  /// The praised dimensions (noRef: the displayed cue that exit-crossed), in time order.
  public var praised: [String] = []
  public var displayChanges = 0
  public var budgetBreaches: [String] = []
  /// The cues those breaches are about (`BudgetReport.breachCues`).
  public var budgetBreachCues: [String] = []
  /// A replay failure (the point is skipped by the analysis, and reported).
  public var failure: String?
}

/// Replays audit grid points in process, in parallel.
public enum AuditRun {
  /// Replays every point with `spec` on `jobs` threads.
  public static func run(spec: PoseSpecDocument, points: [AuditPoint], jobs: Int) throws(HarnessFailure)
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
      let reader = try GeneratedRecording(scenario: scenario).reader()
      var source = RecordingSource(reader: reader, path: file)
      var output = CollectingOutput { $0.out != "a13" }
      _ = try driver.replay(source: &source, into: &output, recording: file)
      analyse(output.records, into: &result)
    } catch {
      result.failure = "\(error)"
    }
    return result
  }

  static func analyse(_ records: [TraceRecord], into r: inout AuditPointResult) {
    var canonical: [String] = []
    for rec in records {
      switch rec.out {
      case "cue_eval": evaluation(rec, into: &r)
      case "cue_display":
        if let id = rec.fields["cue_id"]?.stringValue { r.displayed.insert(id) }
        r.shown = rec.fields["cue_id"]?.stringValue
        r.displayChanges += 1
      case "praise" where rec.fields["state"]?.stringValue == "on":
        r.praises += 1
        if let d = rec.fields["dimension"]?.stringValue { r.praised.append(d) }
      case "match":
        if rec.fields["match"]?.boolValue == true { r.matched = true }
        r.blockedBy = (rec.fields["blocked_by"]?.arrayValue ?? []).compactMap(\.stringValue)
      default: break
      }
      if rec.out != "cue_eval" { canonical.append(TraceFormat.line(rec)) }
    }
    if r.point.noisy {
      let report = BudgetCheck.check(name: r.point.name, trace: canonical.joined(separator: "\n"), limits: BudgetLimits())
      r.budgetBreaches = report.breaches
      r.budgetBreachCues = report.breachCues
    }
  }

  static func evaluation(_ rec: TraceRecord, into r: inout AuditPointResult) {
    let gate = rec.fields["gate"]?.objectValue?["cue_id"]?.stringValue
    let ranked = (rec.fields["ranked"]?.arrayValue ?? []).compactMap(\.stringValue)
    let isT0 = rec.fields["ranked"] != nil
    if rec.fields["mode"]?.stringValue == "withRef" { r.withRefActive = true }
    for m in rec.fields["cues"]?.objectValue?.members ?? [] {
      let id = m.key
      if let e = m.value["error"]?.doubleValue {
        let old = r.errorRange[id] ?? (e, e)
        r.errorRange[id] = (min(old.lo, e), max(old.hi, e))
      }
      let reason = m.value["reason"]?.stringValue ?? ""
      if reason.hasSuffix("low_confidence") { r.lowConfidence.insert(id) }
      if m.value["state"]?.stringValue == "candidate", reason.hasPrefix("fallback:"), !reason.contains("tracking_lost") {
        r.fallbackRequests += 1
      }
      guard let level = m.value["level"]?.stringValue.flatMap(CueLevel.init(rawValue:)) else { continue }
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
