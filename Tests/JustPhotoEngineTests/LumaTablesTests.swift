import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import PoseSpec
import Testing

/// The summed-area tables that make idle T1 ticks cheap (issue 12, H1) give exactly the
/// §2.11 pixel metrics of `PixelMetrics`, bit for bit, on pseudo-random planes and ROIs.
@Suite("Luma summed-area tables = PixelMetrics (ENGINE §2.11)")
struct LumaTablesTests {
  /// The module's drawn-input generator (`Support/SplitMix.swift`).
  typealias Mix = SplitMix

  @Test("every metric over 1–3 random rects equals PixelMetrics exactly", arguments: [(2, 2), (3, 3), (5, 4), (17, 31), (90, 160)])
  func tablesMatchDirectComputation(size: (Int, Int)) throws {
    let (w, h) = size
    var mix = Mix(state: UInt64(w * 1000 + h))
    // Values spread over the clip thresholds and with sharp steps (edges).
    let data = (0..<(w * h)).map { _ -> UInt8 in
      let r = mix.next() % 10
      return r < 2 ? 255 : r < 4 ? UInt8(mix.next() % 21) : UInt8(mix.next() % 256)
    }
    let plane = LumaFrame(frame: 1, w: w, h: h, data: data)
    let tables = try #require(LumaTables(plane))
    for _ in 0..<200 {
      let rois = (0..<(1 + Int(mix.next() % 3))).map { _ in
        Rect(x: mix.unit() * 1.2 - 0.1, y: mix.unit() * 1.2 - 0.1, w: mix.unit() * 0.9, h: mix.unit() * 0.9)
      }
      #expect(tables.meanLuma(rois) == PixelMetrics.meanLuma(plane, rois))
      #expect(tables.highlightClipPct(rois) == PixelMetrics.highlightClipPct(plane, rois))
      #expect(tables.shadowClipPct(rois) == PixelMetrics.shadowClipPct(plane, rois))
      #expect(tables.sobelEdgeDensity(rois) == PixelMetrics.sobelEdgeDensity(plane, rois))
    }
  }

  @Test("no tables for malformed planes or planes over pixelsMax (the direct path handles those)")
  func noTablesOutsideTheBound() {
    #expect(LumaTables(LumaFrame(frame: 1, w: 1 << 32, h: 1 << 32, data: [1, 2, 3, 4])) == nil)
    #expect(LumaTables(LumaFrame(frame: 1, w: 1, h: 4, data: [1, 2, 3, 4])) == nil)
    #expect(LumaTables(LumaFrame(frame: 1, w: 3, h: 3, data: [1])) == nil)
  }
}

/// `LumaTableCache` (issue 15 item 8): a recording's distinct planes turned into tables once
/// and shared by every replay of it; a replay with the cache is byte-identical to one without.
@Suite("Luma table cache shared by replays (ENGINE §2.11)")
struct LumaTableCacheTests {
  typealias F = Fixture

  /// A 90 × 160 plane: a bright face box at `faceLuma` on a `background` field, with a
  /// striped band (edges) whose phase is `stripes`.
  static func plane(faceLuma: UInt8, background: UInt8, stripes: Int = 0) -> LumaFrame {
    let (w, h) = (90, 160)
    var data = [UInt8](repeating: background, count: w * h)
    for y in 0..<h {
      for x in 0..<w {
        if x >= 35, x < 55, y >= 15, y < 40 { data[y * w + x] = faceLuma }
        if y >= 120, (x + stripes) % 4 < 2 { data[y * w + x] = 250 }
      }
    }
    return LumaFrame(frame: 0, w: w, h: h, data: data)
  }

  static let face = FaceObservation(
    bbox: Rect(x: 0.4, y: 0.1, w: 0.2, h: 0.15), conf: 0.95, leftEye: EyePoint(x: 0.46, y: 0.15),
    rightEye: EyePoint(x: 0.54, y: 0.15), noseTip: Point2(x: 0.5, y: 0.19), chin: Point2(x: 0.5, y: 0.24))

