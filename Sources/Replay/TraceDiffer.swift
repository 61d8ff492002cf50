import CanonicalJSON
import EngineIO

/// Structural differ: aligns records by (t, kind) with Myers' algorithm, within tolerances, and
/// reports every divergent hunk with a one-sentence explanation (the first with context).
public struct TraceDiffer: Sendable {
  public var options: DiffOptions
  public init(options: DiffOptions = DiffOptions()) { self.options = options }

  /// Diffs two trace texts (golden first).
  public func diffTraces(golden: String, replay: String) throws(BadInputError) -> DiffResult {
    diff(
      golden: try StructuredLine.parseTrace(golden, file: "golden"),
      replay: try StructuredLine.parseTrace(replay, file: "replay"), timeName: "t")
  }

  /// Diffs two texts, trace or A.13 according to the first line's keys (`out` or `event`).
  public func diffTexts(golden: String, replay: String) throws(BadInputError) -> DiffResult {
    let sample = golden.split(separator: "\n").first ?? replay.split(separator: "\n").first ?? ""
    if let first = try? JSONParser.parse(String(sample)), first["event"] != nil, first["out"] == nil
    {
      return try diffA13(golden: golden, replay: replay)
    }
    return try diffTraces(golden: golden, replay: replay)
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
    for (n, hunk) in hunks.prefix(Self.divergencesMax).enumerated() {
      var d = divergence(in: hunk, ops: ops, golden: g, replay: r, timeName: timeName)
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
          field: k, golden: x.map(Self.text) ?? "absent", replay: y.map(Self.text) ?? "absent"))
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

  private func divergence(
    in hunk: Range<Int>, ops: [DiffOp], golden g: [StructuredLine], replay r: [StructuredLine],
    timeName: String
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
    // A golden record the replay has at another time.
    for a in deleted {
      if let b = inserted.first(where: {
        !usedInserts.contains($0) && g[a].kind == r[$0].kind && changes(g[a], r[$0]).isEmpty
      }) {
        usedInserts.insert(b)
        let shift = r[b].t - g[a].t
        candidates.append(make(.moved(byMs: shift), golden: g[a], replay: r[b], timeName: timeName))
        continue
      }
      // The same kind at the same time with other fields.
      if let b = inserted.first(where: {
        !usedInserts.contains($0) && g[a].kind == r[$0].kind
          && abs(g[a].t - r[$0].t) <= options.timingToleranceMs
      }) {
        usedInserts.insert(b)
        candidates.append(
          make(.changed(changes(g[a], r[b])), golden: g[a], replay: r[b], timeName: timeName))
        continue
      }
      candidates.append(make(.missingInReplay, golden: g[a], replay: nil, timeName: timeName))
    }
    for b in inserted where !usedInserts.contains(b) {
      candidates.append(make(.extraInReplay, golden: nil, replay: r[b], timeName: timeName))
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
    _ kind: Divergence.Kind, golden: StructuredLine?, replay: StructuredLine?, timeName: String
  )
    -> Divergence
  {
    let t = min(golden?.t ?? Millis.max, replay?.t ?? Millis.max)
    let explanation: String
    switch kind {
    case .missingInReplay:
      explanation = "at \(timeName)=\(t) golden has \(Self.summary(golden!)), replay has none"
    case .extraInReplay:
      explanation = "at \(timeName)=\(t) replay has \(Self.summary(replay!)), golden has none"
    case .changed(let fields):
      let what = fields.map { "\($0.field) \($0.golden) → \($0.replay)" }.joined(separator: ", ")
      explanation =
        "at \(timeName)=\(t) \(golden!.kind) differs: golden \(Self.summary(golden!)), replay \(Self.summary(replay!)) (\(what))"
    case .moved(let shift):
      let sign = shift >= 0 ? "+" : ""
      explanation =
        "at \(timeName)=\(golden!.t) golden has \(Self.summary(golden!)), replay has it at \(timeName)=\(replay!.t) (\(sign)\(shift) ms)"
    }
    var cues: [String] = []
    for line in [golden, replay].compactMap({ $0 }) {
      if let c = line.fields["cue_id"]?.stringValue, !cues.contains(c) { cues.append(c) }
    }
    return Divergence(
      kind: kind, t: t, golden: golden, replay: replay, explanation: explanation, context: [],
      cueIDs: cues)
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

  /// A short human description of a record: "cue_display FRAME_MOVE_LEFT/hard".
  public static func summary(_ l: StructuredLine) -> String {
    func f(_ k: String) -> String { l.fields[k].map(text) ?? "none" }
    switch l.kind {
    case "cue_display": return "cue_display \(f("cue_id"))/\(f("level"))"
    case "script_card": return "script_card \(f("cue_id")) \(f("variant"))"
    case "praise": return "praise \(f("state")) \(f("trigger"))"
    case "match": return "match \(f("match")) blocked_by=\(f("blocked_by"))"
    case "shutter": return "shutter enabled=\(f("enabled")) reason=\(f("reason"))"
    case "prompt": return "prompt \(f("op")) \(f("key"))"
    case "item": return "item shot=\(f("shot")) core=\(f("core"))"
    case "tier": return "tier t0_hz=\(f("t0_hz")) cause=\(f("cause"))"
    case "effect":
      let rest = l.fields.members.filter { $0.key != "kind" }.map { "\($0.key)=\(text($0.value))" }
      return "effect \(f("kind"))" + (rest.isEmpty ? "" : " {\(rest.joined(separator: ","))}")
    default:
      let shown = l.fields.members.prefix(4).map { "\($0.key)=\(text($0.value))" }
      return ([l.kind] + shown).joined(separator: " ")
    }
  }

  static func text(_ v: JSONValue) -> String {
    switch v {
    case .null: "none"
    case .string(let s): s
    case .number(let d): JSONWriter.formatNumber(d)
    default: JSONWriter.write(v, sortKeys: true, numbers: .fixed6)
    }
  }
}

extension DiffOp {
  var isEqual: Bool { if case .equal = self { true } else { false } }
}
