import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoPlugin
import Replay
import Testing

@Suite("Replayer on a virtual clock")
struct ReplayerTests {
  @Test func startsAtZeroAndFiresTimersAtTheirDueTimeBetweenInputs() throws {
    var engine = ScriptedEngine()
    engine.onStart = { Effects(timers: [.schedule(TimerID("t0"), at: 67)]) }
    engine.onFire = { id, now in
      // A periodic tick re-arms itself every 67 ms.
      Effects(
        outputs: [freeOutput(["tick": .string(id.name)])],
        timers: [.schedule(id, at: now + 67)])
    }
    let r = try replay(engine, [event(100, .shutter_tap), event(150, .shutter_tap)])
    #expect(r.log == ["start", "fire t0@67", "shutter_tap@100", "fire t0@134", "shutter_tap@150"])
    #expect(r.records.map(\.t) == [67, 134])
    #expect(r.summary.endMs == 150)
    #expect(r.summary.timersFired == 2)
    #expect(r.summary.pendingTimers == [PendingTimer(id: TimerID("t0"), due: 201)])
  }

  @Test func durationInTheHeaderExtendsTheReplayAndLaterTimersArePending() throws {
    var engine = ScriptedEngine()
    engine.onStart = {
      Effects(timers: [.schedule(TimerID("warmup"), at: 3000), .schedule(TimerID("ttl"), at: 9000)])
    }
    let r = try replay(engine, [event(100, .camera_ready)], header: ["duration_ms": 5000])
    #expect(r.log == ["start", "camera_ready@100", "fire warmup@3000"])
    #expect(r.summary.endMs == 5000)
    #expect(r.summary.pendingTimers.map(\.id.name) == ["ttl"])
  }

  @Test func aTimerDueExactlyAtTheEndStillFires() throws {
    var engine = ScriptedEngine()
    engine.onStart = {
      Effects(timers: [.schedule(TimerID("at-end"), at: 100), .schedule(TimerID("after"), at: 101)])
    }
    let r = try replay(engine, [event(0, .shutter_tap)], header: ["duration_ms": 100])
    #expect(r.log == ["start", "shutter_tap@0", "fire at-end@100"])
    #expect(r.summary.pendingTimers == [PendingTimer(id: TimerID("after"), due: 101)])
  }

  @Test func aTimerScheduledForNowRunsBeforeTheNextInputOfTheSameInstant() throws {
    var engine = ScriptedEngine()
    engine.onHandle = { e in
      e.kind == .rotation ? Effects(timers: [.schedule(TimerID("now"), at: e.t)]) : Effects()
    }
    let r = try replay(
      engine, [event(50, .rotation, ["orientation": "left"]), event(50, .shutter_tap)])
    #expect(r.log == ["start", "rotation@50", "fire now@50", "shutter_tap@50"])
  }

