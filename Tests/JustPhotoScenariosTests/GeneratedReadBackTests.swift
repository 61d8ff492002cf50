import EngineIO
import CanonicalJSON
import Foundation
import JustPhotoIO
import Recording
import Testing

@testable import JustPhotoScenarios

/// A generated recording's events skip their JSONL text (`JSONValue.readBack`): they must be
/// the events that writing each line and reading it as `import` does would give.
@Suite("generated events without their text")
struct GeneratedReadBackTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Every event of `recording` read both ways: `nextEvent` against each `nextLine` parsed
  /// and checked like an imported line. Returns the number of events compared.
  static func compareBothWays(_ recording: GeneratedRecording) throws -> Int {
    let fast = try recording.reader()
    let text = try recording.reader()
    var n = 0
    var lastT: Int64 = 0
    while true {
      let a = try fast.nextEvent()
      guard let line = text.nextLine() else {
        #expect(a == nil, "the event reader has event \(n + 1) after the last line")
        return n
      }
      let b = try JSONLReader.checkedEvent(
        try JSONParser.parse(line), file: text.path, line: text.lineNumber, lastT: lastT, durationMs: nil, eventCount: n, definitions: JustPhotoEvents.self)
      lastT = b.t
      n += 1
      let got = try #require(a, "line \(n + 1) has no event")
      #expect(got == b && JSONLEventEncoder.line(got) == JSONLEventEncoder.line(b), "event \(n) differs")
      if got != b { return n }
    }
  }

  @Test("a luma scenario and one with ground-truth labels give the same events as their lines")
  func sameEventsAsTheLines() throws {
    let dir = Self.root.appendingPathComponent("Recordings").path
    let luma = try Scenario.load(path: "\(dir)/s12-scene-switch.scenario.yaml")
    #expect(try Self.compareBothWays(luma.generate()) > 10)
    let drift = try Scenario.load(path: "\(dir)/drift-left-and-back.scenario.yaml")
    let labels = GeneratedLabels(
      cueIDs: ["FRAME_MOVE_LEFT", "FRAME_MOVE_RIGHT"],
      marks: [.init(t: 0, cue: 0, holds: true), .init(t: 1200, cue: 1, holds: false, since: 900), .init(t: 1200, cue: 0, holds: false)])
    #expect(try Self.compareBothWays(GeneratedRecording(scenario: drift, labels: labels)) > 10)
  }

  /// A busy scenario (StreamingGeneratorTests.busy) read both ways: its events straight
  /// against the events `JSONLReader` reads from its whole JSONL text.
  @Test func eventsEqualTheEventsOfTheirLines() throws {
    let s = try Scenario.parse(bytes: Array(StreamingGeneratorTests.busy.utf8), file: StreamingGeneratorTests.file)
    let direct = try s.generate().reader()
    let lines = try s.generate().reader()
    var jsonl = lines.headerLine + "\n"
    while let l = lines.nextLine() { jsonl += l + "\n" }
    let read = try JSONLReader(bytes: Array(jsonl.utf8), path: "t.jsonl", definitions: JustPhotoEvents.self)
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
}
