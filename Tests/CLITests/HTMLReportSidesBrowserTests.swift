import CanonicalJSON
import Foundation
import Testing

/// Issue 37 item 1 in a real browser (headless Chromium, as ``HTMLReportBrowserTests``): the
/// page draws the golden side under the golden's spec beside the new side, opens at the first
/// divergence with its row selected, and a row and the cursor select each other.
@Suite("HTML report: both sides (browser)", .enabled(if: HeadlessBrowser.available, "no Chromium (run scripts/setup --tests)"))
struct HTMLReportSidesBrowserTests {
  typealias B = BisectCommitsTests

  /// The scratch corpus as a git repository whose goldens were committed with the shipped
  /// spec, then FRAME_MOVE_LEFT's warn threshold moved (0.07 → 0.09) in the working tree.
  static func committedCorpus(_ label: String) throws -> URL {
    let dir = try HTMLReportCLITests.corpus(label)
    let spec = dir.appendingPathComponent("PoseSpec.json")
    try FileManager.default.removeItem(at: spec)
    try FileManager.default.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: spec)
    try B.git(["init", "-q"], in: dir)
    try B.git(["add", "-A"], in: dir)
    try B.git(["commit", "-qm", "goldens blessed"], in: dir)
    _ = try HTMLReportCLITests.changedSpec(in: dir)
    return dir
  }

  /// The index of the first divergence of recording `rec` (earliest time, report order).
  static func firstRow(of rec: String, in rows: [JSONValue]) -> Int? {
    let mine = rows.indices.filter { rows[$0]["rec"]?.stringValue == rec }
    guard let t = mine.compactMap({ rows[$0]["t"]?.int64Value }).min() else { return nil }
    return mine.first { rows[$0]["t"]?.int64Value == t }
  }

  /// Whether table row `k` carries the `sel` class in the dumped DOM.
  static func rowSelected(_ k: Int, in dom: String) -> Bool {
    guard let start = dom.range(of: "<tr data-row=\"\(k)\""), let end = dom[start.upperBound...].firstIndex(of: ">") else { return false }
    return dom[start.lowerBound..<end].contains("class=\"sel\"")
  }

  /// After a threshold change, the page draws the new warn line (0.09) and the golden's
  /// (0.07, from the spec at the golden's commit) on the metric, carries the golden side's
  /// series, and opens at the first divergence with its row selected. Without a git history
  /// the page says the golden's spec cannot be found and draws the new side alone.
  @Test func aThresholdChangeDrawsBothLinesAndOpensAtTheFirstDivergence() throws {
    let dir = try Self.committedCorpus("html-sides")
    defer { try? FileManager.default.removeItem(at: dir) }
    let commit = try B.git(["rev-parse", "HEAD"], in: dir)
    let page = dir.appendingPathComponent("report.html")
    let v = try CLI.run(["verify", "--update", "no", "--html", page.path], cwd: dir)
    #expect(v.code == 1, "\(v.stderr)")
    let data = try HTMLReportCLITests.data(ofPage: page)
    let rows = data["rows"]?.arrayValue ?? []
    let timelines = data["timelines"]?.arrayValue ?? []
    let first = try #require(timelines.first?["key"]?.stringValue)
    for t in timelines {
      #expect(t["goldenSeries"]?.objectValue != nil, "golden series of \(t["key"]?.stringValue ?? "?")")
      #expect(t["goldenNote"]?.stringValue?.contains(String(commit.prefix(10))) == true, "\(t["goldenNote"] ?? .null)")
    }
    let k = try #require(Self.firstRow(of: first, in: rows))
    #expect(rows[k]["cue"]?.stringValue == "FRAME_MOVE_LEFT", "the first divergence is the changed cue's: \(rows[k])")

    let run = try HeadlessBrowser.load(page, fragment: "")
    let dom = run.dom
    #expect(HeadlessBrowser.attribute("data-status", of: "body", in: dom) == "ok", "errors: \(HeadlessBrowser.text(of: "errors", in: dom) ?? "?")")
    #expect(run.consoleLines.isEmpty, "\(run.consoleLines)")
    #expect(dom.contains(#"data-side="new" data-level="warn" data-v="\#(HTMLReportCLITests.changedWarn)""#), "the new warn line")
    #expect(dom.contains(#"data-side="golden" data-level="warn" data-v="0.07""#), "the golden's warn line")
    #expect(dom.contains("class=\"metric-golden\"") && dom.contains("class=\"metric-new\""), "both metric series")
    #expect(dom.contains("class=\"gate-stable-golden\""), "the golden's gate counter")
    #expect(HeadlessBrowser.attribute("data-sel-row", of: "rows", in: dom) == String(k))
    #expect(Self.rowSelected(k, in: dom))
    #expect(HeadlessBrowser.attribute("data-rec", of: "tl", in: dom) == first)
    #expect(HeadlessBrowser.attribute("data-cursor-t", of: "tl", in: dom) == rows[k]["t"]?.int64Value.map(String.init))
    #expect(dom.contains("class=\"lg\""), "the colour legend")

    // Not a git repository: the page says why the golden side has no series.
    let plain = try HTMLReportCLITests.corpus("html-sides-plain", names: [HTMLReportCLITests.names[0]])
    defer { try? FileManager.default.removeItem(at: plain) }
    let plainPage = plain.appendingPathComponent("report.html")
    #expect(try CLI.run(["verify", "--update", "no", "--html", plainPage.path], cwd: plain).code == 1)
    let plainData = try HTMLReportCLITests.data(ofPage: plainPage)
    let t = try #require(plainData["timelines"]?.arrayValue?.first)
    #expect(t["goldenSeries"] == .null)
    #expect(t["goldenNote"]?.stringValue?.contains("cannot be found") == true, "\(t["goldenNote"] ?? .null)")
    let plainRun = try HeadlessBrowser.load(plainPage, fragment: "")
    #expect(HeadlessBrowser.attribute("data-status", of: "body", in: plainRun.dom) == "ok")
    #expect(!plainRun.dom.contains("data-side=\"golden\""))
    #expect(HeadlessBrowser.text(of: "golden-note", in: plainRun.dom)?.contains("cannot be found") == true)
  }

  /// A row click puts the cursor at the row's time in its recording and selects it; a cursor
  /// moved by keys (n, p) or a deep link selects the row of that divergence. At 1,024 px the
  /// change and explanation columns keep a readable width.
  @Test func aRowAndTheCursorSelectEachOther() throws {
    let dir = try HTMLReportCLITests.corpus("html-select")
    defer { try? FileManager.default.removeItem(at: dir) }
    let page = dir.appendingPathComponent("report.html")
    #expect(try CLI.run(["verify", "--update", "no", "--html", page.path], cwd: dir).code == 1)
    let rows = try HTMLReportCLITests.data(ofPage: page)["rows"]?.arrayValue ?? []
    let last = rows.count - 1
    let lastT = try #require(rows[last]["t"]?.int64Value)
    let lastRec = try #require(rows[last]["rec"]?.stringValue)

    // Row → cursor.
    let clicked = try HeadlessBrowser.load(page, fragment: "click=\(last)")
    #expect(HeadlessBrowser.attribute("data-status", of: "body", in: clicked.dom) == "ok")
    #expect(HeadlessBrowser.attribute("data-cursor-t", of: "tl", in: clicked.dom) == String(lastT))
    #expect(HeadlessBrowser.attribute("data-rec", of: "tl", in: clicked.dom) == lastRec)
    #expect(HeadlessBrowser.attribute("data-sel-row", of: "rows", in: clicked.dom) == String(last))
    #expect(Self.rowSelected(last, in: clicked.dom))

    // Cursor → row: n twice from t = 0 lands on the second divergence and selects its row;
    // p goes back to the first; a deep link to the last row's time selects it.
    let first = HTMLReportCLITests.names[0]
    let mine = rows.indices.filter { rows[$0]["rec"]?.stringValue == first }
    let divs = Array(Set(mine.compactMap { rows[$0]["t"]?.int64Value })).sorted()
    try #require(divs.count >= 2)
    let rowAt = { (t: Int64) in mine.first { rows[$0]["t"]?.int64Value == t }! }
    for (keys, t) in [("n,n", divs[1]), ("n,n,p", divs[0])] {
      let r = try HeadlessBrowser.load(page, fragment: "rec=\(first)&t=0&keys=\(keys)")
      #expect(HeadlessBrowser.attribute("data-cursor-t", of: "tl", in: r.dom) == String(t), "\(keys)")
      #expect(HeadlessBrowser.attribute("data-sel-row", of: "rows", in: r.dom) == String(rowAt(t)), "\(keys)")
      #expect(Self.rowSelected(rowAt(t), in: r.dom), "\(keys)")
    }
    let linked = try HeadlessBrowser.load(page, fragment: "rec=\(lastRec)&t=\(lastT)")
    let lastFirst = rows.indices.first { rows[$0]["rec"]?.stringValue == lastRec && rows[$0]["t"]?.int64Value == lastT }!
    #expect(HeadlessBrowser.attribute("data-sel-row", of: "rows", in: linked.dom) == String(lastFirst))
    // Before every divergence, no row is selected.
    let before = try HeadlessBrowser.load(page, fragment: "rec=\(first)&t=0")
    #expect(divs[0] == 0 || HeadlessBrowser.attribute("data-sel-row", of: "rows", in: before.dom) == "-1")

    // 1,024 px: no letter-by-letter column (change ≥ 100 px, explanation ≥ 200 px).
    let narrow = try HeadlessBrowser.load(page, fragment: "", size: "1024,800")
    let widths = (HeadlessBrowser.attribute("data-col-widths", of: "rows", in: narrow.dom) ?? "").split(separator: ",").compactMap { Int($0) }
    try #require(widths.count == 7, "\(widths)")
    #expect(widths[5] >= 100 && widths[6] >= 200, "column widths at 1,024 px: \(widths)")
  }
}