  @Test func aTimerScheduledInThePastFiresAtOnceWithoutTurningTheClockBack() throws {
    var engine = ScriptedEngine()
    engine.onHandle = { e in
      e.kind == .shutter_tap ? Effects(timers: [.schedule(TimerID("late"), at: 40)]) : Effects()
    }
    let r = try replay(
      engine, [event(100, .shutter_tap), event(100, .camera_ready), event(120, .camera_ready)])
    #expect(
      r.log == [
        "start", "shutter_tap@100", "fire late@100", "camera_ready@100", "camera_ready@120",
      ])
  }

  @Test func cancelledTimersNeverFire() throws {
    var engine = ScriptedEngine()
    engine.onStart = { Effects(timers: [.schedule(TimerID("hold"), at: 500)]) }
    engine.onHandle = { _ in Effects(timers: [.cancel(TimerID("hold"))]) }
    let r = try replay(engine, [event(200, .shutter_tap), event(800, .shutter_tap)])
    #expect(!r.log.contains("fire hold@500"))
    #expect(r.summary.timersFired == 0)
  }

  @Test func labelsNeverReachTheEngine() throws {
    let r = try replay(
      ScriptedEngine(),
      [
        event(10, .label, ["cue_id": "FRAME_MOVE_LEFT", "holds": true]), event(20, .shutter_tap),
        event(30, .label),
      ])
    #expect(r.log == ["start", "shutter_tap@20"])
    #expect(r.summary.labelsSkipped == 2)
    #expect(r.summary.inputs == 1)
    // The label still counts for the end of the replay.
    #expect(r.summary.endMs == 30)
  }

  @Test func eventsGoingBackInTimeAreBadInput() {
    #expect {
      try replay(ScriptedEngine(), [event(100, .shutter_tap), event(99, .shutter_tap)])
    } throws: { error in
      guard case .badInput(let e) = error as? ReplayError else { return false }
      return e.t == 99 && e.message.contains("back in time")
    }
  }

  @Test func anEventAfterTheDeclaredDurationIsBadInput() {
    #expect {
      try replay(ScriptedEngine(), [event(100, .shutter_tap)], header: ["duration_ms": 50])
    } throws: { error in
      guard case .badInput(let e) = error as? ReplayError else { return false }
      return e.message.contains("duration_ms=50")
    }
  }

  @Test func aRunawayTimerIsStoppedWithAHarnessError() {
    var engine = ScriptedEngine()
    engine.onStart = { Effects(timers: [.schedule(TimerID("spin"), at: 5)]) }
    engine.onFire = { id, now in Effects(timers: [.schedule(id, at: now)]) }
    #expect {
      try replay(
        engine, [event(10, .shutter_tap)], options: ReplayOptions(maxFiringsPerInstant: 100))
    } throws: { error in
      guard case .harness(let h) = error as? ReplayError else { return false }
      return h.issues.first?.kind == .timerLoop && h.issues.first?.t == 5
    }
  }

  @Test func stopAfterCutsTheReplayWithoutEndChecks() throws {
    var engine = ScriptedEngine()
    engine.onHandle = { e in Effects(outputs: [effectRequest(e.t, "capture_photo", ["shot": 1])]) }
    let r = try replay(
      engine, [event(100, .shutter_tap), event(900, .shutter_tap)],
      options: ReplayOptions(stopAfterMs: 500))
    #expect(r.log == ["start", "shutter_tap@100"])
    #expect(r.summary.stoppedEarly)
  }

  @Test func sameInputsGiveTheSameCallsEveryRun() throws {
    var engine = ScriptedEngine()
    engine.onStart = {
      Effects(timers: [.schedule(TimerID("b"), at: 10), .schedule(TimerID("a"), at: 10)])
    }
    engine.onFire = { id, now in
      id.name == "a"
        ? Effects(timers: [
          .schedule(TimerID("c"), at: now + 5), .schedule(TimerID("d"), at: now + 5),
        ]) : Effects()
    }
    let events = [event(10, .shutter_tap), event(15, .shutter_tap)]
    let first = try replay(engine, events).log
    #expect(
      first == [
        "start", "fire b@10", "fire a@10", "shutter_tap@10", "fire c@15", "fire d@15",
        "shutter_tap@15",
      ])
    for _ in 0..<5 { #expect(try replay(engine, events).log == first) }
  }
}

/// An event the engine refuses (a recording that bypassed `import`) stops the replay as bad
/// input naming the recording and the event's time; it is never skipped.
@Suite struct RefusedEventTests {
  @Test func aRefusedEventIsBadInputAtItsTime() throws {
    var engine = ScriptedEngine()
    engine.onHandle = { e in
      guard e.kind == .thermal else { return Effects() }
      return Effects(
        refused: EventDecodingError(kind: .thermal, field: "state", #"field "state": expected one of "nominal", found "warm""#))
    }
    var source = InMemoryEventSource(
      header: JSONObject(),
      events: [event(10, .shutter_tap), event(250, .thermal, ["state": "warm"]), event(300, .shutter_tap)])
    var output = CollectingOutput()
    var replayer = Replayer(engine: engine, options: ReplayOptions())
    #expect {
      try replayer.run(&source, into: &output, recording: "run.jprec")
    } throws: { error in
      guard case .badInput(let e) = error as? ReplayError else { return false }
      return e.t == 250 && e.description == #"run.jprec: at t=250: event thermal: field "state": expected one of "nominal", found "warm""#
    }
  }
}
