import EngineIO

/// Divergences of a whole `verify` run grouped by cue, record kind and shape, so a change that
/// moves one cue in many recordings reads as one line:
/// "FRAME_MOVE_LEFT cue_display: moved +33 ms in 13 recordings (a, b, c, …)".
public struct DivergenceGroup: Equatable, Sendable {
  /// The cue the records name (a clear names the cue it cleared); for records about no cue,
  /// what they are about instead (a prompt's key, a praise's dimension); "-" when neither.
  public var cue: String
  /// The record kind (`out` of a trace record, `event` of an A.13 line).
  public var kind: String
  /// What happened: "moved +33 ms", "missing in replay", "extra in replay", "level hard → warn".
  public var shape: String
  /// Recordings with at least one such divergence, in name order.
  public var recordings: [String]
  /// Divergences in all (a recording may have several).
  public var count: Int

  /// "FRAME_MOVE_LEFT cue_display: moved +33 ms in 13 recordings (a, b, c, …)".
  public var line: String {
    let names = recordings.prefix(Self.namesShownMax).joined(separator: ", ")
    let more = recordings.count > Self.namesShownMax ? ", …" : ""
    let plural = recordings.count == 1 ? "recording" : "recordings"
    let prefix = cue == "-" ? kind : "\(cue) \(kind)"
    return "\(prefix): \(shape) in \(recordings.count) \(plural) (\(names)\(more))"
  }

  /// Recording names shown per group line.
  public static let namesShownMax = 5

  /// Groups the divergences of `cases` (name order), largest group first, then by key.
  public static func groups(of cases: [VerifyCase]) -> [DivergenceGroup] {
    var order: [String] = []
    var byKey: [String: DivergenceGroup] = [:]
    for c in cases {
      for d in c.divergences.map(\.divergence) {
        let (cue, kind, shape) = signature(d)
        let key = "\(cue)\u{1F}\(kind)\u{1F}\(shape)"
        if var g = byKey[key] {
          if g.recordings.last != c.name { g.recordings.append(c.name) }
          g.count += 1
          byKey[key] = g
        } else {
          order.append(key)
          byKey[key] = DivergenceGroup(
            cue: cue, kind: kind, shape: shape, recordings: [c.name], count: 1)
        }
      }
    }
    return order.compactMap { byKey[$0] }.sorted { a, b in
      if a.recordings.count != b.recordings.count { return a.recordings.count > b.recordings.count }
      return "\(a.cue) \(a.kind) \(a.shape)".utf8.lexicographicallyPrecedes(
        "\(b.cue) \(b.kind) \(b.shape)".utf8)
    }
  }

  /// "moved +1 frame" when the shift is a whole number of 15 Hz frames (66 or 67 ms after
  /// rounding, ENGINE §3.11), so a one-frame change groups across recordings; else in ms.
  static func movedText(_ ms: Int64) -> String {
    let frames = (Double(ms) * 15 / 1000).rounded()
    if frames != 0, abs(Double(ms) - frames * 1000 / 15) <= 1 {
      let n = Int64(frames)
      return "moved \(n > 0 ? "+" : "")\(n) frame\(abs(n) == 1 ? "" : "s") (15 Hz)"
    }
    return "moved \(ms >= 0 ? "+" : "")\(ms) ms"
  }

  /// (cue, record kind, shape) of one divergence. A shift beyond
  /// ``TraceDiffer/movedFramesMax`` frames is a `changed` divergence of the time and reads
  /// "changed: more than 10 frames earlier" (or later), never "moved".
  public static func signature(_ d: Divergence) -> (String, String, String) {
    let kind = d.golden?.kind ?? d.replay?.kind ?? "-"
    let shape: String
    switch d.kind {
    case .missingInReplay: shape = "missing in replay"
    case .extraInReplay: shape = "extra in replay"
    case .moved(let ms): shape = movedText(ms)
    case .changed(let fields) where fields.count == 1 && (fields[0].field == "t" || fields[0].field == "ts_ms") && d.golden?.t != d.replay?.t:
      let earlier = (d.replay?.t ?? 0) < (d.golden?.t ?? 0)
      shape = "changed: more than \(TraceDiffer.movedFramesMax) frames \(earlier ? "earlier" : "later")"
    case .changed(let fields):
      // Short non-numeric values name the change; numbers would split every group apart.
      shape = fields.map { f -> String in
        let numeric = Double(f.golden) != nil || Double(f.replay) != nil
        let short = f.golden.count <= 24 && f.replay.count <= 24
        return numeric || !short ? "\(f.field) changed" : "\(f.field) \(f.golden) → \(f.replay)"
      }.joined(separator: ", ")
    }
    return (subject(d), kind, shape)
  }

  /// What a divergence is about: its first cue (the cleared one for a clear), else the
  /// record's prompt key or praise dimension, else "-".
  static func subject(_ d: Divergence) -> String {
    d.cueIDs.first ?? d.subject ?? "-"
  }
}
