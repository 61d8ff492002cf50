import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import JustPhotoPlugin
@testable import Replay
import Testing

/// The trace vocabulary is shared: `TraceRender` writes every field as a `TraceField` and
/// `TraceLine` reads every field as one, so writer and reader cannot spell a name differently.
/// These tests catch the remaining way to drift: a view asking for a field the writer does not
/// write for that kind (the view then reads nil, which each expectation below rejects).
@Suite("trace line reader")
struct TraceLineTests {
  /// The writer's line for `output`, read back as a reader sees it (through the canonical text).
  static func readBack(_ output: EngineOutput, at t: Millis = 100) throws -> TraceLine {
    let text = TraceFormat.line(TraceRecord(output, at: t))
    let line = try #require(TraceLine(line: try JSONParser.parse(text)))
    #expect(line.kind == output.kind)
    return line
  }

  @Test("cue_display: the view reads the cue and level the writer wrote")
  func cueDisplay() throws {
    let line = try Self.readBack(.cueDisplay(CueDisplay(cueId: "FRAME_MOVE_LEFT", level: .hard, reason: .none, mode: .noRef)))
    #expect(line.cueDisplay?.cueId == "FRAME_MOVE_LEFT" && line.cueDisplay?.level == "hard")
    #expect(line.shownCue == .some("FRAME_MOVE_LEFT"))
    #expect(!line.clearsCue)
    let cleared = try Self.readBack(.cueDisplay(CueDisplay(cueId: nil, level: .none, reason: .none, mode: .noRef)))
    #expect(cleared.clearsCue)
    #expect(cleared.shownCue == .some(nil))
    #expect(line.praiseOn == nil && line.prompt == nil && line.cueEvalT0 == nil)
  }

  @Test("script_card: a cleared card reads as clearing its cue")
  func scriptCard() throws {
    let shown = try Self.readBack(.scriptCard(ScriptCardLine(cueId: "TORSO_STRAIGHTEN", variant: 1, zh: "z", en: "e", frozen: false)))
    #expect(shown.shownCue == .some("TORSO_STRAIGHTEN") && shown.cueId == "TORSO_STRAIGHTEN")
    let cleared = try Self.readBack(.scriptCard(ScriptCardLine(cueId: nil, variant: nil, zh: nil, en: nil, frozen: false)))
    #expect(cleared.clearsCue && cleared.cueDisplay == nil)
  }

  @Test("praise: on and off read as written")
  func praise() throws {
    #expect(try Self.readBack(.praise(PraiseLine(state: .on, trigger: "match", dimension: "framing"))).praiseOn == true)
    #expect(try Self.readBack(.praise(PraiseLine(state: .off, trigger: "match", dimension: "framing", offReason: "timeout"))).praiseOn == false)
  }

  @Test("effect: the correlation fields read as written")
  func effect() throws {
    let line = try Self.readBack(.effect(.photokitWrite(shot: 3, attempt: 2)))
    let e = try #require(line.effect)
    #expect(e.kind == "photokit_write" && e.shot == 3 && e.attempt == 2)
  }

  @Test("cue_eval T0: frame, entry, gate and thresholds read as written; T1 is not a T0 view")
  func cueEval() throws {
    let entry = CueEvalEntry(
      id: "FRAME_MOVE_LEFT", level: .warn, error: 0.08, state: "active:warn",
      thresholds: .init())
    let gate = CueEvalGate(
      cueId: "FRAME_MOVE_LEFT", level: .warn, reason: .none, input: "FRAME_MOVE_LEFT", stableFrames: 2, persistFrames: 3,
      heldMs: 400, minHoldMs: 800, cooldownUntil: 1500)
    let t0 = CueEvalT0(frame: 42, scene: "cafe", mode: .noRef, entries: [entry], unsupported: [], ranked: [], gate: gate)
    let view = try #require(try Self.readBack(.cueEval(.t0(t0))).cueEvalT0)
    #expect(view.frame?.int64Value == 42)
    let e = try #require(view.entry("FRAME_MOVE_LEFT"))
    #expect(e[.level]?.stringValue == "warn" && e[.state]?.stringValue == "active:warn" && e[.error]?.doubleValue == 0.08)
    #expect(e[.thresholds]?.objectValue != nil)
    #expect(view.hasGate)
    #expect(view.gate[.cue_id]?.stringValue == "FRAME_MOVE_LEFT" && view.gate[.input]?.stringValue == "FRAME_MOVE_LEFT")
    #expect(view.gate[.stable_frames]?.int64Value == 2 && view.gate[.persist_frames]?.int64Value == 3)
    #expect(view.gate[.held_ms]?.int64Value == 400 && view.gate[.min_hold_ms]?.int64Value == 800)
    #expect(view.gate[.cooldown_until]?.int64Value == 1500 && view.gate[.level]?.stringValue == "warn")
    #expect(try Self.readBack(.cueEval(.t1(tick: 1, scene: "cafe", entries: []))).cueEvalT0 == nil)
  }

  @Test("every field the writer writes is a TraceField (no name outside the vocabulary)")
  func writerSpeaksTheVocabulary() throws {
    let known = Set(TraceField.allCases.map(\.rawValue))
    for kind in OutputKind.allCases where ![.prompt, .posespec, .reference].contains(kind) {
      let fields = TraceRecord(TraceKindsTests.sample(kind), at: 0).fields
      #expect(Set(fields.keys).isSubset(of: known), "\(kind): \(fields.keys)")
    }
  }
}
