/// JSON text written straight into one reusable UTF-8 byte buffer: the bytes `JSONWriter` writes
/// for the same value, without building a `JSONValue` tree or a `String` first. For writers of
/// many messages (`export --mcap`): clear the buffer (`removeAll`), append one message, hand
/// `bytes` on, repeat; the storage is kept.
///
/// Numbers go through the canonical formatters (`JSONWriter.shortest`, `JSONWriter.formatNumber`),
/// strings through the same escaping as `JSONWriter.appendString` ("/" not escaped, non-ASCII as
/// UTF-8), so `JSONBytes` and `JSONWriter` agree byte for byte (JSONBytesTests).
public struct JSONBytes: Sendable {
  public private(set) var bytes: [UInt8]

  public init(capacity: Int = 0) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  public var count: Int { bytes.count }

  /// Empties the buffer, keeping its storage.
  public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

  /// The text so far, as a `String`.
  public var text: String { String(decoding: bytes, as: UTF8.self) }

  /// One byte of text (an ASCII punctuation character such as `{` or `,`).
  @inline(__always) public mutating func byte(_ b: UInt8) { bytes.append(b) }

  /// Literal text (keys with their quotes, punctuation), appended as it is.
  @inline(__always) public mutating func raw(_ s: StaticString) {
    s.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// An optional member: `key` (literal text with its comma, quotes and colon, e.g.
  /// `,"eye_ar":`) then `v`, or nothing when `v` is nil.
  @inline(__always) public mutating func optionalNumber(_ key: StaticString, _ v: Double?) {
    guard let v else { return }
    raw(key)
    number(v)
  }

  /// Bytes appended as they are (text another `JSONBytes` wrote).
  public mutating func raw(_ b: [UInt8]) { bytes.append(contentsOf: b) }

  /// `s` as a JSON string literal, escaped as `JSONWriter.appendString` escapes it.
  public mutating func string(_ s: String) {
    bytes.append(0x22)
    var s = s
    s.withUTF8 { u in
      var clean = true
      for b in u where b < 0x20 || b == 0x22 || b == 0x5C {
        clean = false
        break
      }
      if clean {
        bytes.append(contentsOf: u)
        return
      }
      // Only ASCII bytes are escaped; every byte of a multi-byte UTF-8 sequence is ≥ 0x80.
      for b in u {
        switch b {
        case 0x22: raw("\\\"")
        case 0x5C: raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        case 0x08: raw("\\b")
        case 0x0C: raw("\\f")
        case ..<0x20:
          let hex: StaticString = "0123456789abcdef"
          raw("\\u00")
          hex.withUTF8Buffer { h in
            bytes.append(h[Int(b >> 4)])
            bytes.append(h[Int(b & 0xF)])
          }
        default: bytes.append(b)
        }
      }
    }
    bytes.append(0x22)
  }

  /// A number as `JSONWriter` prints it in `style`.
  public mutating func number(_ d: Double, _ style: JSONWriter.NumberStyle = .shortest) {
    var s = style == .fixed6 ? JSONWriter.formatNumber(d) : JSONWriter.shortest(d)
    s.withUTF8 { bytes.append(contentsOf: $0) }
  }

  /// An optional number: `null` when nil.
  public mutating func number(_ d: Double?, _ style: JSONWriter.NumberStyle = .shortest) {
    if let d { number(d, style) } else { raw("null") }
  }

  /// `"key":` (the key escaped as a string).
  public mutating func key(_ k: String) {
    string(k)
    bytes.append(0x3A)
  }

  /// `value` serialized as `JSONWriter.write(value, sortKeys:, numbers:)` serializes it.
  public mutating func value(_ value: JSONValue, sortKeys: Bool = false, numbers: JSONWriter.NumberStyle = .shortest) {
    switch value {
    case .null: raw("null")
    case .bool(let b): if b { raw("true") } else { raw("false") }
    case .number(let d): number(d, numbers)
    case .string(let s): string(s)
    case .array(let a):
      bytes.append(0x5B)
      for (i, v) in a.enumerated() {
        if i > 0 { bytes.append(0x2C) }
        self.value(v, sortKeys: sortKeys, numbers: numbers)
      }
      bytes.append(0x5D)
    case .object(let o):
      bytes.append(0x7B)
      let members = sortKeys ? o.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : o.members
      for (i, m) in members.enumerated() {
        if i > 0 { bytes.append(0x2C) }
        key(m.key)
        self.value(m.value, sortKeys: sortKeys, numbers: numbers)
      }
      bytes.append(0x7D)
    }
  }
}
