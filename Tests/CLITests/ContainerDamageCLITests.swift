import Foundation
import GRDB
import Recording
import Testing

/// Issue 12 at the command line: damage the exit codes see (S1, S2, D1–D3), recover output that
/// replays, and safe writes of `replay -o` (G1, G2).
@Suite("container damage (CLI)")
struct ContainerDamageCLITests {
  func fresh(in dir: URL) throws -> URL {
    let out = dir.appendingPathComponent("r.jprec")
    let r = try CLI.run(["import", CLI.corpusJSONL("drift-left-and-back", in: dir).path, "-o", out.path])
    try #require(r.code == 0, "\(r.stderr)")
    return out
  }

  func sql(_ f: URL, _ s: String) throws {
    let q = try DatabaseQueue(path: f.path)
    try q.write { try $0.execute(sql: s) }
    try q.close()
  }

  func deadPID() throws -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/true")
    try p.run()
    p.waitUntilExit()
    return p.processIdentifier
  }

  @Test func aDeletedChunkIsExit2ForReplayAndInfoExit1ForDoctorAndRecoverOutputReplays() throws {
    let dir = try CLI.tempDir("damage")
    defer { try? FileManager.default.removeItem(at: dir) }
    let f = try fresh(in: dir)
    let whole = try CLI.run(["replay", f.path])
    try #require(whole.code == 0, "\(whole.stderr)")
    // The label channel (id 7): ground truth the engine never sees, so the recovered
    // recording replays to the same trace.
    try sql(f, "DELETE FROM chunks WHERE id = (SELECT MIN(id) FROM chunks WHERE channel_id = 7)")
    for cmd in ["replay", "info", "cat"] {
      let r = try CLI.run([cmd, f.path])
      #expect(r.code == 2, "\(cmd): \(r.stderr)")
      #expect(r.stderr.contains("r.jprec"), "\(cmd): \(r.stderr)")
      #expect(r.stderr.contains("chunks are missing"), "\(cmd): \(r.stderr)")
    }
    let doctor = try CLI.run(["doctor", f.path])
    #expect(doctor.code == 1, "\(doctor.stdout)")
    #expect(doctor.stdout.contains("event counts"), "\(doctor.stdout)")
    let out = dir.appendingPathComponent("rec.jprec")
    let rec = try CLI.run(["doctor", "--recover", f.path, "-o", out.path])
    #expect(rec.code == 0, "\(rec.stdout)\(rec.stderr)")
    let replay = try CLI.run(["replay", out.path])
    #expect(replay.code == 0, "\(replay.stderr)")
    #expect(!replay.stdout.isEmpty)
    #expect(replay.stdout == whole.stdout)
  }

  @Test func anEditedHeaderIsExit2AndRecoverOutputReplays() throws {
    let dir = try CLI.tempDir("damage")
    defer { try? FileManager.default.removeItem(at: dir) }
    let f = try fresh(in: dir)
    try sql(f, "UPDATE meta SET value = 'false' WHERE key = 'initial'")
    let replay = try CLI.run(["replay", f.path])
    #expect(replay.code == 2, "\(replay.stderr)")
    #expect(replay.stderr.contains("meta: CRC mismatch"), "\(replay.stderr)")
    #expect(try CLI.run(["doctor", f.path]).code == 1)
    let out = dir.appendingPathComponent("rec.jprec")
    let rec = try CLI.run(["doctor", "--recover", f.path, "-o", out.path])
    #expect(rec.code == 0, "\(rec.stdout)\(rec.stderr)")
    #expect(try CLI.run(["replay", out.path]).code == 0)
  }

  @Test func replayOutputNeverFollowsAPlantedSymlinkAndLeavesOtherFilesAlone() throws {
    let dir = try CLI.tempDir("safe")
    let outside = try CLI.tempDir("outside")
    defer {
      try? FileManager.default.removeItem(at: dir)
      try? FileManager.default.removeItem(at: outside)
    }
    let f = try fresh(in: dir)
    let secret = outside.appendingPathComponent("secret")
    try Data("keep\n".utf8).write(to: secret)
    let out = dir.appendingPathComponent("t.jsonl")
    try FileManager.default.createSymbolicLink(atPath: out.path, withDestinationPath: secret.path)
    let dead = try deadPID()
    let stale = ["\(SafeFile.temporaryPrefix)\(dead)-abc-t.jsonl", ".r.jprec.import-\(dead)", ".r.jprec.import-\(dead)-wal"]
    for s in stale { try Data("x".utf8).write(to: dir.appendingPathComponent(s)) }
    // The planted link is refused (issue 23's output rule), never followed nor replaced.
    let refused = try CLI.run(["replay", f.path, "-o", out.path])
    #expect(refused.code == 2 && refused.stderr.contains("symbolic link"), "\(refused.stderr)")
    #expect(try String(contentsOf: secret, encoding: .utf8) == "keep\n")
    #expect((try FileManager.default.attributesOfItem(atPath: out.path))[.type] as? FileAttributeType == .typeSymbolicLink)
    // A real output beside them leaves them as they are (issue 34: no sweep — a name never
    // proves a file is jpreplay's, and the user's `.r.jprec.import-N` was deleted before).
    let real = dir.appendingPathComponent("t2.jsonl")
    let r = try CLI.run(["replay", f.path, "-o", real.path])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(try String(contentsOf: real, encoding: .utf8).count > 10)
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    for s in stale { #expect(left.contains(s), "\(left)") }
    #expect(left.filter { $0.hasPrefix(SafeFile.temporaryPrefix) } == [stale[0]], "\(left)")
  }
}
