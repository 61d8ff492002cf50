import EngineIO
import Lab
import Testing

/// `minimize` (issue 14): the stages of ``Minimizer`` on synthetic properties (no replay), so
/// what each stage keeps is exact.
@Suite("Minimizer stages")
struct MinimizerTests {
  static func tap(_ t: Millis) -> InputEvent {
    InputEvent(t: t, payload: .generic(GenericEvent(kind: .shutter_tap, fields: [:])))
  }
  static func label(_ t: Millis) -> InputEvent {
    InputEvent(t: t, payload: .generic(GenericEvent(kind: .label, fields: ["cue_id": "X", "level": "warn"])))
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

  @Test("a property false on the input is refused")
  func falseOnInput() {
    let m = Minimizer { _ in false }
    #expect(throws: MinimizeError.propertyFailsOnInput) { try m.run(Self.session([0, 1000])) }
  }
}
