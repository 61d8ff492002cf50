/// Where and why a JSON text could not be parsed.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
  /// 1-based line and column of the offending byte; `offset` is 0-based.
  public var line: Int
  public var column: Int
  public var offset: Int
  /// What was expected at that place, e.g. "expected ',' or '}' after an object member".
  public var message: String
  public var description: String { "line \(line), column \(column): \(message)" }
}

/// A strict RFC 8259 JSON parser that keeps object member order and reports line and column.
///
/// One JSON rule for every input (issue 34.4): an object that names a key twice is an error at
/// the second key, naming its line and column. RFC 8259 leaves duplicates undefined; browsers
/// and Python let the last one win, a keep-the-first lookup the first — so two readers of one
/// file could see two documents. Here no reader sees either.
public enum JSONParser {
  /// Parses one JSON value filling the whole input (surrounding whitespace allowed).
  public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    try parse(bytes: Array(text.utf8))
  }
  /// Parses one JSON value filling the whole byte buffer.
  ///
  /// `rejectingDuplicateKeys: false` keeps the members of an object that names a key twice
  /// in order (lookups see the first): only for text this project wrote itself and compares
  /// byte for byte, never for input.
  public static func parse(
    bytes: UnsafeRawBufferPointer, rejectingDuplicateKeys: Bool
  ) throws(JSONParseError) -> JSONValue {
    var p = Parser(bytes: bytes, rejectsDuplicateKeys: rejectingDuplicateKeys)
    p.skipWhitespace()
    let v = try p.parseValue(depth: 0)
    p.skipWhitespace()
    if p.pos < p.bytes.count { throw p.error("unexpected text after the JSON value") }
    return v
  }
  /// Parses a byte array.
  public static func parse(bytes: [UInt8], rejectingDuplicateKeys: Bool) throws(JSONParseError)
    -> JSONValue
  {
    let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBytes { b in
      do throws(JSONParseError) {
        return .success(try parse(bytes: b, rejectingDuplicateKeys: rejectingDuplicateKeys))
      } catch { return .failure(error) }
    }
    return try result.get()
  }

  /// Parses one JSON value filling the whole byte buffer; a duplicate key is an error.
  public static func parse(bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
    try parse(bytes: bytes, rejectingDuplicateKeys: true)
  }
  /// Parses a byte array; a duplicate key is an error.
  public static func parse(bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
    try parse(bytes: bytes, rejectingDuplicateKeys: true)
  }

  /// Nesting limit (objects and arrays): deeper input is rejected before the recursion that
  /// would exhaust the stack. Parsing, writing, hashing and freeing a value this deep fit a
  /// 512 KiB thread stack in a debug build (a debug frame pair of the parser takes ~3 KiB;
  /// `HostileSpecLimitTests`). Every document this project reads nests less than 10 deep.
  public static let depthMax = 64
  /// The former name of `depthMax`.
  public static let maxDepth = depthMax
}

private struct Parser {
  let bytes: UnsafeRawBufferPointer
  let rejectsDuplicateKeys: Bool
  var pos = 0
  init(bytes: UnsafeRawBufferPointer, rejectsDuplicateKeys: Bool) {
    self.bytes = bytes
    self.rejectsDuplicateKeys = rejectsDuplicateKeys
  }

