import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one output rule (issue 23 item 1, `OutputTarget`): a regular file or a missing path is
/// replaced atomically; a character device or a FIFO (or a link to one) is written through; a
/// link to a file, a dangling link, a directory or (for a database) a FIFO is refused with exit
/// 2 — and nothing given as an output is ever turned into something else. Everything happens
/// in a scratch folder.
@Suite struct OutputRuleTests {
  static let rec = "Recordings/s04-frame-left-enter.jprec"

  static func kind(_ path: String) -> mode_t {
    var st = stat()
    guard lstat(path, &st) == 0 else { return 0 }
    return st.st_mode & S_IFMT
  }

  @Test("replay --keep-store: the store is put at its path whatever the outcome — a reader that left the pipe, --force over an old one — and no temporary stays")
  func keptStoreIsPutInPlace() throws {
    let dir = try CLI.tempDir("kept-store")
    defer { try? FileManager.default.removeItem(at: dir) }
    try FileManager.default.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    let rec = CLI.repoRoot.appendingPathComponent(Self.rec).path
    let store = dir.appendingPathComponent("s.sqlite").path
    // A long trace (more than a pipe holds) on standard output, its reader gone after one
    // byte: exit 0, the store kept.
    let long = CLI.repoRoot.appendingPathComponent("Recordings/cafe-shoot-2min.jprec").path
    let sh = try CLI.run(
      [
        "-c", "{ \"$1\" replay \"$2\" --trace metrics --keep-store \"$3\"; echo $? >\"$3.rc\"; } | head -c 1 >/dev/null", "sh",
        CLI.binary.path, long, store,
      ],
      cwd: dir, executable: URL(fileURLWithPath: "/bin/sh"))
    #expect(sh.code == 0)
    #expect((try? String(contentsOfFile: store + ".rc", encoding: .utf8)) == "0\n")
    let made = try Data(contentsOf: URL(fileURLWithPath: store))
    #expect(made.starts(with: Array("SQLite format 3".utf8)))
    // --force replaces it (a new file at the name: rename over it), its old journal removed.
    try Data("old journal".utf8).write(to: URL(fileURLWithPath: store + "-journal"))
    let again = try CLI.run(["replay", rec, "-o", "/dev/null", "--keep-store", store, "--force"], cwd: dir)
    #expect(again.code == 0, "\(again.stderr)")
    #expect(!FileManager.default.fileExists(atPath: store + "-journal"))
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    #expect(!left.contains { $0.hasPrefix(".jpreplay-tmp-") }, "\(left)")
    #expect(Set(left) == ["PoseSpec.json", "s.sqlite", "s.sqlite.rc"], "\(left)")
  }

