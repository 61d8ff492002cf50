import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import Replay
import Testing


/// The noRef pipeline end to end through `Engine.handle` (ENGINE §3.15, §7).
@Suite("Engine noRef pipeline (ENGINE §3.15, §7)")
struct EngineNoRefTests {
  typealias F = Fixture

  func cue(_ record: TraceRecord, _ id: String) -> JSONObject? { F.cueEval(record, id) }

  /// S04's input: the subject 0.15 right of centre for `count` frames at 15 Hz.
  func rightOfCentre(_ count: Int = 10) -> [InputEvent] { F.frames(0..<count) { _ in F.subject(dx: 0.15) } }

  @Test("S04 (§3.5, §3.9): cx=+0.15 → FRAME_MOVE_LEFT/hard shown at t=200 with the first variant")
  func s04() {
    let out = F.run(F.engine(scene: "cafe"), rightOfCentre())
    #expect(
      F.lines(out) == [
        "200 cue_display FRAME_MOVE_LEFT/hard none noRef",
        "200 script_card FRAME_MOVE_LEFT v0 FRAME_MOVE_LEFT 提示 v0 | FRAME_MOVE_LEFT en v0 frozen=false",
      ])
    #expect(!out.contains { $0.out == "cue_eval" })
  }

  @Test("S04 with the project PoseSpec: same timing, the project's own first variant")
  func s04ProjectSpec() {
    #expect(
      F.lines(F.run(F.engine(F.project), rightOfCentre())) == [
        "200 cue_display FRAME_MOVE_LEFT/hard none noRef",
        "200 script_card FRAME_MOVE_LEFT v0 向左挪一步 | Step a little to the left frozen=false",
      ])
  }

  @Test("§2.2: thresholds and persistFrames come from the spec — editing them changes the output")
  func thresholdEdits() throws {
    let softer = try F.referenceEdited {
      F.setCue("FRAME_MOVE_LEFT", ["trigger", "noRef", "hard"], .object([">": 0.2]), in: &$0)
    }
    #expect(
      F.lines(F.run(F.engine(softer), rightOfCentre())).first == "200 cue_display FRAME_MOVE_LEFT/warn none noRef")
    let quiet = try F.referenceEdited {
      F.setCue("FRAME_MOVE_LEFT", ["trigger", "noRef", "hard"], .object([">": 0.2]), in: &$0)
      F.setCue("FRAME_MOVE_LEFT", ["trigger", "noRef", "warn"], .object([">": 0.16]), in: &$0)
    }
    #expect(F.lines(F.run(F.engine(quiet), rightOfCentre())) == [])
    let slower = try F.referenceEdited { F.setCue("FRAME_MOVE_LEFT", ["antiJitter", "persistFrames"], 6, in: &$0) }
    #expect(
      F.lines(F.run(F.engine(slower), rightOfCentre())).first == "333 cue_display FRAME_MOVE_LEFT/hard none noRef")
  }

  @Test("S06 with praise disabled (§3.5, §3.9, §3.10): exit, hold until 3200, cooldown until 4000, second variant")
  func s06() throws {
    let events = F.frames(0..<70) { k in F.subject(dx: (21..<54).contains(k) ? 0.0 : 0.15) }
    let noPraise = try F.referenceEdited { F.setPath(false, ["praisePolicy", "enabled"], in: &$0) }
    let out = F.run(F.engine(noPraise, traceMetrics: true), events)
    #expect(
      F.lines(out) == [
        "200 cue_display FRAME_MOVE_LEFT/hard none noRef",
        "200 script_card FRAME_MOVE_LEFT v0 FRAME_MOVE_LEFT 提示 v0 | FRAME_MOVE_LEFT en v0 frozen=false",
        "3200 cue_display null/none none noRef",
        "3200 script_card null vnull null | null frozen=false",
        "4000 cue_display FRAME_MOVE_LEFT/hard none noRef",
        "4000 script_card FRAME_MOVE_LEFT v1 FRAME_MOVE_LEFT 提示 v1 | FRAME_MOVE_LEFT en v1 frozen=false",
      ])
    let evals = out.filter { $0.out == "cue_eval" }
    let crossed = evals.filter { cue($0, "FRAME_MOVE_LEFT")?["reason"] == "exit_crossed" }.map(\.t)
    #expect(crossed == [1600])  // the 4th exit frame
    let cooldown = evals.filter { $0.fields["gate"]?["reason"] == "cooldown" }.map(\.t)
    #expect(cooldown == [3600, 3667, 3733, 3800, 3867, 3933])
  }

  @Test("§3.9: the gate waits for the persistFrames of the incoming cue, not of the shown one")
  func persistFramesOfInput() throws {
    // LEFT shown at 200; from frame 46 (t=3067) the subject is centred but low: LEFT exits,
    // FRAME_MOVE_UP (error 0.2, eff 5) outranks it and is shown once the hold is over and it
    // has been selected persistFrames times: 4 frames → t=3267; with UP at 8 frames → t=3533.
    let events = F.frames(0..<60) { k in k < 46 ? F.subject(dx: 0.15) : F.subject(dy: 0.2) }
    #expect(F.lines(F.run(F.engine(), events))[2] == "3267 cue_display FRAME_MOVE_UP/hard none noRef")
    // (Praise disabled: LEFT's exit at 3267 would freeze the card while LEFT is still shown.)
    let slowUp = try F.referenceEdited {
      F.setCue("FRAME_MOVE_UP", ["antiJitter", "persistFrames"], 8, in: &$0)
      F.setPath(false, ["praisePolicy", "enabled"], in: &$0)
    }
    let lines = F.lines(F.run(F.engine(slowUp), events))
    #expect(lines[2] == "3533 cue_display FRAME_MOVE_UP/hard none noRef")
    #expect(lines[3] == "3533 script_card FRAME_MOVE_UP v0 FRAME_MOVE_UP 提示 v0 | FRAME_MOVE_UP en v0 frozen=false")
  }

  @Test("§3.9: minHoldMs and cooldownMs are the shown cue's values from the spec")
  func holdAndCooldownFromSpec() throws {
    let events = F.frames(0..<70) { k in F.subject(dx: (21..<54).contains(k) ? 0.0 : 0.15) }
    let quick = try F.referenceEdited {
      F.setCue("FRAME_MOVE_LEFT", ["antiJitter", "minHoldMs"], 1000, in: &$0)
      F.setCue("FRAME_MOVE_LEFT", ["antiJitter", "cooldownMs"], 0, in: &$0)
    }
    // Exit crossed at 1600; 4 nil selections → cleared at 1800; back from 3600, shown at 3800.
    let shown = F.lines(F.run(F.engine(quick), events)).filter { $0.contains("cue_display") }
    #expect(
      shown == [
        "200 cue_display FRAME_MOVE_LEFT/hard none noRef", "1800 cue_display null/none none noRef",
        "3800 cue_display FRAME_MOVE_LEFT/hard none noRef",
      ])
  }

  @Test("S07 (§3.3, §3.5): in the dead-band the cue stays shown, no exit")
  func s07() {
    let events = F.frames(0..<64) { k in F.subject(dx: k < 4 ? 0.15 : 0.06) }
    #expect(F.lines(F.run(F.engine(), events)).count == 2)  // the t=200 display and card only
  }

}
