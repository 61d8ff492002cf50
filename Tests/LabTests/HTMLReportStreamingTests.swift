import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoPlugin
import JustPhotoScenarios
import PoseSpec
import Recording
import Testing

@testable import Lab

/// Issue 38 item 5: a report timeline streams its recording from the file (never holding its
/// events) and keeps its series in page form as they are collected (``HTMLReportColumns``);
/// the page is the one the held events and the raw series gave.
@Suite("HTML report: a streamed timeline")
struct HTMLReportStreamingTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// A subject swaying left and right for `minutes` at 30 fps (the long-sway scenario of
  /// docs/PERFORMANCE.md, shorter), with declared intent (label events).
  static func swaying(minutes: Int) -> String {
    """
    name: sway
    scene: outdoor
    fps: 30
    duration_ms: \(minutes * 60_000)
    seed: 11
    options: {angleFix: "on"}
    initial: {camera_auth: authorized, voiceover: false, thermal: nominal, camera_facing: back}
    noise: {landmark_sigma: 0.003, conf_sigma: 0.006}
    timeline:
      - {at: 0, intent: none}
      - {from: 0, to: \(minutes * 60_000), oscillate: {x: {amplitude: 0.17, period_ms: 9000}}}
      - {at: 20000, intent: FRAME_MOVE_LEFT}
      - {at: 40000, intent: none}
    """
  }

  static func directory() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("html-report-streaming-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
  }

  static func spec(persistFrames: Int? = nil) throws -> PoseSpecDocument {
    let path = root.appendingPathComponent("PoseSpec.json").path
    var text = try String(contentsOfFile: path, encoding: .utf8)
    if let persistFrames { text = text.replacingOccurrences(of: "\"persistFrames\": 6,", with: "\"persistFrames\": \(persistFrames),") }
    return try Harness.validateSpec(bytes: Array(text.utf8), path: path)
  }

  /// The landmark frames of `events` as the builder kept them before (every event held):
  /// body joints canonical (y down), absent below confidence 0.5.
  static func heldLandmarks(_ events: [InputEvent]) -> HTMLReportSeries {
    var series = HTMLReportSeries()
    for e in events {
      guard case .landmarks(let f) = e.payload else { continue }
      series.landmarkT.append(e.t)
      series.landmarks.append(
        (0..<19).map { i in
          guard let body = f.body, let p = body.points[i], p.conf >= 0.5, p.x.isFinite, p.y.isFinite else { return nil }
          return (p.x, f.coords == .vision ? 1 - p.y : p.y)
        })
    }
    return series
  }

  /// A 2-minute recording at 30 fps, both sides drawn (the golden's spec differs, so the
  /// strides thin the landmarks): the streamed timeline's page data equal
  /// those of the events held in memory and replayed twice, its lanes, causes and duration
  /// too; what it holds is the series in page form, some 40 bytes an evaluation and 42 a frame.
  @Test func aStreamedTimelineIsTheHeldOne() throws {
    let dir = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/sway.jprec"
    let scenario = try Scenario.parse(bytes: Array(Self.swaying(minutes: 2).utf8), file: "sway.scenario.yaml")
    _ = try GeneratedRecording(scenario: scenario).writeRecording(to: path)
    let spec = try Self.spec(persistFrames: 5)
    let goldenSpec = try Self.spec()
    #expect(spec.sha256 != goldenSpec.sha256)
    var builder = HTMLReportBuilder(spec: spec)
    builder.goldenSpec = { _ in HTMLReportGoldenSpec(spec: goldenSpec, note: "the shipped spec") }
    let cues = ["FRAME_MOVE_LEFT", "FRAME_MOVE_RIGHT", "FRAME_MOVE_UP", "DIST_STEP_BACK"]
    let at: [Millis] = [25_000, 100_000]
    let streamed = try builder.timeline(recording: path, name: "sway", golden: nil, new: nil, at: at, cues: cues)

    // The events held, as before: one replay per side of the same events.
    let rec = try CorpusScorer.load(path, eventsBudget: 100_000, eventsMax: 100_000)
    let windows = at.map { ($0 - HTMLReportBuilder.causeWindowMs)...($0 + HTMLReportBuilder.causeWindowMs) }
    var source = InMemoryEventSource(header: rec.header, events: rec.events)
    let new = try HTMLReportBuilder.replay(&source, path: path, spec: spec, overrides: [], focus: cues, windows: windows)
    source = InMemoryEventSource(header: rec.header, events: rec.events)
    let golden = try HTMLReportBuilder.replay(&source, path: path, spec: goldenSpec, overrides: [], focus: cues, windows: [])
    var held = HTMLReportTimeline(name: "sway", durationMs: rec.durationMs)
    var landmarks = HTMLReportColumns(Self.heldLandmarks(rec.events))
    held.columns = new.series
    held.columns?.takeLandmarks(from: &landmarks)
    held.goldenColumns = golden.series

    #expect(streamed.timeline.durationMs == 120_000 && held.durationMs == 120_000)
    #expect(streamed.timeline.new == new.lanes && !new.lanes.displays.isEmpty)
    #expect(streamed.causes == new.causes && !new.causes.isEmpty)
    let columns = try #require(streamed.timeline.columns)
    #expect(columns.frames == Self.heldLandmarks(rec.events).landmarkT.count && columns.frames >= 3_600 && columns.evaluations > 1_000, "\(columns.frames) frames, \(columns.evaluations) evaluations")
    let strides = HTMLReportEncoder.strides(
      evals: 2 * columns.evaluations, cues: 4, frames: columns.frames, durationMs: streamed.timeline.durationMs)
    #expect(strides.landmark > 1, "thinned: \(strides), \(columns.evaluations) evaluations")
    let (series, goldenSeries) = HTMLReportEncoder.seriesValues(streamed.timeline)
    let (heldSeries, heldGolden) = HTMLReportEncoder.seriesValues(held)
    #expect(series == heldSeries)
    #expect(goldenSeries == heldGolden && goldenSeries != .null)
    #expect(series["landmarks"] != HTMLReportEncoder.series(HTMLReportColumns(), strides: (1, 1))["landmarks"])
    // What the build holds: page-form values only (4 + 7 per cue + 7 bytes an evaluation,
    // 4 + 38 a landmark frame), never the events.
    #expect(columns.valueBytes <= columns.evaluations * (4 + 7 * 4 + 7) + columns.frames * 42, "\(columns.valueBytes) bytes")
    #expect(try #require(streamed.timeline.goldenColumns).frames == 0)
  }

  /// A recording the builder cannot draw fails as before the streaming, with the message
  /// `CorpusScorer.load` gave for the whole file: an event going back in time, a label
  /// without its fields.
  @Test func aBadRecordingFailsWithTheSameMessage() throws {
    let dir = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let scenario = try Scenario.parse(bytes: Array(Self.swaying(minutes: 1).utf8), file: "sway.scenario.yaml")
    let lines = GeneratedRecording(scenario: scenario).lines
    let label = try #require(lines.firstIndex { $0.contains("\"label\"") && $0.contains("\"holds\"") })
    var backInTime = lines
    backInTime.swapAt(100, 101)
    var badLabel = lines
    badLabel[label] = badLabel[label].replacingOccurrences(of: "\"holds\"", with: "\"held\"")
    let builder = HTMLReportBuilder(spec: try Self.spec())
    for (name, text) in [("back", backInTime), ("label", badLabel)] {
      let path = "\(dir)/\(name).jsonl"
      try (text.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
      var loaded: String?
      do { _ = try CorpusScorer.load(path, eventsBudget: 100_000, eventsMax: 100_000) } catch { loaded = error.message }
      var streamed: String?
      do { _ = try builder.timeline(recording: path, name: name, golden: nil, new: nil, at: [], cues: []) } catch {
        streamed = error.message
      }
      #expect(loaded != nil && streamed == loaded, "\(name): \(streamed ?? "none") / \(loaded ?? "none")")
    }
  }

  /// The page form encodes as the raw series did (the encoder before issue 38 item 5, kept
  /// here as the reference), whatever the strides: names past the page's 254 shown cues and
  /// 255 states, unavailable and huge values, counters past their bytes, times past `i32`.
  @Test(arguments: [(1, 1), (2, 3), (7, 0), (1, 4), (5, 5)])
  func columnsEncodeAsTheRawSeries(_ strides: (Int, Int)) {
    var s = HTMLReportSeries()
    s.cues = ["A", "B"]
    s.thresholds = [ThresholdSet(warn: [Threshold(.greater, 0.07)]), nil]
    s.values = [[], []]
    s.levels = [[], []]
    s.states = [[], []]
    let levels: [CueLevel] = [.none, .enter, .warn, .hard, .exit]
    for i in 0..<1_200 {
      s.evalT.append(i == 1_100 ? Millis(Int32.max) + 5 : Millis(i * 33 - 40))
      for c in 0..<2 {
        let v: Double? = i % 11 == 0 ? nil : i % 13 == 0 ? .infinity : i % 17 == 0 ? 1e40 : sin(Double(i + c)) * 0.3
        s.values[c].append(v)
        s.levels[c].append(levels[(i + c) % 5])
        s.states[c].append(i % 3 == 0 ? "inactive" : "state-\((i * 7 + c) % 400)")
      }
      s.gateShown.append(i % 5 == 0 ? nil : "cue-\((i * 13) % 300)")
      s.gateStable.append(i % 19 == 0 ? -3 : i % 400)
      s.gatePersist.append(i % 23 == 0 ? 300 : 6)
      s.gateHeldMs.append(i % 29 == 0 ? -5 : Millis(i * 97))
      s.gateCooling.append(i % 31 < 4)
      s.landmarkT.append(Millis(i * 33))
      s.landmarks.append((0..<19).map { j in j == i % 19 ? nil : (x: Double(j) / 9 - 0.6, y: Double(i % 50) / 20 - 0.5) })
    }
    s.persistFrames = 6
    s.minHoldMs = 3_000
    #expect(HTMLReportEncoder.series(HTMLReportColumns(s), strides: strides) == Self.rawSeries(s, strides: strides))
  }

  /// A block's text in parts is the whole text as it was written before (`JSONWriter` then
  /// the block's escapes, the reference below), every part within a megabyte or so: escapes,
  /// controls, separators, non-ASCII, numbers, and a long base64 string cut in slices.
  @Test func scriptDataInPartsIsTheWholeText() {
    let hostile = "a\"b\\c\n\r\t\u{08}\u{0C}\u{01}\u{1F}</script><!--&\u{2028}\u{2029}é😀\u{7F}"
    let long = String(repeating: "QUJD+/9=", count: 400_000)
    let value: JSONValue = .object([
      "series": .object(["landmarks": .string(long), "t": .string(long + hostile), "n": .number(-0.25)]),
      hostile: .array([.string(hostile), .null, .bool(true), .number(1e300), .array([]), .object([:])]),
      "tail": .string(String(repeating: "é<", count: 300_000)),
    ])
    var parts: [String] = []
    HTMLText.scriptData(value) { parts.append($0) }
    var reference = ""
    for u in JSONWriter.write(value).unicodeScalars {
      switch u.value {
      case 0x3C: reference += "\\u003c"
      case 0x3E: reference += "\\u003e"
      case 0x26: reference += "\\u0026"
      case 0x2028: reference += "\\u2028"
      case 0x2029: reference += "\\u2029"
      default: reference.unicodeScalars.append(u)
      }
    }
    #expect(parts.joined() == reference)
    #expect(HTMLText.scriptData(value) == reference)
    #expect(parts.count >= 8, "\(parts.count) parts")
    #expect(parts.allSatisfy { $0.utf8.count <= HTMLText.scriptDataPartBytes + 64 }, "\(parts.map(\.utf8.count))")
  }

  // MARK: the encoder of the raw series before issue 38 item 5 (the reference)

  static func rawSeries(_ s: HTMLReportSeries, strides: (eval: Int, landmark: Int)) -> JSONValue {
    let (es, ls) = strides
    let ei = Array(stride(from: 0, to: s.evalT.count, by: es))
    let li = ls > 0 ? Array(stride(from: 0, to: s.landmarkT.count, by: ls)) : []
    var gateCues: [String] = []
    var shown: [UInt8] = []
    for i in ei {
      guard let c = s.gateShown[i] else {
        u8(&shown, 0)
        continue
      }
      if !gateCues.contains(c) && gateCues.count < 254 { gateCues.append(c) }
      u8(&shown, (gateCues.firstIndex(of: c) ?? 253) + 1)
    }
    var t: [UInt8] = []
    for i in ei { i32(&t, s.evalT[i]) }
    var stable: [UInt8] = []
    var persist: [UInt8] = []
    var held: [UInt8] = []
    var cooling: [UInt8] = []
    for i in ei {
      u8(&stable, min(s.gateStable[i], 255))
      u8(&persist, min(i < s.gatePersist.count ? s.gatePersist[i] : s.persistFrames, 255))
      let h = Int(min(max(s.gateHeldMs[i], 0), 65_535))
      u8(&held, h)
      u8(&held, h >> 8)
      u8(&cooling, s.gateCooling[i] ? 1 : 0)
    }
    var states: [String] = []
    let metrics: [JSONValue] = s.cues.indices.map { c in
      var v: [UInt8] = []
      var lv: [UInt8] = []
      var sv: [UInt8] = []
      for i in ei {
        let x = Float(s.values[c][i] ?? .nan).bitPattern
        for k in 0..<4 { v.append(UInt8(truncatingIfNeeded: x >> (8 * UInt32(k)))) }
        u8(&lv, HTMLReportEncoder.levelCode(s.levels[c][i]))
        let state = c < s.states.count && i < s.states[c].count ? s.states[c][i] : ""
        if !states.contains(state) && states.count < 255 { states.append(state) }
        u8(&sv, states.firstIndex(of: state) ?? 0)
      }
      return .object([
        "cue": .string(HTMLText.shown(s.cues[c])), "value": .string(base64(v)), "level": .string(base64(lv)),
        "state": .string(base64(sv)),
        "thresholds": s.thresholds[c].map(HTMLReportEncoder.thresholds) ?? .null,
      ])
    }
    var lt: [UInt8] = []
    var xy: [UInt8] = []
    for i in li {
      i32(&lt, s.landmarkT[i])
      for p in s.landmarks[i] {
        u8(&xy, p.map { HTMLReportEncoder.quantize($0.x) } ?? 255)
        u8(&xy, p.map { HTMLReportEncoder.quantize($0.y) } ?? 255)
      }
    }
    return .object([
      "evalStride": .number(Double(es)), "landmarkStride": .number(Double(ls)), "t": .string(base64(t)),
      "metrics": .array(metrics), "gateCues": .array(gateCues.map { .string(HTMLText.shown($0)) }),
      "states": .array(states.map { .string(HTMLText.shown($0)) }), "gatePersist": .string(base64(persist)),
      "gateShown": .string(base64(shown)), "gateStable": .string(base64(stable)), "gateHeld": .string(base64(held)),
      "gateCooling": .string(base64(cooling)), "persist": .number(Double(s.persistFrames)),
      "minHold": .number(Double(s.minHoldMs)), "landmarkT": .string(base64(lt)), "landmarks": .string(base64(xy)),
    ])
  }

  static func u8(_ d: inout [UInt8], _ v: Int) { d.append(UInt8(truncatingIfNeeded: v)) }
  static func i32(_ d: inout [UInt8], _ v: Millis) {
    let x = UInt32(bitPattern: Int32(clamping: v))
    for k in 0..<4 { d.append(UInt8(truncatingIfNeeded: x >> (8 * UInt32(k)))) }
  }
  static func base64(_ d: [UInt8]) -> String { Data(d).base64EncodedString() }
}
