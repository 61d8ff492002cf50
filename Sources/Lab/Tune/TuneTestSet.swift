import CanonicalJSON
import Foundation
import PoseSpec
import Recording
import JustPhotoPlugin
import JustPhotoScenarios
import Verify

/// The test set (issue 35 item 3): `test-*` recordings no study fits or validates on
/// (`tune run` refuses them in either corpus), scored once when a trial is promoted — a
/// separate pass whose figures no sampler, constraint or gate ever reads. The reading of a
/// tuned configuration that was never part of choosing it.
package enum TuneTestSet {
  /// The names of test recordings.
  package static let prefix = "test-"
  package static let defaultGlob = "test-*"

  /// Whether `name` is a test recording.
  package static func isTest(_ name: String) -> Bool { name.hasPrefix(prefix) }

  /// The test recordings of `recordingsDir` matched by `glob`, sorted (empty: none).
  package static func names(glob: String = defaultGlob, recordingsDir: String) throws(HarnessFailure) -> [String] {
    try TuneSetup.recordingNames(recordingsDir).filter { GoldenStore.glob(glob, matches: $0) && isTest($0) }.sorted()
  }

  /// One configuration's figures on the test set (`CorpusScore.objectiveKeys`, expectation
  /// failures of the test scenarios' `expect:` rules included) and the rules it breaks.
  package struct Reading: Sendable {
    package var objectives: [String: Double]
    package var failures: [String]
  }

  /// Scores `specText` with engine `options` on `names` (decoded once); `scope`: whether that
  /// is the committed configuration (`TuneSetup.markerScope`).
  package static func read(
    names: [String], recordingsDir: String, specText: String, specFile: String, options: [(name: String, value: String)],
    scope: MarkerScope
  ) throws(HarnessFailure) -> Reading {
    let scorer = try TuneSetup.scorer(names, recordingsDir: recordingsDir, scope: scope)
    let spec = try Harness.validateSpec(bytes: Array(specText.utf8), path: specFile)
    let score = try scorer.score(spec: spec, overrides: options)
    var failures: [String] = []
    for r in score.recordings { failures += r.objectives.expectationFailures.map { "\(r.name): \($0)" } }
    return Reading(objectives: score.totals.dictionary, failures: failures)
  }

  /// The table `tune promote` prints: the shipped spec's and the trial's figures side by side.
  package static func table(names: [String], shipped: Reading, trial: Reading, trialName: String) -> String {
    var lines = [
      "test set: \(names.count) recording\(names.count == 1 ? "" : "s") (\(names.joined(separator: ", "))), never used for selection; read once, here"
    ]
    let w = max(CorpusScore.objectiveKeys.map(\.count).max() ?? 0, 9)
    func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
    func num(_ v: Double?) -> String {
      guard let v else { return "-" }
      return v.rounded() == v ? String(Int(v)) : JSONWriter.shortest((v * 1000).rounded() / 1000)
    }
    lines.append("  \(pad("objective", w))  \(pad("shipped", 10))  \(trialName)")
    for k in CorpusScore.objectiveKeys {
      lines.append("  \(pad(k, w))  \(pad(num(shipped.objectives[k]), 10))  \(num(trial.objectives[k]))")
    }
    for f in trial.failures { lines.append("  broken by \(trialName): \(f)") }
    return lines.joined(separator: "\n")
  }
}
