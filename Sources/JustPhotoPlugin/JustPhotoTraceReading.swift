import CanonicalJSON
import EngineSeam
import JustPhotoIO
import Replay

extension JustPhotoVocabulary {
  /// How the differ reads Just Photo's trace lines: `cue_display` and `script_card` show the
  /// cue in `cue_id` (null clears it; `cue_display` lines are the screen's timeline), a line
  /// naming no cue is about its `key` or `dimension`, and each line is summarized by
  /// ``TraceLine/summary``.
  public static let traceReading = TraceReading(
    name: justPhotoEngineName,
    cueKinds: Set(OutputKind.allCases.filter(\.showsCue).map(\.rawValue)),
    displayKind: OutputKind.cue_display.rawValue,
    cueField: TraceField.cue_id.rawValue,
    subjectFields: [TraceField.key.rawValue, TraceField.dimension.rawValue],
    summary: { out, fields in TraceLine(out: out, fields: fields).summary })
}

extension TraceRecord {
  /// The Just Photo output kind, when `out` names one the engine emits.
  public var kind: OutputKind? { OutputKind(rawValue: out) }
}
