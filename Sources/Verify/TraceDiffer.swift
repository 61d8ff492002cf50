import CanonicalJSON
import EngineIO
import EngineSeam
import Replay

/// Structural differ: aligns records by (t, kind) with Myers' algorithm, within tolerances, and
/// reports every divergent hunk with a one-sentence explanation (the first with context).
public struct TraceDiffer: Sendable {
  public var options: DiffOptions
  public init(options: DiffOptions = DiffOptions()) { self.options = options }

  /// Diffs two trace files (golden first): both read through the one reader (a golden, a
  /// `.new`, another process's trace file).
  public func diffTraceFiles(golden: String, replay: String) throws(BadInputError) -> DiffResult {
    diff(
      golden: try StructuredLine.parseTrace(golden, file: "golden"),
      replay: try StructuredLine.parseTrace(replay, file: "replay"), timeName: "t")
  }

  /// Diffs a golden trace text with a replay's records in memory (``ReplayProducts/records``):
  /// only the golden is read from text.
  public func diffTraces(golden: String, replay: [TraceRecord]) throws(BadInputError) -> DiffResult {
    diff(golden: try StructuredLine.parseTrace(golden, file: "golden"), replay: StructuredLine.lines(of: replay), timeName: "t")
  }

  /// Diffs two texts, trace or A.13 according to the first line's keys (`out` or `event`).
  public func diffTexts(golden: String, replay: String) throws(BadInputError) -> DiffResult {
    let sample = golden.split(separator: "\n").first ?? replay.split(separator: "\n").first ?? ""
    if let first = try? JSONParser.parse(String(sample)), first["event"] != nil, first["out"] == nil
    {
      return try diffA13(golden: golden, replay: replay)
    }
    return try diffTraceFiles(golden: golden, replay: replay)
  }

  /// Diffs two canonical A.13 texts (golden first).
  public func diffA13(golden: String, replay: String) throws(BadInputError) -> DiffResult {
    diff(
      golden: try StructuredLine.parseA13(golden, file: "golden"),
      replay: try StructuredLine.parseA13(replay, file: "replay"), timeName: "ts_ms")
  }

  /// Diffs parsed lines. `timeName` is how explanations name the time ("t" or "ts_ms").
  public func diff(golden g: [StructuredLine], replay r: [StructuredLine], timeName: String = "t")
    -> DiffResult
  {
    let ops = Myers.diff(g.count, r.count) { equivalent(g[$0], r[$1]) }
    var goldenOnly = 0
    var replayOnly = 0
    var hunks: [Range<Int>] = []
    var i = 0
    while i < ops.count {
      if case .equal = ops[i] {
        i += 1
        continue
      }
      let start = i
      while i < ops.count, !ops[i].isEqual { i += 1 }
      hunks.append(start..<i)
      for op in ops[start..<i] {
        if case .delete = op { goldenOnly += 1 } else { replayOnly += 1 }
      }
    }
    var result = DiffResult(
      divergence: nil, goldenOnly: goldenOnly, replayOnly: replayOnly, goldenCount: g.count,
      replayCount: r.count)
    result.hunkCount = hunks.count
    // One divergence per hunk (the first with its context), up to a bound: a golden that has
    // nothing in common with the replay is one hunk, not thousands.
    let reading = options.reading
    let screens = hunks.isEmpty ? (Screen([], reading), Screen([], reading)) : (Screen(g, reading), Screen(r, reading))
    for (n, hunk) in hunks.prefix(Self.divergencesMax).enumerated() {
      var d = divergence(in: hunk, ops: ops, golden: g, replay: r, timeName: timeName, screens: screens)
      d.anchorLine = anchorLine(of: hunk, ops: ops, golden: g)
      if n > 0 { d.context = [] }
      result.divergences.append(d)
    }
    result.divergence = result.divergences.first
    return result
  }

  /// Divergences described per file at most (the count of hunks is always exact).
  public static let divergencesMax = 1_000

  /// The golden line a hunk starts at (for annotations): its first golden record, else the
  /// golden record after it, else the line after the last golden record.
  private func anchorLine(of hunk: Range<Int>, ops: [DiffOp], golden g: [StructuredLine]) -> Int {
    for op in ops[hunk.lowerBound...] {
      switch op {
      case .delete(let a), .equal(let a, _): return g[a].line
      case .insert: continue
      }
    }
    return (g.last?.line ?? 0) + 1
  }

  // MARK: - Alignment

  func equivalent(_ a: StructuredLine, _ b: StructuredLine) -> Bool {
    a.kind == b.kind && abs(a.t - b.t) <= options.timingToleranceMs && changes(a, b).isEmpty
  }

