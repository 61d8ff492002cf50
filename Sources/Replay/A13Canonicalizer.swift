import CanonicalJSON
import EngineIO

/// Canonical A.13 lines (ENGINE §6.6): `# file:` headers and blank lines dropped, keys sorted at
/// every level, "/" not escaped, UUID-shaped values replaced by placeholders numbered in order of
/// first appearance.
///
/// The placeholder family comes from the key the value sits under: `session_id` → `<SESSION_n>`,
/// keys naming an asset → `<ASSET_n>`, an item → `<ITEM_n>`, a reference → `<REF_n>`, anything
/// else `<UUID_n>`; each family counts on its own. A UUID keeps the placeholder it first got
/// wherever it reappears. Only the UUID itself is replaced, so an asset local identifier
/// `670A57F5-…-6CF1D27858FD/L0/001` becomes `<ASSET_1>/L0/001`. UUIDs are matched
/// case-insensitively. SHA-256 hashes (no dashes) are kept.
///
/// One canonicalizer serves one file: the numbering runs across its lines.
public struct A13Canonicalizer: Sendable {
  private var placeholders: [String: String] = [:]
  private var counters: [String: Int] = [:]

  /// A canonicalizer that has seen no line yet.
  public init() {}

  /// The canonical form of one log line; nil for lines the canonical file drops.
  public mutating func canonicalize(line: String) throws(JSONParseError) -> String? {
    let trimmed = line.trimmingSpaces
    if trimmed.isEmpty || trimmed.hasPrefix("# file:") { return nil }
    return write(canonicalize(try JSONParser.parse(trimmed), key: ""))
  }

  /// The canonical line of an engine diagnostic: exactly `ts_ms, session_id, event, scene,
  /// payload`, payload string → string (a repeated payload key keeps its last value).
  public mutating func canonicalize(_ d: DiagnosticLine) -> String {
    var payload = JSONObject()
    for (k, v) in d.payload { payload[k] = .string(v) }
    let object: JSONObject = [
      "ts_ms": .number(Double(d.tsMs)), "session_id": .string(d.sessionId),
      "event": .string(d.event),
      "scene": .string(d.scene), "payload": .object(payload),
    ]
    return write(canonicalize(.object(object), key: ""))
  }

  /// Canonicalizes a whole exported log (text with `\n`-separated lines).
  public static func canonicalize(log text: String) throws(JSONParseError) -> [String] {
    var c = A13Canonicalizer()
    var lines: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if let l = try c.canonicalize(line: String(line)) { lines.append(l) }
    }
    return lines
  }

  private func write(_ v: JSONValue) -> String {
    JSONWriter.write(v, sortKeys: true, numbers: .shortest)
  }

  private mutating func canonicalize(_ v: JSONValue, key: String) -> JSONValue {
    switch v {
    case .string(let s): return .string(replacingUUIDs(in: s, key: key))
    case .array(let a): return .array(a.map { canonicalize($0, key: key) })
    case .object(let o):
      return .object(
        JSONObject(o.members.map { JSONMember($0.key, canonicalize($0.value, key: $0.key)) }))
    default: return v
    }
  }

  private mutating func replacingUUIDs(in s: String, key: String) -> String {
    let bytes = Array(s.utf8)
    guard bytes.count >= 36 else { return s }
    var out: [UInt8] = []
    var i = 0
    var changed = false
    while i < bytes.count {
      if i + 36 <= bytes.count, Self.isUUID(bytes, at: i),
        i == 0 || !Self.isHex(bytes[i - 1]), i + 36 == bytes.count || !Self.isHex(bytes[i + 36])
      {
        let uuid = String(decoding: bytes[i..<i + 36], as: UTF8.self).uppercased()
        out.append(contentsOf: placeholder(for: uuid, key: key).utf8)
        i += 36
        changed = true
      } else {
        out.append(bytes[i])
        i += 1
      }
    }
    return changed ? String(decoding: out, as: UTF8.self) : s
  }

  private mutating func placeholder(for uuid: String, key: String) -> String {
    if let p = placeholders[uuid] { return p }
    let family = Self.family(ofKey: key)
    let n = counters[family, default: 0] + 1
    counters[family] = n
    let p = "<\(family)_\(n)>"
    placeholders[uuid] = p
    return p
  }

  static func family(ofKey key: String) -> String {
    let k = key.lowercased()
    if k.contains("session") { return "SESSION" }
    if k.contains("asset") { return "ASSET" }
    if k.contains("item") { return "ITEM" }
    if k.contains("ref") { return "REF" }
    return "UUID"
  }

  static func isHex(_ c: UInt8) -> Bool {
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
  }

  /// 8-4-4-4-12 hex digits at `i`.
  static func isUUID(_ b: [UInt8], at i: Int) -> Bool {
    for k in 0..<36 {
      let c = b[i + k]
      if k == 8 || k == 13 || k == 18 || k == 23 {
        if c != UInt8(ascii: "-") { return false }
      } else if !isHex(c) {
        return false
      }
    }
    return true
  }
}

extension String {
  /// Without leading and trailing spaces, tabs and carriage returns (also the differ's and
  /// review's reading of a line, in Verify).
  package var trimmingSpaces: String {
    var s = Substring(self)
    while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
    while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
    return String(s)
  }
}