  /// Cafe, 6 s at 15 Hz with a face; a new plane every 400 ms cycling through four contents
  /// (so planes repeat, and repeat non-consecutively).
  static var events: [InputEvent] { events(planeEvery: 400) }

  /// The same session with a new plane every `planeEvery` ms.
  static func events(planeEvery: Int) -> [InputEvent] {
    let looks = [
      plane(faceLuma: 60, background: 200), plane(faceLuma: 120, background: 90, stripes: 1),
      plane(faceLuma: 240, background: 30, stripes: 2), plane(faceLuma: 100, background: 100),
    ]
    var events: [InputEvent] = (0..<90).map { k in
      InputEvent(
        t: F.t15(k),
        payload: .landmarks(LandmarkFrame(frame: Int64(k), body: F.subject(feetY: 0.9), faces: [face], people: 1)))
    }
    for (n, t) in stride(from: 0, to: 6_000, by: planeEvery).enumerated() {
      var p = looks[n % looks.count]
      p.frame = Int64(n)
      events.append(InputEvent(t: Millis(t), payload: .luma(p)))
    }
    // By time; at the same t the frame comes before the plane.
    return events.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
  }

  @Test("§2.11: a replay whose engine has the tables cached prints the same cue_eval (T1 pixel errors) and displays as one without")
  func cachedReplayIsIdentical() throws {
    let events = Self.events
    let planes = events.compactMap { e -> LumaFrame? in
      if case .luma(let l) = e.payload { return l }
      return nil
    }
    let cache = LumaTableCache(planes: planes, bytesMax: 1 << 30)
    #expect(cache.count == 4)
    #expect(cache.tableBytes == 4 * (4 * 4 * 91 * 161))  // four planes, four UInt32 tables each
    let plain = F.engine(scene: "cafe", traceMetrics: true)
    let cached = Engine(configuration: plain.configuration, compiled: nil, lumaTables: cache)
    let a = F.runWithTimers(plain, events, until: 6_000)
    let b = F.runWithTimers(cached, events, until: 6_000)
    // Not vacuous: T1 ticks judged the pixel cues on these planes, with different values.
    let t1 = a.filter { $0.fields["tier"] == "T1" }
    let errors = Set(t1.compactMap { $0.fields["cues"]?["CAFE_01_FACE_TOO_DARK"]?["error"]?.doubleValue })
    #expect(errors.count >= 3, "\(errors)")
    #expect(b.map { JSONWriter.write(.object($0.fields)) } == a.map { JSONWriter.write(.object($0.fields)) })
    #expect(b.map(\.t) == a.map(\.t))
  }

  @Test("look-ups match by content, not by storage; a plane the cache lacks is not matched; the byte bound holds")
  func lookUpByContent() throws {
    let p = Self.plane(faceLuma: 60, background: 200)
    let cache = LumaTableCache(planes: [p, p, Self.plane(faceLuma: 60, background: 200)], bytesMax: 1 << 30)
    #expect(cache.count == 1)
    // A copy in fresh storage, with another frame number, finds the same tables.
    let copy = LumaFrame(frame: 99, w: p.w, h: p.h, data: Array(p.data.map { $0 }))
    let hit = try #require(cache.tables(for: copy))
    let rois = [Rect(x: 0.3, y: 0.05, w: 0.4, h: 0.3)]
    #expect(hit.meanLuma(rois) == PixelMetrics.meanLuma(copy, rois))
    // One pixel different (not one of the sampled ones necessarily): no match.
    var other = copy
    other.data[other.data.count / 2 + 1] &+= 1
    #expect(cache.tables(for: other) == nil)
    #expect(cache.tables(for: LumaFrame(frame: 1, w: 160, h: 90, data: p.data)) == nil)
    // Within the bound: one plane's tables fit, two do not.
    let one = 4 * 4 * 91 * 161
    let bounded = LumaTableCache(
      planes: [p, Self.plane(faceLuma: 1, background: 2)], bytesMax: one + one / 2)
    #expect(bounded.count == 1)
    #expect(bounded.tableBytes == one)
    #expect(LumaTableCache(planes: [LumaFrame(frame: 1, w: 3, h: 3, data: [1])], bytesMax: 1 << 30).count == 0)
  }
}