  @Test("a symbolic link to a file given as -o is refused: the link and the file stay as they were")
  func symlinkToAFileIsRefused() throws {
    let dir = try CLI.tempDir("out-link")
    defer { try? FileManager.default.removeItem(at: dir) }
    let real = dir.appendingPathComponent("real.jsonl").path
    let link = dir.appendingPathComponent("link.jsonl").path
    try "old\n".write(toFile: real, atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
    for args in [["replay", Self.rec, "-o", link], ["plot", Self.rec, "-o", link], ["record", "s04-frame-left-enter", "-o", link]] {
      let r = try CLI.run(args)
      #expect(r.code == 2 && r.stderr.contains("symbolic link"), "\(args): \(r.stderr)")
      #expect(Self.kind(link) == S_IFLNK)
      #expect(try String(contentsOfFile: real, encoding: .utf8) == "old\n")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["link.jsonl", "real.jsonl"])
  }

  @Test("a symbolic link to a FIFO (as /dev/stdout is to a pipe) is written through")
  func symlinkToAFIFOIsWrittenThrough() throws {
    let dir = try CLI.tempDir("out-link-fifo")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fifo = dir.appendingPathComponent("pipe").path
    let link = dir.appendingPathComponent("out").path
    #expect(mkfifo(fifo, 0o600) == 0)
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fifo)
    let got = Received()
    let reader = Thread { got.set(FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()) }
    reader.start()
    let r = try CLI.run(["replay", Self.rec, "-o", link])
    #expect(r.code == 0, "\(r.stderr)")
    for _ in 0..<200 where got.get() == nil { usleep(10_000) }
    #expect(String(decoding: got.get() ?? Data(), as: UTF8.self).contains("FRAME_MOVE_LEFT"))
    #expect(Self.kind(link) == S_IFLNK && Self.kind(fifo) == S_IFIFO)
  }

  @Test("a dangling link, a directory: exit 2 naming the path; the path is left as it was")
  func refusals() throws {
    let dir = try CLI.tempDir("out-refuse")
    defer { try? FileManager.default.removeItem(at: dir) }
    let dangling = dir.appendingPathComponent("dangling").path
    try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: dir.appendingPathComponent("nowhere").path)
    let sub = dir.appendingPathComponent("sub").path
    try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
    for (path, kind, why) in [(dangling, S_IFLNK, "symbolic link"), (sub, S_IFDIR, "directory")] {
      for args in [["replay", Self.rec, "-o", path], ["replay", Self.rec, "--a13", path], ["record", "s04-frame-left-enter", "-o", path]] {
        let r = try CLI.run(args)
        #expect(r.code == 2, "\(args): \(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains(path) && r.stderr.contains(why), "\(r.stderr)")
        #expect(Self.kind(path) == kind)
      }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["dangling", "sub"])
  }

  @Test("a FIFO is written through (it stays a FIFO); a database output refuses it")
  func fifoIsWrittenThrough() throws {
    let dir = try CLI.tempDir("out-fifo")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fifo = dir.appendingPathComponent("pipe").path
    #expect(mkfifo(fifo, 0o600) == 0)
    // A reader on the other end, as a shell's `cmd > pipe` consumer would be.
    let got = Received()
    let reader = Thread {
      let h = FileHandle(forReadingAtPath: fifo)
      got.set(h?.readDataToEndOfFile() ?? Data())
    }
    reader.start()
    let r = try CLI.run(["replay", Self.rec, "-o", fifo])
    #expect(r.code == 0, "\(r.stderr)")
    for _ in 0..<200 where got.get() == nil { usleep(10_000) }
    #expect(String(decoding: got.get() ?? Data(), as: UTF8.self).contains("FRAME_MOVE_LEFT"))
    #expect(Self.kind(fifo) == S_IFIFO)
    // A recording or a session store is a database: a FIFO is refused before it is opened.
    for args in [["record", "s04-frame-left-enter", "-o", fifo], ["replay", Self.rec, "--keep-store", fifo, "--force"]] {
      let refused = try CLI.run(args)
      #expect(refused.code == 2 && refused.stderr.contains("FIFO"), "\(args): \(refused.stderr)")
      #expect(Self.kind(fifo) == S_IFIFO)
    }
  }

  @Test("a character device is written through, never replaced by a regular file")
  func deviceIsWrittenThrough() throws {
    let dir = try CLI.tempDir("out-dev")
    defer { try? FileManager.default.removeItem(at: dir) }
    let dev = dir.appendingPathComponent("null").path
    // A /dev/null twin in the scratch folder; creating a device node needs root.
    guard mknod(dev, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 else {
      print("skipped: mknod is not permitted here (not root)")
      return
    }
    for args in [["replay", Self.rec, "-o", dev], ["replay", Self.rec, "--a13", dev]] {
      let r = try CLI.run(args)
      #expect(r.code == 0, "\(args): \(r.stderr)")
      #expect(Self.kind(dev) == S_IFCHR)
    }
    let store = try CLI.run(["replay", Self.rec, "--keep-store", dev, "--force"])
    #expect(store.code == 2 && Self.kind(dev) == S_IFCHR, "\(store.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["null"])
  }
}

/// A value handed from the reader thread.
final class Received: @unchecked Sendable {
  private let lock = NSLock()
  private var data: Data?
  func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
  func get() -> Data? { lock.lock(); defer { lock.unlock() }; return data }
}
