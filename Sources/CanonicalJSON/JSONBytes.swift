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

  /// Bytes appended as they are, from a buffer (a stretch of text kept as bytes).
  public mutating func raw(_ b: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: b) }

  /// `s` as a JSON string literal, escaped as `JSONWriter.appendString` escapes it.
  public mutating func string(_ s: String) {
    // The string's own UTF-8 (a small string's on the stack), without a mutable copy of it.
    if s.utf8.withContiguousStorageIfAvailable({ string(utf8: $0) }) != nil { return }
    var s = s
    s.withUTF8 { string(utf8: $0) }
  }

  /// The string literal of UTF-8 bytes `u`: a scan by index for a byte to escape, and when there
  /// is none (the usual case), the bytes in one append between the quotes.
  @inline(__always) mutating func string(utf8 u: UnsafeBufferPointer<UInt8>) {
    var i = 0
    while i < u.count {
      let b = u[i]
      if b < 0x20 || b == 0x22 || b == 0x5C { break }
      i += 1
    }
    bytes.append(0x22)
    if i == u.count {
      bytes.append(contentsOf: u)
      bytes.append(0x22)
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
    bytes.append(0x22)
  }

  /// Text appended as its UTF-8 bytes, as it is (a line another writer made).
  public mutating func text(_ s: String) {
    var s = s
    s.withUTF8 { bytes.append(contentsOf: $0) }
  }

  /// A number as `JSONWriter` prints it in `style`. A fixed-6 number in the range
  /// `JSONWriter.formatNumber` writes as micro-units is written digit by digit here (no
  /// `String`): the same text.
  public mutating func number(_ d: Double, _ style: JSONWriter.NumberStyle = .shortest) {
    if style == .fixed6, d.isFinite {
      let scaled = (d * 1_000_000).rounded(.toNearestOrAwayFromZero)
      if abs(scaled) < 9.0e15 { return micros(Int64(scaled)) }
    }
    var s = style == .fixed6 ? JSONWriter.formatNumber(d) : JSONWriter.shortest(d)
    s.withUTF8 { bytes.append(contentsOf: $0) }
  }

  /// `micros` / 10⁶ as `JSONWriter.formatNumber` writes it: the whole part, then up to six
  /// decimals without trailing zeros; 0 without a sign.
  mutating func micros(_ micros: Int64) {
    if micros == 0 { return bytes.append(0x30) }
    if micros < 0 { bytes.append(0x2D) }
    let m = micros.magnitude
    digits(m / 1_000_000, width: 0)
    var frac = m % 1_000_000
    guard frac != 0 else { return }
    var width = 6
    while frac % 10 == 0 {
      frac /= 10
      width -= 1
    }
    bytes.append(0x2E)
    digits(frac, width: width)
  }

  /// The decimal digits of `n`, zero-padded on the left to `width`: appended lowest first,
  /// then that stretch reversed in place (no temporary collection).
  mutating func digits(_ n: UInt64, width: Int) {
    let start = bytes.count
    var v = n
    repeat {
      bytes.append(0x30 + UInt8(truncatingIfNeeded: v % 10))
      v /= 10
    } while v > 0
    while bytes.count - start < width { bytes.append(0x30) }
    bytes.withUnsafeMutableBufferPointer { p in
      var i = start
      var j = p.count - 1
      while i < j {
        p.swapAt(i, j)
        i += 1
        j -= 1
      }
    }
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
      if !sortKeys {
        members(o.members, numbers: numbers)
      } else {
        let written = Self.withKeyOrder(o.members) { order in
          guard let order else { return false }
          for (n, i) in order.enumerated() {
            if n > 0 { bytes.append(0x2C) }
            key(o.members[i].key)
            self.value(o.members[i].value, sortKeys: true, numbers: numbers)
          }
          return true
        }
        // Equal keys: sorted as `JSONWriter` sorts them.
        if !written { members(o.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }, sortKeys: true, numbers: numbers) }
      }
      bytes.append(0x7D)
    }
  }
  /// `members` in the order given, comma-separated.
  mutating func members(_ members: [JSONMember], sortKeys: Bool = false, numbers: JSONWriter.NumberStyle) {
    for (i, m) in members.enumerated() {
      if i > 0 { bytes.append(0x2C) }
      key(m.key)
      value(m.value, sortKeys: sortKeys, numbers: numbers)
    }
  }

  /// Calls `body` with the positions of `members` in key order (UTF-8 byte order, what
  /// `JSONWriter`'s `sortKeys` sorts by), sorted by insertion in a temporary buffer (no heap
  /// allocation for an object's few keys); nil when two keys are equal (the caller sorts as
  /// `JSONWriter` does).
  ///
  /// Each key's first 8 UTF-8 bytes are read once into an integer (`keyPrefix`), and two keys
  /// are compared by those integers; only keys whose prefixes are equal are compared in full
  /// (`keyPrecedes`). Most keys differ in their first bytes, so an object of k keys costs k
  /// prefix reads and integer comparisons, not ~k²/4 string comparisons.
  @inlinable
  public static func withKeyOrder<R>(_ members: [JSONMember], _ body: (UnsafeBufferPointer<Int>?) throws -> R) rethrows -> R {
    try withKeyOrderAndPrefixes(members) { order, _ in try body(order) }
  }

  /// ``withKeyOrder(_:_:)`` that also hands `body` each member's ``keyPrefix(_:)`` (by member
  /// position, not by order), read once for the sort: a caller that merges keys of its own
  /// into the order compares with the prefixes first (``keyPrecedes(_:_:_:_:)``).
  @inlinable
  public static func withKeyOrderAndPrefixes<R>(
    _ members: [JSONMember], _ body: (UnsafeBufferPointer<Int>?, UnsafeBufferPointer<UInt64>) throws -> R
  ) rethrows -> R {
    try withUnsafeTemporaryAllocation(of: Int.self, capacity: members.count) { order in
      try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: members.count) { prefix in
        for i in members.indices { prefix[i] = keyPrefix(members[i].key) }
        let prefixes = UnsafeBufferPointer(rebasing: prefix[0..<members.count])
        var n = 0
        for i in members.indices {
          let p = prefix[i]
          var j = n
          while j > 0 {
            let o = order[j - 1]
            let q = prefix[o]
            if p < q || (p == q && keyPrecedes(members[i].key, members[o].key)) {
              order[j] = o
              j -= 1
            } else if p > q || keyPrecedes(members[o].key, members[i].key) {
              break
            } else {
              return try body(nil, prefixes)
            }
          }
          order[j] = i
          n += 1
        }
        return try body(UnsafeBufferPointer(rebasing: order[0..<n]), prefixes)
      }
    }
  }

  /// Whether `a` (whose ``keyPrefix(_:)`` is `pa`) precedes `b` (prefix `pb`) in UTF-8 byte
  /// order: the prefixes decide when they differ, else the keys in full (``keyPrecedes(_:_:)``).
  @inlinable
  public static func keyPrecedes(_ a: String, _ pa: UInt64, _ b: String, _ pb: UInt64) -> Bool {
    pa != pb ? pa < pb : keyPrecedes(a, b)
  }

  /// The first 8 UTF-8 bytes of `key`, big-endian, zero-padded: for two keys whose prefixes
  /// differ, `keyPrefix(a) < keyPrefix(b)` exactly when `a` precedes `b` in UTF-8 byte order
  /// (they differ at a byte both have, or the shorter one ends where the other has a byte
  /// above 0; a 0 byte there makes the prefixes equal, and equal prefixes are compared in full).
  @inlinable
  public static func keyPrefix(_ key: String) -> UInt64 {
    var key = key
    return key.withUTF8 { bytes in
      var p: UInt64 = 0
      var i = 0
      let n = Swift.min(bytes.count, 8)
      while i < n {
        p |= UInt64(bytes[i]) << UInt64(56 - 8 * i)
        i += 1
      }
      return p
    }
  }

  /// Whether `a` precedes `b` in UTF-8 byte order (`a.utf8.lexicographicallyPrecedes(b.utf8)`).
  @inlinable
  public static func keyPrecedes(_ a: String, _ b: String) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { x in
      b.withUTF8 { y in
        let n = Swift.min(x.count, y.count)
        var i = 0
        while i < n {
          if x[i] != y[i] { return x[i] < y[i] }
          i += 1
        }
        return x.count < y.count
      }
    }
  }
}
