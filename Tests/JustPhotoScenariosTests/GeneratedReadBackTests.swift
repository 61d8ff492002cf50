import CanonicalJSON
import Recording
import Testing

@testable import JustPhotoScenarios

/// A generated event is taken as its JSONL line reads back without writing and parsing the
/// text (issue 38 item 5: a sixth of `verify`'s CPU through the staleness check). The events
/// must be those the lines give: `ScenarioTests.everyCorpusScenarioGeneratesItsCommittedRecording`
/// checks the whole corpus against the committed files; here a busy scenario with labels
/// against its own JSONL text, and the two numbers that change when read back.
@Suite("generated events as their lines read back")
struct GeneratedReadBackTests {
  @Test func eventsEqualTheEventsOfTheirLines() throws {
    let s = try Scenario.parse(bytes: Array(StreamingGeneratorTests.busy.utf8), file: StreamingGeneratorTests.file)
    let direct = try s.generate().reader()
    let lines = try s.generate().reader()
    var jsonl = lines.headerLine + "\n"
    while let l = lines.nextLine() { jsonl += l + "\n" }
    let read = try JSONLReader(bytes: Array(jsonl.utf8), path: "t.jsonl")
    var n = 0
    while true {
      let a = try direct.nextEvent()
      let b = try read.next()
      n += 1
      #expect(a == b, "event \(n) differs")
      if a == nil || b == nil || a != b { break }
    }
    #expect(n > 100)
  }

  @Test func minusZeroAndNonFiniteNumbersReadBackAsTheTextGives() throws {
    let value: JSONValue = .object(["a": .number(-0.0), "b": .array([.number(.nan), .number(.infinity), .number(0.1)]), "c": .string("x")])
    let back = GeneratedReader.asReadBack(value)
    #expect(back == (try JSONParser.parse(JSONWriter.write(value))))
    #expect(back["a"]?.doubleValue?.sign == .plus)
    let plain: JSONValue = .object(["t": .number(33), "x": .number(0.123_456_789_012_345_67)])
    #expect(GeneratedReader.asReadBack(plain) == plain)
    #expect(GeneratedReader.asReadBack(plain) == (try JSONParser.parse(JSONWriter.write(plain))))
  }
}
