import CanonicalJSON
import Testing

/// `JSONBytes` (the byte-buffer writer of `export --mcap`'s messages) writes the bytes
/// `JSONWriter` writes for the same value: escapes, numbers in both styles, key order.
@Suite("JSONBytes")
struct JSONBytesTests {
  static let values: [JSONValue] = [
    .null, true, false, 0, -0.0, 1, -3, 0.1, .number(0.1 + 0.2), 1e-7, 2.0833333333, -0.0000001, 0.0000015,
    9_007_199_254_740_992, 1e300, -1e-300, .number(.nan), .number(.infinity), 1_770_860_211_520,
    "", "plain", "quote \" backslash \\ slash /", "tab\tnewline\ncr\rbs\u{08}ff\u{0C}nul\u{0}esc\u{1B}us\u{1F}",
    "é 中文 🙂 \u{7F}", [], [1, "a", [nil, true]],
    .object(["b": 1, "a": .object(["x": 0.5, "\u{1}k\"": "v"]), "é": [], "": .object([:])]),
  ]

  @Test("every value, sorted or not, in either number style: JSONWriter's bytes")
  func sameBytesAsTheWriter() {
    for v in Self.values {
      for sortKeys in [false, true] {
        for numbers in [JSONWriter.NumberStyle.shortest, .fixed6] {
          var out = JSONBytes()
          out.value(v, sortKeys: sortKeys, numbers: numbers)
          #expect(out.text == JSONWriter.write(v, sortKeys: sortKeys, numbers: numbers), "\(v) sorted \(sortKeys) \(numbers)")
          #expect(out.bytes == Array(JSONWriter.write(v, sortKeys: sortKeys, numbers: numbers).utf8))
        }
      }
    }
  }

  @Test("the pieces: string, key, number, optional number, raw; removeAll keeps the storage")
  func pieces() {
    var out = JSONBytes(capacity: 64)
    out.raw("{")
    out.key("a\"b")
    out.number(0.25)
    out.raw(",\"n\":")
    out.number(nil as Double?)
    out.byte(0x2C)
    out.key("f")
    out.number(2.0833333333, .fixed6)
    out.raw("}")
    #expect(out.text == #"{"a\"b":0.25,"n":null,"f":2.083333}"#)
    let capacity = out.bytes.capacity
    out.removeAll()
    #expect(out.count == 0 && out.bytes.capacity == capacity)
    out.string("\u{1}")
    #expect(out.text == #""\u0001""#)
  }

  /// Issue 38 item 4: fixed-6 numbers are written digit by digit; the text is
  /// `JSONWriter.formatNumber`'s for integers, fractions, roundings, both signs, the edges of
  /// the micro-unit range and what lies beyond it.
  @Test("fixed-6 numbers digit by digit: JSONWriter.formatNumber's text")
  func fixedNumbersAsTheWriter() {
    var values: [Double] = [
      0, -0.0, 1, -1, 9, 10, 99, 100, 0.1, 0.25, -0.000001, 0.0000005, -0.0000005, 0.0000004, 1.0000005,
      123456.000001, 8_999_999_999.999_999, 9_000_000_000, 9e15, -9e15, 9.007e15, 1e300, .nan, .infinity, -.infinity,
      .leastNonzeroMagnitude, 2.0833333333, 1_770_860_211_520,
    ]
    var x = 0.000123
    for _ in 0..<60 {
      values += [x, -x, x.rounded(), (x * 7).rounded(.down) / 7]
      x *= 3.7
    }
    for v in values {
      var out = JSONBytes()
      out.number(v, .fixed6)
      #expect(out.text == JSONWriter.formatNumber(v), "\(v)")
    }
  }

  @Test("key order: insertion order of a temporary index, nil on equal keys")
  func keyOrder() {
    let object: JSONObject = ["b": 1, "a": 2, "é": 3, "B": 4, "": 5]
    let members = object.members
    let order = JSONBytes.withKeyOrder(members) { $0.map(Array.init) }
    #expect(order.map { $0.map { members[$0].key } } == ["", "B", "a", "b", "é"])
    #expect(JSONBytes.withKeyOrder(JSONObject([JSONMember("a", 1), JSONMember("a", 2)]).members) { $0 == nil })
    #expect(JSONBytes.keyPrecedes("out", "outx") && !JSONBytes.keyPrecedes("t", "t") && JSONBytes.keyPrecedes("Z", "a"))
  }

  /// Keys drawn to defeat the 8-byte prefixes the ordering compares first: long shared
  /// prefixes, prefixes of one another, NUL bytes (which pad like the end of a key), bytes
  /// above 0x7F, and equal keys.
  @Test("key order by 8-byte prefixes: UTF-8 byte order on 3,000 drawn objects, nil exactly when two keys are equal")
  func keyOrderByPrefixes() {
    var state: UInt64 = 38
    func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    let stems = ["", "a", "abcdefg", "abcdefgh", "abcdefghi", "timestamp", "timestamps", "t", "out", "é", "中"]
    let tails = ["", "\u{0}", "\u{0}\u{0}", "a", "b", "\u{7F}", "é", "🙂", "x\u{0}y"]
    var equalSeen = 0
    var orderedSeen = 0
    for _ in 0..<3_000 {
      let count = Int(next() % 9)
      let keys = (0..<count).map { _ in stems[Int(next() % UInt64(stems.count))] + tails[Int(next() % UInt64(tails.count))] }
      let members = keys.enumerated().map { JSONMember($0.element, .number(Double($0.offset))) }
      let order = JSONBytes.withKeyOrder(members) { $0.map { Array($0) } }
      if Set(keys).count < keys.count {
        #expect(order == nil, "\(keys)")
        equalSeen += 1
      } else {
        let expected = keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
        #expect(order == expected, "\(keys)")
        orderedSeen += 1
      }
      // The variant with prefixes: the same order, each member's prefix, and the comparison by
      // prefix first (what TraceFormat merges `out` and `t` with) is UTF-8 byte order.
      let (order2, prefixes) = JSONBytes.withKeyOrderAndPrefixes(members) { ($0.map { Array($0) }, Array($1)) }
      #expect(order2 == order && prefixes == keys.map(JSONBytes.keyPrefix), "\(keys)")
      for (a, b) in zip(keys, keys.dropFirst()) + [("out", keys.first ?? ""), (keys.last ?? "", "t")] {
        let precedes = JSONBytes.keyPrecedes(a, JSONBytes.keyPrefix(a), b, JSONBytes.keyPrefix(b))
        #expect(precedes == a.utf8.lexicographicallyPrecedes(b.utf8), "\(a.debugDescription) \(b.debugDescription)")
      }
    }
    // Not vacuous: both outcomes, many times.
    #expect(equalSeen > 100 && orderedSeen > 1_000)
    #expect(JSONBytes.keyPrefix("abcdefgh") == JSONBytes.keyPrefix("abcdefghi"))
    #expect(JSONBytes.keyPrefix("a") == JSONBytes.keyPrefix("a\u{0}"))
    #expect(JSONBytes.keyPrefix("a") < JSONBytes.keyPrefix("a\u{1}"))
  }
}
