import EngineIO
import Foundation
import JustPhotoIO
@testable import Recording
import Testing


/// The line bound of the JSONL reader (`RecordingLimits.lineBytesMax`) on plain and `.zst`
/// files, and its newline search in linear time (issue 12, H4: a 200 MB line took 54 s).
@Suite("JSONL line limit and linear line splitting")
struct JSONLLineLimitTests {
  static let header = #"{"format":"jp-replay/1"}"#
  static let event = #"{"t":0,"kind":"shutter_tap"}"#

  /// A temporary file holding `lines` (each given as byte count × byte or as text), written in
  /// 1 MiB pieces, zstd-compressed when `name` ends in `.zst`.
  static func file(_ name: String, _ lines: [Line]) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonl-lines-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent(name)
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    let zstd = name.hasSuffix(".zst") ? ZstdFileWriter(handle: handle) : nil
    func put(_ bytes: [UInt8]) throws {
      if let zstd { try zstd.write(bytes) } else { try handle.write(contentsOf: bytes) }
    }
    for line in lines {
      switch line {
      case .text(let s): try put(Array(s.utf8))
      case .repeated(let byte, var count):
        while count > 0 {
          let n = min(count, 1 << 20)
          try put([UInt8](repeating: byte, count: n))
          count -= n
        }
      }
      try put([0x0A])
    }
    try zstd?.finish()
    try handle.close()
    return url
  }

  enum Line {
    case text(String)
    case repeated(UInt8, Int)
    var count: Int {
      switch self {
      case .text(let s): s.utf8.count
      case .repeated(_, let n): n
      }
    }
  }

  static func spaces(_ n: Int) -> Line { .repeated(0x20, n) }

  /// All events of `url`, or the error.
  static func read(_ url: URL) -> (events: Int, error: RecordingError?, searched: Int) {
    var n = 0
    var reader: JSONLReader?
    do {
      let r = try JSONLReader(path: url.path, definitions: JustPhotoEvents.self)
      reader = r
      while try r.next() != nil { n += 1 }
      return (n, nil, r.bytesSearched)
    } catch {
      return (n, error, reader?.bytesSearched ?? 0)
    }
  }

  @Test("a line of lineBytesMax + 1 bytes is refused at its line number (plain and .zst)", arguments: ["r.jsonl", "r.jsonl.zst"])
  func lineOverBound(name: String) throws {
    let url = try Self.file(name, [.text(Self.header), .text(Self.event), Self.spaces(RecordingLimits.lineBytesMax + 1)])
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let r = Self.read(url)
    let e = try #require(r.error)
    #expect(r.events == 1)
    #expect(e.file == "\(url.path):3")
    #expect(e.message.contains("lineBytesMax = \(RecordingLimits.lineBytesMax) bytes"), "\(e)")
  }

  @Test("a line of exactly lineBytesMax bytes is read; the search looks at each byte once", arguments: ["r.jsonl", "r.jsonl.zst"])
  func lineAtBoundIsLinear(name: String) throws {
    // A blank line (skipped) of the maximal length between two events.
    let parts: [Line] = [.text(Self.header), .text(Self.event), Self.spaces(RecordingLimits.lineBytesMax), .text(Self.event)]
    let url = try Self.file(name, parts)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let r = Self.read(url)
    #expect(r.error == nil)
    #expect(r.events == 2)
    // Quadratic re-scanning (the H4 bug) would look at ~lineBytesMax²/(2·block) bytes.
    let total = parts.reduce(0) { $0 + $1.count + 1 }
    #expect(r.searched <= total, "searched \(r.searched) bytes of \(total)")
  }

  @Test("a 200 MB line in a .zst (H4) is refused after reading about lineBytesMax bytes")
  func hugeCompressedLine() throws {
    let url = try Self.file("big.jsonl.zst", [.text(Self.header), .repeated(0x61, 200_000_000)])
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let r = Self.read(url)
    let e = try #require(r.error)
    #expect(e.file == "\(url.path):2")
    #expect(r.searched <= RecordingLimits.lineBytesMax + (1 << 20))
  }
}
