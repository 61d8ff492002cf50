import CanonicalJSON
import Foundation
import JustPhotoPlugin
import PoseSpec
import Replay
import Verify

/// `tune report --html`: for each trial of the Pareto front (up to a bound), the fit recording
/// the trial made worst — its value of the study's objective minus the shipped spec's, largest
/// first, ties by name — replayed with the shipped spec (the golden side) and with the trial's
/// spec and options (the new side), as one timeline of the page. The trial's row links to it.
package enum TuneTimelines {
  /// Front trials given a timeline (each replays the fit corpus twice more: once to score
  /// every recording, once to draw the worst one).
  package static let trialsMax = 8

  /// One trial's worst recording.
  package struct Worst: Sendable, Equatable {
    package var trial: Int
    /// The timeline's name on the page: `#N name`.
    package var timeline: String
    package var recording: String
    /// The study's objective on this recording: shipped spec, then the trial.
    package var shipped: Double
    package var value: Double
    /// The first divergence between the two replays, ms (nil when they agree).
    package var firstDivergence: Int?
  }

  /// The page's divergence rows and timelines (one per front trial, the first `count`) and the
  /// worst recording of each. `specText` must be the spec the study ran (its SHA-256 is
  /// checked against the study's); the fit corpus is read from `recordingsDir`.
  package static func build(
    report: TuneReport, meta: [String: String], specText: String, specFile: String, recordingsDir: String, count: Int
  ) throws(HarnessFailure) -> (document: HTMLReportDocument, worst: [Worst]) {
    let bytes = Array(specText.utf8)
    let shippedSpec = try Harness.validateSpec(bytes: bytes, path: specFile)
    if let want = meta["spec_sha256"], want != shippedSpec.sha256 {
      throw .badInput(
        "\(specFile): not the spec this study ran (SHA-256 \(shippedSpec.sha256.prefix(12))…, the study's \(want.prefix(12))…); give the study's spec with --spec")
    }
    let names = (meta["corpus"] ?? "").split(separator: "\n").map(String.init)
    guard !names.isEmpty else { throw .badInput("the study names no fit corpus") }
    let scorer = try TuneSetup.scorer(names, recordingsDir: recordingsDir)
    let objective = report.objective
    let shippedScores = try perRecording(scorer.score(spec: shippedSpec), objective: objective)
    var doc = HTMLReportDocument(kind: "tune", title: "tune report: worst recording of each front trial")
    var worst: [Worst] = []
    let byIndex = Dictionary(report.trials.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
    for index in report.front.prefix(max(0, min(count, trialsMax))) {
      guard let trial = byIndex[index] else { continue }
      let applied = try TunePromote.apply(trial: trial, meta: meta, specText: specText, specFile: specFile)
      let trialSpec = try Harness.validateSpec(bytes: Array(applied.text.utf8), path: "\(specFile) with trial #\(index)")
      let scores = try perRecording(scorer.score(spec: trialSpec, overrides: applied.options), objective: objective)
      let pick = names.max { a, b in
        let da = (scores[a] ?? 0) - (shippedScores[a] ?? 0), db = (scores[b] ?? 0) - (shippedScores[b] ?? 0)
        return da != db ? da < db : a > b
      }
      guard let name = pick else { continue }
      let path = "\(recordingsDir)/\(name).jprec"
      // Both sides are in-process replays: their records, no text read back.
      let golden = try records(path, spec: shippedSpec, overrides: [])
      let new = try records(path, spec: trialSpec, overrides: applied.options)
      let result = TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diff(golden: StructuredLine.lines(of: golden), replay: StructuredLine.lines(of: new))
      let label = "#\(index) \(name)"
      var builder = HTMLReportBuilder(spec: trialSpec, overrides: applied.options)
      builder.goldenSpec = { _ in HTMLReportGoldenSpec(spec: shippedSpec, note: "shipped side: the shipped spec (\(specFile))") }
      let part = builder.document(
        diff: result, golden: .records(golden), replay: .records(new), isA13: false, name: label, replayRecording: path, title: label)
      doc.rows += part.rows
      doc.rowsOmitted += part.rowsOmitted
      doc.timelines += part.timelines
      doc.withoutTimeline += part.withoutTimeline
      worst.append(
        Worst(
          trial: index, timeline: label, recording: name, shipped: shippedScores[name] ?? 0, value: scores[name] ?? 0,
          firstDivergence: result.divergences.first.map { Int($0.t) }))
    }
    doc.counts = [("front trials drawn", worst.count), ("divergences from the shipped spec", doc.rows.count + doc.rowsOmitted)]
    return (doc, worst)
  }

  /// The objective `key` of each recording of `score`, as the totals of that recording alone.
  static func perRecording(_ score: CorpusScore, objective key: String) -> [String: Double] {
    Dictionary(
      score.recordings.map { ($0.name, CorpusScore.totals([$0.objectives]).dictionary[key] ?? 0) },
      uniquingKeysWith: { a, _ in a })
  }

  /// The trace records of `path` replayed with `spec` and `overrides` (as their lines read back).
  static func records(_ path: String, spec: PoseSpecDocument, overrides: [(name: String, value: String)]) throws(HarnessFailure)
    -> [TraceRecord]
  {
    let d = try Harness.driver(spec: spec, overrides: overrides)
    do { return try d.canonicalProducts(URL(fileURLWithPath: path)).records } catch {
      throw HarnessFailure(code: error.exitCode.rawValue, message: error.description)
    }
  }
}
