import CanonicalJSON
import ScenarioYAML
import Yams

/// What a PixScan scenario means apart from how it is written, and the header of the recording
/// it generates: the same staleness scheme as the coaching scenarios (docs/FORMAT.md,
/// "Scenario files"): `generator_sha256` is the SHA-256 of `{"document": <the YAML document as
/// JSON without expect:>}` written canonically (members sorted at every depth), so comments,
/// quoting, style and key order do not count while every value does, and editing `expect:`
/// does not make the recording stale.
extension PixScenario {
  /// The recording header (``ScenarioHeader/recordingHeader(engine:name:durationMs:file:sha256:notes:)``,
  /// `engine: pixscan`): `format`, `engine`, `name`, `duration_ms`, `generator` (the file's
  /// name), `generator_sha256`, `notes` when given.
  public var header: JSONObject {
    ScenarioHeader.recordingHeader(engine: "pixscan", name: name, durationMs: durationMs, file: file, sha256: sha256, notes: notes)
  }

  /// The semantic SHA-256 of a parsed document (``ScenarioHeader/semanticSHA256(root:)``).
  static func semanticSHA256(root: Node) -> String { ScenarioHeader.semanticSHA256(root: root) }
}
