import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoEngine
import JustPhotoIO
import JustPhotoPlugin
import PoseSpec

/// Scores one trial: a PoseSpec (as JSON, already edited) and the engine options to replay
/// with; returns objectives by key (``TrialObjectives/keys``, lower is better). Shared with
/// `jpreplay score` (its `CorpusScorer` conforms); `tune` only needs this.
package protocol TrialEvaluator {
  func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double]
  /// The same for a trial every evaluator of it shares (the fit and validation corpora, each
  /// draw): its spec is validated and compiled once, not once per corpus.
  func objectives(trial: PreparedTrial) throws -> [String: Double]
}

extension TrialEvaluator {
  package func objectives(trial: PreparedTrial) throws -> [String: Double] {
    try objectives(specJSON: trial.specJSON, options: trial.options)
  }
}

/// The objective keys `tune` knows, in report order (lower is better for all of them).
package enum TrialObjectives {
  package static let keys = CorpusScore.objectiveKeys
}

/// `jpreplay score`'s corpus scorer is `tune`'s evaluator: each recording decoded once, every
/// trial replayed in process and scored against the labels, budgets and expectations.
extension CorpusScorer: TrialEvaluator {}

/// One trial's spec and options as its evaluators read them (issue 38 item 2): the spec is
/// written, parsed and validated on the first `spec()` and compiled once per `errorSource`
/// option in use, then shared by every corpus and draw the trial is scored on. A failure is
/// kept and thrown again, the same message each time.
package final class PreparedTrial: @unchecked Sendable {
  package let specJSON: JSONValue
  package let options: EngineOptions
  private let lock = NSLock()
  private var validated: Result<PoseSpecDocument, HarnessFailure>?
  /// The harness's cache of compiled specs (one per `errorSource` option), made with the spec.
  private var compiled: Harness.CompiledSpecCache?
  private var key: String?
  private var decisions: String?

  package init(specJSON: JSONValue, options: EngineOptions) {
    self.specJSON = specJSON
    self.options = options
  }

  /// The options that differ from the defaults, as `replay --set` pairs.
  package var overrides: [(name: String, value: String)] {
    options.nonDefault.members.map { ($0.key, $0.value.stringValue ?? "") }
  }

  /// The spec validated as `jpreplay score` validates a file (``Harness/validateSpec(bytes:path:)``).
  package func spec() throws(HarnessFailure) -> PoseSpecDocument {
    lock.lock()
    defer { lock.unlock() }
    if validated == nil {
      let bytes = Array(JSONWriter.write(specJSON).utf8)
      validated = Result { () throws(HarnessFailure) in try Harness.validateSpec(bytes: bytes, path: "trial spec") }
    }
    return try validated!.get()
  }

  /// Which replays' cue observations this trial may share (``ObservationKey``), once per trial.
  package var observationKey: String {
    lock.lock()
    defer { lock.unlock() }
    if key == nil { key = ObservationKey.of(specJSON: specJSON, options: options) }
    return key!
  }

  /// Which replays' T0 decisions this trial may share (``DecisionKey``), once per trial.
  package var decisionKey: String {
    lock.lock()
    defer { lock.unlock() }
    if decisions == nil { decisions = DecisionKey.of(specJSON: specJSON, options: options) }
    return decisions!
  }

  /// `spec` compiled for `formulaFirst`, once per trial.
  func compiledSpec(_ spec: PoseSpecDocument, formulaFirst: Bool) -> CompiledSpec {
    lock.lock()
    if compiled == nil { compiled = Harness.CompiledSpecCache(spec) }
    let cache = compiled!
    lock.unlock()
    return cache.get(formulaFirst: formulaFirst)
  }
}
