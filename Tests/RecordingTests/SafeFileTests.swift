import Foundation
import Testing

@testable import Recording

/// `SafeFile` (issue 12, G1/G2): exclusive temporaries that never follow a planted symlink,
/// no sweep (no file but its own temporary is ever removed), names within NAME_MAX, and failed
/// writes that leave the old file.
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
    let name = Paths.name(a.path)
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

  /// Issue 34: before, creating a temporary deleted every `.NAME.import-N`, `.NAME.record-N`,
  /// `.NAME.tmp-N` and `.jpreplay-tmp-N-…` whose N was not a live process — the user's files
  /// too. Now nothing in the folder but the temporary itself is ever created or removed.
  @Test func creatingATemporaryNeverRemovesAnotherFile() throws {
    let d = try dir("nosweep")
    defer { try? FileManager.default.removeItem(at: d) }
    let dead = try deadPID()
    let users = [
      "\(SafeFile.temporaryPrefix)\(dead)-1a2b-s01.trace.jsonl.new",
      "\(SafeFile.temporaryPrefix)\(dead)-9f-s02.jprec", "\(SafeFile.temporaryPrefix)\(dead)-9f-s02.jprec-wal",
      ".s03.jprec.import-\(dead)", ".s03.jprec.import-\(dead)-wal", ".s04.jprec.record-\(dead)",
      ".junit.xml.tmp-\(dead)", ".notes.tmp-\(dead)", "s05.jprec",
    ]
    for n in users { try Data("mine".utf8).write(to: d.appendingPathComponent(n)) }
    try SafeFile.write("out\n", to: d.appendingPathComponent("out.txt").path)
    #expect(try names(d) == (users + ["out.txt"]).sorted())
    for n in users { #expect(try String(contentsOf: d.appendingPathComponent(n), encoding: .utf8) == "mine") }
  }

  /// Issue 34: a legal 255-byte target name (and a 215-character recording name) failed with
  /// "File name too long" — the temporary's name added 40 bytes to it.
  @Test func temporaryNamesStayWithinNameMaxWhateverTheTarget() throws {
    let d = try dir("long")
    defer { try? FileManager.default.removeItem(at: d) }
    for count in [5, 200, 220, 247, 255] {
      let name = String(repeating: "n", count: count - 4) + ".txt"
      try SafeFile.write("x\n", to: d.appendingPathComponent(name).path)
      #expect(try String(contentsOf: d.appendingPathComponent(name), encoding: .utf8) == "x\n")
    }
    // Multi-byte names are cut on a character boundary.
    let wide = String(repeating: "é", count: 127)  // 254 bytes
    try SafeFile.write("y", to: d.appendingPathComponent(wide).path)
    #expect(try names(d).count == 6)
    for target in ["q", String(repeating: "é", count: 127), String(repeating: "z", count: 255)] {
      let t = SafeFile.temporaryName(for: target, token: .max)
      #expect(t.utf8.count <= Paths.nameMax - 8, "\(t.utf8.count)")
      #expect(t.hasPrefix("\(SafeFile.temporaryPrefix)\(getpid())-ffffffffffffffff-"))
      #expect(String(validating: Array(t.utf8), as: UTF8.self) == t)
    }
    // The token is always 16 hex digits (zero-padded): a name never shows a short token.
    #expect(SafeFile.temporaryName(for: "a", token: 1).hasPrefix("\(SafeFile.temporaryPrefix)\(getpid())-0000000000000001-a"))
  }

  @Test func temporaryFoldersAreFreshAndPrivate() throws {
    let a = try SafeFile.temporaryDirectory("test")
    let b = try SafeFile.temporaryDirectory("test")
    defer {
      try? FileManager.default.removeItem(at: a)
      try? FileManager.default.removeItem(at: b)
    }
    #expect(a.path != b.path)
    #expect(Paths.name(a.path).hasPrefix("jpreplay-test-"))
    let mode = try FileManager.default.attributesOfItem(atPath: a.path)[.posixPermissions] as? Int
    #expect(mode == 0o700)
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
