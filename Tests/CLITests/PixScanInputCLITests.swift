import EngineIO
import Foundation
import Recording
import Testing

/// Issue 34 item 8, PixScan inputs: `record` refuses a `name:` that is not the file's name (as
/// Just Photo does); `import` refuses an event the engine would refuse at replay, naming the
/// line and the field; `doctor` reports such events in a recording (made without the check).
@Suite struct PixScanInputCLITests {
  static let scenario = CLI.repoRoot.appendingPathComponent("Recordings/pixscan/delete-ok.yaml")

  @Test("record refuses a PixScan scenario whose name: is not its file name")
  func recordRefusesAnotherName() throws {
    let dir = try CLI.tempDir("pixname")
    defer { try? FileManager.default.removeItem(at: dir) }
    try FileManager.default.copyItem(at: Self.scenario, to: dir.appendingPathComponent("other.yaml"))
    let r = try CLI.run(["record", "other.yaml"], cwd: dir)
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("other.yaml:4: name: \"delete-ok\" does not match the file name other.yaml (expected \"other\""), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("delete-ok.jprec").path))
    // A name that would write elsewhere is refused whatever the file is called.
    let text = try String(contentsOf: Self.scenario, encoding: .utf8).replacingOccurrences(of: "name: delete-ok", with: "name: ../escape")
    try Data(text.utf8).write(to: dir.appendingPathComponent("s.txt"))
    let e = try CLI.run(["record", "./s.txt"], cwd: dir)
    #expect(e.code == 2 && e.stderr.contains("file-name-safe"), "\(e.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.deletingLastPathComponent().appendingPathComponent("escape.jprec").path))
  }

  /// The JSONL of delete-ok with its swipes turned "sideways" (a value PixInput refuses).
  static func sidewaysJSONL(in dir: URL) throws -> URL {
    let r = try CLI.run(["record", Self.scenario.path, "--jsonl"])
    try #require(r.code == 0, "\(r.stderr)")
    let url = dir.appendingPathComponent("d.jsonl")
    try Data(r.stdout.replacingOccurrences(of: "\"direction\":\"left\"", with: "\"direction\":\"sideways\"").utf8).write(to: url)
    return url
  }

  @Test("import refuses an event the PixScan engine refuses, naming the line and the field")
  func importRefusesWhatTheEngineRefuses() throws {
    let dir = try CLI.tempDir("piximport")
    defer { try? FileManager.default.removeItem(at: dir) }
    _ = try Self.sidewaysJSONL(in: dir)
    let r = try CLI.run(["import", "d.jsonl", "-o", "d.jprec"], cwd: dir)
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("d.jsonl:4: field \"swipe.direction\": expected one of right, left, down, up, found \"sideways\""), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("d.jprec").path))
  }

  @Test("doctor reports the events of a recording its engine refuses (exit 1)")
  func doctorReportsRefusedEvents() throws {
    let dir = try CLI.tempDir("pixdoctor")
    defer { try? FileManager.default.removeItem(at: dir) }
    let jsonl = try Self.sidewaysJSONL(in: dir)
    // Written without the engine's check, as an import before issue 34 did.
    let reader = try JSONLReader(path: jsonl.path, definitions: NoEventDefinitions.self)
    let path = dir.appendingPathComponent("d.jprec").path
    let recorder = try Recorder(path: path, header: reader.header, definitions: NoEventDefinitions.self)
    while let e = try reader.next() { try recorder.append(e) }
    try recorder.finish()
    let r = try CLI.run(["doctor", "d.jprec"], cwd: dir)
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("refused: event 3 (t=1000 ms) field \"swipe.direction\": expected one of right, left, down, up, found \"sideways\""), "\(r.stdout)")
    #expect(r.stdout.contains("3 event(s) the pixscan engine refuses at replay"), "\(r.stdout)")
    #expect(!r.stdout.split(separator: "\n").contains("ok"), "\(r.stdout)")
    // A sound PixScan recording is still called sound.
    let ok = try CLI.run(["doctor", "Recordings/pixscan/delete-ok.jprec"])
    #expect(ok.code == 0 && ok.stdout.hasSuffix("ok\n"), "\(ok.stdout)\(ok.stderr)")
  }
}
