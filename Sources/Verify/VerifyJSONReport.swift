import CanonicalJSON

/// `verify --format json`: the whole report as one JSON document, written by the canonical
/// writer (sorted keys, shortest numbers), so it is byte-identical run to run.
///
/// `{"version":1,"exit_code":1,"update":"new","counts":{"passed":75,…},
///   "cases":[{"name":…,"category":"stale","exit_code":1,"message":…,"problems":[…]}],
///   "groups":[{"cue":…,"kind":…,"shape":…,"recordings":[…],"divergences":3}]}`
public enum VerifyJSONReport {
  /// The report format version (bump on an incompatible change).
  public static let version = 1

  /// The report as one JSON document (`verify --format json`).
  public static func render(_ report: VerifyReport) -> String {
    var counts = JSONObject()
    for c in VerifyCategory.allCases { counts[c.rawValue] = .number(Double(report.count(c))) }
    counts["total"] = .number(Double(report.cases.count))
    var root: JSONObject = [
      "version": .number(Double(version)),
      "exit_code": .number(Double(report.exitCode.rawValue)),
      "counts": .object(counts),
      "cases": .array(report.cases.map(caseValue)),
      "groups": .array(report.groups.map(groupValue)),
    ]
    if let update = report.update { root["update"] = .string(update.rawValue) }
    return JSONWriter.write(.object(root), sortKeys: true) + "\n"
  }

  static func caseValue(_ c: VerifyCase) -> JSONValue {
    var o: JSONObject = [
      "name": .string(c.name),
      "category": .string(c.category.rawValue),
      "exit_code": .number(Double(c.exitCode.rawValue)),
      "message": .string(c.message),
      "written": .array(c.written.map { .string("\(c.goldenDir)/" + $0) }),
      "updated": .array(c.updated.map { .string("\(c.goldenDir)/\(c.name)\($0.file.suffix)") }),
    ]
    if !c.unmet.isEmpty { o["expectations"] = .array(c.unmet.map { .string($0) }) }
    if !c.knownMisses.isEmpty { o["known_misses"] = .array(c.knownMisses.map { .string($0) }) }
    if let s = c.scenario {
      o["scenario"] = .object(["message": .string(s.message), "unreadable": .bool(s.unreadable)])
    }
    switch c.status {
    case .failed(let problems): o["problems"] = .array(problems.map(problemValue))
    case .orphanDeleted(let files): o["deleted"] = .array(files.map { .string("\(c.goldenDir)/" + $0) })
    case .badInput(let e):
      if let file = e.recording { o["file"] = .string(file) }
    default: break
    }
    return .object(o)
  }

  static func problemValue(_ p: GoldenProblem) -> JSONValue {
    let kind: String
    switch p.kind {
    case .missing: kind = "missing"
    case .mismatch: kind = "mismatch"
    }
    return .object([
      "file": .string(p.file.rawValue),
      "kind": .string(kind),
      "message": .string(p.message),
      "hunks": .number(Double(p.hunkCount)),
      "divergences": .array(p.divergences.map(divergenceValue)),
    ])
  }

  static func divergenceValue(_ d: Divergence) -> JSONValue {
    let (cue, kind, shape) = DivergenceGroup.signature(d)
    var o: JSONObject = [
      "t": .number(Double(d.t)),
      "explanation": .string(d.explanation),
      "cue": cue == "-" ? .null : .string(cue),
      "kind": .string(kind),
      "shape": .string(shape),
      "golden_line": d.golden.map { .number(Double($0.line)) } ?? .null,
      "replay_line": d.replay.map { .number(Double($0.line)) } ?? .null,
      "anchor_line": .number(Double(d.anchorLine)),
    ]
    if !d.context.isEmpty { o["context"] = .array(d.context.map { .string($0) }) }
    return .object(o)
  }

  static func groupValue(_ g: DivergenceGroup) -> JSONValue {
    .object([
      "cue": g.cue == "-" ? .null : .string(g.cue),
      "kind": .string(g.kind),
      "shape": .string(g.shape),
      "recordings": .array(g.recordings.map { .string($0) }),
      "divergences": .number(Double(g.count)),
    ])
  }
}
