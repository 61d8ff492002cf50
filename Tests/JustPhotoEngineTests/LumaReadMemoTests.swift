import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import Replay
import Testing

/// `LumaReadMemo` (issue 38 item 2): pixel reads remembered across replays of the same events
/// instead of a study-long cache of summed-area tables. A replay with a memo is byte-identical
/// to one without; a second replay reads no pixel; no plane gets tables; the bounds hold.
@Suite("Luma read memo shared by replays (issue 38 item 2)")
struct LumaReadMemoTests {
  typealias F = Fixture

  static func lines(_ records: [TraceRecord]) -> [String] { records.map { "\($0.t) " + JSONWriter.write(.object($0.fields)) } }

  @Test("a replay with a memo prints the trace of one without; a second replay with it computes no pixel read, every read a hit")
  func secondReplayReadsNoPixels() throws {
    for every in [400, 2_000] {  // planes read at one tick each, and at up to four ticks each
      let events = LumaTableCacheTests.events(planeEvery: every)
      let plain = F.engine(scene: "cafe", traceMetrics: true)
      let memo = LumaReadMemo(readsMax: 10_000)
      let withMemo = Engine(configuration: plain.configuration, compiled: nil, lumaMemo: memo)
      let a = Self.lines(F.runWithTimers(plain, events, until: 6_000))
      #expect(Self.lines(F.runWithTimers(withMemo, events, until: 6_000)) == a, "planes every \(every) ms")
      let computed = memo.computed
      let hits = memo.hits
      // Not vacuous: the ticks read pixel metrics of several planes.
      #expect(computed >= 6, "\(computed)")
      #expect(memo.kept == computed)
      #expect(Self.lines(F.runWithTimers(withMemo, events, until: 6_000)) == a, "planes every \(every) ms, again")
      #expect(memo.computed == computed, "the second replay read pixels (planes every \(every) ms)")
      #expect(memo.hits == hits + computed + hits)
    }
  }

  @Test("with a memo a plane read at several ticks gets no tables (the memo answers its later reads)")
  func noTablesWithAMemo() {
    let events = LumaTableCacheTests.events(planeEvery: 2_000)
    // Without one: three planes, each read at up to four ticks, get tables at their second
    // when the engine builds eagerly (LumaTableReuseTests).
    #expect(LumaTableReuseTests.replay(events, on: LumaTableReuseTests.eagerTables).lumaTableBuilds == 3)
    let memo = LumaReadMemo(readsMax: 10_000)
    let plain = F.engine(scene: "cafe", traceMetrics: true)
    let e = LumaTableReuseTests.replay(events, on: Engine(configuration: plain.configuration, compiled: nil, lumaMemo: memo))
    #expect(e.lumaTableBuilds == 0)
    #expect(e.lumaTableAllocations == 0)
    #expect(memo.planes == 3)
    #expect(memo.hits > 0)
  }

  @Test("past readsMax reads are computed and not kept; the trace is unchanged")
  func boundHolds() {
    let events = LumaTableCacheTests.events(planeEvery: 400)
    let plain = F.engine(scene: "cafe", traceMetrics: true)
    let memo = LumaReadMemo(readsMax: 2)
    let withMemo = Engine(configuration: plain.configuration, compiled: nil, lumaMemo: memo)
    let a = Self.lines(F.runWithTimers(plain, events, until: 6_000))
    #expect(Self.lines(F.runWithTimers(withMemo, events, until: 6_000)) == a)
    #expect(Self.lines(F.runWithTimers(withMemo, events, until: 6_000)) == a)
    #expect(memo.kept == 2)
    let first = memo.computed
    #expect(Self.lines(F.runWithTimers(withMemo, events, until: 6_000)) == a)
    // Each later replay computes all but the two kept reads again.
    #expect(memo.computed > first)
  }

  @Test("a plane is matched by content: the same pixels in another array and frame number share one slot")
  func slotByContent() {
    let memo = LumaReadMemo(readsMax: 10)
    let p = LumaTableCacheTests.plane(faceLuma: 60, background: 200)
    var q = LumaFrame(frame: 7, w: p.w, h: p.h, data: Array(p.data.reversed().reversed()))
    #expect(memo.slot(for: p) === memo.slot(for: q))
    q.data[0] &+= 1
    #expect(memo.slot(for: p) !== memo.slot(for: q))
    #expect(memo.planes == 2)
  }
}
