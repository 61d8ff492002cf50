import Testing
import JustPhotoPlugin
@testable import Verify


/// Grouping divergences across the corpus (issue 14): a one-frame shift is one group,
/// whether it rounds to 66 or 67 ms.
@Suite("divergence shifts in frames")
struct DivergenceShiftTests {
  @Test("shifts of whole 15 Hz frames read in frames; others in ms")
  func frames() {
    #expect(DivergenceGroup.movedText(67) == "moved +1 frame (15 Hz)")
    #expect(DivergenceGroup.movedText(66) == "moved +1 frame (15 Hz)")
    #expect(DivergenceGroup.movedText(-133) == "moved -2 frames (15 Hz)")
    #expect(DivergenceGroup.movedText(33) == "moved +33 ms")
    #expect(DivergenceGroup.movedText(500) == "moved +500 ms")
  }
}

/// Divergence kinds (issue 28.4): a shift beyond `TraceDiffer.movedFramesMax` frames is a
/// change of behaviour, not a move; every group names its cue, a clear the cue it cleared.
@Suite("divergence classification")
struct DivergenceClassificationTests {
  static func line(_ t: Int64, _ cue: String?, _ level: String = "hard") -> String {
    let id = cue.map { "\"\($0)\"" } ?? "null"
    return #"{"cue_id":\#(id),"level":"\#(level)","out":"cue_display","t":\#(t)}"# + "\n"
  }

  static func first(_ golden: String, _ replay: String) throws -> Divergence {
    try #require(try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(golden: golden, replay: replay).divergence)
  }

  @Test("10 frames (667 ms) is a move; 11 frames and a cue at 200 ms instead of 4,667 ms are changed, and group as such")
  func boundOfAMove() throws {
    #expect(TraceDiffer.movedFramesMax == 10 && TraceDiffer.movedMsMax == 667)
    let ten = try Self.first(Self.line(1000, "A"), Self.line(1667, "A"))
    #expect(ten.kind == .moved(byMs: 667))
    let eleven = try Self.first(Self.line(1000, "A"), Self.line(1733, "A"))
    #expect(eleven.kind == .changed([FieldChange(field: "t", golden: "1000", replay: "1733")]))
    let early = try Self.first(Self.line(4667, "FRAME_MOVE_LEFT"), Self.line(200, "FRAME_MOVE_LEFT"))
    #expect(early.t == 200)
    #expect(early.kind == .changed([FieldChange(field: "t", golden: "4667", replay: "200")]))
    #expect(early.explanation.contains("more than 10 frames: not a move"))
    let (cue, kind, shape) = DivergenceGroup.signature(early)
    #expect(cue == "FRAME_MOVE_LEFT" && kind == "cue_display")
    #expect(shape == "changed: more than 10 frames earlier")
    #expect(!DivergenceGroup.signature(eleven).2.contains("moved"))
    #expect(DivergenceGroup.signature(ten).2 == "moved +10 frames (15 Hz)")
  }

  @Test("a clear names the cue it cleared, missing or extra; a prompt names its key; a level change its cue")
  func groupsNameTheirCue() throws {
    let shown = Self.line(1000, "FRAME_MOVE_LEFT")
    // The golden clears at 5200; the replay never clears.
    let neverClears = try Self.first(shown + Self.line(5200, nil, "none"), shown)
    #expect(neverClears.kind == .missingInReplay)
    #expect(neverClears.cueIDs == ["FRAME_MOVE_LEFT"])
    #expect(DivergenceGroup.signature(neverClears).0 == "FRAME_MOVE_LEFT")
    // The replay clears where the golden does not.
    let clearsEarly = try Self.first(shown, shown + Self.line(3000, nil, "none"))
    #expect(clearsEarly.kind == .extraInReplay)
    #expect(DivergenceGroup.signature(clearsEarly).0 == "FRAME_MOVE_LEFT")
    let level = try Self.first(shown, Self.line(1000, "FRAME_MOVE_LEFT", "warn"))
    #expect(DivergenceGroup.signature(level) == ("FRAME_MOVE_LEFT", "cue_display", "level hard → warn"))
    let prompt = #"{"key":"write_failed","op":"shown","out":"prompt","t":1200}"# + "\n"
    let p = try Self.first(shown, shown + prompt)
    #expect(DivergenceGroup.signature(p).0 == "write_failed")
    // A record about no cue: the cue on screen at its time is named for the explanation.
    #expect(p.cuesOnScreen == ["FRAME_MOVE_LEFT"])
    let groups = DivergenceGroup.groups(of: [])
    #expect(groups.isEmpty)
  }
}