/// Issue 38 item 1: a replay's planes share one size, so the engine writes each plane's tables
/// into the storage of the one before — no table allocation and no zeroing per plane — and the
/// tables (so the traces) are those of fresh storage.
@Suite("Luma tables reuse their storage (issue 38 item 1)")
struct LumaTableReuseTests {
  typealias F = Fixture

  @Test("tables written into reused storage equal PixelMetrics on every plane; a new size or shared storage gets new storage")
  func reusedStorageGivesTheSameMetrics() throws {
    var mix = LumaTablesTests.Mix(state: 38)
    var scratch: LumaTables.Storage? = nil
    var allocations = 0
    // Same size five times, then another size, then the first again.
    for (n, (w, h)) in [(17, 31), (17, 31), (17, 31), (17, 31), (17, 31), (20, 31), (17, 31)].enumerated() {
      let data = (0..<(w * h)).map { _ in UInt8(truncatingIfNeeded: mix.next() % 3 == 0 ? 255 : mix.next()) }
      let plane = LumaFrame(frame: Int64(n), w: w, h: h, data: data)
      let built = LumaTables.build(plane, reusing: &scratch)
      let tables = try #require(built.tables)
      if built.allocated { allocations += 1 }
      for _ in 0..<50 {
        let rois = [Rect(x: mix.unit() * 0.8, y: mix.unit() * 0.8, w: mix.unit() * 0.6 + 0.05, h: mix.unit() * 0.6 + 0.05)]
        #expect(tables.meanLuma(rois) == PixelMetrics.meanLuma(plane, rois))
        #expect(tables.highlightClipPct(rois) == PixelMetrics.highlightClipPct(plane, rois))
        #expect(tables.shadowClipPct(rois) == PixelMetrics.shadowClipPct(plane, rois))
        #expect(tables.sobelEdgeDensity(rois) == PixelMetrics.sobelEdgeDensity(plane, rois))
      }
    }
    // The first plane, the size change and the change back.
    #expect(allocations == 3)
    // Storage a `LumaTables` still holds is never rewritten: the next build gets its own.
    let plane = LumaFrame(frame: 9, w: 17, h: 31, data: [UInt8](repeating: 7, count: 17 * 31))
    let held = try #require(LumaTables.build(plane, reusing: &scratch).tables)
    let other = LumaFrame(frame: 10, w: 17, h: 31, data: [UInt8](repeating: 200, count: 17 * 31))
    let next = LumaTables.build(other, reusing: &scratch)
    #expect(next.allocated)
    let all = [Rect(x: 0, y: 0, w: 1, h: 1)]
    #expect(held.meanLuma(all) == PixelMetrics.meanLuma(plane, all))
    #expect(next.tables?.meanLuma(all) == PixelMetrics.meanLuma(other, all))
  }

  /// Replays `events` (timers fired in order up to 6 s) on `engine`, else a fresh cafe engine; returns it.
  static func replay(_ events: [InputEvent], on engine: Engine? = nil) -> Engine {
    var e = engine ?? F.engine(scene: "cafe", traceMetrics: true)
    var due: [TimerID: Millis] = [:]
    func apply(_ fx: Effects) {
      for r in fx.timers {
        switch r {
        case .schedule(let id, let at): due[id] = at
        case .cancel(let id): due[id] = nil
        }
      }
    }
    func fireDue(upTo t: Millis) {
      while let next = due.filter({ $0.value <= t }).min(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
        due[next.key] = nil
        apply(e.fire(next.key, at: next.value))
      }
    }
    apply(e.start())
    for ev in events {
      fireDue(upTo: ev.t)
      apply(e.handle(ev))
    }
    fireDue(upTo: 6_000)
    return e
  }

