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
}
