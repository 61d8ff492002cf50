/// Pending `.new` files grouped by what their first divergence is — the cue, the record kind and
/// the shape of `DivergenceGroup.signature`, the grouping `verify` prints — so that promoting a
/// tuned spec, which leaves dozens of `.new` files behind, is reviewed as a handful of decisions
/// (`review --group`, `accept --group KEY`, `reject --group KEY`), each shown with one example.
///
/// A file belongs to exactly one group: that of its first divergence (the one `review` shows
/// first). Its other divergences are counted in the group's `others`, so a decision is never
/// taken on a file without its further changes being named. A file with no golden yet, one
/// equal to its golden and one that differs in formatting only have groups of their own.
public struct PendingGroup: Equatable, Sendable {
  /// The group's key: `CUE:kind:shape` with the shape's spaces and signs spelled for a shell
  /// ("FRAME_MOVE_LEFT:cue_display:moved-+1-frame-15-Hz"); `new-golden`, `unchanged`,
  /// `format-only` for the special groups.
  public var key: String
  /// "FRAME_MOVE_LEFT cue_display: moved +1 frame (15 Hz)".
  public var title: String
  /// The files, in name order; the first is the example shown.
  public var files: [PendingGolden]
  /// Further divergences in these files (beyond each file's first), by title, with counts.
  public var others: [(title: String, count: Int)] = []

  /// Equal when key, title, files and the other divergences' titles and counts are.
  public static func == (a: PendingGroup, b: PendingGroup) -> Bool {
    a.key == b.key && a.title == b.title && a.files == b.files && a.others.map(\.title) == b.others.map(\.title)
      && a.others.map(\.count) == b.others.map(\.count)
  }

  /// Recordings with a file in the group.
  public var recordings: [String] {
    var out: [String] = []
    for f in files where out.last != f.name { out.append(f.name) }
    return out
  }

  /// "FRAME_MOVE_LEFT:cue_display:moved-+1-frame-15-Hz  FRAME_MOVE_LEFT cue_display: moved +1 frame
  /// (15 Hz) — 13 files in 13 recordings (a, b, c, …)".
  public var line: String {
    let names = recordings.prefix(DivergenceGroup.namesShownMax).joined(separator: ", ")
    let more = recordings.count > DivergenceGroup.namesShownMax ? ", …" : ""
    let f = files.count == 1 ? "file" : "files"
    let r = recordings.count == 1 ? "recording" : "recordings"
    return "\(key)\n  \(title) — \(files.count) \(f) in \(recordings.count) \(r) (\(names)\(more))"
  }

  /// The key of a divergence signature.
  static func key(cue: String, kind: String, shape: String) -> String {
    "\(cue):\(kind):\(slug(shape))"
  }

  /// A shape as a word for the command line: letters, digits and `+ - _ .` kept, anything else
  /// one `-` ("moved +1 frame (15 Hz)" → "moved-+1-frame-15-Hz", "level hard → warn" →
  /// "level-hard-warn").
  static func slug(_ s: String) -> String {
    var out = ""
    for ch in s.unicodeScalars {
      let keep = (ch.properties.isAlphabetic && ch.isASCII) || ("0"..."9").contains(ch) || "+-_.".unicodeScalars.contains(ch)
      if keep {
        out.unicodeScalars.append(ch)
      } else if !out.isEmpty && !out.hasSuffix("-") {
        out += "-"
      }
    }
    while out.hasSuffix("-") { out.removeLast() }
    return out.isEmpty ? "-" : out
  }

  /// Groups `pending` (name order) by their first divergence against the goldens in `store`;
  /// the largest group first, then by key.
  public static func groups(_ pending: [PendingGolden], store: GoldenStore) throws -> [PendingGroup] {
    var order: [String] = []
    var byKey: [String: PendingGroup] = [:]
    var others: [String: [String: Int]] = [:]
    var othersOrder: [String: [String]] = [:]
    for p in pending {
      let golden = try store.readGolden(p.name, p.kind)
      let fresh = try store.readPending(p.name, p.kind) ?? ""
      let key: String
      let title: String
      var rest: [Divergence] = []
      if let golden {
        if let problem = Verifier.compare(golden: golden, fresh: fresh, kind: p.kind, name: p.name, diff: DiffOptions(reading: store.traceReading)) {
          if let first = problem.divergences.first {
            let (cue, kind, shape) = DivergenceGroup.signature(first)
            key = Self.key(cue: cue, kind: kind, shape: shape)
            title = "\(cue == "-" ? kind : "\(cue) \(kind)"): \(shape)"
            rest = Array(problem.divergences.dropFirst())
          } else {
            key = "format-only"
            title = "\(p.kind.rawValue): the same records, formatted differently"
          }
        } else {
          key = "unchanged"
          title = "the .new equals its golden"
        }
      } else {
        key = "new-golden"
        title = "new golden (no golden file yet)"
      }
      if byKey[key] == nil {
        order.append(key)
        byKey[key] = PendingGroup(key: key, title: title, files: [])
      }
      byKey[key]!.files.append(p)
      for d in rest {
        let (cue, kind, shape) = DivergenceGroup.signature(d)
        let t = "\(cue == "-" ? kind : "\(cue) \(kind)"): \(shape)"
        if others[key, default: [:]][t] == nil { othersOrder[key, default: []].append(t) }
        others[key, default: [:]][t, default: 0] += 1
      }
    }
    return order.compactMap { k -> PendingGroup? in
      guard var g = byKey[k] else { return nil }
      g.others = (othersOrder[k] ?? []).map { ($0, others[k]?[$0] ?? 0) }.sorted { a, b in
        a.count != b.count ? a.count > b.count : a.title.utf8.lexicographicallyPrecedes(b.title.utf8)
      }
      return g
    }.sorted { a, b in
      a.files.count != b.files.count ? a.files.count > b.files.count : a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
    }
  }

  /// The groups `patterns` select: a key, or a glob over keys (`'FRAME_MOVE_LEFT:*'`). The
  /// patterns that select nothing are returned apart.
  public static func select(_ groups: [PendingGroup], patterns: [String]) -> (selected: [PendingGroup], unknown: [String]) {
    let selected = groups.filter { g in patterns.contains { $0 == g.key || GoldenStore.glob($0, matches: g.key) } }
    let unknown = patterns.filter { p in !groups.contains { p == $0.key || GoldenStore.glob(p, matches: $0.key) } }
    return (selected, unknown)
  }
}
