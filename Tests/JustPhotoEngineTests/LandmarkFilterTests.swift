import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Replay
import Testing

/// `landmarkFilter=oneEuro` (issue 22 item 5, a proposed app change): the causal One Euro filter
/// per landmark coordinate, its options, and that it is off by default.
@Suite("Landmark filter (One Euro, proposed)")
struct LandmarkFilterTests {
  typealias F = Fixture

  static let still = OneEuroParameters(minCutoffHz: 1, beta: 0, dCutoffHz: 1)

  /// α of a first-order low-pass at cutoff `fc` (Hz) and interval `te` (s), written out.
  static func alpha(_ fc: Double, _ te: Double) -> Double { 1 / (1 + 1 / (2 * Double.pi * fc * te)) }

  /// Frames every 100 ms (10 Hz, the app's delivered rate), the subject's centre at `dx(k)`.
  static func frames(_ count: Int, _ dx: (Int) -> Double) -> [InputEvent] {
    (0..<count).map { F.landmarks($0, at: Millis($0) * 100, body: F.subject(dx: dx($0))) }
  }

  static func filtered(_ options: [String: String]) -> Engine {
    F.engine(options: options.merging(["landmarkFilter": "oneEuro"]) { a, _ in a }, traceMetrics: true)
  }

  /// FRAME_MOVE_LEFT's error (centerXOffset) per evaluation.
  static func moveLeftErrors(_ out: [TraceRecord]) -> [Double] {
    out.filter { $0.out == "cue_eval" }.compactMap { F.cueEval($0, "FRAME_MOVE_LEFT")?["error"]?.doubleValue }
  }

  // MARK: The filter of one coordinate

  @Test("beta = 0: a step of A after v0 at a constant Te gives y_n = v0 + A·(1 − (1−α)^n)")
  func stepLagMatchesTheFormula() {
    for (fc, teMs) in [(1.0, Millis(100)), (0.5, 100), (3, 67), (1, 33)] {
      let p = OneEuroParameters(minCutoffHz: fc, beta: 0, dCutoffHz: 1)
      let (v0, a) = (0.3, 0.25)
      let alpha = Self.alpha(fc, Double(teMs) / 1000)
      var f = OneEuroFilter()
      #expect(f.filter(v0, at: 0, p) == v0)  // the first sample passes through
      var decay = 1.0
      for n in 1...30 {
        decay *= 1 - alpha
        let y = f.filter(v0 + a, at: Millis(n) * teMs, p)
        #expect(abs(y - (v0 + a * (1 - decay))) < 1e-12, "fc \(fc) Te \(teMs) n \(n)")
      }
    }
  }

  @Test("beta > 0 follows a fast ramp with less lag than beta = 0")
  func betaReducesLagOnARamp() {
    func lagAfterRamp(beta: Double) -> Double {
      let p = OneEuroParameters(minCutoffHz: 1, beta: beta, dCutoffHz: 1)
      var f = OneEuroFilter()
      var x = 0.0
      var y = 0.0
      for n in 0...15 {  // 0.5 canonical units per second for 1.5 s at 10 Hz
        x = 0.2 + 0.05 * Double(n)
        y = f.filter(x, at: Millis(n) * 100, p)
      }
      return x - y
    }
    let plain = lagAfterRamp(beta: 0)
    // beta = 0 settles at the first-order lag of a ramp: v·Te·(1 − α)/α ≈ 0.0795.
    let a = Self.alpha(1, 0.1)
    #expect(abs(plain - 0.05 * (1 - a) / a) < 1e-3)
    #expect(lagAfterRamp(beta: 2) < plain)
    #expect(lagAfterRamp(beta: 20) < lagAfterRamp(beta: 2))
    #expect(lagAfterRamp(beta: 20) < 0.25 * plain)
  }

  @Test("a gap of more than 1000 ms restarts the coordinate; Te ≤ 0 returns the last output unchanged")
  func gapResetAndSameTime() {
    var f = OneEuroFilter()
    _ = f.filter(0.2, at: 0, Self.still)
    let y1 = f.filter(0.6, at: 100, Self.still)
    #expect(y1 > 0.2 && y1 < 0.6)
    #expect(f.filter(0.9, at: 100, Self.still) == y1)  // same t: not filtered again
    #expect(f.filter(0.9, at: 50, Self.still) == y1)  // earlier t: likewise
    #expect(f.lastT == 100)
    var g = f
    #expect(g.filter(0.9, at: 100 + OneEuroFilter.resetGapMs, Self.still) != 0.9)  // exactly the gap: filtered
    #expect(f.filter(0.9, at: 101 + OneEuroFilter.resetGapMs, Self.still) == 0.9)  // over it: restarts
    #expect(f.speed == 0)
  }

