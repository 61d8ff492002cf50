import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoPlugin
import Foundation
import Replay
import Testing

@Suite("Canonical trace and A.13 files")
struct TraceFormatTests {
  @Test func traceLinesHaveSortedKeysFixedPrecisionAndNoNegativeZero() {
    let r = record(
      1600, "cue_display",
      [
        "reason": "frames", "level": "hard", "cue_id": "FRAME_MOVE_LEFT", "error": -0.0,
        "severity": 2.0833333333,
        "mode": "noRef", "detail": .object(["z": 1e-7, "a": -0.5]),
      ])
    #expect(
      TraceFormat.line(r)
        == #"{"cue_id":"FRAME_MOVE_LEFT","detail":{"a":-0.5,"z":0},"error":0,"level":"hard","mode":"noRef","out":"cue_display","reason":"frames","severity":2.083333,"t":1600}"#
    )
  }

  @Test func traceLinesParseBackToRecords() throws {
    let r = record(5, "prompt", ["key": "write_failed", "op": "shown", "priority": 80])
    #expect(
      try GoldenTrace.records(TraceFormat.line(r))
        == [record(5, "prompt", ["key": "write_failed", "op": "shown", "priority": 80])])
    #expect(throws: TraceParseError(line: 2, message: "missing integer key \"t\"", isJSON: true)) {
      try GoldenTrace.read(TraceFormat.line(r) + "\n" + #"{"out":"x"}"#)
    }
    #expect(throws: TraceParseError.self) { try GoldenTrace.read("{\"t\":1,") }
    // Blank lines are skipped; numbers count every line.
    #expect(try GoldenTrace.read("\n" + TraceFormat.line(r) + "\n\n").map(\.number) == [2])
  }

  /// The in-memory form of a replay's record is what its line reads back as: keys sorted at
  /// every level, numbers rounded as the line prints them (-0, tiny and non-finite values too).
  @Test func canonicalRecordsEqualTheirLinesReadBack() throws {
    let samples: [TraceRecord] = [
      record(
        1600, "cue_display",
        [
          "reason": "frames", "level": "hard", "error": -0.0, "severity": 2.0833333333, "big": 1.5e16,
          "detail": .object(["z": 1e-7, "a": -0.5, "m": .array([0.1234565, -2.5e-7, 3, .object(["y": 1, "b": 0.3])])]),
          "nan": .number(.nan), "inf": .number(-.infinity), "id": nil, "on": true,
        ]),
      record(0, "praise", [:]),
      record(7, "prompt", ["x": 123456789.1234567, "y": -0.0000005, "z": 0.0000005, "w": 1e300]),
    ]
    for r in samples {
      let read = try GoldenTrace.records(TraceFormat.line(r))
      #expect(read == [TraceFormat.canonical(r)])
      #expect(TraceFormat.line(TraceFormat.canonical(r)) == TraceFormat.line(r))
    }
    // The raw record is not its canonical form (the test would pass vacuously otherwise).
    #expect(TraceFormat.canonical(samples[0]) != samples[0])
  }

  @Test func canonicalOutputStreamsTraceAndA13Lines() throws {
    var out = CanonicalOutput(
      trace: MemoryLineSink(), a13: MemoryLineSink(), traceKinds: [.praise])
    try out.emit(.cueEval(.t1(tick: 1, scene: "cafe", entries: [])), at: 10)
    try out.emit(.praise(PraiseLine(state: .on, trigger: "exit_crossed", dimension: "framing")), at: 10)
    try out.emit(
      DiagnosticLine(
        tsMs: 1_770_860_211_520, sessionId: "f40a4c16-58fe-44fe-80eb-b67b83a17d4a",
        event: "photo_write_verification",
        scene: "cafe",
        payload: [
          (key: "retry_used", value: "false"),
          (key: "asset_id", value: "670A57F5-276F-4976-B660-6CF1D27858FD/L0/001"),
        ]))
    #expect(out.trace.text == #"{"dimension":"framing","out":"praise","state":"on","t":10,"trigger":"exit_crossed"}"# + "\n")
    #expect(
      out.a13.text
        == #"{"event":"photo_write_verification","payload":{"asset_id":"<ASSET_1>/L0/001","retry_used":"false"},"scene":"cafe","session_id":"<SESSION_1>","ts_ms":1770860211520}"#
        + "\n")
  }

  @Test func fileSinkWritesEveryLineOnFinish() throws {
    let dir = try TemporaryDirectory()
    let url = dir.url.appendingPathComponent("t.jsonl")
    let sink = try FileLineSink(creating: url)
    for i in 0..<5000 { try sink.write(line: #"{"i":\#(i)}"#) }
    try sink.finish()
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(text.split(separator: "\n").count == 5000)
    #expect(text.hasSuffix(#"{"i":4999}"# + "\n"))
  }
}

@Suite("A.13 canonicalization (ENGINE §6.6)")
struct A13CanonicalizerTests {
  /// Lines of the app's reference diagnostics export (outside this repository), verbatim (a real export:
  /// unsorted keys, escaped slashes, upper-case UUIDs), behind the export's file header.
  static let reference = #"""
    # file: diagnostics-2026-02-11.jsonl
    {"event":"prompt_shown","scene":"cafe","ts_ms":1770860211520,"session_id":"F40A4C16-58FE-44FE-80EB-B67B83A17D4A","payload":{"payload":"{}","key":"camera_permission_preprompt","prompt_id":"camera_permission_preprompt|1770860211502","priority":"90","level":"L3","surface":"cameraModalCenter","emittedAt":"1770860211502","blocksShutter":"true"}}
    {"event":"withref_match_state","ts_ms":1770860247097,"session_id":"dev_session","payload":{"required_dimensions":"centerXOffset,centerYOffset","mirror_applied":"true","match":"false","blocked_by":"centerXOffset"},"scene":"cafe"}
    {"ts_ms":1770860286883,"session_id":"F40A4C16-58FE-44FE-80EB-B67B83A17D4A","payload":{"first_fetch_ms":"2","verified_within_2s":"true","retry_delay_ms":"0","retry_used":"false","asset_id":"670A57F5-276F-4976-B660-6CF1D27858FD\/L0\/001"},"event":"photo_write_verification","scene":"cafe"}
    {"ts_ms":1770860292144,"scene":"cafe","payload":{"retry_used":"false","asset_id":"E1316BF7-7EE3-493B-8E25-0C31DA307DC5\/L0\/001","verified_within_2s":"true","retry_delay_ms":"0","first_fetch_ms":"1"},"session_id":"F40A4C16-58FE-44FE-80EB-B67B83A17D4A","event":"photo_write_verification"}
    {"session_id":"F40A4C16-58FE-44FE-80EB-B67B83A17D4A","scene":"cafe","payload":{"asset_id_hash":"918d45bec70437b61ab93d664f6a75db36196b6c58129ba99ef781275dccc194","auth_snapshot":"authorized","heal_action":"pruned"},"event":"phantom_asset_detected","ts_ms":1770860280012}
    """#

  @Test func referenceLinesBecomeSortedWithPlaceholdersAndNoEscapedSlashes() throws {
    let lines = try A13Canonicalizer.canonicalize(log: Self.reference)
    #expect(
      lines == [
        #"{"event":"prompt_shown","payload":{"blocksShutter":"true","emittedAt":"1770860211502","key":"camera_permission_preprompt","level":"L3","payload":"{}","priority":"90","prompt_id":"camera_permission_preprompt|1770860211502","surface":"cameraModalCenter"},"scene":"cafe","session_id":"<SESSION_1>","ts_ms":1770860211520}"#,
        #"{"event":"withref_match_state","payload":{"blocked_by":"centerXOffset","match":"false","mirror_applied":"true","required_dimensions":"centerXOffset,centerYOffset"},"scene":"cafe","session_id":"dev_session","ts_ms":1770860247097}"#,
        #"{"event":"photo_write_verification","payload":{"asset_id":"<ASSET_1>/L0/001","first_fetch_ms":"2","retry_delay_ms":"0","retry_used":"false","verified_within_2s":"true"},"scene":"cafe","session_id":"<SESSION_1>","ts_ms":1770860286883}"#,
        #"{"event":"photo_write_verification","payload":{"asset_id":"<ASSET_2>/L0/001","first_fetch_ms":"1","retry_delay_ms":"0","retry_used":"false","verified_within_2s":"true"},"scene":"cafe","session_id":"<SESSION_1>","ts_ms":1770860292144}"#,
        #"{"event":"phantom_asset_detected","payload":{"asset_id_hash":"918d45bec70437b61ab93d664f6a75db36196b6c58129ba99ef781275dccc194","auth_snapshot":"authorized","heal_action":"pruned"},"scene":"cafe","session_id":"<SESSION_1>","ts_ms":1770860280012}"#,
      ])
    #expect(!lines.joined().contains(#"\/"#))
  }

  static let testsDir = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    .deletingLastPathComponent().deletingLastPathComponent()
  /// The whole reference diagnostics export (15 records; the original is outside this repository),
  /// canonicalized once and committed: the repository's own form of it.
  static let canonicalExport = testsDir.appendingPathComponent("Fixtures/diagnostics-export.canonical.jsonl")

  static func lines(_ url: URL) throws -> [String] {
    try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
  }

  @Test func theCommittedCanonicalExportIsCanonical() throws {
    let lines = try Self.lines(Self.canonicalExport)
    #expect(lines.count == 15)
    #expect(lines.allSatisfy { !$0.contains(#"\/"#) && !$0.contains("F40A4C16") })
    #expect(lines.allSatisfy { $0.contains(#""session_id":"<SESSION_1>""#) || $0.contains(#""session_id":"dev_session""#) })
    // Idempotent: canonical lines stay as they are.
    #expect(try A13Canonicalizer.canonicalize(log: lines.joined(separator: "\n")) == lines)
  }

  @Test func aUUIDKeepsItsFirstPlaceholderAndCaseDoesNotMatter() throws {
    var c = A13Canonicalizer()
    let a = try c.canonicalize(
      line:
        #"{"session_id":"aaaaaaaa-0000-0000-0000-000000000001","payload":{"item_id":"AAAAAAAA-0000-0000-0000-000000000001","other":"BBBBBBBB-0000-0000-0000-000000000002"}}"#
    )
    #expect(
      a == #"{"payload":{"item_id":"<SESSION_1>","other":"<UUID_1>"},"session_id":"<SESSION_1>"}"#)
    #expect(try c.canonicalize(line: "   ") == nil)
  }

  /// Issue 38 item 4: the one writer writes bytes (`TraceFormat.append`, no copy, sort or
  /// `String` per line); its text is what `JSONWriter` wrote for the record with `t` and `out`
  /// set, for fields in any order, nested objects, equal keys, fields named `t` or `out`,
  /// escapes and numbers of every kind.
  @Test func theByteWriterWritesWhatJSONWriterWrote() throws {
    func reference(_ r: TraceRecord) -> String {
      var object = r.fields
      object["t"] = .number(Double(r.t))
      object["out"] = .string(r.out)
      return JSONWriter.write(.object(object), sortKeys: true, numbers: .fixed6)
    }
    let samples: [TraceRecord] = [
      record(0, "praise"),
      record(-5, "a", ["z": 1, "a": 2, "ou": 3, "outx": 4, "s": 5, "ta": 6, "u": 7, "": 8, "T": 9, "é": 10]),
      record(1_600, "cue_display", ["t0": 1, "level": "hard", "out_of": "x", "detail": .object(["z": 1e-7, "a": -0.5, "b": .object(["d": 1, "c": 2])])]),
      record(7, "dup", JSONObject([JSONMember("b", 1), JSONMember("a", 2), JSONMember("b", 3)])),
      record(8, "own t", ["t": 99, "out": "other", "x": 1]),
      record(9, "nested dup", ["k": .object(JSONObject([JSONMember("q", 1), JSONMember("q", 2), JSONMember("p", 0)]))]),
      record(
        9_007_199_254_740_993, "quote \" \\ /\n\u{1}",
        [
          "n": .array([0, -0.0, 0.5, -0.5, 1e-7, 5e-7, -5e-7, 0.0000015, 123456789.1234567, 1.5e16, -1.5e16, 9e15, 8.999_999e9]),
          "f": .array([.number(.nan), .number(.infinity), .number(-.infinity), 1e300, -1e-300, 2.0833333333, .number(0.1 + 0.2)]),
          "s": "é 中文 🙂 \u{7F} tab\t", "b": true, "null": nil,
        ]),
    ]
    for r in samples {
      #expect(TraceFormat.line(r) == reference(r), "\(r)")
      var bytes = JSONBytes()
      TraceFormat.append(r, to: &bytes)
      #expect(bytes.bytes == Array(reference(r).utf8))
    }
    // A file sink writes the record's bytes and a newline, the console sink the same line.
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("trace-bytes-\(getpid()).jsonl")
    defer { try? FileManager.default.removeItem(at: url) }
    let sink = try FileLineSink(creating: url)
    for r in samples { try sink.write(record: r) }
    try sink.finish()
    #expect(try String(contentsOf: url, encoding: .utf8) == samples.map { reference($0) + "\n" }.joined())
  }

  /// Issue 38 item 4: a sink writes a line of a layout it has seen from that layout's shape
  /// (`TraceLineShapes`: the keys' text kept, only the values written); the bytes are
  /// `TraceFormat.line`'s for every record — shapes of one `out` with other keys or another
  /// key order, the same keys under another `out`, values of other types under one shape
  /// (nested objects, arrays, strings to escape, numbers of every range), fields named `t` or
  /// `out` and keys given twice (no shape), and more layouts than the shapes kept.
  @Test func shapedLinesAreTheWritersBytes() throws {
    var g = SplitMix(seed: 38)
    // "\u{E9}" and "e\u{301}" are equal Swift strings with different bytes: different layouts.
    let keys = ["a", "ids", "kind", "out_of", "outx", "o", "pruned_processed", "s", "t0", "ta", "u", "z", "\u{E9}", "e\u{301}", "", "count"]
    let outs = ["progress", "store", "effect", "a", "o", "ou", "outz", "tz", "quote \" out", "\u{E9}", "e\u{301}"]
    func value(_ depth: Int) -> JSONValue {
      switch g.next() % (depth > 1 ? 6 : 8) {
      case 0: return .number(Double(Int64(g.next() % 2_000_001) - 1_000_000))
      case 1: return .number(Double(Int64(g.next() % 2_000_001) - 1_000_000) / 1_024)
      case 2: return [.number(1e-7), .number(-0.0), .number(1.5e16), .number(.nan), .number(123456789.1234567)][Int(g.next() % 5)]
      case 3: return [.string("IMG_0001"), .string("tab\t \" \\ / é 🙂"), .string("")][Int(g.next() % 3)]
      case 4: return g.next() % 2 == 0 ? .bool(true) : .null
      case 5: return .array((0..<Int(g.next() % 4)).map { _ in .string("IMG_\(g.next() % 10_000)") })
      case 6: return .object(JSONObject([JSONMember("z", value(depth + 1)), JSONMember("b", value(depth + 1))]))
      default: return .array([value(depth + 1), value(depth + 1)])
      }
    }
    // 80 layouts (more than the shapes kept), each an `out` and its keys in order (now and
    // then a key named `t` or `out`, or a key twice); the first 20 take most lines.
    var layouts: [(out: String, keys: [String])] = []
    for _ in 0..<80 {
      var ks: [String] = []
      for _ in 0..<g.below(7) {
        let key = g.below(40) == 0 ? ["t", "out"][g.below(2)] : keys[g.below(keys.count)]
        if ks.contains(key) && g.below(4) != 0 { continue }
        ks.append(key)
      }
      layouts.append((outs[g.below(outs.count)], ks))
    }
    var records: [TraceRecord] = []
    for _ in 0..<4_000 {
      let layout = layouts[g.below(5) == 0 ? g.below(layouts.count) : g.below(20)]
      let fields = JSONObject(layout.keys.map { JSONMember($0, value(0)) })
      records.append(TraceRecord(t: Int64(g.below(10_000_000)) - 1_000, out: layout.out, fields: fields))
    }
    var shapes = TraceLineShapes()
    var bytes = JSONBytes()
    var expected: [UInt8] = []
    for r in records {
      shapes.append(r, to: &bytes)
      bytes.byte(0x0A)
      expected += Array(TraceFormat.line(r).utf8) + [0x0A]
    }
    #expect(bytes.bytes == expected)
    #expect(shapes.count == TraceLineShapes.limit)  // more layouts than kept: the rest by the writer

    // The same through a file sink.
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("trace-shapes-\(getpid()).jsonl")
    defer { try? FileManager.default.removeItem(at: url) }
    let sink = try FileLineSink(creating: url)
    for r in records { try sink.write(record: r) }
    try sink.finish()
    #expect(try Array(Data(contentsOf: url)) == expected)

    // An `out` or a key as one scalar or as a letter and a combining accent, or "K" and the
    // Kelvin sign (U+212A, whose canonical decomposition is "K"): equal strings, other bytes,
    // other lines.
    let twins = [
      TraceRecord(t: 1, out: "\u{E9}", fields: ["\u{E9}": 1]),
      TraceRecord(t: 2, out: "e\u{301}", fields: ["e\u{301}": 2]),
      TraceRecord(t: 3, out: "\u{E9}", fields: ["e\u{301}": 3]),
      TraceRecord(t: 4, out: "K", fields: ["K": 4]),
      TraceRecord(t: 5, out: "\u{212A}", fields: ["K": 5]),
      TraceRecord(t: 6, out: "K", fields: ["\u{212A}": 6]),
    ]
    #expect("K" == "\u{212A}" && "\u{E9}" == "e\u{301}")
    var twinShapes = TraceLineShapes()
    var twinBytes = JSONBytes()
    for r in twins + twins { twinShapes.append(r, to: &twinBytes) }
    #expect(twinBytes.bytes == (twins + twins).flatMap { Array(TraceFormat.line($0).utf8) })
    #expect(twinShapes.count == twins.count)
  }
}
