import CanonicalJSON
import CoachEngine

/// The `out` kinds the engine emits, for checking `replay --trace kinds` (a typo is an
/// error, not an empty trace), and narrowing `cue_eval` records to a few cues.
public enum TraceKinds {
  /// Every kind of trace line (ENGINE §1.7 plus ours: `reference`, `posespec`, `odr`, `eval`, …).
  public static let all: [String] = [
    "camera", "cue_display", "cue_eval", "diagnostics", "effect", "eval", "item", "match", "odr", "posespec",
    "praise", "prompt", "reference", "script_card", "session", "shutter", "shutter_tap", "tier", "wrap",
  ]

  /// The kinds of a comma-separated list, or the first unknown one.
  public static func parse(_ list: String) -> Result<Set<String>, UnknownKind> {
    var out = Set<String>()
    for k in list.split(separator: ",").map({ String($0).trimmingCharacters(in: .whitespaces) }) {
      guard all.contains(k) else { return .failure(UnknownKind(kind: k)) }
      out.insert(k)
    }
    return .success(out)
  }

  public struct UnknownKind: Error, CustomStringConvertible {
    public var kind: String
    public var description: String {
      "unknown trace kind '\(kind)'; known kinds: \(TraceKinds.all.joined(separator: ", ")) (or 'metrics')"
    }
  }

  /// A `cue_eval` record narrowed to `cues` (its `cues` and `unsupported` members), nil when
  /// it concerns none of them; other records pass unchanged.
  public static func narrow(_ record: TraceRecord, to cues: Set<String>) -> TraceRecord? {
    guard record.out == "cue_eval", !cues.isEmpty else { return record }
    var r = record
    var touched = false
    for key in ["cues", "unsupported"] {
      guard let o = r.fields[key]?.objectValue else { continue }
      let kept = JSONObject(o.members.filter { cues.contains($0.key) })
      touched = touched || !kept.isEmpty
      r.fields[key] = .object(kept)
    }
    return touched ? r : nil
  }
}
