import EngineIO
import CanonicalJSON
import Foundation
import JustPhotoIO
import Recording
import JustPhotoScenarios
import Testing

/// Damaged recordings: clean exit-2 errors naming the problem, `doctor`, `--recover`,
/// and a `kill -9` in the middle of `import` (DESIGN §3).
@Suite("recording integrity")
struct IntegrityTests {
  /// Imports a corpus JSONL (generated from its scenario) into a temp folder and returns the
  /// .jprec path.
  func freshRecording(in dir: URL) throws -> URL {
    let out = dir.appendingPathComponent("r.jprec")
    let r = try CLI.run(["import", CLI.corpusJSONL("drift-left-and-back", in: dir).path, "-o", out.path])
    try #require(r.code == 0, "\(r.stderr)")
    return out
  }

  @Test func aFileThatIsNotSQLiteIsBadInput() throws {
    let dir = try CLI.tempDir("integrity")
    defer { try? FileManager.default.removeItem(at: dir) }
    let f = dir.appendingPathComponent("notes.jprec")
    try Data("these are not the bytes you are looking for\n".utf8).write(to: f)
    for cmd in [["info"], ["replay"], ["doctor"], ["cat"]] {
      let r = try CLI.run(cmd + [f.path])
      #expect(r.code == 2, "\(cmd): \(r.stderr)")
      #expect(r.stderr.contains("notes.jprec"))
      #expect(r.stderr.lowercased().contains("sqlite"))
    }
  }

  @Test func aTruncatedFileIsBadInput() throws {
    let dir = try CLI.tempDir("integrity")
    defer { try? FileManager.default.removeItem(at: dir) }
    let f = try freshRecording(in: dir)
    let bytes = try Data(contentsOf: f)
    try bytes.prefix(bytes.count * 2 / 3).write(to: f)
    let r = try CLI.run(["replay", f.path])
    #expect(r.code == 2, "\(r.stderr)")
    #expect(r.stderr.contains("r.jprec"))
    let d = try CLI.run(["doctor", f.path])
    #expect(d.code != 0)
  }

