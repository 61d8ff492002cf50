import Foundation
import Testing

@testable import Recording

/// `SafeFile` (issue 12, G1/G2): exclusive temporaries that never follow a planted symlink,
/// sweeping of temporaries left by dead processes, and failed writes that leave the old file.
@Suite struct SafeFileTests {
  func dir(_ tag: String) throws -> URL {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("safefile-\(tag)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d
  }

  func names(_ d: URL) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: d.path).sorted() }

  /// The pid of a process that has exited (and been reaped).
  func deadPID() throws -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/true")
    try p.run()
    p.waitUntilExit()
    return p.processIdentifier
  }

  @Test func aWriteReplacesTheTargetAndLeavesNoTemporary() throws {
    let d = try dir("w")
    defer { try? FileManager.default.removeItem(at: d) }
    let f = d.appendingPathComponent("a.txt")
    try SafeFile.write("old\n", to: f.path)
    try SafeFile.write("new\n", to: f.path)
    #expect(try String(contentsOf: f, encoding: .utf8) == "new\n")
    #expect(try names(d) == ["a.txt"])
  }

  @Test func aPlantedSymlinkAtTheTargetIsRefusedNeverFollowed() throws {
    let d = try dir("link")
    let outside = try dir("outside")
    defer {
      try? FileManager.default.removeItem(at: d)
      try? FileManager.default.removeItem(at: outside)
    }
    let secret = outside.appendingPathComponent("secret.txt")
    try Data("keep me\n".utf8).write(to: secret)
    let target = d.appendingPathComponent("s01.trace.jsonl.new")
    try FileManager.default.createSymbolicLink(atPath: target.path, withDestinationPath: secret.path)
    #expect(throws: SafeFileError.self) { try SafeFile.write("trace\n", to: target.path) }
    #expect(try String(contentsOf: secret, encoding: .utf8) == "keep me\n")
    let attrs = try FileManager.default.attributesOfItem(atPath: target.path)
    #expect(attrs[.type] as? FileAttributeType == .typeSymbolicLink)
    #expect(try names(d) == ["s01.trace.jsonl.new"])
  }

  @Test func theTemporaryNameIsUnpredictableAndCreatedExclusively() throws {
    let d = try dir("excl")
    defer { try? FileManager.default.removeItem(at: d) }
    let target = d.appendingPathComponent("x.txt").path
    let a = try SafeFile.Temporary(beside: target)
    let b = try SafeFile.Temporary(beside: target)
    #expect(a.path != b.path)
    let name = (a.path as NSString).lastPathComponent
    #expect(name.hasPrefix("\(SafeFile.temporaryPrefix)\(getpid())-"))
    #expect(name.hasSuffix("-x.txt"))
    // O_EXCL | O_NOFOLLOW: an existing name (here a symlink) is never opened.
    let planted = d.appendingPathComponent("planted")
    try FileManager.default.createSymbolicLink(atPath: planted.path, withDestinationPath: "/etc/passwd")
    #expect(open(planted.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644) == -1)
    a.discard()
    b.discard()
    #expect(try names(d) == ["planted"])
  }

  @Test func temporariesOfDeadProcessesAreSweptAndLiveOnesKept() throws {
    let d = try dir("sweep")
    defer { try? FileManager.default.removeItem(at: d) }
    let dead = try deadPID()
    let stale = [
      "\(SafeFile.temporaryPrefix)\(dead)-1a2b-s01.trace.jsonl.new",
      "\(SafeFile.temporaryPrefix)\(dead)-9f-s02.jprec", "\(SafeFile.temporaryPrefix)\(dead)-9f-s02.jprec-wal",
      ".s03.jprec.import-\(dead)", ".s03.jprec.import-\(dead)-wal", ".s03.jprec.import-\(dead)-shm",
      ".s04.jprec.record-\(dead)", ".junit.xml.tmp-\(dead)",
    ]
    let keep = [
      "\(SafeFile.temporaryPrefix)\(getpid())-77-mine.txt",  // this process: alive
      "\(SafeFile.temporaryPrefix)1-77-init.txt",  // pid 1 exists
      "s05.jprec", ".hidden", ".x.import-abc", "notes.tmp-\(dead)",
    ]
    for n in stale + keep { try Data("x".utf8).write(to: d.appendingPathComponent(n)) }
    let t = try SafeFile.Temporary(beside: d.appendingPathComponent("out.txt").path)
    defer { t.discard() }
    let left = try names(d).filter { $0 != (t.path as NSString).lastPathComponent }
    #expect(left == keep.sorted())
  }

  @Test func aFailingWriteLeavesTheOldFileAndNoTemporary() throws {
    let d = try dir("fail")
    defer { try? FileManager.default.removeItem(at: d) }
    // The rename cannot replace a non-empty directory: the write fails after the temporary
    // was written.
    let target = d.appendingPathComponent("golden")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    try Data("old".utf8).write(to: target.appendingPathComponent("inside"))
    #expect(throws: SafeFileError.self) { try SafeFile.write("new", to: target.path) }
    #expect(try String(contentsOf: target.appendingPathComponent("inside"), encoding: .utf8) == "old")
    #expect(try names(d) == ["golden"])
    // A temporary dropped on an error path removes itself (and SQLite's files beside it).
    let f = d.appendingPathComponent("r.jprec").path
    try SafeFile.write("old recording", to: f)
    do {
      let t = try SafeFile.Temporary(beside: f, keepOpen: false)
      try Data("partial".utf8).write(to: URL(fileURLWithPath: t.path + "-wal"))
      _ = t  // dropped without commit
    }
    #expect(try names(d) == ["golden", "r.jprec"])
    #expect(try String(contentsOf: URL(fileURLWithPath: f), encoding: .utf8) == "old recording")
  }
}
