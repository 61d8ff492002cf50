import CanonicalJSON
import Foundation
import Testing

/// `minimize` and `plot` on PixScan recordings (issue 26 item 4): the properties run on
/// PixScan's replays, the plot shows what its trace says. Expectations come from the trace of
/// `jpreplay replay` and docs/PIXSCAN.md (which line kinds carry the index, the queue length
/// and the counts), never from a saved SVG.
@Suite("PixScan: minimize and plot")
struct PixScanLabCLITests {
  /// One trace line: its time, kind and fields.
  struct Line {
    var t: Int64
    var out: String
    var fields: JSONObject
  }

  static func trace(_ recording: String) throws -> [Line] {
    let r = try CLI.run(["replay", recording])
    try #require(r.code == 0, "\(r.stderr)")
    return try r.stdout.split(separator: "\n").map { text in
      let o = try #require(try JSONParser.parse(String(text)).objectValue)
      return Line(t: try #require(o["t"]?.int64Value), out: try #require(o["out"]?.stringValue), fields: o)
    }
  }

  /// The texts of the SVG's `<title>` elements, unescaped.
  static func titles(_ svg: String) -> [String] {
    var out: [String] = []
    var rest = svg[...]
    while let open = rest.range(of: "<title>"), let close = rest.range(of: "</title>", range: open.upperBound..<rest.endIndex) {
      out.append(
        String(rest[open.upperBound..<close.lowerBound]).replacingOccurrences(of: "&lt;", with: "<")
          .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
          .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&"))
      rest = rest[close.upperBound...]
    }
    return out
  }

  /// A drawn step: `NAME = VALUE (t A…B)`.
  struct Segment: Equatable {
    var value: String
    var from: Int64
    var to: Int64
  }

  static func segments(_ titles: [String], series name: String) -> [Segment] {
    titles.compactMap { title in
      guard title.hasPrefix(name + " = "), let open = title.range(of: " (t ", options: .backwards) else { return nil }
      let value = String(title[title.index(title.startIndex, offsetBy: name.count + 3)..<open.lowerBound])
      let times = title[open.upperBound...].dropLast().components(separatedBy: "…")
      guard times.count == 2, let a = Int64(times[0]), let b = Int64(times[1]) else { return nil }
      return Segment(value: value, from: a, to: b)
    }
  }

  /// The series docs/PIXSCAN.md's trace table gives: which line kind and which value.
  static let series: [(name: String, out: String, value: @Sendable (JSONObject) -> Double?)] = [
    ("index", "photo", { $0["index"]?.doubleValue }),
    ("queued", "queue", { $0["count"]?.doubleValue }),
    ("processed", "progress", { $0["processed"]?.doubleValue }),
    ("kept", "progress", { $0["kept"]?.doubleValue }),
    ("deleted", "progress", { $0["deleted"]?.doubleValue }),
    ("ocr", "progress", { $0["ocr"]?.doubleValue }),
    ("pending", "progress", { f in f["total"]?.doubleValue.flatMap { t in f["processed"]?.doubleValue.map { t - $0 } } }),
  ]

  static func text(_ v: Double) -> String { v == v.rounded() ? String(Int64(v)) : String(v) }

  /// Checks every series of a plot of `[from, to]` against the trace: at each instant a line
  /// of the series' kind was written (the latest of that instant), the step drawn there has
  /// its value (a line without a value has no step over it); every step starts at such a
  /// line (or at `from`, holding the value of the last line before) and no line inside it
  /// says otherwise.
  static func checkSeries(_ svg: String, _ lines: [Line], from: Int64, to: Int64, recording: String) {
    let titles = Self.titles(svg)
    for s in series {
      var states: [(t: Int64, value: Double?)] = []
      for l in lines where l.out == s.out && l.t <= to {
        if let last = states.last, last.t == l.t { states.removeLast() }
        states.append((l.t, s.value(l.fields)))
      }
      let segs = segments(titles, series: s.name)
      #expect(!segs.isEmpty || states.allSatisfy { $0.value == nil }, "\(recording): no steps of \(s.name)")
      // The latest step over t (a value set at `to` itself is a step of no length there).
      func covering(_ t: Int64) -> Segment? { segs.last { $0.from <= t && (t < $0.to || (t == to && $0.to == to)) } }
      let before = states.last { $0.t <= from }
      for st in states where st.t >= from {
        if let v = st.value {
          #expect(covering(st.t)?.value == text(v), "\(recording): \(s.name) at t=\(st.t) is \(text(v)) in the trace, drawn \(String(describing: covering(st.t)))")
        } else {
          // No step from t on (the step before may end at t).
          let drawn = segs.first { $0.from <= st.t && (st.t < $0.to || $0.from == st.t) }
          #expect(drawn == nil, "\(recording): \(s.name) has no value at t=\(st.t), drawn \(String(describing: drawn))")
        }
      }
      if let b = before, b.t < from, let v = b.value {
        #expect(covering(from)?.value == text(v), "\(recording): \(s.name) at from=\(from) holds \(text(v))")
      }
      for seg in segs {
        #expect(seg.from >= from && seg.to <= to && (seg.from < seg.to || seg.from == to), "\(recording): \(s.name) step \(seg) outside \(from)…\(to)")
        #expect(seg.from == from || states.contains { $0.t == seg.from }, "\(recording): \(s.name) step \(seg) starts at no line")
        for st in states where st.t > seg.from && st.t < seg.to {
          #expect(st.value.map(text) == seg.value, "\(recording): \(s.name) line at t=\(st.t) says \(String(describing: st.value)) inside \(seg)")
        }
      }
    }
  }

  /// A mark's title per line of the marked kinds (docs/PIXSCAN.md's fields).
  static func marks(_ lines: [Line], from: Int64, to: Int64) -> [String] {
    func s(_ v: JSONValue?) -> String {
      switch v {
      case .string(let x)?: x
      case .number(let d)?: text(d)
      default: "none"
      }
    }
    var out: [String] = []
    for l in lines where l.t >= from && l.t <= to {
      let f = l.fields
      switch l.out {
      case "action": out.append("t=\(l.t) \(s(f["action"])) \(s(f["photo"])) (index \(s(f["index"])))")
      case "undo": out.append("t=\(l.t) undo \(s(f["photo"])) (index \(s(f["index"])))")
      case "app": out.append("t=\(l.t) app \(s(f["state"]))")
      case "ignored": out.append("t=\(l.t) ignored \(s(f["input"])): \(s(f["reason"]))")
      case "filter": out.append("t=\(l.t) filter \(s(f["mode"]))")
      case "sheet": out.append("t=\(l.t) sheet \(s(f["state"])): \(s(f["items"])) items, \(s(f["selected"])) selected")
      default: break
      }
    }
    return out
  }

  @Test("plot: every series and mark drawn is what the replay's trace says (index, queue, counts; swipes, undos, kills, filter switches, the delete sheet)")
  func plotMatchesTheTrace() throws {
    let dir = try CLI.tempDir("pixplot")
    defer { try? FileManager.default.removeItem(at: dir) }
    for name in ["undo-edges", "delete-ok", "pending-at-kill", "swipe-directions", "completion", "filter-switch", "delete-cancelled"] {
      let rec = "Recordings/pixscan/\(name).jprec"
      let lines = try Self.trace(rec)
      let end = try #require(lines.last?.t)
      let out = dir.appendingPathComponent("\(name).svg")
      let r = try CLI.run(["plot", rec, "-o", out.path])
      try #require(r.code == 0, "\(r.stderr)")
      #expect(r.stdout.contains("3 panel(s), 7 lane(s)"), "\(r.stdout)")
      let svg = try String(contentsOf: out, encoding: .utf8)
      #expect(svg.hasPrefix("<?xml") && svg.hasSuffix("</svg>\n"))
      // duration_ms of the scenario, else the last event: the trace ends at or before it.
      let to = try #require(Int64(r.stdout.split(separator: "…").last?.split(separator: " ").first ?? ""))
      #expect(to >= end)
      Self.checkSeries(svg, lines, from: 0, to: to, recording: name)
      let titles = Set(Self.titles(svg))
      let expected = Self.marks(lines, from: 0, to: to)
      #expect(!expected.isEmpty)
      for m in expected { #expect(titles.contains(m), "\(name): no mark '\(m)'") }
      #expect(Self.titles(svg).filter { $0.hasPrefix("t=") && $0.contains(" app ") }.count == lines.filter { $0.out == "app" }.count)
      // Deterministic: the same bytes again.
      let again = try CLI.run(["plot", rec, "-o", "-"])
      #expect(again.stdoutData == (try Data(contentsOf: out)))
    }
  }

  @Test("plot --from/--to: steps clipped to the range, the value held from before starts at --from; --cue is Just Photo's (exit 2)")
  func plotRange() throws {
    let rec = "Recordings/pixscan/undo-edges.jprec"
    let lines = try Self.trace(rec)
    let r = try CLI.run(["plot", rec, "--from", "1200", "--to", "3300", "-o", "-"])
    try #require(r.code == 0, "\(r.stderr)")
    Self.checkSeries(r.stdout, lines, from: 1200, to: 3300, recording: "undo-edges 1200…3300")
    let titles = Self.titles(r.stdout)
    for title in titles where title.hasPrefix("t=") {
      let t = Int64(title.dropFirst(2).prefix { $0.isNumber }) ?? -1
      #expect(t >= 1200 && t <= 3300, "a mark outside the range: \(title)")
    }
    for m in Self.marks(lines, from: 1200, to: 3300) { #expect(titles.contains(m), "no mark '\(m)'") }
    #expect(!titles.contains { $0.hasPrefix("t=500 ") })
    let cue = try CLI.run(["plot", rec, "--cue", "FRAME_MOVE_LEFT", "-o", "-"])
    #expect(cue.code == 2)
    #expect(cue.stderr.contains("undo-edges.jprec") && cue.stderr.contains("pixscan"), "\(cue.stderr)")
    let empty = try CLI.run(["plot", rec, "--from", "999999", "-o", "-"])
    #expect(empty.code == 2)
    #expect(empty.stderr.contains("empty range"), "\(empty.stderr)")
  }

  @Test("minimize --expect on a PixScan recording: a smaller recording whose replay still has the line; PixScan's kinds and key=value only")
  func minimizeExpect() throws {
    let dir = try CLI.tempDir("pixmin")
    defer { try? FileManager.default.removeItem(at: dir) }
    var outputs: [Data] = []
    for k in 0..<2 {
      let out = dir.appendingPathComponent("u\(k).jprec").path
      let r = try CLI.run([
        "minimize", "Recordings/pixscan/undo-edges.jprec", "--expect", "undo photo=IMG_0002 text_removed=true", "-o", out,
      ])
      try #require(r.code == 0, "\(r.stderr)")
      #expect(r.stdout.contains("before: 15 events"), "\(r.stdout)")
      let lines = try Self.trace(out)
      #expect(lines.contains { $0.out == "undo" && $0.fields["photo"]?.stringValue == "IMG_0002" && $0.fields["text_removed"] == .bool(true) })
      let events = try CLI.run(["cat", out]).stdout.split(separator: "\n").count - 1
      #expect(events > 0 && events < 15, "\(events) events")
      #expect(try CLI.run(["doctor", out]).code == 0)
      // Stored in PixScan's channels (docs/PIXSCAN.md, "Input events"), as `record` stores them.
      let info = try CLI.run(["info", out]).stdout
      #expect(info.contains(#""app_launch":"device","library_snapshot":"device","swipe":"ui""#), "\(info)")
      let header = try CLI.run(["cat", out]).stdout.split(separator: "\n").first.map(String.init) ?? ""
      #expect(header.contains(#""engine":"pixscan""#) && header.contains(#""minimized_from":"undo-edges""#), "\(header)")
      outputs.append(try Data(contentsOf: URL(fileURLWithPath: out)))
    }
    #expect(outputs[0] == outputs[1])
    let out = dir.appendingPathComponent("x.jprec").path
    let unknown = try CLI.run(["minimize", "Recordings/pixscan/undo-edges.jprec", "--expect", "cue_display X/hard", "-o", out])
    #expect(unknown.code == 2)
    #expect(unknown.stderr.contains("unknown output kind 'cue_display'") && unknown.stderr.contains("queue"), "\(unknown.stderr)")
    let shorthand = try CLI.run(["minimize", "Recordings/pixscan/undo-edges.jprec", "--expect", "undo IMG_0002", "-o", out])
    #expect(shorthand.code == 2)
    #expect(shorthand.stderr.contains("expected key=value"), "\(shorthand.stderr)")
    let never = try CLI.run(["minimize", "Recordings/pixscan/undo-edges.jprec", "--expect", "message key=deleted", "-o", out])
    #expect(never.code == 2)
    #expect(never.stderr.contains("does not hold"), "\(never.stderr)")
    let against = try CLI.run(["minimize", "Recordings/pixscan/undo-edges.jprec", "--against", "HEAD", "-o", out])
    #expect(against.code == 2)
    #expect(against.stderr.contains("a pixscan recording") && against.stderr.contains("--against"), "\(against.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  /// A scenario of 24 swipes cycling through the four directions (each reading answered 100 ms
  /// later), then an undo.
  static let scenario = """
    engine: pixscan
    name: e2e-triage
    notes: Twenty-four swipes over forty photos, every direction in turn, then an undo.
    library: {count: 40, screenshots: 0.3, from: 2026-01-01, to: 2026-06-30, seed: 7}
    script:
      - {at: 0, do: app_launch, permission: authorized, store: {onboarding_completed: true}}
      - {at: 100, do: library_snapshot}
      - {at: 1000, do: run, swipes: 24, every_ms: 500, pattern: [right, left, down, up]}
      - {at: 14000, do: undo}
    duration_ms: 15000

    """

  @Test("record → replay → verify (missing, accept) → a golden that differs → minimize keeps the divergence in fewer events → review accepts → verify passes")
  func endToEnd() throws {
    let dir = try CLI.tempDir("pixe2e")
    defer { try? FileManager.default.removeItem(at: dir) }
    let recordings = dir.appendingPathComponent("Recordings")
    let golden = dir.appendingPathComponent("Golden")
    try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
    let yaml = recordings.appendingPathComponent("e2e-triage.yaml")
    try Self.scenario.write(to: yaml, atomically: true, encoding: .utf8)
    let noCI = ["CI", "GITHUB_ACTIONS", "JPREPLAY_UPDATE"]
    func run(_ args: [String], stdin: String? = nil) throws -> CLI.Result { try CLI.run(args, removeEnv: noCI, stdin: stdin) }
    let runWith: ([String], String?) throws -> CLI.Result = { try CLI.run($0, removeEnv: noCI, stdin: $1) }
    let corpus = ["--recordings-dir", recordings.path, "--golden-dir", golden.path]

    // Record and replay.
    let record = try run(["record", yaml.path])
    try #require(record.code == 0, "\(record.stderr)")
    #expect(record.stdout.contains("recorded 39 events"), "\(record.stdout)")  // 2 + 24 swipes + 12 readings + 1 undo
    let rec = recordings.appendingPathComponent("e2e-triage.jprec").path
    let lines = try Self.trace(rec)
    #expect(lines.filter { $0.out == "action" }.count == 24)
    let downAt2000 = try #require(lines.first { $0.out == "action" && $0.t == 2000 })
    #expect(downAt2000.fields["action"]?.stringValue == "ocr_keep" && downAt2000.fields["direction"]?.stringValue == "down")

    // First verify: no goldens yet (missing, exit 1, .new written); accept; verify passes.
    let first = try run(["verify", "--update", "new"] + corpus)
    #expect(first.code == 1, "\(first.stdout)\(first.stderr)")
    #expect(first.stdout.contains("missing"), "\(first.stdout)")
    let traceGolden = golden.appendingPathComponent("e2e-triage.trace.jsonl")
    #expect(FileManager.default.fileExists(atPath: traceGolden.path + ".new"))
    let accept = try run(["accept", "--all"] + corpus)
    #expect(accept.code == 0, "\(accept.stdout)\(accept.stderr)")
    let accepted = try String(contentsOf: traceGolden, encoding: .utf8)
    #expect(accepted == (try run(["replay", rec])).stdout)
    #expect(try run(["verify"] + corpus).code == 0)

    // A golden that says the down swipe at 2000 kept IMG_0003 without reading it (as if the
    // engine had changed): verify fails there.
    let edited = accepted.replacingOccurrences(
      of: #"{"action":"ocr_keep","direction":"down","index":2,"out":"action","photo":"IMG_0003","t":2000}"#,
      with: #"{"action":"keep","direction":"down","index":2,"out":"action","photo":"IMG_0003","t":2000}"#)
    try #require(edited != accepted)
    try edited.write(to: traceGolden, atomically: true, encoding: .utf8)
    let failed = try run(["verify", "--update", "no"] + corpus)
    #expect(failed.code == 1, "\(failed.stdout)")
    #expect(failed.stdout.contains("failed"), "\(failed.stdout)")
    let firstDiff = try run(["diff", traceGolden.path, rec])
    #expect(firstDiff.code == 1)
    #expect(firstDiff.stdout.contains("2000"), "\(firstDiff.stdout)")

    // Minimize: the default property keeps that divergence in fewer events.
    let minDir = dir.appendingPathComponent("min")
    try Self.minimizeKeepsTheDivergence(rec, golden: golden, traceGolden: traceGolden, firstDiff: firstDiff.stdout, in: minDir, cli: runWith)

    // The engine's behaviour is the one we want: verify writes it as .new, review accepts it,
    // verify passes again, and there is no divergence left to minimize.
    #expect(try run(["verify", "--update", "new"] + corpus).code == 1)
    let review = try run(["review"] + corpus, stdin: "a\n")
    #expect(review.code == 0, "\(review.stdout)\(review.stderr)")
    #expect(try String(contentsOf: traceGolden, encoding: .utf8) == accepted)
    #expect(try run(["verify"] + corpus).code == 0)
    let nothing = try run(["minimize", rec, "--golden-dir", golden.path, "-o", minDir.appendingPathComponent("x.jprec").path])
    #expect(nothing.code == 2)
    #expect(nothing.stderr.contains("equals its golden"), "\(nothing.stderr)")
  }

  /// `minimize` with the default property on `rec`, whose replay departs from `traceGolden`
  /// (diff output `firstDiff`): the result has fewer than half the events, and its replay
  /// departs from that golden where the original's does (diff and verify say so).
  static func minimizeKeepsTheDivergence(
    _ rec: String, golden: URL, traceGolden: URL, firstDiff: String, in minDir: URL, cli: ([String], String?) throws -> CLI.Result
  ) throws {
    func run(_ args: [String]) throws -> CLI.Result { try cli(args, nil) }
    try FileManager.default.createDirectory(at: minDir, withIntermediateDirectories: true)
    let minRec = minDir.appendingPathComponent("e2e-triage-min.jprec").path
    let m = try run(["minimize", rec, "--golden-dir", golden.path, "-o", minRec])
    try #require(m.code == 0, "\(m.stderr)")
    #expect(m.stdout.contains("the divergence from the golden at t=2000"), "\(m.stdout)")
    #expect(m.stdout.contains("before: 39 events"), "\(m.stdout)")
    let after = try #require(m.stdout.split(separator: "\n").first { $0.contains("after:") })
    let n = try #require(after.split(separator: " ").compactMap { Int($0) }.first)
    #expect(n < 39 / 2, "\(after)")
    #expect(try run(["doctor", minRec]).code == 0)
    // The repro diverges from the edited golden exactly where the original does.
    let minDiff = try run(["diff", traceGolden.path, minRec])
    #expect(minDiff.code == 1)
    let firstLine = { (s: String) in s.split(separator: "\n").first { $0.contains("2000") }.map(String.init) }
    #expect(firstLine(minDiff.stdout) != nil && firstLine(minDiff.stdout) == firstLine(firstDiff), "\(minDiff.stdout)\n---\n\(firstDiff)")
    // verify judges the repro against the edited golden under its own name: failed there too.
    let minGolden = minDir.deletingLastPathComponent().appendingPathComponent("min-golden")
    try FileManager.default.createDirectory(at: minGolden, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: traceGolden, to: minGolden.appendingPathComponent("e2e-triage-min.trace.jsonl"))
    let minVerify = try run(["verify", "--update", "no", "--recordings-dir", minDir.path, "--golden-dir", minGolden.path])
    #expect(minVerify.code == 1, "\(minVerify.stdout)")
    #expect(minVerify.stdout.contains("failed"), "\(minVerify.stdout)")
    #expect(minVerify.stdout.contains("2000"), "\(minVerify.stdout)")
    let minLines = try Self.trace(minRec)
    #expect(minLines.contains { $0.out == "action" && $0.t == 2000 && $0.fields["action"]?.stringValue == "ocr_keep" })
  }
}
