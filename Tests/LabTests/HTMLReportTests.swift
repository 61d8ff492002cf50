import CanonicalJSON
import JustPhotoPlugin
import EngineIO
import Foundation
import Lab
import PoseSpec
import Testing
import Verify

/// The HTML report's library side: row kinds from the differ's divergences, text and data
/// escaping, the size budget of a long recording, and the decisions file's parser.
@Suite("HTML report")
struct HTMLReportTests {
  static func display(_ t: Int, _ cue: String?, _ level: String) -> String {
    let c = cue.map { "\"\($0)\"" } ?? "null"
    return "{\"cue_id\":\(c),\"level\":\"\(level)\",\"mode\":\"noRef\",\"out\":\"cue_display\",\"reason\":\"none\",\"t\":\(t)}"
  }

  /// The kind of the first divergence between two traces, as the report classifies it.
  static func kind(golden: [String], replay: [String]) throws -> String {
    let g = golden.map { $0 + "\n" }.joined()
    let r = replay.map { $0 + "\n" }.joined()
    let result = try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(golden: g, replay: r)
    let d = try #require(result.divergence)
    let lanes = HTMLReportBuilder.lanes(ofTrace: r)
    return HTMLReportRow.kind(of: d, newDisplayEnd: { lanes.displayEnd(startingAt: $0) }, minHoldMs: 300)
  }

