import CanonicalJSON
import EngineIO
import JustPhotoPlugin
import Replay
import Testing

/// A reader's error reaches exit code 2 wrapped once (issue 13): the replayer turns the
/// `RecordingError` an `EventSource` throws into one `BadInputError` that names the recording,
/// the time and the reader's place — not the file twice, not the message nested three deep.
@Suite("EventSource errors: one wrap on the way to exit 2")
struct SourceErrorTests {
  /// Events, then an error.
  struct FailingSource: EventSource {
    var header = JSONObject()
    var events: [InputEvent]
    var error: RecordingError

    mutating func next() throws(RecordingError) -> InputEvent? {
      if events.isEmpty { throw error }
      return events.removeFirst()
    }
  }

  static func failure(_ error: RecordingError, recording: String) throws -> BadInputError {
    var source = FailingSource(events: [event(40, .shutter_tap)], error: error)
    var output = CollectingOutput()
    var replayer = Replayer(engine: ScriptedEngine())
    do {
      _ = try replayer.run(&source, into: &output, recording: recording)
    } catch {
      guard case .badInput(let e) = error else {
        Issue.record("expected bad input, got \(error)")
        throw error
      }
      return e
    }
    Issue.record("the replay did not fail")
    return BadInputError(message: "")
  }

  @Test("an error about the recording itself keeps its place; the file is named once")
  func sameFileNamedOnce() throws {
    let e = try Self.failure(
      RecordingError(file: "walk.jsonl", place: "line 7", "field \"t\": expected an integer"),
      recording: "walk.jsonl")
    #expect(e.recording == "walk.jsonl")
    #expect(e.t == 40)
    #expect(e.description == "walk.jsonl: at t=40: cannot read the next event: line 7: field \"t\": expected an integer")
  }

  @Test("an error about another file (or without a place) keeps its whole description")
  func otherFileKeepsItsName() throws {
    let other = try Self.failure(
      RecordingError(file: "walk.scenario.yaml (generated)", place: "line 3", "bad frame"),
      recording: "walk.scenario.yaml")
    #expect(other.description
      == "walk.scenario.yaml: at t=40: cannot read the next event: walk.scenario.yaml (generated): line 3: bad frame")
    let placeless = try Self.failure(RecordingError(file: "walk.jprec", "truncated"), recording: "walk.jprec")
    #expect(placeless.description == "walk.jprec: at t=40: cannot read the next event: walk.jprec: truncated")
  }
}
