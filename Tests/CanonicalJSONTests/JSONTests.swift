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
  }
}
