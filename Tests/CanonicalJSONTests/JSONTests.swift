import CanonicalJSON
import Testing

@Suite("JSON parser and writer")
struct JSONTests {
  @Test func keepsMemberOrderAndSortsOnRequest() throws {
    let v = try JSONParser.parse(#"{"b":1,"a":[true,null,-0.5e1,"x\/y\u00e9\n"],"c":{"z":1.25,"y":0.1}}"#)
    #expect(JSONWriter.write(v) == #"{"b":1,"a":[true,null,-5,"x/yé\n"],"c":{"z":1.25,"y":0.1}}"#)
    #expect(
      JSONWriter.write(v, sortKeys: true) == #"{"a":[true,null,-5,"x/yé\n"],"b":1,"c":{"y":0.1,"z":1.25}}"#)
  }

  @Test func fixedPrecisionNumbersForTraces() {
    #expect(JSONWriter.formatNumber(2.0833333333) == "2.083333")
    #expect(JSONWriter.formatNumber(-0.0000001) == "0")
    #expect(JSONWriter.formatNumber(-0.0) == "0")
    #expect(JSONWriter.formatNumber(0.15) == "0.15")
    #expect(JSONWriter.formatNumber(-3) == "-3")
    #expect(JSONWriter.formatNumber(0.0000015) == "0.000002")
    #expect(JSONWriter.formatNumber(1_770_860_211_520) == "1770860211520")
    #expect(JSONWriter.formatNumber(.nan) == "null")
  }

  @Test func shortestNumbersRoundTrip() throws {
    for d in [0.1 + 0.2, 1e-7, 123456.789, -2.5, 1.0 / 3.0, 65535.0 / 65536.0] {
      #expect(try JSONParser.parse(JSONWriter.write(.number(d))) == .number(d))
    }
  }

  @Test func errorsNameLineAndColumn() {
    #expect(throws: JSONParseError.self) { try JSONParser.parse("{\n  \"a\": [1,\n 2") }
    do {
      _ = try JSONParser.parse("{\n  \"a\": [1,\n 2")
    } catch {
      #expect(error.line == 3)
      #expect(error.message.contains("ends here"))
    }
    do {
      _ = try JSONParser.parse("{\"a\" 1}")
    } catch {
      #expect(error.line == 1)
      #expect(error.column == 6)
      #expect(error.message.contains("':'"))
    }
    #expect(throws: JSONParseError.self) { try JSONParser.parse("[01]") }
    #expect(throws: JSONParseError.self) { try JSONParser.parse("{} x") }
    #expect(throws: JSONParseError.self) { try JSONParser.parse("\"\\ud800\"") }
    #expect(throws: JSONParseError.self) { try JSONParser.parse(String(repeating: "[", count: 600)) }
  }

  @Test func sha256KnownAnswers() {
    #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      SHA256.hex([UInt8](repeating: 97, count: 1000))
        == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    // FIPS 180-4's two-block message.
    #expect(
      SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }

  /// The incremental digest is the one-shot digest whatever the pieces: empty, shorter than a
  /// block, straddling blocks, many blocks at once, from an array, a slice or a lazy sequence.
  @Test func sha256IncrementalPieces() {
    let message = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    let whole = SHA256.digest(message)
    for sizes in [[0, 1000], [1, 63, 64, 65, 807], [63, 1, 936], [200, 0, 800], [7, 7, 7, 979]] {
      var hasher = SHA256.Hasher()
      var at = 0
      for (i, n) in sizes.enumerated() {
        let piece = message[at..<at + n]
        if i % 3 == 0 { hasher.update(piece) } else if i % 3 == 1 { hasher.update(Array(piece)) } else { hasher.update(piece.lazy.map { $0 }) }
        at += n
      }
      #expect(hasher.finalize() == whole, "pieces \(sizes)")
    }
  }
}

extension JSONTests {
  /// Issue 38 item 4: a string without escapes whose bytes are all ASCII is taken as it is
  /// (`String(decoding:)`); one with a byte above 0x7F is still validated, so bad UTF-8 is
  /// refused at the string's opening quote whether or not ASCII comes first.
  @Test("strings: ASCII taken as is, other bytes validated as UTF-8, bad UTF-8 refused")
  func stringsAsciiAndUTF8() throws {
    func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue { try JSONParser.parse(bytes: bytes) }
    #expect(try parse(Array(#"["", "a", "photo-00042", "~\u007f"]"#.utf8)) == ["", "a", "photo-00042", "~\u{7F}"])
    #expect(try parse(Array(#"{"é": "中文 🙂", "k": "x é"}"#.utf8)) == .object(["é": "中文 🙂", "k": "x é"]))
    // A key and a value long enough not to be small strings.
    let long = String(repeating: "abcdefghij", count: 5)
    #expect(try parse(Array("{\"\(long)\": \"\(long)é\"}".utf8)) == .object([long: .string(long + "é")]))
    for bad: [UInt8] in [[0xFF], [0x61, 0xC3], [0x61, 0x62, 0x80, 0x63], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] {
      let text: [UInt8] = Array(#"{"k": ""#.utf8) + bad + Array(#""}"#.utf8)
      #expect(throws: JSONParseError.self, "\(bad)") { try parse(text) }
      do { _ = try parse(text) } catch {
        #expect(error.message == "string is not valid UTF-8" && error.offset == 6, "\(bad): \(error)")
      }
    }
  }
}
