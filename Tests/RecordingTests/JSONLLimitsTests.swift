import EngineIO
import Foundation
import JustPhotoIO
@testable import Recording
import Testing


/// The bounds of `RecordingLimits` on the JSONL interchange (issue 12: C1, H1, H4): hostile
/// lines generated here must be refused with the file, the line and the bound — never a trap.
@Suite("JSONL limits (RecordingLimits)")
struct JSONLLimitsTests {
  static let header = #"{"format":"jp-replay/1","wall_start_ms":1770860000000}"#

  /// Reads every event of `lines` (header first) held in memory; the error if one is thrown.
  static func readError(_ lines: [String], eventsMax: Int? = nil) -> RecordingError? {
    let bytes = [UInt8]((lines.joined(separator: "\n") + "\n").utf8)
    do {
      let r = try JSONLReader(bytes: bytes, path: "hostile.jsonl", definitions: JustPhotoEvents.self)
      if let eventsMax { r.eventsMax = eventsMax }
      while try r.next() != nil {}
      return nil
    } catch {
      return error
    }
  }

  static func base64(_ count: Int) -> String { Data(repeating: 7, count: count).base64EncodedString() }

  // MARK: luma (C1)

  @Test("C1: luma w = h = 2³² is refused at its line, naming lumaPixelsMax (no overflow trap)")
  func lumaHugeSides() throws {
    let e = try #require(
      Self.readError([Self.header, #"{"t":0,"kind":"luma","frame":1,"w":4294967296,"h":4294967296,"data":"AAAA"}"#]))
    #expect(e.file == "hostile.jsonl:2")
    #expect(e.message.contains("lumaPixelsMax = \(RecordingLimits.lumaPixelsMax)"))
    #expect(e.message.contains("4294967296×4294967296"))
  }

  @Test("C1: sides whose product overflows Int64 (2⁶², 4) and negative ones are refused")
  func lumaOverflowingProduct() throws {
    for (w, h) in [("4611686018427387904", "4"), ("-2", "-3"), ("0", "5"), ("2097153", "1")] {
      let line = "{\"t\":0,\"kind\":\"luma\",\"frame\":1,\"w\":\(w),\"h\":\(h),\"data\":\"AAAA\"}"
      let e = try #require(Self.readError([Self.header, line]), "w=\(w) h=\(h)")
      #expect(e.message.contains("lumaPixelsMax"), "\(e)")
    }
  }

  @Test("luma at exactly lumaPixelsMax pixels loads; the byte count is tied to w·h exactly")
  func lumaAtBoundAndByteCount() throws {
    let w = 1024
    let h = RecordingLimits.lumaPixelsMax / w
    let ok = "{\"t\":0,\"kind\":\"luma\",\"frame\":1,\"w\":\(w),\"h\":\(h),\"data\":\"\(Self.base64(w * h))\"}"
    #expect(Self.readError([Self.header, ok]) == nil)
    // One byte more or less than w·h: refused before or after decoding, naming w·h.
    for n in [5, 7, 9, 300] {
      let line = "{\"t\":0,\"kind\":\"luma\",\"frame\":1,\"w\":2,\"h\":3,\"data\":\"\(Self.base64(n))\"}"
      let e = try #require(Self.readError([Self.header, line]), "\(n) bytes")
      #expect(e.message.contains("w·h = 6 bytes, found \(n)"), "\(e)")
      #expect(e.file == "hostile.jsonl:2")
    }
  }

  @Test("C1 through ref_analysis.luma: refused as a bad reference at its line")
  func referenceLumaHugeSides() throws {
    let line =
      #"{"t":5,"kind":"ref_analysis","ref_id":"r1","luma":{"w":4294967296,"h":4294967296,"enc":"u8-b64","data":"AAAA"}}"#
    let e = try #require(Self.readError([Self.header, line]))
    #expect(e.file == "hostile.jsonl:2")
    #expect(e.message.hasPrefix("ref_analysis: luma:"), "\(e)")
    #expect(e.message.contains("lumaPixelsMax"))
  }

  // MARK: duration, wall time, event count (H1)

  @Test("H1: duration_ms 10¹² and 2⁵³ are refused at line 1, naming durationMsMax")
  func headerDurationOverBound() throws {
    for d in ["1000000000000", "9007199254740992", "\(RecordingLimits.durationMsMax + 1)"] {
      let h = "{\"format\":\"jp-replay/1\",\"duration_ms\":\(d)}"
      let e = try #require(Self.readError([h]), "\(d)")
      #expect(e.file == "hostile.jsonl:1")
      #expect(e.message.contains("durationMsMax = \(RecordingLimits.durationMsMax) ms"), "\(e)")
    }
    let atBound = "{\"format\":\"jp-replay/1\",\"duration_ms\":\(RecordingLimits.durationMsMax)}"
    #expect(Self.readError([atBound, #"{"t":0,"kind":"shutter_tap"}"#]) == nil)
  }

  @Test("H1 without duration_ms: an event past durationMsMax is refused at its line")
  func eventTimeOverBound() throws {
    let e = try #require(
      Self.readError([Self.header, #"{"t":0,"kind":"shutter_tap"}"#, #"{"t":4611686018427387904,"kind":"shutter_tap"}"#]))
    #expect(e.file == "hostile.jsonl:3")
    #expect(e.message.contains("durationMsMax"))
  }

  @Test("wall_start_ms past year 9999 is refused (wall_start_ms + t can never overflow)")
  func wallStartOverBound() throws {
    let e = try #require(Self.readError([#"{"format":"jp-replay/1","wall_start_ms":9100000000000000000}"#]))
    #expect(e.file == "hostile.jsonl:1")
    #expect(e.message.contains("wallStartMsMax = \(RecordingLimits.wallStartMsMax)"))
  }

  @Test("events per recording: event eventsMax + 1 is refused at its line, naming the bound")
  func eventCountOverBound() throws {
    let lines = [Self.header] + Array(repeating: #"{"t":0,"kind":"shutter_tap"}"#, count: 6)
    #expect(Self.readError(lines, eventsMax: 6) == nil)
    let e = try #require(Self.readError(lines, eventsMax: 5))
    #expect(e.file == "hostile.jsonl:7")
    #expect(e.message.contains("eventsMax = 5"))
    #expect(RecordingLimits.eventsMax == 1 << 20)
  }
}
