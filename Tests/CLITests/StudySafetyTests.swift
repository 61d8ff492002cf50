import Foundation
import GRDB
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 34 item 6: a study is as safe as a golden. `tune run --study` follows the output rule
/// (a link is refused), writes only into a study (another program's database or any other
/// file is refused, unchanged), refuses a changed recording on resume and --extend, and is
/// locked while a run writes it.
@Suite struct StudySafetyTests {
  static let space = "cues[*].antiJitter.persistFrames: [3, 4, 5]\n"

  static func run(_ dir: URL, study: String = "s.sqlite", _ extra: [String] = []) throws -> CLI.Result {
    try CLI.run(["tune", "run", "space.yaml", "--study", study, "--corpus", "drift-*", "--no-validation", "--sampler", "random"] + extra, cwd: dir)
  }

  static func scratch() throws -> URL {
    let dir = try TuneCLITests.scratch()
    try TuneCLITests.write(space, dir.appendingPathComponent("space.yaml"))
    return dir
  }

  @Test("a link at the study's path — to a file or to nothing — is refused by name; nothing is written through it")
  func linksAreRefused() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    let victim = dir.appendingPathComponent("victim.txt")
    try Data("keep me\n".utf8).write(to: victim)
    try fm.createSymbolicLink(atPath: dir.appendingPathComponent("link.sqlite").path, withDestinationPath: "victim.txt")
    try fm.createSymbolicLink(atPath: dir.appendingPathComponent("dangling.sqlite").path, withDestinationPath: "made-by-jpreplay.sqlite")
    for name in ["link.sqlite", "dangling.sqlite"] {
      let r = try Self.run(dir, study: name, ["--trials", "2"])
      #expect(r.code == 2, "\(name): \(r.stdout)\(r.stderr)")
      #expect(r.stderr.contains(name) && r.stderr.contains("symbolic link"), "\(r.stderr)")
    }
    #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me\n")
    #expect(!fm.fileExists(atPath: dir.appendingPathComponent("made-by-jpreplay.sqlite").path), "a dangling link's target is never created")
  }

  @Test("another program's database, a text file and an empty file are refused by name and left byte for byte")
  func foreignFilesAreRefused() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let foreign = dir.appendingPathComponent("app.db")
    let q = try DatabaseQueue(path: foreign.path)
    try q.write { db in
      try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
      try db.execute(sql: "INSERT INTO notes (body) VALUES ('mine')")
    }
    try q.close()
    // Another program's database that happens to use the same table names.
    let lookalike = dir.appendingPathComponent("lookalike.db")
    let l = try DatabaseQueue(path: lookalike.path)
    try l.write { db in
      try db.execute(sql: "PRAGMA application_id = 1234")
      try db.execute(sql: "CREATE TABLE study (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
      try db.execute(sql: "CREATE TABLE trials (idx INTEGER PRIMARY KEY NOT NULL, params TEXT NOT NULL, status TEXT NOT NULL, objectives TEXT NOT NULL, reason TEXT)")
    }
    try l.close()
    try Data("not a database\n".utf8).write(to: dir.appendingPathComponent("notes.txt"))
    try Data().write(to: dir.appendingPathComponent("empty.sqlite"))
    for (name, says) in [("app.db", "not a tune study"), ("lookalike.db", "another program"), ("notes.txt", "not a SQLite database"), ("empty.sqlite", "empty file")] {
      let url = dir.appendingPathComponent(name)
      let before = try Data(contentsOf: url)
      let r = try Self.run(dir, study: name, ["--trials", "2"])
      #expect(r.code == 2, "\(name): \(r.stdout)\(r.stderr)")
      #expect(r.stderr.contains(name) && r.stderr.contains(says), "\(name): \(r.stderr)")
      #expect(try Data(contentsOf: url) == before, "\(name) changed")
      let report = try CLI.run(["tune", "report", name], cwd: dir)
      #expect(report.code == 2, "\(name): \(report.stderr)")
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    #expect(!left.contains { $0.hasPrefix(".jpreplay-tmp-") || $0.hasSuffix("-journal") }, "\(left)")
  }

  @Test("resume and --extend over a recording whose bytes changed are refused naming it; no trial is added")
  func changedRecordingIsRefused() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let first = try Self.run(dir, ["--trials", "2"])
    #expect(first.code == 0, "\(first.stderr)")
    let rec = dir.appendingPathComponent("Recordings/drift-left-and-back.jprec")
    let original = try Data(contentsOf: rec)
    // The same name, another recording's bytes.
    try FileManager.default.removeItem(at: rec)
    try FileManager.default.copyItem(at: CLI.repoRoot.appendingPathComponent("Recordings/near-threshold-jitter.jprec"), to: rec)
    for extra in [["--trials", "2"], ["--trials", "3", "--extend"]] {
      let r = try Self.run(dir, extra)
      #expect(r.code == 2, "\(extra): \(r.stdout)\(r.stderr)")
      #expect(r.stderr.contains("drift-left-and-back.jprec") && r.stderr.contains("changed"), "\(r.stderr)")
    }
    let q = try DatabaseQueue(path: dir.appendingPathComponent("s.sqlite").path)
    #expect(try q.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM trials") } == 2)
    try q.close()
    // The recording restored: the study continues.
    try original.write(to: rec)
    let again = try Self.run(dir, ["--trials", "3", "--extend"])
    #expect(again.code == 0, "\(again.stderr)")
  }

  @Test("a study made before recording hashes is refused with the way out; --adopt-recordings stores them and continues")
  func oldStudiesAdoptOnRequest() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    #expect(try Self.run(dir, ["--trials", "2"]).code == 0)
    // What an older jpreplay made: no mark, no hashes.
    let path = dir.appendingPathComponent("s.sqlite").path
    let q = try DatabaseQueue(path: path)
    try q.write { db in
      try db.execute(sql: "PRAGMA application_id = 0")
      try db.execute(sql: "PRAGMA user_version = 0")
      try db.execute(sql: "DELETE FROM study WHERE key = 'recordings_sha256'")
    }
    try q.close()
    #expect(try CLI.run(["tune", "report", "s.sqlite"], cwd: dir).code == 0, "an older study is still read")
    let refused = try Self.run(dir, ["--trials", "3", "--extend"])
    #expect(refused.code == 2, "\(refused.stderr)")
    #expect(refused.stderr.contains("s.sqlite") && refused.stderr.contains("--adopt-recordings"), "\(refused.stderr)")
    let adopted = try Self.run(dir, ["--trials", "3", "--extend", "--adopt-recordings"])
    #expect(adopted.code == 0, "\(adopted.stderr)")
    let r = try DatabaseQueue(path: path)
    defer { try? r.close() }
    #expect(try r.read { try Int32.fetchOne($0, sql: "PRAGMA application_id") } == 0x4A50_5455)
    let hashes = try r.read { try String.fetchOne($0, sql: "SELECT value FROM study WHERE key = 'recordings_sha256'") } ?? ""
    #expect(hashes.hasPrefix("drift-left-and-back.jprec "), "\(hashes)")
  }

  @Test("a second run on a study in use is refused naming the first one's pid; the study is left as it was")
  func aStudyInUseIsRefused() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    #expect(try Self.run(dir, ["--trials", "2"]).code == 0)
    let path = dir.appendingPathComponent("s.sqlite").path
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    // This test process takes the lock a run holds (the byte `StudyLock.offset`); it opens
    // the file no other way until the run is over (a close would drop a POSIX lock).
    let fd = open(path, O_RDWR)
    try #require(fd >= 0)
    defer { close(fd) }
    var fl = flock()
    fl.l_type = Int16(F_WRLCK)
    fl.l_whence = Int16(SEEK_SET)
    fl.l_start = 0x3FFF_F000
    fl.l_len = 1
    try #require(fcntl(fd, F_SETLK, &fl) == 0)
    let r = try Self.run(dir, ["--trials", "3", "--extend"])
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("study s.sqlite is in use by another jpreplay (pid \(getpid()))"), "\(r.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    // Readers need no lock.
    #expect(try CLI.run(["tune", "report", "s.sqlite", "--json"], cwd: dir).code == 0)
  }
}
