import Foundation
import Lab
import Testing

/// Issue 38 item 5 in a real browser (headless Chromium, as ``HTMLReportBrowserTests``): a page
/// past `HTMLReportLimits.lazySeriesCharacters` keeps each recording's series in a data block of
/// its own and parses it only when the reader opens that recording, from a `file://` URL under
/// the page's policy.
@Suite("HTML report: a lazy page (browser)", .enabled(if: HeadlessBrowser.available, "no Chromium (run scripts/setup --tests)"))
struct HTMLReportLazyBrowserTests {
  /// A 10-minute recording at 30 fps: one cue's metric, the gate and 19 joints per frame
  /// (about 1.4 MB of series on the page), packed as the builder packs it.
  static func timeline(_ name: String) -> HTMLReportTimeline {
    var t = HTMLReportTimeline(name: name, durationMs: 600_000)
    var s = HTMLReportSeries()
    s.cues = ["FRAME_MOVE_LEFT"]
    s.thresholds = [nil]
    s.values = [[]]
    s.levels = [[]]
    s.states = [[]]
    for f in 0..<18_000 {
      let ms = Int64(f * 1000 / 30)
      s.evalT.append(ms)
      let value: Double = sin(Double(f) / 50) * 0.1
      s.values[0].append(value)
      s.levels[0].append(f % 7 == 0 ? .warn : .none)
      s.states[0].append(f % 7 == 0 ? "active:warn" : "inactive")
      s.gateShown.append(f % 90 < 45 ? "FRAME_MOVE_LEFT" : nil)
      s.gateStable.append(f % 10)
      s.gatePersist.append(6)
      s.gateHeldMs.append(ms % 5_000)
      s.gateCooling.append(f % 300 < 30)
      s.landmarkT.append(ms)
      let y: Double = 0.2 + Double(f % 100) / 400
      var joints: [(x: Double, y: Double)?] = []
      for j in 0..<19 {
        let x: Double = 0.3 + Double(j) / 50
        joints.append((x: x, y: y))
      }
      s.landmarks.append(joints)
    }
    s.persistFrames = 6
    s.minHoldMs = 3_000
    t.series = s
    t.golden.displays = [(0, "FRAME_MOVE_LEFT", "warn"), (5_000, nil, "none")]
    t.new.displays = [(0, "FRAME_MOVE_LEFT", "warn"), (5_200, nil, "none")]
    t.pack()
    return t
  }

  @Test func aLazyPageParsesARecordingsSeriesWhenItIsOpened() throws {
    let names = ["first", "second", "third", "fourth"]
    var doc = HTMLReportDocument(kind: "verify", title: "lazy page")
    doc.timelines = names.map(Self.timeline)
    doc.rows = names.map { n in
      HTMLReportRow(
        recording: n, file: "trace", t: 5_000, cue: "FRAME_MOVE_LEFT", kind: "shifted", detail: "moved +200 ms",
        deltaMs: 200, explanation: "\(n): the display ends 200 ms later", cause: [])
    }
    #expect(HTMLReportEncoder.seriesCharacters(doc) > HTMLReportLimits.lazySeriesCharacters)
    let dir = try CLI.tempDir("html-lazy")
    defer { try? FileManager.default.removeItem(at: dir) }
    let page = dir.appendingPathComponent("lazy.html")
    let html = HTMLReportPage.render(doc)
    try html.write(to: page, atomically: true, encoding: .utf8)
    #expect(names.indices.allSatisfy { html.contains("id=\"jp-series-\($0)\"") })

    // Opened plainly: at the first divergence of the first recording, whose series alone is parsed.
    let plain = try HeadlessBrowser.load(page, fragment: "")
    #expect(HeadlessBrowser.attribute("data-status", of: "body", in: plain.dom) == "ok", "errors: \(HeadlessBrowser.text(of: "errors", in: plain.dom) ?? "?")")
    #expect(plain.consoleLines.isEmpty, "\(plain.consoleLines)")
    #expect(HeadlessBrowser.attribute("data-series-loaded", of: "body", in: plain.dom) == "1")
    #expect(HeadlessBrowser.attribute("data-rec", of: "tl", in: plain.dom) == "first")
    #expect(plain.dom.contains("class=\"metric-new\""), "the first recording's metric")

    // A link to the third recording: its series are parsed when it opens, and drawn.
    let third = try HeadlessBrowser.load(page, fragment: "rec=third&t=5000")
    #expect(HeadlessBrowser.attribute("data-status", of: "body", in: third.dom) == "ok", "errors: \(HeadlessBrowser.text(of: "errors", in: third.dom) ?? "?")")
    #expect(HeadlessBrowser.attribute("data-rec", of: "tl", in: third.dom) == "third")
    #expect(HeadlessBrowser.attribute("data-cursor-t", of: "tl", in: third.dom) == "5000")
    #expect(HeadlessBrowser.attribute("data-series-loaded", of: "body", in: third.dom) == "2", "the first (opened at load) and the third")
    #expect(third.dom.contains("class=\"metric-new\"") && third.dom.contains("class=\"gate-stable\""), "the third's metric and gate")
    #expect(third.dom.contains("class=\"joint\""), "the third's landmarks at the cursor")
  }
}
