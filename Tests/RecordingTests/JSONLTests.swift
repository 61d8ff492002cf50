import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoIO
@testable import Recording
import XCTest


/// The JSONL interchange (DESIGN §3, ENGINE §1.4–1.6): parse, check, print back.
final class JSONLTests: XCTestCase {
  var dir: URL!

  override func setUpWithError() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonl-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }
  override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

  func write(_ lines: [String], _ name: String = "r.jsonl") throws -> String {
    let url = dir.appendingPathComponent(name)
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
    return url.path
  }

  static let header = #"{"format":"jp-replay/1","wall_start_ms":1770860000000,"initial":{"scene":"cafe"}}"#

  /// One line of every input event kind: each must load, and print back to an equal event.
  static func everyKindLines() -> [String] {
    var lines: [String] = []
    var t = 0
    for kind in EventKind.allCases {
      t += 10
      var fields: [String] = []
      switch kind {
      case .landmarks:
        fields = [#""frame":7,"src_t":5,"image":{"w":1080,"h":1920},"coords":"vision","body":{"nose":[0.5,0.7,0.91],"leftAnkle":[0.55,0.1,0.4]},"faces":[{"bbox":[0.4,0.6,0.2,0.15],"conf":0.93,"left_eye":{"x":0.53,"y":0.7,"conf":0.8,"prec_max":0.01,"ear":0.3},"right_eye":{"x":0.47,"y":0.7},"nose":{"x":0.5,"y":0.66},"chin":{"x":0.5,"y":0.6},"eye_ar":0.31}],"people":2,"vision_ms":12.5"#]
      case .luma:
        fields = [#""frame":7,"w":2,"h":3,"enc":"u8-b64","data":"AAECAwQF""#]
      case .ref_analysis:
        // A landmarks-like payload, checked like a landmarks event's (docs/FORMAT.md).
        fields = [#""ref_id":"r1","body":{"nose":[0.5,0.7,0.9]},"faces":[{"bbox":[0.4,0.6,0.2,0.15]}],"people":1,"coords":"vision","frame_scalars":{"values":{"faceLumaMean":0.5}},"luma":{"w":2,"h":3,"enc":"u8-b64","data":"AAECAwQF"}"#]
      case .frame_scalars:
        fields = [#""frame":3,"values":{"a":1,"b":2.5}"#]
      default:
        for spec in kind.schema {
          let v: String
          switch spec.type {
          case .integer: v = "3"
          case .number: v = "1.25"
          case .string: v = spec.oneOf.map { "\"\($0[0])\"" } ?? "\"x\""
          case .bool: v = "true"
          case .object: v = #"{"a":1,"b":[1,2]}"#
          case .array: v = "[1]"
          case .any: v = #"{"domain":"PHPhotosErrorDomain","code":3311}"#
          }
          fields.append("\"\(spec.name)\":\(v)")
        }
      }
      lines.append("{\"t\":\(t),\"kind\":\"\(kind.rawValue)\"" + (fields.isEmpty ? "" : ",") + fields.joined(separator: ",") + "}")
    }
    return lines
  }

  func readAll(_ path: String) throws -> (JSONObject, [InputEvent]) {
    let r = try JSONLReader(path: path, definitions: JustPhotoEvents.self)
    var events: [InputEvent] = []
    while let e = try r.next() { events.append(e) }
    return (r.header, events)
  }

  func testEveryKindRoundTripsThroughTheEncoder() throws {
    let lines = Self.everyKindLines()
    let (header, events) = try readAll(try write([Self.header] + lines))
    XCTAssertEqual(events.count, EventKind.allCases.count)
    XCTAssertEqual(Set(events.map(\.kind)), Set(EventKind.allCases))
    XCTAssertEqual(header["wall_start_ms"]?.int64Value, 1_770_860_000_000)
    // Print back, read again: the same events.
    let again = try write([JSONLEventEncoder.headerLine(header)] + events.map(JSONLEventEncoder.line), "again.jsonl")
    let (header2, events2) = try readAll(again)
    XCTAssertEqual(header2, header)
    XCTAssertEqual(events2, events)
  }

  func testLandmarksAreReadWithTheirConventionsAndRounded() throws {
    let (_, events) = try readAll(try write([Self.header] + Self.everyKindLines()))
    guard case .landmarks(let f) = events.first(where: { $0.kind == .landmarks })?.payload else {
      return XCTFail("no landmarks event")
    }
    XCTAssertEqual(f.coords, .vision)
    XCTAssertEqual(f.imageW, 1080)
    XCTAssertEqual(f.people, 2)
    let nose = try XCTUnwrap(f.body?[.nose])
    XCTAssertEqual(nose.x, 0.5)  // exactly representable in 1/65536
    XCTAssertEqual(nose.conf, 0.91, accuracy: 1.0 / 131072)
    XCTAssertNotEqual(nose.conf, 0.91)  // rounded to the .jprec fixed point
    XCTAssertNil(f.body?[.leftShoulder])
    XCTAssertEqual(f.faces.first?.leftEye?.precMax ?? 0, 0.01, accuracy: 1.0 / 131072)
    XCTAssertNil(f.faces.first?.noseTip)
  }

  func testLumaDataIsDecodedFromBase64() throws {
    let (_, events) = try readAll(try write([Self.header] + Self.everyKindLines()))
    guard case .luma(let l) = events.first(where: { $0.kind == .luma })?.payload else { return XCTFail("no luma") }
    XCTAssertEqual(l.data, [0, 1, 2, 3, 4, 5])
    XCTAssertEqual(l.w * l.h, 6)
  }

  func testZstdCompressedFilesReadTheSame() throws {
    let plain = try write([Self.header] + Self.everyKindLines())
    let zst = dir.appendingPathComponent("r.jsonl.zst")
    _ = FileManager.default.createFile(atPath: zst.path, contents: nil)
    let h = try FileHandle(forWritingTo: zst)
    let w = JSONLWriter(handle: h, compressed: true)
    try w.writeLine(Self.header)
    for l in Self.everyKindLines() { try w.writeLine(l) }
    try w.finish()
    try h.close()
    XCTAssertEqual(Array(try Data(contentsOf: zst).prefix(4)), Zstd.magic)
    let a = try readAll(plain)
    let b = try readAll(zst.path)
    XCTAssertEqual(a.0, b.0)
    XCTAssertEqual(a.1, b.1)
  }

  func testATruncatedZstdFileIsAnError() throws {
    let zst = dir.appendingPathComponent("t.jsonl.zst")
    var text = Self.header + "\n"
    for i in 0..<2000 { text += "{\"t\":\(i),\"kind\":\"thermal\",\"state\":\"nominal\"}\n" }
    let c = Zstd.compress(Array(text.utf8))
    try Data(c.prefix(c.count - 9)).write(to: zst)
    XCTAssertThrowsError(try readAll(zst.path)) { e in
      XCTAssertTrue("\(e)".contains("t.jsonl.zst"), "\(e)")
      XCTAssertTrue("\(e)".contains("truncated") || "\(e)".contains("zstd"), "\(e)")
    }
  }

  func assertBad(_ lines: [String], _ fragments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
    let path = try write(lines, "bad.jsonl")
    XCTAssertThrowsError(try readAll(path), file: file, line: line) { e in
      let text = "\(e)"
      for f in fragments { XCTAssertTrue(text.contains(f), "\(text) lacks \(f)", file: file, line: line) }
    }
  }

  func testBadInputNamesTheFileLineFieldAndWhatWasExpected() throws {
    try assertBad([Self.header, #"{"t":0,"kind":"thermal","state":"warm"}"#], ["bad.jsonl:2", "\"state\"", "\"nominal\"", "\"warm\""])
    try assertBad([Self.header, #"{"t":0,"kind":"rotation"}"#], ["bad.jsonl:2", "missing field \"orientation\""])
    try assertBad([Self.header, #"{"t":0,"kind":"teleport"}"#], ["bad.jsonl:2", "unknown event kind \"teleport\""])
    try assertBad([Self.header, #"{"t":-5,"kind":"memory_warning"}"#], ["bad.jsonl:2", "\"t\"", "non-negative integer"])
    try assertBad([Self.header, #"{"t":10,"kind":"memory_warning"}"#, #"{"t":9,"kind":"memory_warning"}"#], ["bad.jsonl:3", "before the previous"])
    try assertBad([Self.header, #"{"t":0,"kind":"landmarks","frame":1,"body":{"nose":[0.5,0.5]}}"#], ["bad.jsonl:2", "body.nose", "[x, y, conf]"])
    try assertBad([Self.header, #"{"t":0,"kind":"landmarks","frame":1,"body":{"snout":[0.5,0.5,1]}}"#], ["unknown joint \"snout\""])
    try assertBad([Self.header, #"{"t":0,"kind":"luma","frame":1,"w":2,"h":2,"data":"AAE="}"#], ["bad.jsonl:2", "4 bytes", "found 2"])
    try assertBad([Self.header, #"{"t":0,"kind":"memory_warning""#], ["bad.jsonl:2:", "not valid JSON"])
    try assertBad([#"{"t":0,"kind":"memory_warning"}"#], ["bad.jsonl:1", "header"])
    try assertBad([#"{"format":"jp-replay/2"}"#], ["bad.jsonl:1", "jp-replay/2", "jp-replay/1"])
    try assertBad([#"{"format":"jp-replay/1","options":3}"#], ["bad.jsonl:1", "\"options\": expected an object"])
    try assertBad([#"{"format":"jp-replay/1","duration_ms":5}"#, #"{"t":6,"kind":"memory_warning"}"#], ["bad.jsonl:2", "duration_ms"])
  }

  /// The reader checks the header's shape; the options are the engine's (Just Photo's
  /// catalogue refuses `angleFix: maybe` at import and at replay, HostileJSONLInputTests).
  func testTheReaderLeavesTheOptionsToTheEngine() throws {
    let path = try write([#"{"format":"jp-replay/1","options":{"angleFix":"maybe"}}"#, #"{"t":0,"kind":"memory_warning"}"#], "opts.jsonl")
    let (header, events) = try readAll(path)
    XCTAssertEqual(header["options"], .object(["angleFix": "maybe"]))
    XCTAssertEqual(events.count, 1)
  }

  func testBlankLinesAreSkippedAndAMissingFinalNewlineIsFine() throws {
    let path = dir.appendingPathComponent("b.jsonl")
    try Data((Self.header + "\n\n{\"t\":1,\"kind\":\"memory_warning\"}\n  \n{\"t\":2,\"kind\":\"camera_ready\"}").utf8).write(to: path)
    let (_, events) = try readAll(path.path)
    XCTAssertEqual(events.map(\.kind), [.memory_warning, .camera_ready])
  }

  func testEncoderPutsTimeAndKindFirstThenSchemaOrder() {
    let e = InputEvent(t: 5, payload: .justPhoto(JustPhotoEvent(kind: .like_toggle, fields: ["liked": true, "note": "x", "item": 2])))
    XCTAssertEqual(JSONLEventEncoder.line(e), #"{"t":5,"kind":"like_toggle","item":2,"liked":true,"note":"x"}"#)
  }
}
