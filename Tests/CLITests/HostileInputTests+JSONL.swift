import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoIO
import Recording
import Testing

/// Hostile JSONL recordings through the CLI (issue 12: C1, H1, H4): `import` and `replay`
/// exit 2 with the file, the line and the bound — never a signal, never a partial output.
@Suite("Hostile JSONL input (exit 2, named bound)")
struct HostileJSONLInputTests {
  static let header = #"{"format":"jp-replay/1","wall_start_ms":1770860000000,"initial":{"scene":"cafe"}}"#

  /// Runs jpreplay, checks it exits 2 naming `file:line` and `bound`, and that `import` left
  /// no output behind.
  static func expectRefused(_ args: [String], place: String, bound: String, in dir: URL) throws {
    let result = try CLI.run(args)
    #expect(result.code == 2, "\(args): exit \(result.code), \(result.stderr)")
    #expect(result.stderr.contains(place), "\(args): \(result.stderr)")
    #expect(result.stderr.contains(bound), "\(args): \(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.jprec").path))
  }

  /// Writes `lines` to `name` in a fresh folder; import and replay of it must be refused.
  static func expectBothRefused(_ lines: [String], line: Int, bound: String) throws {
    let dir = try CLI.tempDir("hostile-jsonl")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("hostile.jsonl")
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: src)
    let out = dir.appendingPathComponent("out.jprec").path
    try expectRefused(["import", src.path, "-o", out], place: "\(src.path):\(line)", bound: bound, in: dir)
    try expectRefused(["replay", src.path], place: "\(src.path):\(line)", bound: bound, in: dir)
  }

  @Test("C1: luma w = h = 2³² → exit 2 at line 2 naming lumaPixelsMax (was exit 132)")
  func lumaOverflow() throws {
    try Self.expectBothRefused(
      [Self.header, #"{"t":0,"kind":"luma","frame":1,"w":4294967296,"h":4294967296,"data":"AAAA"}"#],
      line: 2, bound: "lumaPixelsMax = \(RecordingLimits.lumaPixelsMax)")
  }

  @Test("C1 through ref_analysis.luma → exit 2 at its line, a bad reference")
  func referenceLumaOverflow() throws {
    let ref =
      #"{"t":10,"kind":"ref_analysis","ref_id":"r","luma":{"w":4294967296,"h":4294967296,"enc":"u8-b64","data":"AAAA"}}"#
    try Self.expectBothRefused(
      [Self.header, #"{"t":0,"kind":"shutter_tap"}"#, ref], line: 3, bound: "ref_analysis: luma: expected 1 ≤ w, h and w·h ≤ lumaPixelsMax")
  }

  @Test("a Just Photo option its catalogue refuses → import and replay exit 2 naming the option; import at line 1, nothing written")
  func badJustPhotoOption() throws {
    let dir = try CLI.tempDir("hostile-jsonl")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("options.jsonl")
    let lines = [#"{"format":"jp-replay/1","wall_start_ms":1770860000000,"options":{"angleFix":"maybe"}}"#, #"{"t":0,"kind":"shutter_tap"}"#]
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: src)
    let out = dir.appendingPathComponent("out.jprec").path
    try Self.expectRefused(["import", src.path, "-o", out], place: "\(src.path):1", bound: "engine option 'angleFix': expected one of off / on", in: dir)
    let replay = try CLI.run(["replay", src.path])
    #expect(replay.code == 2, "\(replay.stderr)")
    #expect(replay.stderr.contains("angleFix"), "\(replay.stderr)")
    #expect(replay.stdout.isEmpty, "\(replay.stdout.prefix(200))")
  }

  @Test("H1: duration_ms 10¹² and 2⁵³ → exit 2 at line 1 naming durationMsMax (was 1.6 h / 1.6 years)")
  func hugeDuration() throws {
    for d in ["1000000000000", "9007199254740992"] {
      let h = "{\"format\":\"jp-replay/1\",\"wall_start_ms\":1770860000000,\"duration_ms\":\(d)}"
      try Self.expectBothRefused([h, #"{"t":0,"kind":"shutter_tap"}"#], line: 1, bound: "durationMsMax = \(RecordingLimits.durationMsMax) ms")
    }
  }

  @Test("H1 in a .jprec (written without the JSONL checks): replay refuses duration_ms 10¹² at once")
  func hugeDurationInJPRec() throws {
    let dir = try CLI.tempDir("hostile-jprec")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("long.jprec").path
    let header: JSONObject = ["format": "jp-replay/1", "wall_start_ms": 1_770_860_000_000, "duration_ms": 1e12]
    let recorder = try Recorder(path: path, header: header, definitions: JustPhotoEvents.self)
    try recorder.append(InputEvent(t: 0, payload: .justPhoto(JustPhotoEvent(kind: .shutter_tap, fields: [:]))))
    try recorder.finish()
    // Refused from the header, before the virtual clock runs: no trace line reaches stdout.
    let result = try CLI.run(["replay", path])
    #expect(result.code == 2, "\(result.stderr)")
    #expect(result.stderr.contains(path) && result.stderr.contains("duration_ms"), "\(result.stderr)")
    #expect(result.stdout.isEmpty, "\(result.stdout.prefix(200))")
  }

  /// A `.jprec` written by other code than `import` is not checked against the event
  /// definitions when written; the engine refuses the event at replay: exit 2 naming the
  /// recording, the event's time and the field (not a silent default).
  @Test("an event field the definition refuses, in a .jprec that bypassed import → exit 2 at its t")
  func refusedEventInJPRec() throws {
    let dir = try CLI.tempDir("hostile-jprec-field")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("warm.jprec").path
    let header: JSONObject = ["format": "jp-replay/1", "wall_start_ms": 1_770_860_000_000, "duration_ms": 1000]
    let recorder = try Recorder(path: path, header: header, definitions: JustPhotoEvents.self)
    try recorder.append(InputEvent(t: 0, payload: .justPhoto(JustPhotoEvent(kind: .shutter_tap, fields: [:]))))
    try recorder.append(InputEvent(t: 120, payload: .justPhoto(JustPhotoEvent(kind: .thermal, fields: ["state": "warm"]))))
    try recorder.finish()
    let result = try CLI.run(["replay", path])
    #expect(result.code == 2, "\(result.stderr)")
    #expect(result.stderr.contains(path) && result.stderr.contains("at t=120"), "\(result.stderr)")
    #expect(
      result.stderr.contains(#"thermal: field "state": expected one of "nominal", "fair", "serious", "critical", found "warm""#),
      "\(result.stderr)")
  }

  @Test("H1 without duration_ms: an event at t = 2⁶² → exit 2 at its line")
  func hugeEventTime() throws {
    try Self.expectBothRefused(
      [Self.header, #"{"t":0,"kind":"shutter_tap"}"#, #"{"t":4611686018427387904,"kind":"shutter_tap"}"#],
      line: 3, bound: "durationMsMax")
  }

  @Test("a line over lineBytesMax → exit 2 at its line")
  func longPlainLine() throws {
    let long = String(repeating: " ", count: RecordingLimits.lineBytesMax + 1)
    try Self.expectBothRefused([Self.header, long], line: 2, bound: "lineBytesMax = \(RecordingLimits.lineBytesMax) bytes")
  }

  @Test("H4: a 200 MB line in a .jsonl.zst → exit 2 at line 2 within 10 s (was 54 s)")
  func hugeCompressedLine() throws {
    let dir = try CLI.tempDir("hostile-zst")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("long.jsonl.zst")
    _ = FileManager.default.createFile(atPath: src.path, contents: nil)
    let handle = try FileHandle(forWritingTo: src)
    let zstd = ZstdFileWriter(handle: handle)
    try zstd.write(Array((Self.header + "\n").utf8))
    let block = [UInt8](repeating: 0x61, count: 1 << 20)
    for _ in 0..<200 { try zstd.write(block) }
    try zstd.write([0x0A])
    try zstd.finish()
    try handle.close()
    let out = dir.appendingPathComponent("out.jprec").path
    try Self.expectRefused(["import", src.path, "-o", out], place: "\(src.path):2", bound: "lineBytesMax", in: dir)
    try Self.expectRefused(["replay", src.path], place: "\(src.path):2", bound: "lineBytesMax", in: dir)
  }
}