  @Test("a dropped joint keeps its state; face points and the bbox are filtered per face")
  func droppedJointsAndFaces() {
    var filter = LandmarkFilter(Self.still)
    func frame(noseX: Double?, face: FaceObservation?) -> CanonicalFrame {
      var joints: [(Joint, Double, Double, Double)] = [(.neck, 0.5, 0.5, 0.9)]
      if let noseX { joints.append((.nose, noseX, 0.3, 0.9)) }
      return Canonicalizer.canonicalize(
        LandmarkFrame(frame: 1, coords: .canonical, body: F.body(joints), faces: face.map { [$0] } ?? []),
        minLandmarkConfidence: 0.5)
    }
    let face = FaceObservation(
      bbox: Rect(x: 0.4, y: 0.2, w: 0.2, h: 0.25), leftEye: EyePoint(x: 0.45, y: 0.3, conf: 0.8), chin: Point2(x: 0.5, y: 0.42))
    var f0 = frame(noseX: 0.5, face: face)
    filter.apply(to: &f0, at: 0)
    #expect(f0[.nose] == Point2(x: 0.5, y: 0.3))
    var f1 = frame(noseX: nil, face: nil)
    filter.apply(to: &f1, at: 100)
    #expect(f1[.nose] == nil)
    var moved = face
    moved.bbox.x = 0.6
    moved.leftEye!.x = 0.65
    var f2 = frame(noseX: 0.7, face: moved)
    filter.apply(to: &f2, at: 200)
    // The nose's last sample was at 0: Te = 0.2 s; the face's likewise.
    let a = Self.alpha(1, 0.2)
    #expect(abs(f2[.nose]!.x - (0.5 + 0.2 * a)) < 1e-12)
    #expect(f2[.nose]!.y == 0.3)
    #expect(abs(f2.faces[0].bbox.x - (0.4 + 0.2 * a)) < 1e-12)
    #expect(f2.faces[0].bbox.w == 0.2)
    #expect(abs(f2.faces[0].leftEye!.x - (0.45 + 0.2 * a)) < 1e-12)
    #expect(f2.faces[0].leftEye!.conf == 0.8)
    #expect(f2.faces[0].chin == Point2(x: 0.5, y: 0.42))
  }

  // MARK: Through the engine

  @Test("engine: the filtered centerXOffset of a step follows the formula; unfiltered it jumps")
  func engineStepThroughTheMetric() throws {
    let events = Self.frames(20) { $0 < 5 ? 0 : 0.15 }
    let errors = Self.moveLeftErrors(F.run(Self.filtered(["oneEuroMinCutoff": "1"]), events))
    try #require(errors.count == 20)
    let alpha = Self.alpha(1, 0.1)
    #expect(abs(alpha - 0.3858) < 1e-4)
    for (k, e) in errors.enumerated() {
      let n = Double(max(0, k - 4))
      let expected = k < 5 ? 0 : 0.15 * (1 - pow1(1 - alpha, n))
      #expect(abs(e - expected) < 1e-9, "frame \(k): \(e) vs \(expected)")
    }
    let raw = Self.moveLeftErrors(F.run(F.engine(traceMetrics: true), events))
    #expect(raw.map { abs($0 - 0.15) < 1e-9 } == (0..<20).map { $0 >= 5 })
  }

  @Test("engine: two replays of the same events with the filter on give the same bytes")
  func sameInputSameBytes() {
    let events = Self.frames(60) { k in 0.12 * Double((k * 7) % 11) / 11 - 0.02 * Double(k % 3) }
    let engine = Self.filtered(["oneEuroBeta": "3", "oneEuroMinCutoff": "0.7"])
    let a = F.run(engine, events).map(TraceFormat.line)
    let b = F.run(engine, events).map(TraceFormat.line)
    #expect(a == b)
    #expect(a != F.run(F.engine(traceMetrics: true), events).map(TraceFormat.line))
  }

  @Test("engine: a copy has its own filter state")
  func copiesDoNotShareState() {
    let events = Self.frames(30) { $0 < 10 ? 0 : 0.15 }
    var e = Self.filtered([:])
    _ = e.start()
    for ev in events[..<12] { _ = e.handle(ev) }
    var copy = e
    // The copy sees the subject jump back; the original must not notice.
    for k in 12..<16 { _ = copy.handle(F.landmarks(k, at: Millis(k) * 100, body: F.subject(dx: -0.2))) }
    var rest: [TraceRecord] = []
    for ev in events[12...] { rest += e.handle(ev).records(at: ev.t) }
    let whole = F.run(Self.filtered([:]), events)
    #expect(Self.moveLeftErrors(rest) == Array(Self.moveLeftErrors(whole)[12...]))
  }

