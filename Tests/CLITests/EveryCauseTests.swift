import Foundation
import Testing

/// Issue 37 item 2: `diff` lists the spec edits of every divergent cue (behavioural first,
/// prose folded), and `bisect spec` names the commit each edit came from.
@Suite("every cause")
struct EveryCauseTests {
  typealias B = BisectCommitsTests

  /// val-cafe-dim after a CAFE_12 threshold edit (with a prose edit of the same cue and of
  /// another cue beside it): `diff` names the CAFE_12 edit, the behavioural line before the
  /// folded prose, and nothing of the cue that does not diverge.
  @Test func diffNamesTheEditOfEveryDivergentCue() throws {
    let dir = try B.makeRepo(recordings: ["val-cafe-dim"])
    defer { try? FileManager.default.removeItem(at: dir) }
    try B.editCue("CAFE_12_CAFE_THIRDS_COMPOSE", "\">\": 0.1\n", "\">\": 0.13\n", in: dir)
    try B.editCue("CAFE_12_CAFE_THIRDS_COMPOSE", #""notes": ""#, #""notes": "reworded "#, in: dir)
    try B.editCue("FRAME_MOVE_LEFT", #""meaning": ""#, #""meaning": "reworded "#, in: dir)
    let r = try CLI.run(["diff", "Golden/val-cafe-dim.trace.jsonl", "Recordings/val-cafe-dim.jprec"], cwd: dir)
    #expect(r.code == 1, "\(r.stdout)\n\(r.stderr)")
    let edit = "cues[CAFE_12_CAFE_THIRDS_COMPOSE].trigger.noRef.warn.> 0.1 → 0.13"
    let lines = r.stdout.split(separator: "\n").map(String.init)
    let behavioural = try #require(lines.firstIndex(of: "  " + edit), "\(r.stdout)")
    let folded = try #require(lines.firstIndex { $0.hasPrefix("  + 1 prose edit folded (notes)") }, "\(r.stdout)")
    #expect(behavioural < folded)
    #expect(!r.stdout.contains("FRAME_MOVE_LEFT].metric.meaning"), "a cue that does not diverge is not in play")
  }

  /// Two commits each edit one cue: `bisect spec REV:PoseSpec.json PoseSpec.json` names each
  /// edit's commit; an edit only in the working file is "not committed".
  @Test func bisectSpecNamesTheCommitOfEachEdit() throws {
    let dir = try B.makeRepo()
    defer { try? FileManager.default.removeItem(at: dir) }
    try B.commit(dir, "c2 spec: FRAME_MOVE_LEFT persistFrames 4 → 5") { try B.leftPersistFramesToFive(in: dir) }
    try B.commit(dir, "c3 notes") { try B.append("notes\n", to: dir.appendingPathComponent("NOTES.md")) }
    try B.commit(dir, "c4 spec: HEAD_LEVEL persistFrames 3 → 6") {
      try B.editCue("HEAD_LEVEL", #""persistFrames": 3"#, #""persistFrames": 6"#, in: dir)
    }
    try B.editCue("HEAD_LEVEL", #""minHoldMs": 3000"#, #""minHoldMs": 3100"#, in: dir)
    let c2 = try B.git(["rev-parse", "HEAD~2"], in: dir)
    let c4 = try B.git(["rev-parse", "HEAD"], in: dir)
    let r = try CLI.run(["bisect", "spec", "HEAD~3:PoseSpec.json", "PoseSpec.json", "s04-frame-left-enter", "s05-head-level-flicker"], cwd: dir)
    #expect(r.code == 0, "\(r.stdout)\n\(r.stderr)")
    #expect(r.stdout.contains("where each edit came from (commits of HEAD~3..HEAD that change PoseSpec.json):"), "\(r.stdout)")
    let lines = r.stdout.split(separator: "\n").map(String.init)
    func number(of edit: String) -> String? {
      lines.first { $0.hasPrefix("  [") && $0.contains(edit) }.map { String($0.dropFirst(2).prefix { $0 != " " }) }
    }
    let left = try #require(number(of: "cues[FRAME_MOVE_LEFT].antiJitter.persistFrames 4 → 5"), "\(r.stdout)")
    let head = try #require(number(of: "cues[HEAD_LEVEL].antiJitter.persistFrames 3 → 6"))
    let hold = try #require(number(of: "cues[HEAD_LEVEL].antiJitter.minHoldMs 3000 → 3100"))
    #expect(lines.contains("  \(left) \(c2.prefix(12)) c2 spec: FRAME_MOVE_LEFT persistFrames 4 → 5"))
    #expect(lines.contains("  \(head) \(c4.prefix(12)) c4 spec: HEAD_LEVEL persistFrames 3 → 6"))
    #expect(lines.contains("  \(hold) not committed (only PoseSpec.json has it)"))
    // --json stays as it was: no origins.
    let json = try CLI.run(["bisect", "spec", "HEAD~3:PoseSpec.json", "PoseSpec.json", "s04-frame-left-enter", "--json"], cwd: dir)
    #expect(!json.stdout.contains("where each edit came from"))
  }
}
