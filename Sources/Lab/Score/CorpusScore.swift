import CanonicalJSON
import JustPhotoEngine
import EngineIO
import Foundation
import Recording
import PoseSpec

/// One recording's objectives.
package struct RecordingScore: Equatable, Sendable {
  package var name: String
  package var objectives: RecordingObjectives
}

/// The objectives of a whole corpus, as `tune` minimizes them (all lower is better).
package struct ObjectiveTotals: Equatable, Sendable {
  package var flickerPerMinute = 0.0
  /// nil when no labelled interval was displayed (no sample).
  package var latencyP50: Millis?
  package var latencyP90: Millis?
  package var latencySamples = 0
  /// Onset and clear latency percentiles (`ScoreRules.onsetAndClear`); nil without samples.
  package var onsetP50: Millis?
  package var onsetP90: Millis?
  package var clearP50: Millis?
  package var clearP90: Millis?
  package var onsetSamples = 0
  package var clearSamples = 0
  package var misses = 0
  package var falseAlarms = 0
  package var praisePerMinute = 0.0
  package var budgetViolations = 0
  package var expectationFailures = 0
  package var minutes = 0.0
  package var labelledMinutes = 0.0

  /// The keys of the `TrialEvaluator` interface; a latency without samples is 0 (nothing was
  /// displayed to be late: `misses` carries that cost).
  package var dictionary: [String: Double] {
    [
      "flicker_per_min": flickerPerMinute,
      "latency_p50_ms": Double(latencyP50 ?? 0),
      "latency_p90_ms": Double(latencyP90 ?? 0),
      "onset_p50_ms": Double(onsetP50 ?? 0),
      "onset_p90_ms": Double(onsetP90 ?? 0),
      "clear_p50_ms": Double(clearP50 ?? 0),
      "clear_p90_ms": Double(clearP90 ?? 0),
      "misses": Double(misses),
      "false_alarms": Double(falseAlarms),
      "praise_per_min": praisePerMinute,
      "budget_violations": Double(budgetViolations),
      "expectation_failures": Double(expectationFailures),
    ]
  }
}

