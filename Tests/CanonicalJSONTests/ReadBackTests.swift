import CanonicalJSON
import Testing

/// `JSONValue.readBack()` stands in for writing a value and parsing the text again (the
/// generator's events take that shortcut): it must give the parser's value to the bit, or
/// nil exactly when the parser refuses the text.
@Suite("reading a written value back without the text")
struct ReadBackTests {
  /// A small deterministic generator for the values below.
  struct Draws {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    mutating func number() -> Double {
      switch below(8) {
      case 0: return Double(bitPattern: next())  // any bits: NaN, ±inf, subnormals, huge
      case 1: return [0.0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.greatestFiniteMagnitude][below(7)]
      case 2: return Double(Int64(bitPattern: next()) >> below(64))  // integers, some beyond 2^53
      case 3: return Double(below(2_000_001) - 1_000_000) / 1_000_000  // landmark-like
      default: return Double(next() >> 11) * 0x1.0p-53 * Double(below(1000) + 1)
      }
    }

    mutating func string() -> String {
      let pieces = ["a", "é", "\"", "\\", "\n", "\u{0}", "\u{1F}", "/", "\u{2028}", "😀", "key", " "]
      return (0..<below(6)).map { _ in pieces[below(pieces.count)] }.joined()
    }

    mutating func value(depth: Int) -> JSONValue {
      switch depth > 3 ? below(4) : below(6) {
      case 0: return .null
      case 1: return .bool(below(2) == 0)
      case 2: return .number(number())
      case 3: return .string(string())
      case 4: return .array((0..<below(5)).map { _ in value(depth: depth + 1) })
      default:
        // Keys from a small set, so some objects name a key twice.
        let keys = ["t", "kind", "x", "y", "é"]
        return .object(JSONObject((0..<below(4)).map { _ in JSONMember(keys[below(keys.count)], value(depth: depth + 1)) }))
      }
    }
  }

  /// Equal with numbers compared by their bits (0 and -0 differ here).
  static func identical(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return x.bitPattern == y.bitPattern
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
    case (.object(let x), .object(let y)):
      return x.members.count == y.members.count
        && zip(x.members, y.members).allSatisfy { $0.key == $1.key && identical($0.value, $1.value) }
    default: return a == b
    }
  }

  @Test("for 20,000 drawn values, readBack is what parse(write(v)) gives, bit for bit, and nil exactly when parsing refuses")
  func readBackIsTheParsersValue() {
    var d = Draws(state: 29)
    var refused = 0
    var mismatches: [String] = []
    for _ in 0..<20_000 {
      let v = d.value(depth: 0)
      let parsed = try? JSONParser.parse(JSONWriter.write(v))
      let back = v.readBack()
      if parsed == nil { refused += 1 }
      switch (back, parsed) {
      case (nil, nil): continue
      case (let b?, let p?) where Self.identical(b, p): continue
      default: if mismatches.count < 5 { mismatches.append(JSONWriter.write(v)) }
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches)")
    #expect(refused > 0, "some drawn objects must name a key twice")
  }

  @Test("-0 reads back as 0, a non-finite number as null; a duplicate key or nesting past depthMax is nil")
  func theEdges() {
    #expect(Self.identical(JSONValue.number(-0.0).readBack()!, .number(0)))
    #expect(JSONValue.number(.nan).readBack() == .null)
    #expect(JSONValue.array([.number(-.infinity)]).readBack() == .array([.null]))
    #expect(JSONValue.object(JSONObject([JSONMember("a", 1), JSONMember("a", 2)])).readBack() == nil)
    func nested(_ n: Int) -> JSONValue { n == 0 ? .number(1) : .array([nested(n - 1)]) }
    #expect(nested(JSONParser.depthMax).readBack() != nil)
    #expect((try? JSONParser.parse(JSONWriter.write(nested(JSONParser.depthMax)))) != nil)
    #expect(nested(JSONParser.depthMax + 1).readBack() == nil)
    #expect((try? JSONParser.parse(JSONWriter.write(nested(JSONParser.depthMax + 1)))) == nil)
  }
}