  @Test("a plane read at one T1 tick only is read directly: 15 planes, each read by at most one tick, build no tables")
  func aPlaneReadOnceGetsNoTables() {
    // A new plane every 400 ms, ticks every 500 ms: no plane is the latest at two ticks.
    let e = Self.replay(LumaTableCacheTests.events(planeEvery: 400))
    // Not vacuous: the ticks read pixel metrics (of most of the 15 planes).
    #expect(e.lumaDirectReads >= 10, "\(e.lumaDirectReads)")
    #expect(e.lumaReadTicks >= 1)
    // Before issue 38's lazy tables every read plane got tables (≥ 10 builds here).
    #expect(e.lumaTableBuilds == 0)
    #expect(e.lumaTableAllocations == 0)
  }

  /// A cafe engine that builds a plane's tables at the second tick that reads it
  /// (`lumaTablesWorkFactor` 0), as every engine did before the direct reads were weighed.
  static var eagerTables: Engine {
    var e = F.engine(scene: "cafe", traceMetrics: true)
    e.lumaTablesWorkFactor = 0
    return e
  }

  @Test("a plane read at several ticks gets its tables at the second (factor 0), into one storage for the replay; its trace is that of tables at every tick")
  func aPlaneReadTwiceGetsTables() throws {
    // A new plane every 2 s (0, 2, 4 s), ticks every 500 ms: each plane is read at up to four ticks.
    let events = LumaTableCacheTests.events(planeEvery: 2_000)
    let e = Self.replay(events, on: Self.eagerTables)
    #expect(e.lumaTableBuilds == 3, "\(e.lumaTableBuilds)")
    #expect(e.lumaTableAllocations == 1)
    #expect(e.lumaDirectReads >= 3, "\(e.lumaDirectReads)")
    // Direct reads (first tick of each plane) and table reads (later ticks) give the bits a
    // replay with every plane's tables cached (tables at every tick) gives.
    #expect(Self.expectTheTraceOfTablesAtEveryTick(events) >= 10)
  }

  @Test("planes read at two ticks each (1 Hz planes, 2 Hz ticks, as val-outdoor-walkabout) are read directly: no tables, the same trace")
  func planesReadAtTwoTicksGetNoTables() throws {
    let events = LumaTableCacheTests.events(planeEvery: 1_000)
    let e = Self.replay(events)
    // Not vacuous: six planes, each read at up to two ticks; second ticks happened.
    #expect(e.lumaDirectReads >= 10, "\(e.lumaDirectReads)")
    #expect(e.lumaReadTicks == 2)
    // Before the reads were weighed each plane got tables at its second tick (5 or 6 builds of
    // 14,400 pixels each, ~98 instructions a pixel, for two ticks of a few thousand pixels).
    #expect(Self.replay(events, on: Self.eagerTables).lumaTableBuilds >= 5)
    #expect(e.lumaTableBuilds == 0)
    #expect(e.lumaTableAllocations == 0)
    // The direct reads at every tick give the bits of tables at every tick.
    _ = Self.expectTheTraceOfTablesAtEveryTick(events)
  }

  /// Expects `events` replayed as they are to give the bits a replay with every plane's tables
  /// cached (tables at every tick) gives; returns the plain replay's number of T1 records.
  static func expectTheTraceOfTablesAtEveryTick(_ events: [InputEvent]) -> Int {
    let planes = events.compactMap { e -> LumaFrame? in
      if case .luma(let l) = e.payload { return l }
      return nil
    }
    let plain = F.engine(scene: "cafe", traceMetrics: true)
    let cached = Engine(configuration: plain.configuration, compiled: nil, lumaTables: LumaTableCache(planes: planes, bytesMax: 1 << 30))
    let a = F.runWithTimers(plain, events, until: 6_000)
    let b = F.runWithTimers(cached, events, until: 6_000)
    #expect(b.map { JSONWriter.write(.object($0.fields)) } == a.map { JSONWriter.write(.object($0.fields)) })
    return a.filter { $0.fields["tier"] == "T1" }.count
  }

