import CanonicalJSON
import Foundation
import Testing

/// Issue 37 item 1, "every engine gets its timeline", in a real browser (headless Chromium, as
/// ``HTMLReportBrowserTests``): a PixScan recording's page draws lanes of the photo shown (its
/// index), the delete queue, filter switches and the delete sheet, golden above new on the one
/// cursor; a Camera Coach recording's draws its hints. Neither is listed as "no timeline".
@Suite("HTML report: other engines' lanes (browser)", .enabled(if: HeadlessBrowser.available, "no Chromium (run scripts/setup --tests)"))
struct HTMLReportEnginesBrowserTests {
  /// PixScan's and Camera Coach's recordings copied with their goldens, one golden line of
  /// each changed: delete-cancelled's sheet at 2500 ms (golden "closed", the replay
  /// "deleting"), filter-switch's first filter switch (golden "all", the replay
  /// "screenshots"), budget-per-minute's first hint value (golden 0.05, the replay 0.033333).
  static let edits: [(engine: String, name: String, from: String, to: String)] = [
    ("pixscan", "delete-cancelled", #""state":"deleting","t":2500"#, #""state":"closed","t":2500"#),
    ("pixscan", "filter-switch", #""mode":"screenshots""#, #""mode":"all""#),
    ("cameracoach", "budget-per-minute", #""value":0.033333}"#, #""value":0.05}"#),
  ]

  static func corpus() throws -> (dir: URL, args: [String]) {
    let dir = try CLI.tempDir("html-engines")
    let recs = dir.appendingPathComponent("rec")
    let golden = dir.appendingPathComponent("golden")
    for d in [recs, golden] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
    let fm = FileManager.default
    for e in edits {
      try fm.copyItem(
        at: CLI.repoRoot.appendingPathComponent("Recordings/\(e.engine)/\(e.name).jprec"),
        to: recs.appendingPathComponent("\(e.name).jprec"))
      let trace = try String(contentsOf: CLI.repoRoot.appendingPathComponent("Golden/\(e.engine)/\(e.name).trace.jsonl"), encoding: .utf8)
      let r = try #require(trace.range(of: e.from), "\(e.name): no \(e.from)")
      try trace.replacingCharacters(in: r, with: e.to).write(
        to: golden.appendingPathComponent("\(e.name).trace.jsonl"), atomically: true, encoding: .utf8)
    }
    return (dir, ["verify", "--recordings-dir", recs.path, "--golden-dir", golden.path, "--update", "no"])
  }

  /// The marks of lane `lane` on one side of a timeline's page data, as `t title`.
  static func marks(_ t: JSONValue, side: String, lane: String) -> [String] {
    let lanes = t["lanes"]?.arrayValue?.compactMap(\.stringValue) ?? []
    guard let i = lanes.firstIndex(of: lane) else { return [] }
    return (t[side]?["marks"]?.arrayValue ?? []).compactMap { m in
      guard let a = m.arrayValue, a.count == 3, a[1].int64Value == Int64(i) else { return nil }
      return "\(a[0].int64Value ?? -1) \(a[2].stringValue ?? "")"
    }
  }

  @Test func aPixScanRecordingShowsItsIndexQueueFilterAndSheetLanesAndCameraCoachItsHints() throws {
    let (dir, args) = try Self.corpus()
    defer { try? FileManager.default.removeItem(at: dir) }
    let page = dir.appendingPathComponent("report.html")
    let v = try CLI.run(args + ["--html", page.path])
    #expect(v.code == 1, "\(v.stdout)\(v.stderr)")
    let data = try HTMLReportCLITests.data(ofPage: page)
    #expect(data["withoutTimeline"]?.arrayValue == [], "\(data["withoutTimeline"] ?? .null)")
    let timelines = data["timelines"]?.arrayValue ?? []
    let byName = Dictionary(uniqueKeysWithValues: timelines.compactMap { t in t["key"]?.stringValue.map { ($0, t) } })
    #expect(byName.keys.sorted() == ["budget-per-minute", "delete-cancelled", "filter-switch"])

    // The page data: PixScan's lanes, each side's marks as its trace says.
    let sheet = try #require(byName["delete-cancelled"])
    #expect(sheet["engine"]?.stringValue == "pixscan")
    #expect(sheet["lanes"]?.arrayValue?.compactMap(\.stringValue) == ["index", "queue", "filter", "sheet", "messages"])
    #expect(Self.marks(sheet, side: "golden", lane: "sheet").contains("2500 sheet closed: 2 items, 0 selected"))
    #expect(Self.marks(sheet, side: "new", lane: "sheet").contains("2500 sheet deleting: 2 items, 0 selected"))
    #expect(Self.marks(sheet, side: "new", lane: "queue").contains { $0.hasSuffix("(2 queued)") }, "\(Self.marks(sheet, side: "new", lane: "queue"))")
    #expect(Self.marks(sheet, side: "new", lane: "index").contains { $0.contains("(index 1)") })
    let filter = try #require(byName["filter-switch"])
    #expect(Self.marks(filter, side: "golden", lane: "filter").first == "2000 filter all")
    #expect(Self.marks(filter, side: "new", lane: "filter").first == "2000 filter screenshots")
    #expect(Self.marks(filter, side: "new", lane: "index").contains("3500 no photo"), "\(Self.marks(filter, side: "new", lane: "index"))")
    let coach = try #require(byName["budget-per-minute"])
    #expect(coach["engine"]?.stringValue == "cameracoach")
    #expect(coach["lanes"]?.arrayValue?.compactMap(\.stringValue).contains("hints") == true)
    #expect(Self.marks(coach, side: "new", lane: "hints").first == "300 headroom more (0.033333)")
    #expect(Self.marks(coach, side: "golden", lane: "hints").first == "300 headroom more (0.05)")

    // In the browser: the first recording (name order) opens at its divergence with PixScan's
    // lanes drawn and the readout naming both sides' sheet state at the cursor.
    let run = try HeadlessBrowser.load(page, fragment: "")
    let dom = run.dom
    #expect(HeadlessBrowser.attribute("data-status", of: "body", in: dom) == "ok", "errors: \(HeadlessBrowser.text(of: "errors", in: dom) ?? "?")")
    #expect(run.consoleLines.isEmpty, "\(run.consoleLines)")
    #expect(HeadlessBrowser.attribute("data-rec", of: "tl", in: dom) == "budget-per-minute")
    let pix = try HeadlessBrowser.load(page, fragment: "rec=delete-cancelled&t=2500")
    #expect(HeadlessBrowser.attribute("data-status", of: "body", in: pix.dom) == "ok")
    #expect(HeadlessBrowser.attribute("data-rec", of: "tl", in: pix.dom) == "delete-cancelled")
    for lane in ["index", "queue", "filter", "sheet"] {
      #expect(pix.dom.contains(#"data-lane="engine-\#(lane)""#), "no \(lane) lane")
    }
    #expect(pix.dom.contains("2500 ms  sheet deleting: 2 items, 0 selected"), "the new sheet mark's title")
    let readout = HeadlessBrowser.text(of: "readout", in: pix.dom) ?? ""
    #expect(readout.contains("sheet closed: 2 items, 0 selected (2500 ms)") && readout.contains("sheet deleting: 2 items, 0 selected (2500 ms)"), "\(readout)")
    #expect(!(HeadlessBrowser.text(of: "rows-more", in: pix.dom) ?? "").contains("no timeline"))
    // No empty landmark box or cue selector for an engine without them.
    #expect(HeadlessBrowser.attribute("style", of: "pose", in: pix.dom) == "display: none;")
    // `diff --html` of the golden and the recording: the same lanes.
    let diffPage = dir.appendingPathComponent("diff.html")
    let d = try CLI.run([
      "diff", dir.appendingPathComponent("golden/delete-cancelled.trace.jsonl").path,
      dir.appendingPathComponent("rec/delete-cancelled.jprec").path, "--html", diffPage.path,
    ])
    #expect(d.code == 1, "\(d.stderr)")
    let diffData = try HTMLReportCLITests.data(ofPage: diffPage)
    #expect(diffData["withoutTimeline"]?.arrayValue == [])
    let diffTimeline = try #require(diffData["timelines"]?.arrayValue?.first)
    #expect(diffTimeline["engine"]?.stringValue == "pixscan")
    #expect(Self.marks(diffTimeline, side: "golden", lane: "sheet") == Self.marks(sheet, side: "golden", lane: "sheet"))
    #expect(Self.marks(diffTimeline, side: "new", lane: "sheet") == Self.marks(sheet, side: "new", lane: "sheet"))
    let cc = try HeadlessBrowser.load(page, fragment: "rec=budget-per-minute&t=300")
    #expect(cc.dom.contains(#"data-lane="engine-hints""#))
    #expect(cc.dom.contains("300 ms  headroom more (0.033333)"), "the new hint's title")
  }
}
