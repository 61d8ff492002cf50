import EngineIO
import JustPhotoIO
import Lab
import Testing

/// `minimize` (issue 14): the stages of ``Minimizer`` on synthetic properties (no replay), so
/// what each stage keeps is exact.
@Suite("Minimizer stages")
struct MinimizerTests {
  static func tap(_ t: Millis) -> InputEvent {
    InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .shutter_tap, fields: [:])))
  }
  static func label(_ t: Millis) -> InputEvent {
    InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .label, fields: ["cue_id": "X", "level": "warn"])))
  }
  static func session(_ times: [Millis], labels: Bool = true) -> Minimizer.Candidate {
    var events = times.map(tap)
    if labels { events.insert(label(0), at: 0) }
    return Minimizer.Candidate(header: ["duration_ms": 120_000, "name": "synthetic"], events: events)
  }

  @Test("the behaviour needs two taps 200 ms apart in one short window: everything else goes, the header says the new duration")
  func oneShortWindow() throws {
    // 1 tap a second for 2 minutes; the "bug" needs the taps at 61,000 and 61,200.
    var times = Array(stride(from: Millis(0), to: 120_000, by: 1000))
    times.append(61_200)
    times.sort()
    let original = Self.session(times)
    let m = Minimizer { c in
      let ts = Set(c.events.filter { $0.kind == .shutter_tap }.map(\.t))
      // Shift-invariant: some pair of taps 200 ms apart.
      return ts.contains { ts.contains($0 + 200) }
    }
    let out = try m.run(original)
    #expect(out.minimized.events.map(\.t) == [0, 200])  // moved to t = 0
    #expect(out.minimized.durationMs == 200)
    #expect(out.minimized.events.allSatisfy { $0.kind == .shutter_tap })
    #expect(Double(out.minimized.events.count) <= Double(original.events.count) * 0.10)
    // Deterministic.
    #expect(try m.run(original).minimized == out.minimized)
  }

  @Test("an absolute-time property keeps the original times and cuts the end at the last needed event")
  func absoluteTimesStay() throws {
    let original = Self.session(Array(stride(from: Millis(0), to: 20_000, by: 500)), labels: false)
    let m = Minimizer { c in c.events.contains { $0.t == 7_500 } && c.durationMs >= 7_500 }
    let out = try m.run(original)
    #expect(out.minimized.events.map(\.t) == [7_500])
    #expect(out.minimized.durationMs == 7_500)
  }

  static func launch(_ t: Millis) -> InputEvent {
    InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: .app_launch, fields: [:])))
  }

  /// A long session: a launch at 0, a "setup" tap at 100, then a tap every 200 ms for
  /// `seconds` (5 a second, like a long recording's inputs).
  static func long(seconds: Millis) -> Minimizer.Candidate {
    var events = [launch(0)]
    events += stride(from: Millis(100), through: seconds * 1000, by: 200).map(tap)
    return Minimizer.Candidate(header: ["duration_ms": .number(Double(seconds * 1000)), "name": "long"], events: events)
  }

  /// Plain ddmin over single events (the last stage alone, without the cuts): a 1-minimal
  /// reference the staged result must not be larger than.
  static func plainDDMin(_ c: Minimizer.Candidate, _ holds: (Minimizer.Candidate) -> Bool) -> [InputEvent] {
    let r = DeltaDebugging.minimize(Array(c.events.indices), testsMax: 100_000) { kept in
      holds(Minimizer.Candidate(header: c.header, events: kept.map { c.events[$0] }))
    }
    return r.subset.map { c.events[$0] }
  }

  /// True when removing any single event makes `holds` false.
  static func oneMinimal(_ c: Minimizer.Candidate, _ holds: (Minimizer.Candidate) -> Bool) -> Bool {
    c.events.indices.allSatisfy { i in
      var events = c.events
      events.remove(at: i)
      return !holds(Minimizer.Candidate(header: c.header, events: events))
    }
  }

  @Test("a behaviour needing the launch, its setup and one late event: the cuts leave just those, in O(log n) checks")
  func lateEventNeeded() throws {
    // 5,001 events over 1,000 s; the "bug" needs the launch, the setup tap at 100 and the tap
    // at 900,100 (absolute times: nothing may move).
    let original = Self.long(seconds: 1000)
    #expect(original.events.count == 5_001)
    var evaluated: [(stage: String, first: InputEvent?, count: Int)] = []
    var current: Minimizer.Candidate? = nil
    let holds: (Minimizer.Candidate) -> Bool = { c in
      c.events.first?.kind == .app_launch && c.events.contains { $0.t == 100 } && c.events.contains { $0.t == 900_100 }
    }
    let m = Minimizer(progress: { p in evaluated.append((p.stage, current?.events.first, current?.events.count ?? 0)) }) { c in
      current = c
      return holds(c)
    }
    let out = try m.run(original)
    #expect(out.minimized.events.map(\.t) == [0, 100, 900_100])
    #expect(Self.oneMinimal(out.minimized, holds))
    // Two binary searches over ~5,000 events (≤ 14 checks each) plus the setup probe, then
    // ddmin over 3 events: far below one check per event.
    #expect(out.tests <= 60, "\(out.tests) checks")
    // The head cut never proposes a candidate without the leading launch.
    let head = evaluated.filter { $0.stage == "cut head" }
    #expect(!head.isEmpty)
    #expect(head.allSatisfy { $0.first?.kind == .app_launch })
    // The staged result is no larger than plain ddmin's on a shorter copy (plain ddmin is
    // quadratic in the worst case: 60 s of the same session).
    let short = Self.long(seconds: 60)
    let shortHolds: (Minimizer.Candidate) -> Bool = { c in
      c.events.first?.kind == .app_launch && c.events.contains { $0.t == 100 } && c.events.contains { $0.t == 50_100 }
    }
    let staged = try Minimizer(property: shortHolds).run(short).minimized
    #expect(staged.events.count <= Self.plainDDMin(short, shortHolds).count)
    #expect(staged.events.map(\.t) == [0, 100, 50_100])
  }

  @Test("a behaviour early in a long session: the tail goes in O(log n) checks, the result is 1-minimal and no larger than plain ddmin's")
  func tailIrrelevant() throws {
    // Taps at 2,100, 2,300 and 7,100 together make the "bug"; anything after 7.1 s is noise.
    let needed: Set<Millis> = [2_100, 2_300, 7_100]
    let holds: (Minimizer.Candidate) -> Bool = { c in needed.isSubset(of: Set(c.events.map(\.t))) }
    let original = Self.long(seconds: 600)
    let out = try Minimizer(property: holds).run(original)
    #expect(out.minimized.events.map(\.t) == [2_100, 2_300, 7_100])
    #expect(out.minimized.durationMs == 7_100)
    #expect(Self.oneMinimal(out.minimized, holds))
    #expect(out.tests <= 120, "\(out.tests) checks")
    // Plain ddmin on the first 20 s gives a repro of the same size (it is the same set).
    let short = Self.long(seconds: 20)
    let reference = Self.plainDDMin(short, holds)
    let staged = try Minimizer(property: holds).run(short).minimized
    #expect(holds(staged))
    #expect(staged.events.count <= reference.count)
  }

  @Test("a result that needs a scattered set: still a valid, 1-minimal repro, no larger than plain ddmin's")
  func scatteredSet() throws {
    // Every 7th tap of the first 20 s is needed (an accumulating count, say), plus the launch.
    let original = Self.long(seconds: 20)
    let needed = Set(original.events.indices.filter { $0 % 7 == 0 }.map { original.events[$0].t })
    let holds: (Minimizer.Candidate) -> Bool = { c in needed.isSubset(of: Set(c.events.map(\.t))) }
    let out = try Minimizer(property: holds).run(original)
    #expect(holds(out.minimized))
    #expect(Self.oneMinimal(out.minimized, holds))
    #expect(out.minimized.events.count <= Self.plainDDMin(original, holds).count)
    #expect(Set(out.minimized.events.map(\.t)) == needed)
  }

  @Test("a stage that reaches its check limit is named in the outcome; one that finishes is not")
  func stageAtLimit() throws {
    // Every one of 60 taps a second apart is needed: ddmin over the windows and then the
    // single events would need about four checks per event, more than the 100 allowed here.
    let original = Self.session((0..<60).map { Millis($0) * 1000 }, labels: false)
    let all = original.events.count
    var m = Minimizer { $0.events.count == all }
    m.testsPerStageMax = 100
    let out = try m.run(original)
    #expect(out.minimized.events.count == all)
    #expect(out.stagesAtLimit == ["windows", "events"], "\(out.stagesAtLimit)")
    let small = try Minimizer { $0.events.count == 20 }.run(Self.session((0..<20).map { Millis($0) * 1000 }, labels: false))
    #expect(small.stagesAtLimit.isEmpty)
  }

  @Test("a property false on the input is refused")
  func falseOnInput() {
    let m = Minimizer { _ in false }
    #expect(throws: MinimizeError.propertyFailsOnInput) { try m.run(Self.session([0, 1000])) }
  }
}