  @Test("a plane held for many ticks gets its tables once its direct reads have summed lumaTablesWorkFactor times its pixels, once")
  func aPlaneHeldLongGetsTablesOnceTheReadsPaidForThem() throws {
    // One plane (90 × 160) for the whole 6 s: twelve ticks read it.
    let events = LumaTableCacheTests.events(planeEvery: 6_000)
    let pixels = 90 * 160
    // One tick's direct work, from a replay that never builds (factor past reach).
    var never = F.engine(scene: "cafe", traceMetrics: true)
    never.lumaTablesWorkFactor = 1_000_000
    let direct = Self.replay(events, on: never)
    #expect(direct.lumaTableBuilds == 0)
    let ticks = direct.lumaReadTicks
    #expect(ticks >= 10, "\(ticks)")
    #expect(direct.lumaDirectWork % ticks == 0)  // every tick reads the same ROIs of the same plane
    let perTick = direct.lumaDirectWork / ticks
    #expect(perTick > pixels / 4, "\(perTick)")
    // A factor the reads reach after 3 ticks: tables from the 4th tick on, built once.
    var engine = F.engine(scene: "cafe", traceMetrics: true)
    engine.lumaTablesWorkFactor = (3 * perTick) / pixels
    let e = Self.replay(events, on: engine)
    let readsBeforeTables = (0...).first { $0 * perTick >= engine.lumaTablesWorkFactor * pixels }!
    #expect(readsBeforeTables == 3 || readsBeforeTables == 2, "\(readsBeforeTables)")
    #expect(e.lumaTableBuilds == 1)
    #expect(e.lumaDirectWork == readsBeforeTables * perTick)
    #expect(e.lumaDirectReads == readsBeforeTables * (direct.lumaDirectReads / ticks))
    // The same trace as reading directly at every tick.
    var a = F.engine(scene: "cafe", traceMetrics: true)
    a.lumaTablesWorkFactor = 1_000_000
    var b = F.engine(scene: "cafe", traceMetrics: true)
    b.lumaTablesWorkFactor = engine.lumaTablesWorkFactor
    let la = F.runWithTimers(a, events, until: 6_000)
    let lb = F.runWithTimers(b, events, until: 6_000)
    #expect(lb.map { JSONWriter.write(.object($0.fields)) } == la.map { JSONWriter.write(.object($0.fields)) })
  }

  @Test("directWork: a mean or clip share costs its pooled pixels, a Sobel density 4 per interior pixel")
  func directWorkCountsPooledPixels() {
    let plane = LumaFrame(frame: 0, w: 10, h: 20, data: [UInt8](repeating: 9, count: 200))
    // [0, 5) × [0, 10) and the whole plane, pooled (not de-duplicated).
    let rois = [Rect(x: 0, y: 0, w: 0.5, h: 0.5), Rect(x: 0, y: 0, w: 1, h: 1)]
    #expect(PixelMetrics.directWork(.meanLuma, plane, rois) == 50 + 200)
    #expect(PixelMetrics.directWork(.shadowClipPct, plane, rois) == 250)
    #expect(PixelMetrics.directWork(.sobelEdgeDensity, plane, rois) == 4 * (3 * 8 + 8 * 18))
    // A malformed plane is read as nothing: no work.
    #expect(PixelMetrics.directWork(.meanLuma, LumaFrame(frame: 0, w: 10, h: 20, data: [1]), rois) == 0)
  }
}
