import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 23 item 8: one normalization rule for names — a recording named in NFC and its golden
/// written in NFD (as macOS tools may) are one name: verify matches them, nothing is missing or
/// orphaned, and accepting writes over the existing golden instead of beside it.
@Suite struct UnicodeNameTests {
  @Test("a file name that is not valid UTF-8 is named as such, never as a missing file")
  func undecodableFileName() throws {
    let dir = try CLI.tempDir("badname")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    for sub in ["Recordings", "Golden"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    let bytes = try Data(contentsOf: CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"))
    // "a\xFFb.jprec": 0xFF never occurs in UTF-8. Some file systems (APFS) refuse such names.
    let path = Array(dir.appendingPathComponent("Recordings").path.utf8) + Array("/a".utf8) + [0xFF] + Array("b.jprec".utf8) + [0]
    let fd = path.withUnsafeBufferPointer { p in p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: path.count) { open($0, O_CREAT | O_WRONLY, 0o644) } }
    guard fd >= 0 else { return }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    for args in [["verify", "--update", "no"], ["score", "Recordings"]] {
      let r = try CLI.run(args, cwd: dir)
      #expect(r.code == 2, "\(args): \(r.stdout)\(r.stderr)")
      #expect((r.stdout + r.stderr).contains("not valid UTF-8"), "\(args): \(r.stdout)\(r.stderr)")
      #expect(!(r.stdout + r.stderr).contains("no such file"), "\(args): \(r.stdout)\(r.stderr)")
    }
  }

  @Test func nfcRecordingAndNfdGoldenAreOneName() throws {
    let dir = try CLI.tempDir("unicode")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    for sub in ["Recordings", "Golden"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    let nfc = "caf\u{E9}"  // é as one scalar
    let nfd = "cafe\u{301}"  // e + combining acute
    #expect(Array(nfc.utf8) != Array(nfd.utf8))
    try fm.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"), to: dir.appendingPathComponent("Recordings/\(nfc).jprec"))
    for kind in ["trace", "a13"] {
      try fm.copyItem(
        at: CLI.repoRoot.appendingPathComponent("Golden/s04-frame-left-enter.\(kind).jsonl"),
        to: dir.appendingPathComponent("Golden/\(nfd).\(kind).jsonl"))
    }
    let r = try CLI.run(["verify", "--format", "json"], cwd: dir)
    #expect(r.code == 0, "\(r.stdout)\(r.stderr)")
    let counts = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
    let c = counts?["counts"] as? [String: Any]
    #expect((c?["passed"] as? Int) == 1 && (c?["missing"] as? Int ?? 0) == 0 && (c?["orphan"] as? Int ?? 0) == 0, "\(r.stdout)")
    // Writing goes to the existing spelling: no second golden appears beside it.
    #expect(try CLI.run(["verify", "--update", "always"], cwd: dir).code == 0)
    let names = try fm.contentsOfDirectory(atPath: dir.appendingPathComponent("Golden").path)
    #expect(names.count == 2, "\(names)")
  }
}