  func changes(_ a: StructuredLine, _ b: StructuredLine) -> [FieldChange] {
    var keys = a.fields.keys
    for k in b.fields.keys where !keys.contains(k) { keys.append(k) }
    keys.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    var out: [FieldChange] = []
    for k in keys {
      let x = a.fields[k]
      let y = b.fields[k]
      let tol = options.numericTolerance[k] ?? options.numericTolerance["*"] ?? 0
      if let x, let y, Self.close(x, y, tolerance: tol) { continue }
      if x == nil, y == nil { continue }
      out.append(
        FieldChange(
          field: k, golden: x.map(\.summaryText) ?? "absent", replay: y.map(\.summaryText) ?? "absent"))
    }
    return out
  }

  static func close(_ a: JSONValue, _ b: JSONValue, tolerance: Double) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return x == y || abs(x - y) <= tolerance
    case (.array(let x), .array(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { close($0, $1, tolerance: tolerance) }
    case (.object(let x), .object(let y)):
      guard x.count == y.count else { return false }
      for m in x.members {
        guard let other = y[m.key], close(m.value, other, tolerance: tolerance) else {
          return false
        }
      }
      return true
    default: return a == b
    }
  }

  // MARK: - First divergence

  /// The largest shift, in 15 Hz frames, still reported as a move of the same record: 10
  /// frames (``movedMsMax`` ms). A record shown further away is a different behaviour (a cue
  /// at 200 ms instead of 4,667 ms is not "the same display, late") and is reported as
  /// `changed`, its one change being the time.
  public static let movedFramesMax: Millis = 10
  /// ``movedFramesMax`` in ms at 15 Hz, rounded: 667.
  public static let movedMsMax: Millis = (movedFramesMax * 1000 + 7) / 15

  /// What a file shows around its records: the cue each clearing record cleared, and the
  /// cue on screen at a time.
  struct Screen {
    /// For a `cue_display` / `script_card` line whose `cue_id` is null: the cue the previous
    /// line of that kind (with a cue) named.
    var cleared: [Int: String] = [:]
    /// `cue_display` lines in order: time and cue (nil = nothing shown).
    var displays: [(t: Millis, cue: String?)] = []

    init(_ lines: [StructuredLine], _ reading: TraceReading) {
      var last: [String: String] = [:]
      for (i, l) in lines.enumerated() {
        guard let shown = reading.shownCue(out: l.kind, fields: l.fields) else { continue }
        let cue = shown ?? nil
        if let cue { last[l.kind] = cue } else if let before = last[l.kind] { cleared[i] = before }
        if l.kind == reading.displayKind { displays.append((l.t, cue)) }
      }
    }

