import Foundation
import JustPhotoPlugin
import Lab
import Testing

/// The accepted-hazards file of `spec audit --accept` (issue 16): format, bounds, hostile input.
@Suite("Spec audit: accepted-hazards file")
struct AuditAcceptFileTests {
  static func file(_ bytes: [UInt8]) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("accept-\(UUID().uuidString).txt").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test("comments, blank lines and tabs are ignored; a line is KIND CUE[/level]")
  func format() throws {
    let path = try Self.file(Array("# c\n\nnever-fires\tFRAME_ADD_HEADROOM  # G-48\r\nneutral-fires CAFE_12/hard\n".utf8))
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(try AuditFiles.readAccepted(path) == ["never-fires FRAME_ADD_HEADROOM", "neutral-fires CAFE_12/hard"])
  }

  @Test("an unknown kind, a missing cue, non-UTF-8, an oversize file and a missing file are exit 2 naming the place")
  func hostile() throws {
    for (bytes, needle) in [
      (Array("fires-sometimes X\n".utf8), ":1: expected `KIND CUE_ID[/level]`"),
      (Array("# ok\nnever-fires\n".utf8), ":2: expected"),
      ([0xFF, 0xFE, 0x00], "not valid UTF-8"),
      ([UInt8](repeating: 0x23, count: AuditFiles.acceptBytesMax + 1), "acceptBytesMax"),
    ] {
      let path = try Self.file(bytes)
      defer { try? FileManager.default.removeItem(atPath: path) }
      #expect(throws: HarnessFailure.self) { try AuditFiles.readAccepted(path) }
      do { _ = try AuditFiles.readAccepted(path) } catch {
        #expect(error.code == 2)
        #expect(error.message.contains(needle), "\(error.message)")
      }
    }
    do { _ = try AuditFiles.readAccepted("/nonexistent/accept.txt") } catch { #expect(error.message.contains("/nonexistent/accept.txt")) }
  }

  @Test("too many lines is refused at the bound")
  func lineBound() throws {
    let path = try Self.file(Array(String(repeating: "\n", count: AuditFiles.acceptLinesMax + 1).utf8))
    defer { try? FileManager.default.removeItem(atPath: path) }
    do {
      _ = try AuditFiles.readAccepted(path)
      Issue.record("accepted \(AuditFiles.acceptLinesMax + 1) lines")
    } catch { #expect(error.message.contains("acceptLinesMax")) }
  }
}
