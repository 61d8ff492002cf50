import CanonicalJSON
import JustPhotoPlugin
import Lab
import Replay
import Testing

/// `minimize --expect`: a matcher reads `KIND [key=value]…` for any engine's trace records;
/// Just Photo's grammar also takes `ID[/LEVEL]` (cue_id, or key for prompt; level).
@Suite("Trace matcher")
struct TraceMatcherTests {
  static func record(_ out: String, _ fields: JSONObject) -> TraceRecord { TraceRecord(t: 100, out: out, fields: fields) }

  @Test("Just Photo: ID/LEVEL names cue_id and level, a prompt's ID its key; key=value compares canonical text")
  func justPhoto() throws {
    let m = try TraceMatcher(parsing: "cue_display FRAME_MOVE_LEFT/hard")
    #expect(m.kind == "cue_display")
    #expect(m.matches(Self.record("cue_display", ["cue_id": "FRAME_MOVE_LEFT", "level": "hard"])))
    #expect(!m.matches(Self.record("cue_display", ["cue_id": "FRAME_MOVE_LEFT", "level": "warn"])))
    #expect(!m.matches(Self.record("cue_eval", ["cue_id": "FRAME_MOVE_LEFT", "level": "hard"])))
    let p = try TraceMatcher(parsing: "prompt write_failed_block op=shown")
    #expect(p.matches(Self.record("prompt", ["key": "write_failed_block", "op": "shown"])))
    #expect(!p.matches(Self.record("prompt", ["cue_id": "write_failed_block", "op": "shown"])))
    #expect(throws: HarnessFailure.self) { try TraceMatcher(parsing: "queue count=1") }
  }

  @Test("another engine: its kinds, key=value only; numbers, booleans and null by their canonical text")
  func otherEngine() throws {
    let grammar = TraceMatcher.Grammar.fields(kinds: ["queue", "undo", "photo"])
    let m = try TraceMatcher(parsing: "undo photo=IMG_0002 text_removed=true", grammar: grammar)
    #expect(m.matches(Self.record("undo", ["photo": "IMG_0002", "text_removed": true, "index": 1])))
    #expect(!m.matches(Self.record("undo", ["photo": "IMG_0002", "text_removed": false])))
    let n = try TraceMatcher(parsing: "photo index=null id=null", grammar: grammar)
    #expect(n.matches(Self.record("photo", ["id": .null, "index": .null])))
    #expect(n.matches(Self.record("photo", [:])))
    #expect(!n.matches(Self.record("photo", ["id": "IMG_0001", "index": 0])))
    let q = try TraceMatcher(parsing: "queue count=2", grammar: grammar)
    #expect(q.matches(Self.record("queue", ["count": 2])))
    #expect(!q.matches(Self.record("queue", ["count": 3])))
    for bad in ["cue_display X/hard", "queue IMG_0001", "9queue"] {
      #expect(throws: HarnessFailure.self, "\(bad)") { try TraceMatcher(parsing: bad, grammar: grammar) }
    }
    // Kinds not declared: any name is taken.
    #expect(try TraceMatcher(parsing: "anything x=1", grammar: .fields(kinds: [])).kind == "anything")
  }
}