  @Test("engine: a kill drops the filter state with the other memory; the relaunched engine starts empty")
  func killDropsTheState() {
    func app(_ kind: EventKind, at t: Millis, _ fields: JSONObject = [:]) -> InputEvent {
      InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: kind, fields: fields)))
    }
    var e = Self.filtered([:])
    _ = e.start()
    for ev in Self.frames(5, { _ in 0.1 }) { _ = e.handle(ev) }
    let fresh = LandmarkFilter(Self.still)
    #expect(e.landmarkFilter != fresh)
    _ = e.handle(app(.app_lifecycle, at: 500, ["state": "terminated"]))
    #expect(e.landmarkFilter != fresh)  // nothing runs until the relaunch
    _ = e.handle(app(.app_launch, at: 600))
    #expect(e.landmarkFilter == fresh)
  }

  @Test("off by default: no option, landmarkFilter=off and oneEuro parameters without the filter replay alike")
  func offByDefault() {
    let events = Self.frames(40) { k in k < 8 ? 0.15 : (k < 25 ? 0.0 : -0.12) }
    let plain = F.run(F.engine(traceMetrics: true), events).map(TraceFormat.line)
    #expect(F.engine().settings.landmarkFilter == nil)
    #expect(F.engine().landmarkFilter == nil)
    for options in [["landmarkFilter": "off"], ["oneEuroMinCutoff": "0.3", "oneEuroBeta": "40"]] {
      #expect(F.run(F.engine(options: options, traceMetrics: true), events).map(TraceFormat.line) == plain)
    }
  }

  // MARK: Options

  @Test("options: defaults, shortest text, a JSON number round-trips, parsed into the settings")
  func optionValues() throws {
    var o = EngineOptions()
    #expect(o["landmarkFilter"] == "off")
    #expect((o["oneEuroMinCutoff"], o["oneEuroBeta"], o["oneEuroDCutoff"]) == ("1", "0", "1"))
    try o.set("oneEuroMinCutoff", "1.50")
    try o.set("oneEuroBeta", "2.5e1")
    try o.set("oneEuroDCutoff", "1.0")
    #expect((o["oneEuroMinCutoff"], o["oneEuroBeta"], o["oneEuroDCutoff"]) == ("1.5", "25", "1"))
    #expect(o.nonDefault.members.map(\.key) == ["oneEuroMinCutoff", "oneEuroBeta"])
    let header = try EngineOptions(
      json: JSONObject([
        JSONMember("landmarkFilter", .string("oneEuro")), JSONMember("oneEuroMinCutoff", .number(1.5)),
        JSONMember("oneEuroBeta", .number(0.007)), JSONMember("oneEuroDCutoff", .number(100)),
      ]))
    #expect(header["oneEuroMinCutoff"] == "1.5")
    #expect(header["oneEuroBeta"] == "0.007")
    #expect(header["oneEuroDCutoff"] == "100")
    #expect(try EngineOptions(json: header.json) == header)  // the written header reads back the same
    #expect(
      EngineSettings(header).landmarkFilter == OneEuroParameters(minCutoffHz: 1.5, beta: 0.007, dCutoffHz: 100))
  }

  @Test(
    "options: bad values are refused with the option, its range and the value",
    arguments: [
      ("landmarkFilter", "kalman", "expected one of off / oneEuro, found 'kalman'"),
      ("oneEuroMinCutoff", "0", "expected a cutoff frequency (Hz) in (0, 100], found '0'"),
      ("oneEuroMinCutoff", "100.5", "in (0, 100], found '100.5'"),
      ("oneEuroDCutoff", "-1", "expected a cutoff frequency (Hz) in (0, 100], found '-1'"),
      ("oneEuroDCutoff", "fast", "found 'fast'"),
      ("oneEuroBeta", "-0.1", "expected a speed coefficient (per canonical unit/s) in [0, 1000], found '-0.1'"),
      ("oneEuroBeta", "1001", "in [0, 1000], found '1001'"),
      ("oneEuroBeta", "nan", "found 'nan'"),
      ("oneEuroBeta", "inf", "found 'inf'"),
      ("oneEuroBeta", "0x10", "found '0x10'"),
      ("oneEuroBeta", "", "found ''"),
      ("oneEuroBeta", " 1", "found ' 1'"),
    ])
  func optionErrors(name: String, value: String, message: String) {
    var o = EngineOptions()
    do {
      try o.set(name, value)
      Issue.record("accepted \(name)=\(value)")
    } catch {
      #expect(error.option == name)
      #expect(error.description.hasPrefix("engine option '\(name)': "))
      #expect(error.message.contains(message), "\(error.message)")
    }
    #expect(o == EngineOptions())  // a refused value changes nothing
  }

  @Test("options: the edges of the ranges are accepted")
  func optionEdges() throws {
    var o = EngineOptions()
    for (name, value) in [("oneEuroMinCutoff", "100"), ("oneEuroMinCutoff", "0.001"), ("oneEuroBeta", "0"), ("oneEuroBeta", "1000")] {
      try o.set(name, value)
      #expect(o[name] == value)
    }
  }
}

/// x^n for a whole n ≥ 0 (the tests use no libm either).
private func pow1(_ x: Double, _ n: Double) -> Double {
  var r = 1.0
  for _ in 0..<Int(n) { r *= x }
  return r
}
