import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Replay

/// The `out` kinds the engine emits, for checking `replay --trace kinds` (a typo is an
/// error, not an empty trace), and narrowing `cue_eval` outputs to a few cues.
public enum TraceKinds {
  /// Every kind of trace line (`OutputKind`, documented in docs/FORMAT.md), sorted.
  public static let all: [String] = OutputKind.allCases.map(\.rawValue).sorted()

  /// A set of kinds to keep (`replay --trace`).
  public typealias Selection = Set<OutputKind>

  /// The kinds of a comma-separated list, or the first unknown one.
  public static func parse(_ list: String) -> Result<Selection, UnknownKind> {
    var out = Set<OutputKind>()
    for k in list.split(separator: ",").map({ String($0).trimmingCharacters(in: .whitespaces) }) {
      guard let kind = OutputKind(rawValue: k) else { return .failure(UnknownKind(kind: k)) }
      out.insert(kind)
    }
    return .success(out)
  }

  public struct UnknownKind: Error, CustomStringConvertible {
    public var kind: String
    public var description: String {
      "unknown trace kind '\(kind)'; known kinds: \(TraceKinds.all.joined(separator: ", ")) (or 'metrics')"
    }
  }

  /// A `cue_eval` output narrowed to `cues` (its entries and unsupported cues), nil when it
  /// concerns none of them; other outputs pass unchanged.
  public static func narrow(_ output: EngineOutput, to cues: Set<String>) -> EngineOutput? {
    guard case .cueEval(let e) = output, !cues.isEmpty else { return output }
    switch e {
    case .t0(var t0):
      t0.entries = t0.entries.filter { cues.contains($0.id) }
      t0.unsupported = t0.unsupported.filter { cues.contains($0.id) }
      return t0.entries.isEmpty && t0.unsupported.isEmpty ? nil : .cueEval(.t0(t0))
    case .t1(let tick, let scene, let entries):
      let kept = entries.filter { cues.contains($0.id) }
      return kept.isEmpty ? nil : .cueEval(.t1(tick: tick, scene: scene, entries: kept))
    }
  }
}
