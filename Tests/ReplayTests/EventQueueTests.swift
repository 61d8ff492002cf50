import EngineIO
import Replay
import Testing

@Suite("Event queue order (ENGINE §1.3.3)")
struct EventQueueTests {
  func drain(_ q: inout EventQueue) -> [String] {
    var out: [String] = []
    while let item = q.pop() {
      switch item {
      case .timer(let id, let due): out.append("\(id.name)@\(due)")
      case .input(let e): out.append("in:\(e.kindName)@\(e.t)")
      case .synthesized(let e): out.append("syn:\(e.kindName)@\(e.t)")
      }
    }
    return out
  }

  @Test func timersDueAtAnInstantRunBeforeInputsOfThatInstant() {
    var q = EventQueue()
    q.push(input: event(100, .shutter_tap))
    q.schedule(TimerID("t0"), at: 100)
    q.schedule(TimerID("early"), at: 40)
    #expect(drain(&q) == ["early@40", "t0@100", "in:shutter_tap@100"])
  }

  @Test func timersWithEqualDueFireInCreationOrder() {
    var q = EventQueue()
    q.schedule(TimerID("zeta"), at: 200)
    q.schedule(TimerID("alpha"), at: 200)
    q.schedule(TimerID("mid"), at: 200)
    #expect(drain(&q) == ["zeta@200", "alpha@200", "mid@200"])
  }

  @Test func inputsWithEqualTimeKeepFileOrder() {
    var q = EventQueue()
    q.push(input: event(10, .voiceover, ["enabled": true]))
    q.push(input: event(10, .shutter_tap))
    q.push(input: event(10, .network, ["status": "satisfied"]))
    #expect(drain(&q) == ["in:voiceover@10", "in:shutter_tap@10", "in:network@10"])
  }

  @Test func reschedulingReplacesTheDueTime() {
    var q = EventQueue()
    q.schedule(TimerID("a"), at: 100)
    q.schedule(TimerID("b"), at: 150)
    q.schedule(TimerID("a"), at: 300)
    #expect(drain(&q) == ["b@150", "a@300"])
  }

  @Test func aRescheduleCountsAsANewCreationForTies() {
    var q = EventQueue()
    q.schedule(TimerID("a"), at: 100)
    q.schedule(TimerID("b"), at: 100)
    q.schedule(TimerID("a"), at: 100)
    #expect(drain(&q) == ["b@100", "a@100"])
  }

  @Test func cancelRemovesATimerAndCancellingTwiceIsHarmless() {
    var q = EventQueue()
    q.schedule(TimerID("a"), at: 100)
    q.schedule(TimerID("b"), at: 120)
    q.cancel(TimerID("a"))
    q.cancel(TimerID("a"))
    q.cancel(TimerID("never"))
    #expect(q.pendingTimers.map(\.id.name) == ["b"])
    #expect(drain(&q) == ["b@120"])
    #expect(q.isEmpty)
    q.schedule(TimerID("c"), at: 1)
    q.cancel(TimerID("c"))
    #expect(q.isEmpty && q.pop() == nil)
  }

  @Test func scheduleAfterCancelRevivesTheTimer() {
    var q = EventQueue()
    q.schedule(TimerID("a"), at: 100)
    q.cancel(TimerID("a"))
    q.schedule(TimerID("a"), at: 90)
    #expect(drain(&q) == ["a@90"])
  }

  @Test func synthesizedResultsComeAfterRecordedInputsOfTheSameInstant() {
    var q = EventQueue()
    q.push(synthesized: event(50, .thumb_result, ["shot": 1, "ok": true]))
    q.push(input: event(50, .thumb_result, ["shot": 1, "ok": false]))
    q.schedule(TimerID("t"), at: 50)
    #expect(q.peek() == .timer(TimerID("t"), due: 50))
    #expect(q.peekTime() == 50)
    #expect(drain(&q) == ["t@50", "in:thumb_result@50", "syn:thumb_result@50"])
    #expect(q.isEmpty)
  }

  @Test func pendingTimersAreListedInFiringOrder() {
    var q = EventQueue()
    q.schedule(TimerID("late"), at: 900)
    q.schedule(TimerID("soon"), at: 10)
    q.schedule(TimerID("tie"), at: 900)
    #expect(
      q.pendingTimers.map { "\($0.id.name)@\($0.due)" } == ["soon@10", "late@900", "tie@900"])
    _ = q.pop()
    #expect(q.pendingTimers.map(\.id.name) == ["late", "tie"])
  }
}
