import CanonicalJSON
import Foundation
import Testing

/// Issue 27: `verify --html`, `report`, `diff --html`, `tune report --html` and
/// `accept --decisions`, end to end through the CLI. The browser half is in
/// HTMLReportBrowserTests.
@Suite("HTML report (CLI)")
struct HTMLReportCLITests {
  /// Two short recordings in which FRAME_MOVE_LEFT shows (scenario intent: a drift to the left).
  static let names = ["drift-left-and-back", "near-threshold-jitter"]
  static let changedWarn = "0.09"

  /// PoseSpec.json with FRAME_MOVE_LEFT's noRef warn threshold moved from > 0.07 to > 0.09:
  /// the deliberate threshold change the report must account for.
  static func changedSpec(in dir: URL) throws -> URL {
    let text = try String(contentsOf: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), encoding: .utf8)
    let cue = try #require(text.range(of: "\"id\": \"FRAME_MOVE_LEFT\""))
    let noRef = try #require(text.range(of: "\"noRef\"", range: cue.upperBound..<text.endIndex))
    let warn = try #require(text.range(of: "0.07", range: noRef.upperBound..<text.endIndex))
    let changed = text.replacingCharacters(in: warn, with: changedWarn)
    let url = dir.appendingPathComponent("PoseSpec.json")
    try changed.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  /// A scratch corpus with `names` (recordings and goldens copied) and the changed spec.
  static func corpus(_ label: String, names: [String] = names) throws -> URL {
    let dir = try CLI.tempDir(label)
    let fm = FileManager.default
    for sub in ["Recordings", "Golden"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    for n in names {
      try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("Recordings/\(n).jprec"), to: dir.appendingPathComponent("Recordings/\(n).jprec"))
      for k in ["trace", "a13"] {
        try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("Golden/\(n).\(k).jsonl"), to: dir.appendingPathComponent("Golden/\(n).\(k).jsonl"))
      }
    }
    _ = try changedSpec(in: dir)
    return dir
  }

  /// The page's data block, parsed.
  static func data(ofPage url: URL) throws -> JSONValue {
    let html = try String(contentsOf: url, encoding: .utf8)
    let open = "<script type=\"application/json\" id=\"jp-data\">"
    let start = try #require(html.range(of: open))
    let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
    return try JSONParser.parse(String(html[start.upperBound..<end.lowerBound]))
  }

  /// With the deliberate threshold change, the page's rows are the text report's divergences
  /// one for one: the same recordings, files, times, explanations and shapes, in the same
  /// order as `--format json` lists them, each explanation also printed by the text report;
  /// and the timelines judge FRAME_MOVE_LEFT against the changed threshold.
  @Test func rowsMatchTheTextReportOneForOne() throws {
    let dir = try Self.corpus("html-rows")
    defer { try? FileManager.default.removeItem(at: dir) }
    let page = dir.appendingPathComponent("out/report.html")
    let json = try CLI.run(["verify"] + Self.names + ["--update", "no", "--format", "json", "--html", page.path], cwd: dir)
    #expect(json.code == 1, "\(json.stderr)")
    let text = try CLI.run(["verify"] + Self.names + ["--update", "no"], cwd: dir)
    #expect(text.code == 1)
    let report = try JSONParser.parse(json.stdout)
    var expected: [[String]] = []
    for c in report["cases"]?.arrayValue ?? [] {
      for p in c["problems"]?.arrayValue ?? [] {
        for d in p["divergences"]?.arrayValue ?? [] {
          expected.append([
            c["name"]?.stringValue ?? "?", p["file"]?.stringValue ?? "?", String(d["t"]?.int64Value ?? -1),
            d["explanation"]?.stringValue ?? "?", d["shape"]?.stringValue ?? "?",
          ])
        }
      }
    }
    let data = try Self.data(ofPage: page)
    let rows = data["rows"]?.arrayValue ?? []
    let got = rows.map { r in
      [r["rec"]?.stringValue ?? "", r["file"]?.stringValue ?? "", String(r["t"]?.int64Value ?? -2),
       r["explanation"]?.stringValue ?? "", r["detail"]?.stringValue ?? ""]
    }
    #expect(Set(expected.map { $0[0] }) == Set(Self.names), "the change moves FRAME_MOVE_LEFT in both recordings")
    #expect(got == expected)
    for r in got { #expect(text.stdout.contains(r[3]), "text report lacks: \(r[3])") }
    // Kinds: a moved record is "shifted" by the ms its explanation names.
    for r in rows where r["detail"]?.stringValue?.hasPrefix("moved") == true {
      #expect(r["kind"]?.stringValue == "shifted")
      let delta = r["delta"]?.int64Value ?? 0
      #expect(r["explanation"]?.stringValue?.contains("(\(delta > 0 ? "+" : "")\(delta) ms)") == true)
    }
    // One timeline per failed recording; FRAME_MOVE_LEFT's series carries the changed warn.
    let timelines = data["timelines"]?.arrayValue ?? []
    #expect(timelines.compactMap { $0["name"]?.stringValue } == Self.names)
    for t in timelines {
      let metric = t["series"]?["metrics"]?.arrayValue?.first { $0["cue"]?.stringValue == "FRAME_MOVE_LEFT" }
      let warn = metric?["thresholds"]?["warn"]?.arrayValue?.first?.arrayValue
      #expect(warn == [.string(">"), .number(0.09), .null], "\(String(describing: warn))")
      #expect((t["series"]?["landmarks"]?.stringValue?.count ?? 0) > 0)
    }
    // Every row with a cue has its cause: the metric table `diff` prints.
    for r in rows where r["file"]?.stringValue == "trace" && r["cue"]?.stringValue == "FRAME_MOVE_LEFT" {
      let cause = r["cause"]?.arrayValue?.compactMap(\.stringValue) ?? []
      #expect(cause.first?.hasPrefix("FRAME_MOVE_LEFT  thresholds: warn >\(Self.changedWarn)") == true, "\(cause.prefix(2))")
    }
  }

  /// `report` is verify writing the page (nothing else: --update defaults to no); `diff --html`
  /// makes the same kind of page for one pair, rows equal to the diff's divergences.
  @Test func reportAndDiffWriteThePage() throws {
    let dir = try Self.corpus("html-report", names: ["drift-left-and-back"])
    defer { try? FileManager.default.removeItem(at: dir) }
    let page = dir.appendingPathComponent("r.html")
    let r = try CLI.run(["report", "drift-left-and-back", "-o", page.path], cwd: dir)
    #expect(r.code == 1 && r.stderr.contains("html: wrote"), "\(r.stdout)\(r.stderr)")
    #expect((try Self.data(ofPage: page))["rows"]?.arrayValue?.isEmpty == false)
    // The policy (issue 34.7), checked without a browser too (HTMLReportBrowserTests needs
    // Chromium): the page's own inline scripts by hash, one each, and no 'unsafe-inline' script.
    let html = try String(contentsOf: page, encoding: .utf8)
    let policy = html.range(of: #"script-src [^;"]*"#, options: .regularExpression).map { String(html[$0]) } ?? ""
    let hashes = policy.components(separatedBy: "'sha256-").count - 1
    let scripts = html.components(separatedBy: "<script>").count - 1  // a `type="application/json"` data block does not run
    #expect(hashes >= 1 && hashes >= scripts && !policy.contains("'unsafe-inline'"), "\(policy); \(scripts) scripts")
    let pending = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("Golden").path)
    #expect(!pending.contains { $0.hasSuffix(".new") }, "report writes no .new by default: \(pending)")

    let diffPage = dir.appendingPathComponent("d.html")
    let d = try CLI.run(
      ["diff", "Golden/drift-left-and-back.trace.jsonl", "Recordings/drift-left-and-back.jprec", "--html", diffPage.path], cwd: dir)
    #expect(d.code == 1, "\(d.stderr)")
    let rows = (try Self.data(ofPage: diffPage))["rows"]?.arrayValue ?? []
    let lines = d.stdout.split(separator: "\n").filter { $0.hasPrefix("first divergence: ") || $0.hasPrefix("divergence ") }
    #expect(rows.count == lines.count && !rows.isEmpty)
    for (row, line) in zip(rows, lines) {
      #expect(line.hasSuffix(row["explanation"]?.stringValue ?? "—"), "\(line)")
    }
  }

  /// Decisions round trip: verify --update new --html, decisions made from the page's data
  /// (accept one recording, reject the other), `accept --decisions` applies them with accept's
  /// checks; a pending file changed after the report is refused and nothing is applied.
  @Test func decisionsRoundTripThroughAccept() throws {
    let dir = try Self.corpus("html-decisions")
    defer { try? FileManager.default.removeItem(at: dir) }
    let page = dir.appendingPathComponent("r.html")
    let v = try CLI.run(["verify", "--update", "new", "--html", page.path], cwd: dir)
    #expect(v.code == 1, "\(v.stdout)\(v.stderr)")
    let golden = { (n: String, k: String) in dir.appendingPathComponent("Golden/\(n).\(k).jsonl") }
    let pendingFile = { (n: String, k: String) in dir.appendingPathComponent("Golden/\(n).\(k).jsonl.new") }
    let (accepted, rejected) = (Self.names[0], Self.names[1])
    let newTrace = try String(contentsOf: pendingFile(accepted, "trace"), encoding: .utf8)
    let oldRejected = try String(contentsOf: golden(rejected, "trace"), encoding: .utf8)
    // The decisions file as the page's export writes it: the recording's key and the
    // pending hashes the page carries.
    var list: [JSONValue] = []
    for t in (try Self.data(ofPage: page))["timelines"]?.arrayValue ?? [] {
      let key = try #require(t["key"]?.stringValue)
      #expect(t["pending"]?["trace"]?.stringValue?.count == 64)
      list.append(.object(["recording": .string(key), "decision": .string(key == accepted ? "accept" : "reject"), "pending": t["pending"]!]))
    }
    let file = dir.appendingPathComponent("decisions.json")
    let doc: JSONValue = .object(["format": .string("jpreplay-decisions"), "version": .number(1), "decisions": .array(list)])
    try JSONWriter.write(doc).write(to: file, atomically: true, encoding: .utf8)

    // A pending file changed since the report: refused, and nothing applied.
    try (oldRejected + "\n").write(to: pendingFile(rejected, "trace"), atomically: true, encoding: .utf8)
    let refused = try CLI.run(["accept", "--decisions", file.path], cwd: dir)
    #expect(refused.code == 2 && refused.stderr.contains("changed since the report"), "\(refused.stderr)")
    #expect(FileManager.default.fileExists(atPath: pendingFile(accepted, "trace").path), "nothing applied")
    // Verify again (the .new files as the report saw them), then apply.
    _ = try CLI.run(["verify", "--update", "new"], cwd: dir)
    let ok = try CLI.run(["accept", "--decisions", file.path], cwd: dir)
    #expect(ok.code == 0, "\(ok.stdout)\(ok.stderr)")
    #expect(ok.stdout.contains("accepted \(accepted).trace.jsonl.new") && ok.stdout.contains("rejected \(rejected).trace.jsonl.new"))
    #expect(try String(contentsOf: golden(accepted, "trace"), encoding: .utf8) == newTrace)
    #expect(try String(contentsOf: golden(rejected, "trace"), encoding: .utf8) == oldRejected)
    for n in Self.names { #expect(!FileManager.default.fileExists(atPath: pendingFile(n, "trace").path)) }
    // Nothing pending any more: the same checks as accept (exit 2, named).
    let again = try CLI.run(["accept", "--decisions", file.path], cwd: dir)
    #expect(again.code == 2 && again.stderr.contains("nothing pending for \(accepted)"), "\(again.stderr)")
    // A decision for a recording that is gone is refused as accept refuses it.
    _ = try CLI.run(["verify", "--update", "new", "--spec", dir.appendingPathComponent("PoseSpec.json").path, rejected], cwd: dir)
    try FileManager.default.removeItem(at: dir.appendingPathComponent("Recordings/\(rejected).jprec"))
    let orphan = dir.appendingPathComponent("orphan.json")
    try #"{"format":"jpreplay-decisions","version":1,"decisions":[{"recording":"\#(rejected)","decision":"accept"}]}"#
      .write(to: orphan, atomically: true, encoding: .utf8)
    let gone = try CLI.run(["accept", "--decisions", orphan.path], cwd: dir)
    #expect(gone.code == 2 && gone.stderr.contains("no recording"), "\(gone.stderr)")
  }

  /// `tune report --html`: every trial with its parameters and its fit and validation figures,
  /// the front marked as `tune report --json` lists it, the plot inline; the page's sorting
  /// script runs in the browser when one is installed.
  @Test func tuneReportPage() throws {
    let dir = try CLI.tempDir("html-tune")
    defer { try? FileManager.default.removeItem(at: dir) }
    let study = dir.appendingPathComponent("v.sqlite").path
    let run = try CLI.run(
      ["tune", "run", "docs/tune-space.validation.yaml", "--study", study, "--trials", "3", "--corpus", "drift-left-and-back"])
    #expect(run.code == 0, "\(run.stderr)")
    let page = dir.appendingPathComponent("tune.html")
    #expect(try CLI.run(["tune", "report", study, "--html", page.path]).code == 0)
    let json = try JSONParser.parse(try CLI.run(["tune", "report", study, "--json"]).stdout)
    let html = try String(contentsOf: page, encoding: .utf8)
    let trials = json["trials"]?.arrayValue ?? []
    #expect(trials.count == 3)
    #expect(html.components(separatedBy: "data-trial=").count - 1 == trials.count)
    let front = json["pareto_front"]?.arrayValue?.compactMap(\.int64Value) ?? []
    #expect(html.components(separatedBy: "<tr class=\"front\"").count - 1 == front.count)
    for f in front { #expect(html.contains("<tr class=\"front\" data-trial=\"\(f)\">")) }
    for p in json["parameters"]?.arrayValue?.compactMap(\.stringValue) ?? [] { #expect(html.contains("<th>\(p)</th>"), "\(p)") }
    #expect(html.contains("<th>val.latency_p90_ms</th>") && html.contains("on the validation corpus"), "fit vs validation")
    #expect(html.contains("<svg") && !html.contains("src=\"http"))
    // The reason column, as `tune report` prints it (issue 37: it was a tooltip only).
    #expect(html.contains("<th>status</th><th>reason</th>"))
    #expect(html.components(separatedBy: "<td class=\"reason\">").count - 1 == trials.count)
    for t in trials {
      guard let r = t["reason"]?.stringValue else { continue }
      let escaped = r.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
      #expect(html.contains("<td class=\"reason\">\(escaped)</td>"), "\(r)")
    }
    // Each front trial (up to --timelines 3) links to the timeline of its worst fit recording,
    // shipped spec against the trial: the link's fragment names a timeline of the page.
    let data = try Self.data(ofPage: page)
    let names = data["timelines"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
    #expect(names == front.prefix(3).map { "#\($0) drift-left-and-back" }, "\(names)")
    for f in front.prefix(3) { #expect(html.contains("href=\"#rec=%23\(f)%20drift-left-and-back"), "link of #\(f)") }
    #expect(data["kind"]?.stringValue == "tune")
    // --timelines 0: the plot and table alone; a spec the study did not run is refused.
    let plain = dir.appendingPathComponent("plain.html")
    #expect(try CLI.run(["tune", "report", study, "--html", plain.path, "--timelines", "0"]).code == 0)
    let plainText = try String(contentsOf: plain, encoding: .utf8)
    #expect(!plainText.contains("jp-data") && plainText.contains("data-trial="))
    let other = try Self.changedSpec(in: dir)
    let refused = try CLI.run(["tune", "report", study, "--html", plain.path, "--spec", other.path])
    #expect(refused.code == 2 && refused.stderr.contains("not the spec this study ran"), "\(refused.stderr)")
    guard HeadlessBrowser.path != nil else { return }
    let loaded = try HeadlessBrowser.load(page, fragment: "")
    #expect(HeadlessBrowser.attribute("data-status", of: "body", in: loaded.dom) == "ok")
    #expect(loaded.consoleLines.isEmpty, "\(loaded.consoleLines)")
    if let first = names.first {
      let linked = try HeadlessBrowser.load(page, fragment: "rec=\(first.replacingOccurrences(of: "#", with: "%23").replacingOccurrences(of: " ", with: "%20"))&t=0")
      #expect(HeadlessBrowser.attribute("data-rec", of: "tl", in: linked.dom) == first)
    }
  }
}
