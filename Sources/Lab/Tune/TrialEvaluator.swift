import CanonicalJSON
import EngineIO
import JustPhotoIO

/// Scores one trial: a PoseSpec (as JSON, already edited) and the engine options to replay
/// with; returns objectives by key (``TrialObjectives/keys``, lower is better). Shared with
/// `jpreplay score` (its `CorpusScorer` conforms); `tune` only needs this.
package protocol TrialEvaluator {
  func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double]
}

/// The objective keys `tune` knows, in report order (lower is better for all of them).
package enum TrialObjectives {
  package static let keys = CorpusScore.objectiveKeys
}

/// `jpreplay score`'s corpus scorer is `tune`'s evaluator: each recording decoded once, every
/// trial replayed in process and scored against the labels, budgets and expectations.
extension CorpusScorer: TrialEvaluator {}
