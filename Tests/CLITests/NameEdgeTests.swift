import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Names at the edges (issue 34): a legal 255-byte name for a SQLite output works (SQLite's
/// `NAME-journal` beside it would pass NAME_MAX, so the database is made under a temporary's
/// short name and renamed into place), and a file name that is not valid UTF-8 is named by its
/// bytes (`a\xFFb.jprec`), so two such names can be told apart and typed.
@Suite("Name edges") struct NameEdgeTests {
  static let recording = CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec").path

  @Test("a 255-byte name: import -o (new and replaced) and replay --keep-store (new and --force) write it, nothing left beside it")
  func sqliteOutputOf255Bytes() throws {
    let dir = try CLI.tempDir("name255")
    defer { try? FileManager.default.removeItem(at: dir) }
    try FileManager.default.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    let jsonl = dir.appendingPathComponent("s.jsonl").path
    #expect(try CLI.run(["cat", Self.recording, "-o", jsonl]).code == 0)
    for ext in [".jprec", ".sqlite"] {
      let name = String(repeating: "n", count: 255 - ext.utf8.count) + ext
      #expect(name.utf8.count == 255)
      let args =
        ext == ".jprec"
        ? ["import", jsonl, "-o", name] : ["replay", Self.recording, "-o", "/dev/null", "--keep-store", name]
      let first = try CLI.run(args, cwd: dir)
      #expect(first.code == 0, "\(args.prefix(2)): \(first.stderr)")
      let again = try CLI.run(args + ["--force"], cwd: dir)
      #expect(again.code == 0, "\(args.prefix(2)) --force: \(again.stderr)")
      // A database (readable by its reader), and no temporary or side file left.
      let check = ext == ".jprec" ? try CLI.run(["info", name], cwd: dir) : try CLI.run(["replay", Self.recording, "-o", "/dev/null"], cwd: dir)
      #expect(check.code == 0, "\(check.stderr)")
      let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".jpreplay-tmp-") || $0.hasSuffix("-journal") }
      #expect(left == [])
      #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path))
    }
    // The kept store is the session store: its schema is there.
    let store = String(repeating: "n", count: 248) + ".sqlite"
    let bytes = try Data(contentsOf: dir.appendingPathComponent(store))
    #expect(bytes.starts(with: Array("SQLite format 3".utf8)))
  }

  /// Creates `dir/name` from raw bytes (a name that need not be UTF-8); false where the file
  /// system refuses such names (APFS).
  static func create(_ dir: URL, _ name: [UInt8], copying source: String) -> Bool {
    let path = Array(dir.path.utf8) + [UInt8(ascii: "/")] + name + [0]
    let fd = path.withUnsafeBufferPointer { p in
      p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: path.count) { open($0, O_CREAT | O_WRONLY | O_EXCL, 0o644) }
    }
    guard fd >= 0, let bytes = FileManager.default.contents(atPath: source) else { return false }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    return true
  }

  @Test("names that are not valid UTF-8 are shown by their bytes (\\xFF), each, never as one U+FFFD name")
  func undecodableNamesAreToldApart() throws {
    let dir = try CLI.tempDir("badnames")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    let recordings = dir.appendingPathComponent("Recordings")
    for sub in ["Recordings", "Golden"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    // "a\xFFb.jprec" and "a\xFEb.jprec": Foundation reads both as "a\u{FFFD}b.jprec". A
    // backslash in a name is doubled so the spelling reads back in bash's $'…'.
    guard Self.create(recordings, Array("a".utf8) + [0xFF] + Array("b.jprec".utf8), copying: Self.recording),
      Self.create(recordings, Array("a".utf8) + [0xFE] + Array("b.jprec".utf8), copying: Self.recording)
    else { return }
    for args in [["verify", "--update", "no"], ["score", "Recordings"], ["info", "Recordings/a\u{FFFD}b.jprec"]] {
      let r = try CLI.run(args, cwd: dir)
      let text = r.stdout + r.stderr
      #expect(r.code == 2, "\(args): \(text)")
      #expect(text.contains("Recordings/a\\xFEb.jprec, ") && text.contains("Recordings/a\\xFFb.jprec: "), "\(args): \(text)")
      #expect(text.contains("not valid UTF-8"), "\(args): \(text)")
      // The path itself is spelled by its bytes (verify's label is the listing's name).
      #expect(!text.contains("a\u{FFFD}b.jprec"), "\(args): \(text)")
    }
  }

  @Test("a file name's bytes as text: UTF-8 kept, other bytes as \\xNN, a backslash doubled")
  func spelling() throws {
    let dir = try CLI.tempDir("spelled")
    defer { try? FileManager.default.removeItem(at: dir) }
    // One name with a backslash, a valid 2-byte character, a lone continuation byte and a
    // truncated 3-byte sequence at the end.
    let name = Array("x\\y\u{E9}".utf8) + [0x80] + Array("z".utf8) + [0xE2, 0x82]
    guard Self.create(dir, name, copying: Self.recording) else { return }
    let r = try CLI.run(["info", dir.path + "/x\\y\u{E9}\u{FFFD}z\u{FFFD}"])
    #expect(r.code == 2)
    #expect(r.stderr.contains("/x\\\\y\u{E9}\\x80z\\xE2\\x82:"), "\(r.stderr)")
  }
}
