import CanonicalJSON
import CoachEngine
@testable import Lab
import PoseSpec
@testable import Scenarios
import Testing


/// The streaming label collector (issue 12, C4/R1): `cue_eval` records become compact label
/// marks as the replay goes — one per change of a cue between holding (raw level warn/hard)
/// and not, a cue that never held getting none — written out as the label lines `record`
/// always wrote.
@Suite struct LabelOutputTests {
  static func eval(_ levels: [(String, CueLevel)]) -> EngineOutput {
    .cueEval(.t1(tick: 1, scene: "cafe", entries: levels.map { CueEvalEntry(id: $0.0, level: $0.1) }))
  }

  @Test func changesOnlyInEvaluationOrder() throws {
    var out = LabelOutput()
    try out.emit(Self.eval([("A", .warn), ("B", .none)]), at: 0)
    // Not a cue_eval: ignored.
    try out.emit(.cueDisplay(CueDisplay(cueId: "A", level: .warn, reason: .none, mode: .noRef)), at: 50)
    try out.emit(Self.eval([("A", .hard), ("B", .warn)]), at: 100)
    try out.emit(Self.eval([("A", .none), ("B", .none)]), at: 200)
    try out.emit(Self.eval([("A", .none), ("B", .none)]), at: 300)
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
