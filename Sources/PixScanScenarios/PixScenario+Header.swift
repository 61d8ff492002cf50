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
  /// The recording header, in a fixed key order: `format`, `engine` (pixscan), `name`,
  /// `duration_ms`, `generator` (the file's name), `generator_sha256`, `notes` when given.
  public var header: JSONObject {
    var h = JSONObject()
    h.members.append(JSONMember("format", "jp-replay/1"))
    h.members.append(JSONMember("engine", "pixscan"))
    h.members.append(JSONMember("name", .string(name)))
    h.members.append(JSONMember("duration_ms", .number(Double(durationMs))))
    h.members.append(JSONMember("generator", .string(String(file.split(separator: "/").last ?? Substring(file)))))
    h.members.append(JSONMember("generator_sha256", .string(sha256)))
    if let notes { h.members.append(JSONMember("notes", .string(notes))) }
    return h
  }

  /// The semantic SHA-256 of a parsed document.
  static func semanticSHA256(root: Node) -> String {
    var document = canonical(root)
    if case .object(var o) = document {
      o["expect"] = nil
      document = .object(o)
    }
    let doc = JSONObject([JSONMember("document", document)])
    return SHA256.hex(JSONWriter.write(.object(doc.sortedRecursively())))
  }

  /// A YAML node as JSON for hashing; never fails (what JSON cannot hold exactly is kept as
  /// tagged text).
  static func canonical(_ node: Node) -> JSONValue {
    switch node {
    case .scalar(let s):
      switch try? YScalar(s) {
      case .null?: return .null
      case .bool(let b)?: return .bool(b)
      case .int(let i)?: return abs(i) < (1 << 53) ? .number(Double(i)) : .string("int:\(i)")
      case .double(let d)?: return d.isFinite ? .number(d) : .string("double:\(d)")
      case .string(let v)?: return .string(v)
      case nil: return .string("scalar:\(s.string)")
      }
    case .sequence(let seq): return .array(seq.map { canonical($0) })
    case .mapping(let m):
      var o = JSONObject()
      for (k, v) in m { o.members.append(JSONMember(k.string ?? "\(k)", canonical(v))) }
      return .object(o)
    case .alias: return .string("alias")
    }
  }
}