/// The scores of every recording of a corpus, with totals.
package struct CorpusScore: Equatable, Sendable {
  /// The objective keys, in report order.
  package static let objectiveKeys = [
    "flicker_per_min", "latency_p50_ms", "latency_p90_ms", "onset_p50_ms", "onset_p90_ms", "clear_p50_ms", "clear_p90_ms",
    "misses", "false_alarms", "praise_per_min", "budget_violations", "expectation_failures",
  ]

  package var recordings: [RecordingScore]

  package init(recordings: [RecordingScore]) { self.recordings = recordings }

  /// Totals: rates over the summed minutes (flicker over labelled recordings only), latency
  /// percentiles over all samples pooled, counts summed.
  package var totals: ObjectiveTotals { Self.totals(recordings.map(\.objectives)) }

  package static func totals(_ all: [RecordingObjectives]) -> ObjectiveTotals {
    var t = ObjectiveTotals()
    var unexplained = 0
    var praises = 0
    var latencies: [Millis] = []
    var onsets: [Millis] = []
    var clears: [Millis] = []
    for o in all {
      t.minutes += o.minutes
      praises += o.praises
      t.budgetViolations += o.budgetBreaches.count
      t.expectationFailures += o.expectationFailures.count
      guard o.labelled else { continue }
      t.labelledMinutes += o.minutes
      unexplained += o.unexplainedChanges
      latencies += o.latencies
      onsets += o.onsetLatencies
      clears += o.clearLatencies
      t.misses += o.misses.count
      t.falseAlarms += o.falseAlarms.count
    }
    t.flickerPerMinute = t.labelledMinutes > 0 ? Double(unexplained) / t.labelledMinutes : 0
    t.praisePerMinute = t.minutes > 0 ? Double(praises) / t.minutes : 0
    t.latencyP50 = ScoreRules.percentile(latencies, 50)
    t.latencyP90 = ScoreRules.percentile(latencies, 90)
    t.latencySamples = latencies.count
    t.onsetP50 = ScoreRules.percentile(onsets, 50)
    t.onsetP90 = ScoreRules.percentile(onsets, 90)
    t.clearP50 = ScoreRules.percentile(clears, 50)
    t.clearP90 = ScoreRules.percentile(clears, 90)
    t.onsetSamples = onsets.count
    t.clearSamples = clears.count
    return t
  }

  /// The table `jpreplay score` prints: one row per recording, then the total.
  package func table() -> String {
    let head = ["recording", "min", "flicker/min", "lat p50", "lat p90", "onset p90", "clear p90", "misses", "false al.", "praise/min", "budget", "expect"]
    var rows: [[String]] = []
    for r in recordings {
      let o = r.objectives
      let lat = ScoreRules.self
      rows.append(
        o.labelled
          ? [
            ConsoleText.line(r.name), Self.fmt(o.minutes), Self.fmt(o.flickerPerMinute), Self.ms(lat.percentile(o.latencies, 50)),
            Self.ms(lat.percentile(o.latencies, 90)), Self.ms(lat.percentile(o.onsetLatencies, 90)),
            Self.ms(lat.percentile(o.clearLatencies, 90)), "\(o.misses.count)", "\(o.falseAlarms.count)",
            Self.fmt(o.praisePerMinute), "\(o.budgetBreaches.count)", "\(o.expectationFailures.count)",
          ]
          : [
            ConsoleText.line(r.name) + " (no labels)", Self.fmt(o.minutes), "—", "—", "—", "—", "—", "—", "—", Self.fmt(o.praisePerMinute),
            "\(o.budgetBreaches.count)", "\(o.expectationFailures.count)",
          ])
    }
    let t = totals
    rows.append([
      "TOTAL (\(recordings.count))", Self.fmt(t.minutes), Self.fmt(t.flickerPerMinute), Self.ms(t.latencyP50),
      Self.ms(t.latencyP90), Self.ms(t.onsetP90), Self.ms(t.clearP90), "\(t.misses)", "\(t.falseAlarms)", Self.fmt(t.praisePerMinute), "\(t.budgetViolations)",
      "\(t.expectationFailures)",
    ])
    var widths = head.map(\.count)
    for row in rows { for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) } }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { i, c in
        let pad = String(repeating: " ", count: widths[i] - c.count)
        return i == 0 ? c + pad : pad + c
      }.joined(separator: "  ")
    }
    var out = [line(head)]
    out += rows.dropLast().map(line)
    out.append(String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)))
    out.append(line(rows.last!))
    return out.joined(separator: "\n") + "\n"
  }

  /// Details under the table: each display change counted as flicker (and why it is
  /// unexplained), miss, false alarm, budget breach and failed expectation.
  package func details() -> String {
    var out: [String] = []
    for r in recordings {
      let o = r.objectives
      for f in o.flickers { out.append(ConsoleText.line("\(r.name): flicker \(f)")) }
      for m in o.misses { out.append(ConsoleText.line("\(r.name): miss \(m)")) }
      for f in o.falseAlarms { out.append(ConsoleText.line("\(r.name): false alarm \(f)")) }
      for b in o.budgetBreaches { out.append(ConsoleText.line("\(r.name): budget \(b)")) }
      for e in o.expectationFailures { out.append(ConsoleText.line("\(r.name): expectation \(e)")) }
      for k in o.knownMisses { out.append(ConsoleText.line("\(r.name): expectation \(k)")) }
    }
    return out.isEmpty ? "" : out.joined(separator: "\n") + "\n"
  }

  /// `--json`: `{"recordings":[{name, labelled, minutes, objectives…, misses:[…], …}],
  /// "total":{objectives…}}`, keys sorted, numbers with up to 6 decimals.
  package func json() -> String {
    let recs: [JSONValue] = recordings.map { r in
      let o = r.objectives
      var obj = Self.objectiveObject(CorpusScore.totals([o]))
      obj["name"] = .string(r.name)
      obj["labelled"] = .bool(o.labelled)
      obj["cue_changes"] = .number(Double(o.cueChanges))
      obj["flicker_list"] = .array(o.flickers.map { .string($0) })
      obj["miss_list"] = .array(o.misses.map { .string($0) })
      obj["false_alarm_list"] = .array(o.falseAlarms.map { .string($0) })
      obj["budget_breaches"] = .array(o.budgetBreaches.map { .string($0) })
      obj["expectation_failure_list"] = .array(o.expectationFailures.map { .string($0) })
      // Only when a rule's known: marker names this draw (older output stays byte-identical).
      if !o.knownMisses.isEmpty { obj["known_miss_list"] = .array(o.knownMisses.map { .string($0) }) }
      return .object(obj)
    }
    let doc: JSONObject = ["recordings": .array(recs), "total": .object(Self.objectiveObject(totals))]
    return JSONWriter.write(.object(doc), sortKeys: true) + "\n"
  }

  static func objectiveObject(_ t: ObjectiveTotals) -> JSONObject {
    var obj = JSONObject()
    let d = t.dictionary
    for k in objectiveKeys { obj[k] = .number((d[k]! * 1e6).rounded() / 1e6) }
    obj["minutes"] = .number((t.minutes * 1e6).rounded() / 1e6)
    obj["latency_samples"] = .number(Double(t.latencySamples))
    obj["onset_samples"] = .number(Double(t.onsetSamples))
    obj["clear_samples"] = .number(Double(t.clearSamples))
    return obj
  }

  static func fmt(_ d: Double) -> String { String(format: "%.2f", d) }
  static func ms(_ v: Millis?) -> String { v.map { "\($0) ms" } ?? "—" }
}