  @Test func aFlippedByteInsideAChunkIsNamedAndRecoverable() throws {
    let dir = try CLI.tempDir("integrity")
    defer { try? FileManager.default.removeItem(at: dir) }
    let f = try freshRecording(in: dir)
    var bytes = [UInt8](try Data(contentsOf: f))
    // zstd frames start with 28 B5 2F FD; damage a byte well inside the first frame.
    let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
    let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == magic })
    bytes[at + 40] ^= 0x5A
    try Data(bytes).write(to: f)

    let replay = try CLI.run(["replay", f.path])
    #expect(replay.code == 2)
    #expect(replay.stderr.contains("chunk"), "\(replay.stderr)")

    let doctor = try CLI.run(["doctor", f.path])
    #expect(doctor.code == 1)
    #expect(doctor.stdout.contains("chunk"), "\(doctor.stdout)")

    let out = dir.appendingPathComponent("recovered.jprec")
    let recover = try CLI.run(["doctor", "--recover", f.path, "-o", out.path])
    #expect(recover.code == 0 || recover.code == 1, "\(recover.stderr)")
    #expect(recover.stdout.lowercased().contains("lost"), "\(recover.stdout)")
    let again = try CLI.run(["doctor", out.path])
    #expect(again.code == 0, "\(again.stdout)\(again.stderr)")
  }

  @Test func aNewerFormatVersionNamesBothVersions() throws {
    let dir = try CLI.tempDir("integrity")
    defer { try? FileManager.default.removeItem(at: dir) }
    let f = try freshRecording(in: dir)
    var bytes = [UInt8](try Data(contentsOf: f))
    bytes[60] = 0; bytes[61] = 0; bytes[62] = 0; bytes[63] = 9  // SQLite header: user_version
    try Data(bytes).write(to: f)
    let r = try CLI.run(["info", f.path])
    #expect(r.code == 2)
    #expect(r.stderr.contains("9"), "\(r.stderr)")
    #expect(r.stderr.contains("version 2"))
  }

  @Test func importRefusesToOverwriteAndLeavesTheOldFileIntact() throws {
    let dir = try CLI.tempDir("integrity")
    defer { try? FileManager.default.removeItem(at: dir) }
    let f = try freshRecording(in: dir)
    let before = try Data(contentsOf: f)
    let bad = dir.appendingPathComponent("bad.jsonl")
    try Data("{\"format\":\"jp-replay/1\"}\n{\"t\":0,\"kind\":\"thermal\",\"state\":\"warm\"}\n".utf8).write(to: bad)
    let r1 = try CLI.run(["import", bad.path, "-o", f.path])
    #expect(r1.code == 2)
    let r2 = try CLI.run(["import", bad.path, "-o", f.path, "--force"])
    #expect(r2.code == 2)
    #expect(r2.stderr.contains("bad.jsonl:2"), "\(r2.stderr)")
    #expect(r2.stderr.contains("state"))
    #expect(try Data(contentsOf: f) == before)
    // The failed replacement left no temporary file (nor its -wal/-shm) behind.
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    #expect(!left.contains { $0.hasPrefix(SafeFile.temporaryPrefix) }, "\(left)")
    // A planted (dangling) symlink at OUT is refused, not written through.
    let link = dir.appendingPathComponent("link.jprec")
    let outside = dir.appendingPathComponent("outside.jprec")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: outside.path)
    let good = try CLI.run(["import", CLI.corpusJSONL("drift-left-and-back", in: dir).path, "-o", link.path])
    #expect(good.code == 2, "\(good.stderr)")
    #expect(!FileManager.default.fileExists(atPath: outside.path))
  }

  /// A long recording cut in the middle: `replay` refuses it (exit 2, "truncated"), `doctor`
  /// names the truncation, and `--recover` keeps the chunks before the cut.
  @Test func aTruncatedLongRecordingIsSalvagedUpToTheCut() throws {
    let dir = try CLI.tempDir("integrity")
    defer { try? FileManager.default.removeItem(at: dir) }
    let f = dir.appendingPathComponent("long.jprec")
    let rec = try Recorder(path: f.path, header: ["format": "jp-replay/1", "name": "long"], chunkRawLimit: 64 << 10, definitions: JustPhotoEvents.self)
    for e in SyntheticSession(durationMs: 120_000, fps: 30, seed: 3) { try rec.append(e) }
    try rec.finish()
    let bytes = try Data(contentsOf: f)
    try bytes.prefix(bytes.count * 6 / 10).write(to: f)

    let r = try CLI.run(["replay", f.path])
    #expect(r.code == 2)
    #expect(r.stderr.contains("long.jprec") && r.stderr.contains("truncated"), "\(r.stderr)")
    let d = try CLI.run(["doctor", f.path])
    #expect(d.code == 1)
    #expect(d.stdout.contains("PROBLEM: truncated"), "\(d.stdout)")
    let out = dir.appendingPathComponent("salvaged.jprec")
    let s = try CLI.run(["doctor", "--recover", f.path, "-o", out.path])
    #expect(s.code == 0, "\(s.stdout)\(s.stderr)")
    #expect(s.stdout.contains("file truncated"))
    let info = try CLI.run(["info", "--json", out.path])
    let events = try JSONParser.parse(info.stdout.trimmingCharacters(in: .whitespacesAndNewlines))["events"]?.int64Value ?? 0
    // Roughly the first 60% of the 3601 frames survive; none of the rest.
    #expect(events > 1000 && events < 3601, "\(events) events kept")
    #expect(try CLI.run(["doctor", out.path]).code == 0)
  }

  @Test func killingImportLeavesAFileThatOpensAndDoctorSaysWhatWasLost() throws {
    let dir = try CLI.tempDir("kill")
    defer { try? FileManager.default.removeItem(at: dir) }
    // A large JSONL: 120k frames, ~1 KB each.
    let src = dir.appendingPathComponent("big.jsonl")
    _ = FileManager.default.createFile(atPath: src.path, contents: nil)
    let h = try FileHandle(forWritingTo: src)
    h.write(Data("{\"format\":\"jp-replay/1\",\"name\":\"big\",\"wall_start_ms\":0}\n".utf8))
    var batch = ""
    for k in 0..<120_000 {
      let t = k * 33
      let x = 0.4 + Double(k % 200) / 1000
      batch += "{\"t\":\(t),\"kind\":\"landmarks\",\"frame\":\(k),\"body\":{"
      batch += ["leftShoulder", "rightShoulder", "leftHip", "rightHip", "leftAnkle", "rightAnkle", "nose"]
        .enumerated().map { i, j in "\"\(j)\":[\(x + Double(i) * 0.01),\(0.3 + Double(i) * 0.05),0.9]" }
        .joined(separator: ",")
      batch += "},\"faces\":[]}\n"
      if k % 5000 == 4999 {
        h.write(Data(batch.utf8))
        batch = ""
      }
    }
    try h.close()

    let out = dir.appendingPathComponent("big.jprec")
    let p = Process()
    p.executableURL = CLI.binary
    p.arguments = ["import", src.path, "-o", out.path]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    // Wait until at least two chunks are committed (each commit appends pages to the WAL; this
    // periodic data compresses to a few KiB per chunk), then kill -9 in the middle of the next.
    // A bound on polls, not a clock reading (a commit normally shows within a few hundred).
    var polls = 0
    func walSize() -> Int {
      (try? FileManager.default.attributesOfItem(atPath: out.path + "-wal")[.size] as? Int) ?? 0
    }
    var firstCommit = 0
    while p.isRunning && polls < 12_000 {
      polls += 1
      let w = walSize()
      if firstCommit == 0 && w > 0 { firstCommit = w }
      if firstCommit > 0 && w > firstCommit { break }
      usleep(5000)
    }
    try #require(p.isRunning, "import finished before it could be killed; make the input larger")
    kill(p.processIdentifier, SIGKILL)
    p.waitUntilExit()

    let info = try CLI.run(["info", out.path])
    #expect(info.code == 0, "\(info.stderr)")
    let doctor = try CLI.run(["doctor", out.path])
    #expect(doctor.code == 1)
    #expect(doctor.stdout.lowercased().contains("incomplete"), "\(doctor.stdout)")
    let rec = dir.appendingPathComponent("rec.jprec")
    _ = try CLI.run(["doctor", "--recover", out.path, "-o", rec.path])
    #expect(try CLI.run(["doctor", rec.path]).code == 0)
  }
}