  func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
    let off = min(offset ?? pos, bytes.count)
    var line = 1
    var lineStart = 0
    var i = 0
    while i < off {
      if bytes[i] == 0x0A {
        line += 1
        lineStart = i + 1
      }
      i += 1
    }
    // Column counts characters (UTF-8 continuation bytes do not start a character).
    var col = 1
    var j = lineStart
    while j < off {
      if bytes[j] & 0xC0 != 0x80 { col += 1 }
      j += 1
    }
    let msg = off >= bytes.count && offset == nil ? message + " (the text ends here)" : message
    return JSONParseError(line: line, column: col, offset: off, message: msg)
  }

  mutating func skipWhitespace() {
    while pos < bytes.count {
      let c = bytes[pos]
      if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { pos += 1 } else { return }
    }
  }

  mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
    guard pos < bytes.count else { throw error("expected a JSON value") }
    switch bytes[pos] {
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      // `depth` containers enclose this one.
      guard depth < JSONParser.depthMax else {
        throw error("objects and arrays nest deeper than JSONParser.depthMax = \(JSONParser.depthMax) levels")
      }
      return bytes[pos] == UInt8(ascii: "{") ? try parseObject(depth: depth) : try parseArray(depth: depth)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): try literal("true"); return .bool(true)
    case UInt8(ascii: "f"): try literal("false"); return .bool(false)
    case UInt8(ascii: "n"): try literal("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
    default: throw error("expected a JSON value (object, array, string, number, true, false or null)")
    }
  }

  mutating func literal(_ word: StaticString) throws(JSONParseError) {
    let n = word.utf8CodeUnitCount
    let start = pos
    guard pos + n <= bytes.count else { throw error("expected '\(word)'", at: start) }
    let w = word.utf8Start
    for k in 0..<n where bytes[pos + k] != w[k] { throw error("expected '\(word)'", at: start) }
    pos += n
  }

  mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
    pos += 1
    var members: [JSONMember] = []
    var keys: Set<String> = []  // only with rejectsDuplicateKeys, once the object is not tiny
    skipWhitespace()
    if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
      pos += 1
      return .object(JSONObject(members))
    }
    while true {
      skipWhitespace()
      guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else {
        throw error("expected a string key in an object")
      }
      let keyStart = pos
      let key = try parseString()
      if rejectsDuplicateKeys && isDuplicate(key, in: members, index: &keys) {
        throw error("duplicate key \"\(key)\" in an object (each key may appear once; remove one)", at: keyStart)
      }
      skipWhitespace()
      guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else {
        throw error("expected ':' after the object key \"\(key)\"")
      }
      pos += 1
      skipWhitespace()
      let v = try parseValue(depth: depth + 1)
      members.append(JSONMember(key, v))
      skipWhitespace()
      guard pos < bytes.count else { throw error("expected ',' or '}' after an object member") }
      if bytes[pos] == UInt8(ascii: ",") {
        pos += 1
        continue
      }
      if bytes[pos] == UInt8(ascii: "}") {
        pos += 1
        return .object(JSONObject(members))
      }
      throw error("expected ',' or '}' after an object member")
    }
  }

  /// Whether `key` is already a member: a linear scan for small objects, then a set (so an
  /// object with many keys stays linear).
  func isDuplicate(_ key: String, in members: [JSONMember], index: inout Set<String>) -> Bool {
    let linearMax = 16
    if members.count < linearMax { return members.contains { $0.key == key } }
    if index.isEmpty { index = Set(members.map(\.key)) }
    return !index.insert(key).inserted
  }

  mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
    pos += 1
    var items: [JSONValue] = []
    skipWhitespace()
    if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
      pos += 1
      return .array(items)
    }
    while true {
      skipWhitespace()
      items.append(try parseValue(depth: depth + 1))
      skipWhitespace()
      guard pos < bytes.count else { throw error("expected ',' or ']' after an array element") }
      if bytes[pos] == UInt8(ascii: ",") {
        pos += 1
        continue
      }
      if bytes[pos] == UInt8(ascii: "]") {
        pos += 1
        return .array(items)
      }
      throw error("expected ',' or ']' after an array element")
    }
  }

  mutating func parseString() throws(JSONParseError) -> String {
    let start = pos
    pos += 1
    // Fast path: no escapes.
    var i = pos
    var high: UInt8 = 0  // the bytes or-ed: below 0x80 when all are ASCII
    while i < bytes.count {
      let c = bytes[i]
      if c == UInt8(ascii: "\"") {
        let s = try makeString(from: pos, to: i, start: start, ascii: high < 0x80)
        pos = i + 1
        return s
      }
      if c == UInt8(ascii: "\\") { break }
      if c < 0x20 { throw error("control character inside a string (escape it as \\u00XX)", at: i) }
      high |= c
      i += 1
    }
    var out: [UInt8] = []
    out.reserveCapacity(i - pos + 16)
    for k in pos..<i { out.append(bytes[k]) }
    pos = i
    while true {
      guard pos < bytes.count else { throw error("unterminated string", at: start) }
      let c = bytes[pos]
      if c == UInt8(ascii: "\"") {
        pos += 1
        guard let s = String(validating: out, as: UTF8.self) else {
          throw error("string is not valid UTF-8", at: start)
        }
        return s
      }
      if c < 0x20 { throw error("control character inside a string (escape it as \\u00XX)") }
      if c != UInt8(ascii: "\\") {
        out.append(c)
        pos += 1
        continue
      }
      pos += 1
      guard pos < bytes.count else { throw error("unterminated escape sequence") }
      let e = bytes[pos]
      pos += 1
      switch e {
      case UInt8(ascii: "\""): out.append(0x22)
      case UInt8(ascii: "\\"): out.append(0x5C)
      case UInt8(ascii: "/"): out.append(0x2F)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4()
        if scalar >= 0xD800 && scalar < 0xDC00 {
          guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u")
          else { throw error("unpaired UTF-16 surrogate in \\u escape") }
          pos += 2
          let low = try hex4()
          guard low >= 0xDC00 && low < 0xE000 else { throw error("invalid UTF-16 low surrogate") }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if scalar >= 0xDC00 && scalar < 0xE000 {
          throw error("unpaired UTF-16 surrogate in \\u escape")
        }
        guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
        out.append(contentsOf: Array(String(Character(u)).utf8))
      default:
        throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'", at: pos - 2)
      }
    }
  }

  mutating func hex4() throws(JSONParseError) -> UInt32 {
    guard pos + 4 <= bytes.count else { throw error("expected 4 hex digits after \\u") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let c = bytes[pos]
      let d: UInt32
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
      default: throw error("expected 4 hex digits after \\u")
      }
      v = v << 4 | d
      pos += 1
    }
    return v
  }

  /// The string of bytes `a..<b`, refused when not valid UTF-8. `ascii`: every byte is below
  /// 0x80, so the bytes are valid UTF-8 as they are and `String(decoding:)` takes them without
  /// the generic validation (`String(validating:)` is not specialized: ~900 instructions a string).
  func makeString(from a: Int, to b: Int, start: Int, ascii: Bool = false) throws(JSONParseError) -> String {
    let slice = UnsafeRawBufferPointer(rebasing: bytes[a..<b])
    if ascii { return slice.withMemoryRebound(to: UInt8.self) { String(decoding: $0, as: UTF8.self) } }
    guard let s = String(validating: slice, as: UTF8.self) else {
      throw error("string is not valid UTF-8", at: start)
    }
    return s
  }

  mutating func parseNumber() throws(JSONParseError) -> Double {
    let start = pos
    if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
    guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected a digit in the number", at: pos) }
    if bytes[pos] == UInt8(ascii: "0") {
      pos += 1
      if pos < bytes.count, isDigit(bytes[pos]) { throw error("leading zeros are not allowed in numbers", at: start) }
    } else {
      while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
    }
    if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
      pos += 1
      guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected a digit after the decimal point") }
      while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
    }
    if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
      pos += 1
      if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
      guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected a digit in the exponent") }
      while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
    }
    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
    guard let d = Double(text), d.isFinite else { throw error("number out of range", at: start) }
    return d
  }

  @inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
}
