import Foundation
import Testing

/// The committed corpus: every recording has a golden, replays match, and replays are
/// byte-identical across processes and hashing seeds (DESIGN §1).
@Suite("corpus")
struct CorpusTests {
  static var recordings: [String] {
    let dir = CLI.repoRoot.appendingPathComponent("Recordings")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return files.filter { $0.hasSuffix(".jprec") }.map { String($0.dropLast(6)) }.sorted()
  }

  @Test func theCorpusHasAtLeastFourRecordings() {
    #expect(Self.recordings.count >= 4)
  }

  @Test func everyRecordingMatchesItsGoldens() throws {
    // CI mode: nothing is written, a missing golden fails.
    let r = try CLI.run(["verify", "--jobs", "2"], env: ["CI": "true"])
    #expect(r.code == 0, "verify failed; run `jpreplay verify` then `jpreplay review`:\n\(r.stdout)\(r.stderr)")
  }

  @Test(arguments: recordings)
  func eachRecordingIsImportedFromItsCommittedJSONL(name: String) throws {
    let jsonl = "Recordings/\(name).jsonl"
    try #require(FileManager.default.fileExists(atPath: CLI.repoRoot.appendingPathComponent(jsonl).path))
    let fromJprec = try CLI.run(["cat", "Recordings/\(name).jprec"])
    let dir = try CLI.tempDir("corpus")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("\(name).jprec").path
    let imp = try CLI.run(["import", jsonl, "-o", out])
    #expect(imp.code == 0, "\(imp.stderr)")
    let fromJSONL = try CLI.run(["cat", out])
    #expect(fromJprec.code == 0)
    #expect(fromJprec.stdout == fromJSONL.stdout, "Recordings/\(name).jprec is stale: re-import it from \(jsonl)")
  }

  @Test func replaysAreByteIdenticalAcrossProcessesAndHashSeeds() throws {
    let name = try #require(Self.recordings.first { $0.contains("drift") } ?? Self.recordings.first)
    let args = ["replay", "Recordings/\(name).jprec"]
    let a = try CLI.run(args, env: ["SWIFT_DETERMINISTIC_HASHING": "1"])
    let b = try CLI.run(args, removeEnv: ["SWIFT_DETERMINISTIC_HASHING"])
    let c = try CLI.run(args, removeEnv: ["SWIFT_DETERMINISTIC_HASHING"])
    #expect(a.code == 0, "\(a.stderr)")
    #expect(!a.stdoutData.isEmpty)
    #expect(a.stdoutData == b.stdoutData)
    #expect(b.stdoutData == c.stdoutData)
  }
}