  /// Kinds follow their definitions: a golden record the new run lacks is removed, an extra
  /// one added — unless it is a display the new run drops again within the 300 ms minimum
  /// hold (a new flicker); the same record later is shifted; another level at the same time
  /// is a level change; any change of a prompt record is a prompt change.
  @Test func rowKindsFollowTheirDefinitions() throws {
    let base = Self.display(0, nil, "none")
    #expect(try Self.kind(golden: [base, Self.display(1000, "A", "warn")], replay: [base]) == "removed")
    #expect(
      try Self.kind(golden: [base], replay: [base, Self.display(1000, "A", "warn"), Self.display(2000, nil, "none")])
        == "added")
    #expect(
      try Self.kind(golden: [base], replay: [base, Self.display(1000, "A", "warn"), Self.display(1100, nil, "none")])
        == "new flicker")
    #expect(try Self.kind(golden: [base, Self.display(1000, "A", "warn")], replay: [base, Self.display(1067, "A", "warn")]) == "shifted")
    #expect(try Self.kind(golden: [base, Self.display(1000, "A", "warn")], replay: [base, Self.display(1000, "A", "hard")]) == "level changed")
    let prompt = { (key: String) in "{\"key\":\"\(key)\",\"op\":\"shown\",\"out\":\"prompt\",\"t\":500}" }
    #expect(try Self.kind(golden: [base, prompt("P1")], replay: [base, prompt("P2")]) == "prompt changed")
    #expect(try Self.kind(golden: [base, prompt("P1")], replay: [base]) == "prompt changed")
  }

  static let hostile = "q\"uo'te <script>alert(1)</script> & \u{1B}[31m \u{01}\u{2028}end"

  /// HTML text shows a hostile name as text: no markup survives, control characters become
  /// visible escapes.
  @Test func htmlEscapingShowsHostileTextAsText() {
    let e = HTMLText.escape(Self.hostile)
    #expect(!e.contains("<") && !e.contains(">") && !e.contains("\"") && !e.contains("'"))
    #expect(e.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    #expect(e.contains("\\u{1B}[31m") && e.contains("\\u{1}") && e.contains("\\u{2028}"))
    #expect(!e.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x2028 })
  }

  /// The data block cannot be closed or broken by its strings, and parses back to them.
  @Test func scriptDataCannotCloseItsBlock() throws {
    let value: JSONValue = .object(["name": .string(Self.hostile), "list": .array([.string("</script><!--")])])
    let data = HTMLText.scriptData(value)
    #expect(!data.contains("<") && !data.contains(">") && !data.contains("&"))
    #expect(!data.unicodeScalars.contains { $0.value == 0x2028 || $0.value == 0x2029 || $0.value < 0x20 })
    #expect(try JSONParser.parse(data) == value)
  }

  /// A synthetic recording of `seconds` at 30 fps — every frame with 19 joints, a T0
  /// evaluation per frame with four focus cues and the gate.
  static func timeline(seconds: Int, name: String = "long") -> HTMLReportTimeline {
    var t = HTMLReportTimeline(name: name, durationMs: Millis(seconds * 1000))
    var s = HTMLReportSeries()
    s.cues = ["A", "B", "C", "D"]
    s.thresholds = [ThresholdSet(warn: [Threshold(.greater, 0.07)], exit: [Threshold(.lessOrEqual, 0.04)]), nil, nil, nil]
    s.values = Array(repeating: [], count: 4)
    s.levels = Array(repeating: [], count: 4)
    for f in 0..<(seconds * 30) {
      let ms = Millis(f * 1000 / 30)
      s.evalT.append(ms)
      for c in 0..<4 {
        s.values[c].append(sin(Double(f + c) / 50) * 0.1)
        s.levels[c].append(f % 7 == 0 ? .warn : .none)
      }
      s.gateShown.append(f % 90 < 45 ? "A" : nil)
      s.gateStable.append(f % 10)
      s.gateHeldMs.append(ms % 5_000)
      s.gateCooling.append(f % 300 < 30)
      s.landmarkT.append(ms)
      let y: Double = 0.2 + Double(f % 100) / 400
      var joints: [(x: Double, y: Double)?] = []
      for j in 0..<19 { joints.append(j == 5 ? nil : (x: 0.3 + Double(j) / 50, y: y)) }
      s.landmarks.append(joints)
    }
    t.series = s
    t.golden.displays = [(0, "A", "warn"), (5_000, nil, "none")]
    t.new.displays = t.golden.displays
    return t
  }

  /// A synthetic 10-minute recording at 30 fps — every frame with 19 joints, a T0 evaluation
  /// per frame with four focus cues and the gate — fits the page in 2 MB, keeping at least
  /// every 4th landmark frame; a 10-second one is not thinned at all.
  @Test func tenMinutesAtThirtyFpsStayWithinTwoMegabytes() {
    func timeline(seconds: Int) -> HTMLReportTimeline { Self.timeline(seconds: seconds) }
    var doc = HTMLReportDocument(kind: "verify", title: "size")
    doc.timelines = [timeline(seconds: 600)]
    let page = HTMLReportPage.render(doc)
    #expect(page.utf8.count <= 2_000_000, "\(page.utf8.count) bytes")
    let series = HTMLReportEncoder.json(doc)["timelines"]?.arrayValue?.first?["series"]
    let stride = series?["landmarkStride"]?.int64Value ?? 0
    #expect((1...4).contains(stride), "landmark stride \(stride)")
    #expect(series?["evalStride"]?.int64Value == 1)
    print("HTML report, synthetic 10 min at 30 fps: \(page.utf8.count) bytes, landmark stride \(stride)")
    // Both sides drawn (issue 37): the golden side's series share the same budget.
    var both = HTMLReportDocument(kind: "verify", title: "both sides")
    var two = timeline(seconds: 600)
    two.goldenSeries = two.series
    two.goldenSeries?.landmarkT = []
    two.goldenSeries?.landmarks = []
    both.timelines = [two]
    let bothPage = HTMLReportPage.render(both)
    #expect(bothPage.utf8.count <= 2_000_000, "\(bothPage.utf8.count) bytes with the golden side")
    let golden = HTMLReportEncoder.json(both)["timelines"]?.arrayValue?.first?["goldenSeries"]
    #expect(golden?["landmarks"]?.stringValue == "", "the golden side carries no landmarks (the input is the same)")
    #expect(golden?["evalStride"] == HTMLReportEncoder.json(both)["timelines"]?.arrayValue?.first?["series"]?["evalStride"])

    var short = HTMLReportDocument(kind: "verify", title: "short")
    short.timelines = [timeline(seconds: 10)]
    let shortSeries = HTMLReportEncoder.json(short)["timelines"]?.arrayValue?.first?["series"]
    #expect(shortSeries?["landmarkStride"]?.int64Value == 1)
    // 300 frames × 38 coordinate bytes, in base64.
    let expectedCharacters = (300 * 38 + 2) / 3 * 4
    #expect(shortSeries?["landmarks"]?.stringValue?.count == expectedCharacters)
  }

  /// Issue 38 item 5, what a long report holds: a packed timeline keeps its page JSON only
  /// (no raw series: a report holds one recording's raw series per job), the same page as
  /// before; past `lazySeriesCharacters` the page goes out in parts — the data block without
  /// series, then one block per recording, parsed when opened — none larger than one
  /// recording's series budget, so the writer holds one block at a time, never the page.
  @Test func aLongReportHoldsOneRecordingsSeriesAtATime() throws {
    var eager = HTMLReportDocument(kind: "verify", title: "packed")
    eager.timelines = [Self.timeline(seconds: 60)]
    var packed = eager
    packed.timelines[0].pack()
    #expect(packed.timelines[0].series.evalT.isEmpty && packed.timelines[0].series.landmarks.isEmpty)
    #expect(packed.timelines[0].goldenSeries == nil && packed.timelines[0].packedSeries != nil)
    #expect(HTMLReportPage.render(packed) == HTMLReportPage.render(eager), "packing changes nothing on the page")

    // Four 10-minute recordings: ~5.3 MB of series, a lazy page.
    var long = HTMLReportDocument(kind: "verify", title: "lazy")
    for k in 0..<4 {
      var t = Self.timeline(seconds: 600, name: "long-\(k)")
      t.pack()
      long.timelines.append(t)
    }
    #expect(HTMLReportEncoder.seriesCharacters(long) > HTMLReportLimits.lazySeriesCharacters)
    var parts: [Int] = []
    var page = ""
    HTMLReportPage.write(long) { (part: String) in
      parts.append(part.utf8.count)
      page += part
    }
    #expect(page.utf8.count > HTMLReportLimits.lazySeriesCharacters, "\(page.utf8.count) bytes")
    // Each block in parts of about a megabyte (HTMLText.scriptData(_:emit:)): head, data block,
    // its end, per recording the block's opening, its parts and its end, then the script.
    let part = HTMLText.scriptDataPartBytes
    #expect(parts.max() ?? 0 <= part + 50_000, "the largest part \(parts.max() ?? 0) bytes; a part \(part)")
    #expect(parts.count >= 4 + 4 * 3 && parts.count < 4 + 4 * 6, "\(parts.count) parts")
    // The data block names each block; the blocks are in the page, and parse to the series.
    let open = "<script type=\"application/json\" id=\"jp-data\">"
    let start = try #require(page.range(of: open))
    let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
    let data = try JSONParser.parse(String(page[start.upperBound..<end.lowerBound]))
    let timelines = data["timelines"]?.arrayValue ?? []
    #expect(timelines.count == 4)
    for (k, t) in timelines.enumerated() {
      #expect(t["series"] == nil && t["goldenSeries"] == nil)
      let id = try #require(t["seriesBlock"]?.stringValue)
      #expect(id == "jp-series-\(k)")
      let blockOpen = try #require(page.range(of: "<script type=\"application/json\" id=\"\(id)\">"))
      let blockEnd = try #require(page.range(of: "</script>", range: blockOpen.upperBound..<page.endIndex))
      let block = try JSONParser.parse(String(page[blockOpen.upperBound..<blockEnd.lowerBound]))
      #expect(block["series"] == long.timelines[k].packedSeries?.series)
      #expect(block["goldenSeries"] == .null)
    }
    // Under the bound, one data block as before.
    #expect(!HTMLReportPage.render(eager).contains("jp-series-"))
  }

  /// The decisions file: the page's format parses; each malformed part is named with its place.
  @Test func decisionsFileParsesAndNamesWhatIsWrong() throws {
    let sha = String(repeating: "ab", count: 32)
    let good = """
      {"format":"jpreplay-decisions","version":1,"decisions":[
       {"recording":"a","decision":"accept","pending":{"trace":"\(sha)"}},{"recording":"b","decision":"reject","pending":{}}]}
      """
    #expect(
      try ReportDecisions.parse(good, file: "d.json") == [
        ReportDecision(recording: "a", accept: true, pending: ["trace": sha]), ReportDecision(recording: "b", accept: false),
      ])
    let bad: [(String, String)] = [
      ("[]", "d.json: expected a JSON object"),
      (#"{"format":"x","version":1,"decisions":[]}"#, "\"format\": expected \"jpreplay-decisions\""),
      (#"{"format":"jpreplay-decisions","version":2,"decisions":[]}"#, "\"version\": expected 1"),
      (#"{"format":"jpreplay-decisions","version":1,"decisions":[{"recording":"a","decision":"keep"}]}"#, "decisions[0].decision: expected \"accept\" or \"reject\""),
      (#"{"format":"jpreplay-decisions","version":1,"decisions":[{"recording":"../x","decision":"accept"}]}"#, "decisions[0].recording: expected a recording name"),
      (#"{"format":"jpreplay-decisions","version":1,"decisions":[{"recording":"a","decision":"accept","pending":{"trace":"12"}}]}"#, "decisions[0].pending"),
      (#"{"format":"jpreplay-decisions","version":1,"decisions":[{"recording":"a","decision":"accept"},{"recording":"a","decision":"reject"}]}"#, "decisions[1]: a is decided twice"),
    ]
    for (text, message) in bad {
      #expect(throws: HarnessFailure.self) { try ReportDecisions.parse(text, file: "d.json") }
      do {
        _ = try ReportDecisions.parse(text, file: "d.json")
      } catch {
        #expect(error.code == 2 && error.message.contains(message), "\(error.message)")
      }
    }
  }
}
