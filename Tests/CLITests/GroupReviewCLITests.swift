import Foundation
import Testing

/// `review --group`, `accept --group KEY`, `reject --group KEY` on a scratch corpus whose
/// pending files are written by hand (no replay needed): the same level change in two
/// recordings is one group.
@Suite("review by group (CLI)")
struct GroupReviewCLITests {
  /// Both recordings' trace goldens with the first cue_display's mode noRef → withRef as their
  /// `.new` files (both show FRAME_MOVE_LEFT first: one group).
  static func corpus(_ label: String) throws -> URL {
    let dir = try VerifyReportTests.corpusCopy(label)
    for n in VerifyReportTests.names {
      let golden = dir.appendingPathComponent("Golden/\(n).trace.jsonl")
      var lines = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      let i = try #require(lines.firstIndex { $0.contains(#""out":"cue_display""#) && $0.contains(#""mode":"noRef""#) })
      #expect(lines[i].contains(#""cue_id":"FRAME_MOVE_LEFT""#))
      lines[i] = lines[i].replacingOccurrences(of: #""mode":"noRef""#, with: #""mode":"withRef""#)
      try lines.joined(separator: "\n").write(to: dir.appendingPathComponent("Golden/\(n).trace.jsonl.new"), atomically: true, encoding: .utf8)
    }
    return dir
  }

  @Test func aGroupIsListedAcceptedByKeyAndAnUnknownKeyIsBadInput() throws {
    let dir = try Self.corpus("group-cli")
    defer { try? FileManager.default.removeItem(at: dir) }
    let review = try CLI.run(["review", "--group"], cwd: dir, stdin: "s\n")
    #expect(review.code == 1, "\(review.stderr)")
    #expect(review.stdout.contains("2 pending files in 1 group:"), "\(review.stdout)")
    #expect(review.stdout.contains("— 2 files in 2 recordings (drift-left-and-back, s06-hold-and-cooldown)"))
    // One example: the first file's diff only.
    #expect(review.stdout.contains("[1/2] drift-left-and-back — trace") && !review.stdout.contains("[2/2]"))
    let keyLine = try #require(review.stdout.split(separator: "\n").first { $0.hasPrefix("=== group 1/") })
    let key = String(keyLine.split(separator: " ").last!)
    #expect(review.stdout.contains("jpreplay accept --group '\(key)'"))
    let unknown = try CLI.run(["accept", "--group", "NO_SUCH:*"], cwd: dir)
    #expect(unknown.code == 2)
    #expect(unknown.stderr.contains("no pending group matches NO_SUCH:*") && unknown.stderr.contains(key), "\(unknown.stderr)")
    let accepted = try CLI.run(["accept", "--group", key], cwd: dir)
    #expect(accepted.code == 0, "\(accepted.stderr)")
    #expect(accepted.stdout == "accepted drift-left-and-back.trace.jsonl.new\naccepted s06-hold-and-cooldown.trace.jsonl.new\n")
    let golden = try String(contentsOf: dir.appendingPathComponent("Golden/drift-left-and-back.trace.jsonl"), encoding: .utf8)
    #expect(golden.contains(#""mode":"withRef""#))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("Golden").path).allSatisfy { !$0.hasSuffix(".new") })
    #expect(try CLI.run(["reject", "--group", "*"], cwd: dir).code == 2, "nothing pending: no group matches")
    #expect(try CLI.run(["accept", "--group", "x", "--all"], cwd: dir).code == 2)
  }
}
