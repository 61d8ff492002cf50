import Foundation
import JPReplayTesting
import XCTest

/// Replays each recording in `Replays/Recordings` through the coaching engine and compares the
/// result with its goldens in `Replays/Golden`, the way `jpreplay verify` does. On a difference
/// the failure explains the first divergence and writes `<golden>.new` beside the golden; look
/// at it with `jpreplay review --recordings-dir … --golden-dir …` (or `jpreplay report`) and
/// accept it with `jpreplay accept`.
final class CoachingReplayTests: XCTestCase {
  /// Paths from this file (#filePath), never the working directory: Xcode and `swift test`
  /// run tests from different folders.
  static let replays = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Replays")

  func testFrameLeftEnterMatchesItsGolden() {
    assertReplay(
      recording: Self.replays.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"),
      matchesGoldenIn: Self.replays.appendingPathComponent("Golden"),
      spec: Self.replays.appendingPathComponent("PoseSpec.json"))
  }

  /// Every recording in the folder, so a new recording needs no new test.
  func testEveryRecordingMatchesItsGolden() throws {
    let folder = Self.replays.appendingPathComponent("Recordings")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jprec") }.sorted()
    XCTAssertFalse(names.isEmpty, "no recordings in \(folder.path)")
    for name in names {
      assertReplay(
        recording: folder.appendingPathComponent(name),
        matchesGoldenIn: Self.replays.appendingPathComponent("Golden"),
        spec: Self.replays.appendingPathComponent("PoseSpec.json"))
    }
  }
}