    /// The cue on screen at `t` (the last display at or before it), if any.
    func onScreen(at t: Millis) -> String? {
      var lo = 0
      var hi = displays.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if displays[mid].t <= t { lo = mid + 1 } else { hi = mid }
      }
      return lo == 0 ? nil : displays[lo - 1].cue
    }
  }

  private func divergence(
    in hunk: Range<Int>, ops: [DiffOp], golden g: [StructuredLine], replay r: [StructuredLine],
    timeName: String, screens: (golden: Screen, replay: Screen)
  ) -> Divergence {
    var deleted: [Int] = []
    var inserted: [Int] = []
    for op in ops[hunk] {
      switch op {
      case .delete(let a): deleted.append(a)
      case .insert(let b): inserted.append(b)
      case .equal: break
      }
    }
    var candidates: [Divergence] = []
    var usedInserts = Set<Int>()
    func make(_ kind: Divergence.Kind, _ a: Int?, _ b: Int?) -> Divergence {
      self.make(kind, golden: a.map { g[$0] }, replay: b.map { r[$0] }, timeName: timeName,
        cleared: [a.flatMap { screens.golden.cleared[$0] }, b.flatMap { screens.replay.cleared[$0] }],
        screens: screens)
    }
    for a in deleted {
      let same = { (b: Int) in !usedInserts.contains(b) && g[a].kind == r[b].kind && self.changes(g[a], r[b]).isEmpty }
      // A golden record the replay has at another time, within the bound of a move.
      if let b = inserted.first(where: { same($0) && abs(r[$0].t - g[a].t) <= Self.movedMsMax }) {
        usedInserts.insert(b)
        candidates.append(make(.moved(byMs: r[b].t - g[a].t), a, b))
        continue
      }
      // The same kind at the same time with other fields.
      if let b = inserted.first(where: {
        !usedInserts.contains($0) && g[a].kind == r[$0].kind
          && abs(g[a].t - r[$0].t) <= options.timingToleranceMs
      }) {
        usedInserts.insert(b)
        candidates.append(make(.changed(changes(g[a], r[b])), a, b))
        continue
      }
      // The same record much earlier or later: changed (its time), not moved.
      if let b = inserted.first(where: same) {
        usedInserts.insert(b)
        candidates.append(make(.changed([FieldChange(field: timeName, golden: String(g[a].t), replay: String(r[b].t))]), a, b))
        continue
      }
      candidates.append(make(.missingInReplay, a, nil))
    }
    for b in inserted where !usedInserts.contains(b) {
      candidates.append(make(.extraInReplay, nil, b))
    }
    // The earliest; on equal times the one that comes first in the golden, then in the replay.
    var first = candidates[0]
    for c in candidates.dropFirst()
    where (c.t, c.golden?.line ?? Int.max, c.replay?.line ?? Int.max)
      < (first.t, first.golden?.line ?? Int.max, first.replay?.line ?? Int.max)
    {
      first = c
    }
    first.context = context(around: hunk, ops: ops, golden: g, replay: r)
    return first
  }

  private func make(
    _ kind: Divergence.Kind, golden: StructuredLine?, replay: StructuredLine?, timeName: String,
    cleared: [String?], screens: (golden: Screen, replay: Screen)
  )
    -> Divergence
  {
    let t = min(golden?.t ?? Millis.max, replay?.t ?? Millis.max)
    let explanation: String
    switch kind {
    case .missingInReplay:
      explanation = "at \(timeName)=\(t) golden has \(summary(golden!)), replay has none"
    case .extraInReplay:
      explanation = "at \(timeName)=\(t) replay has \(summary(replay!)), golden has none"
    case .changed(let fields) where fields.count == 1 && fields[0].field == timeName && golden!.t != replay!.t:
      let shift = replay!.t - golden!.t
      explanation =
        "at \(timeName)=\(t) \(summary(golden!)) changed time: golden has it at \(timeName)=\(golden!.t), replay at \(timeName)=\(replay!.t) (\(shift >= 0 ? "+" : "")\(shift) ms, more than \(Self.movedFramesMax) frames: not a move)"
    case .changed(let fields):
      let what = fields.map { "\($0.field) \($0.golden) → \($0.replay)" }.joined(separator: ", ")
      explanation =
        "at \(timeName)=\(t) \(golden!.kind) differs: golden \(summary(golden!)), replay \(summary(replay!)) (\(what))"
    case .moved(let shift):
      let sign = shift >= 0 ? "+" : ""
      explanation =
        "at \(timeName)=\(golden!.t) golden has \(summary(golden!)), replay has it at \(timeName)=\(replay!.t) (\(sign)\(shift) ms)"
    }
    var cues: [String] = []
    for line in [golden, replay].compactMap({ $0 }) {
      if let c = options.reading.cueId(line.fields), !cues.contains(c) { cues.append(c) }
    }
    for c in cleared.compactMap({ $0 }) where !cues.contains(c) { cues.append(c) }
    var onScreen: [String] = []
    if cues.isEmpty {
      for c in [screens.golden.onScreen(at: t), screens.replay.onScreen(at: t)].compactMap({ $0 }) where !onScreen.contains(c) {
        onScreen.append(c)
      }
    }
    var d = Divergence(
      kind: kind, t: t, golden: golden, replay: replay, explanation: explanation, context: [],
      cueIDs: cues)
    d.cuesOnScreen = onScreen
    let lines = [golden, replay].compactMap { $0 }
    d.clearsCue = lines.contains { options.reading.clearsCue(out: $0.kind, fields: $0.fields) }
    d.subject = lines.lazy.compactMap { self.options.reading.subject($0.fields) }.first
    return d
  }

  private func context(
    around hunk: Range<Int>, ops: [DiffOp], golden g: [StructuredLine], replay r: [StructuredLine]
  )
    -> [String]
  {
    let n = options.contextLines
    var out: [String] = []
    let lower = max(0, hunk.lowerBound - n)
    let upper = min(ops.count, hunk.upperBound + n)
    if lower > 0 { out.append("  …") }
    for op in ops[lower..<upper] {
      switch op {
      case .equal(_, let b): out.append("    \(r[b].text)")
      case .delete(let a): out.append("  - \(g[a].text)   (golden line \(g[a].line))")
      case .insert(let b): out.append("  + \(r[b].text)   (replay line \(r[b].line))")
      }
    }
    if upper < ops.count { out.append("  …") }
    return out
  }

  /// A short human description of a record through the engine's reading
  /// (``TraceReading/summarize(out:fields:)``): "cue_display FRAME_MOVE_LEFT/hard".
  public func summary(_ l: StructuredLine) -> String { options.reading.summarize(out: l.kind, fields: l.fields) }
}

extension DiffOp {
  var isEqual: Bool { if case .equal = self { true } else { false } }
}
