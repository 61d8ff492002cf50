import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 23 item 7: a FIFO, a directory or a symbolic-link loop given as a recording or a
/// scenario is refused before it is opened — exit 2 naming it — instead of blocking forever.
@Suite struct SpecialInputFileTests {
  @Test("a FIFO given as input: every command refuses it at once (exit 2); nothing hangs")
  func fifoInputs() throws {
    let dir = try CLI.tempDir("fifo-in")
    defer { try? FileManager.default.removeItem(at: dir) }
    func fifo(_ name: String) -> String {
      let p = dir.appendingPathComponent(name).path
      _ = mkfifo(p, 0o600)
      return p
    }
    let rec = fifo("f.jprec")
    let jsonl = fifo("f.jsonl")
    let scen = fifo("f.scenario.yaml")
    let out = dir.appendingPathComponent("out").path
    let cases: [[String]] = [
      ["info", rec], ["cat", rec], ["replay", rec], ["doctor", rec], ["replay", jsonl], ["score", rec],
      ["plot", rec, "-o", out + ".svg"], ["minimize", rec, "--test", "true", "-o", out + ".jprec"],
      ["import", jsonl, "-o", out + ".jprec"], ["record", scen],
    ]
    for args in cases {
      // A command that opened the FIFO would block forever: CLI.run waits, so the test's own
      // time limit catches it; the refusal is immediate.
      let r = try CLI.run(args)
      #expect(r.code == 2, "\(args): \(r.stdout)\(r.stderr)")
      #expect(r.stderr.contains("is a FIFO") && r.stderr.contains("regular file"), "\(args): \(r.stderr)")
    }
  }

  @Test("a directory and a symbolic-link loop are named as such, not as 'no such file'")
  func directoryAndLoop() throws {
    let dir = try CLI.tempDir("special-in")
    defer { try? FileManager.default.removeItem(at: dir) }
    let sub = dir.appendingPathComponent("d.jprec").path
    try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
    let a = dir.appendingPathComponent("a.jprec").path
    let b = dir.appendingPathComponent("b.jprec").path
    try FileManager.default.createSymbolicLink(atPath: a, withDestinationPath: b)
    try FileManager.default.createSymbolicLink(atPath: b, withDestinationPath: a)
    let dirCase = try CLI.run(["info", sub])
    #expect(dirCase.code == 2 && dirCase.stderr.contains("is a directory"), "\(dirCase.stderr)")
    let loop = try CLI.run(["info", a])
    #expect(loop.code == 2 && loop.stderr.contains("loop of symbolic links"), "\(loop.stderr)")
  }

  @Test("a spec, a search space or a trace given as a FIFO or a directory: refused with the system's reason, never a debug description")
  func specSpaceAndTraceInputs() throws {
    let dir = try CLI.tempDir("special-spec")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fifo = dir.appendingPathComponent("p.json").path
    _ = mkfifo(fifo, 0o600)
    let folder = dir.appendingPathComponent("d.json").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    let notText = dir.appendingPathComponent("bin.yaml")
    try Data([0xFF, 0xFE, 0x00, 0x41]).write(to: notText)
    let rec = CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec").path
    let study = dir.appendingPathComponent("s.sqlite").path
    let cases: [([String], String)] = [
      (["replay", rec, "--spec", fifo], "is a FIFO"), (["replay", rec, "--spec", folder], "is a directory"),
      (["spec", "validate", folder], "is a directory"),
      (["tune", "run", fifo, "--study", study], "is a FIFO"), (["tune", "run", folder, "--study", study], "is a directory"),
      (["tune", "run", notText.path, "--study", study], "not UTF-8 text"),
      (["diff", fifo, rec], "is a FIFO"),
    ]
    for (args, expected) in cases {
      let r = try CLI.run(args)
      #expect(r.code == 2, "\(args): \(r.stdout)\(r.stderr)")
      #expect(r.stderr.contains(expected), "\(args): \(r.stderr)")
      for bad in ["rawValue", "Code(", "NSCocoaErrorDomain", "The operation could not be completed"] {
        #expect(!r.stderr.contains(bad), "\(args): \(r.stderr)")
      }
    }
  }
}
