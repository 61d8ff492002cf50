import CanonicalJSON
import CoachEngine
@testable import Lab
@testable import Scenarios
import Testing


/// The streaming label collector (issue 12, C4/R1): `cue_eval` records become compact label
/// marks as the replay goes — one per change of a cue between holding (raw level warn/hard)
/// and not, a cue that never held getting none — written out as the label lines `record`
/// always wrote.
@Suite struct LabelOutputTests {
  static func eval(_ t: Int64, _ levels: [(String, String)]) -> TraceRecord {
    let cues = JSONObject(levels.map { JSONMember($0.0, .object(JSONObject([JSONMember("level", .string($0.1))]))) })
    return TraceRecord(t: t, out: "cue_eval", fields: JSONObject([JSONMember("cues", .object(cues))]))
  }

  @Test func changesOnlyInEvaluationOrder() throws {
    var out = LabelOutput()
    try out.emit(Self.eval(0, [("A", "warn"), ("B", "none")]))
    try out.emit(TraceRecord(t: 50, out: "cue_display", fields: JSONObject()))  // not a cue_eval: ignored
    try out.emit(Self.eval(100, [("A", "hard"), ("B", "warn")]))
    try out.emit(Self.eval(200, [("A", "none"), ("B", "none")]))
    try out.emit(Self.eval(300, [("A", "none"), ("B", "none")]))
    let labels = out.labels
    #expect(labels.cueIDs == ["A", "B"])
    #expect((0..<labels.marks.count).map(labels.line) == [
      #"{"t":0,"kind":"label","cue_id":"A","holds":true}"#,
      #"{"t":100,"kind":"label","cue_id":"B","holds":true}"#,
      #"{"t":200,"kind":"label","cue_id":"A","holds":false}"#,
      #"{"t":200,"kind":"label","cue_id":"B","holds":false}"#,
    ])
    #expect(!out.full)
  }
}
