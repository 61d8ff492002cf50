import CanonicalJSON
import Yams

/// What every engine's scenario file shares about the recording it generates (docs/FORMAT.md,
/// "Scenario files"): the header's fixed key order and `generator_sha256`, the SHA-256 of what
/// the file means apart from how it is written. Each engine's scenario module keeps only its
/// own vocabulary (its script, its `expect:` rules) and calls these.
public enum ScenarioHeader {
  /// The recording header, in a fixed key order: `format`, `engine`, `name`, `duration_ms`,
  /// `generator` (the file's name), `generator_sha256`, `notes` when given.
  ///
  /// - Parameters:
  ///   - engine: the engine's header name, e.g. `pixscan`.
  ///   - name: the scenario's `name:`.
  ///   - durationMs: its duration.
  ///   - file: the scenario file (its last path component is written).
  ///   - sha256: its ``semanticSHA256(root:)``.
  ///   - notes: its `notes:`, if any.
  /// - Returns: the header.
  ///
  /// Example: `{"format":"jp-replay/1","engine":"cameracoach","name":"headroom-tight","duration_ms":3000,"generator":"headroom-tight.yaml","generator_sha256":"63f4…"}`.
  public static func recordingHeader(
    engine: String, name: String, durationMs: Int64, file: String, sha256: String, notes: String?
  ) -> JSONObject {
    var h = JSONObject()
    h.members.append(JSONMember("format", "jp-replay/1"))
    h.members.append(JSONMember("engine", .string(engine)))
    h.members.append(JSONMember("name", .string(name)))
    h.members.append(JSONMember("duration_ms", .number(Double(durationMs))))
    h.members.append(JSONMember("generator", .string(String(file.split(separator: "/").last ?? Substring(file)))))
    h.members.append(JSONMember("generator_sha256", .string(sha256)))
    if let notes { h.members.append(JSONMember("notes", .string(notes))) }
    return h
  }

  /// The SHA-256 of `{"document": <the YAML document as JSON without expect:>}`, written
  /// canonically (members sorted at every depth): comments, quoting, style and key order do not
  /// count, every value does, and editing `expect:` does not make the recording stale.
  ///
  /// - Parameter root: the parsed document.
  /// - Returns: the hex digest.
  public static func semanticSHA256(root: Node) -> String {
    var document = canonical(root)
    if case .object(var o) = document {
      o["expect"] = nil
      document = .object(o)
    }
    let doc = JSONObject([JSONMember("document", document)])
    return SHA256.hex(JSONWriter.write(.object(doc.sortedRecursively())))
  }

  /// A YAML node as JSON for hashing: never fails (an integer JSON cannot hold exactly, or a
  /// scalar the core schema does not resolve, is kept as tagged text).
  ///
  /// - Parameter node: a YAML node.
  /// - Returns: its JSON value.
  ///
  /// Example: `count: 3` gives `{"count":3}`; `big: 9007199254740993` gives `{"big":"int:9007199254740993"}`.
  public static func canonical(_ node: Node) -> JSONValue {
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
