import Foundation
import CanonicalJSON
import Testing

@testable import Recording

/// `SafeFile.produce`, the one helper `record`, `import`, `replay -o`, `cat -o`,
/// `doctor --recover` and `minimize` write their outputs through.
@Suite struct SafeFileProduceTests {
  struct Boom: Error {}

  func dir() throws -> URL {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("produce-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d
  }

  func names(_ d: URL) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: d.path).sorted() }

  @Test func theBodysResultIsReturnedAndTheTargetReplaced() throws {
    let d = try dir()
    let f = d.appendingPathComponent("out.txt").path
    try SafeFile.write("old", to: f)
    let n = try SafeFile.produce(f) { t in
      try t.write(Array("new".utf8))
      return 42
    }
    #expect(n == 42)
    #expect(try String(contentsOfFile: f, encoding: .utf8) == "new")
    #expect(try names(d) == ["out.txt"])
  }

  @Test func aFailingBodyLeavesTheOldFileAndNoTemporary() throws {
    let d = try dir()
    let f = d.appendingPathComponent("out.txt").path
    try SafeFile.write("old", to: f)
    #expect(throws: Boom.self) {
      try SafeFile.produce(f) { t in
        try t.write(Array("half".utf8))
        throw Boom()
      }
    }
    #expect(try String(contentsOfFile: f, encoding: .utf8) == "old")
    #expect(try names(d) == ["out.txt"])
  }

  @Test func createNewRefusesATargetThatAppearedMeanwhile() throws {
    let d = try dir()
    let f = d.appendingPathComponent("out.txt").path
    #expect(throws: SafeFileError.self) {
      try SafeFile.produce(f, placement: .createNew) { t in
        try t.write(Array("mine".utf8))
        try SafeFile.write("theirs", to: f)
      }
    }
    #expect(try String(contentsOfFile: f, encoding: .utf8) == "theirs")
    #expect(try names(d) == ["out.txt"])
  }

  @Test func sqliteRemovesTheOldTargetsSideFilesOnlyWhenAsked() throws {
    let d = try dir()
    let f = d.appendingPathComponent("r.jprec").path
    for s in ["", "-wal", "-shm", "-journal"] { try SafeFile.write("old", to: f + s) }
    try SafeFile.produce(f, keepOpen: false) { t in try Data("plain".utf8).write(to: URL(fileURLWithPath: t.path)) }
    #expect(try names(d) == ["r.jprec", "r.jprec-journal", "r.jprec-shm", "r.jprec-wal"])
    try SafeFile.produce(f, keepOpen: false, sqlite: true) { t in
      #expect(t.fd == nil)
      try Data("db".utf8).write(to: URL(fileURLWithPath: t.path))
    }
    #expect(try names(d) == ["r.jprec"])
    #expect(try String(contentsOfFile: f, encoding: .utf8) == "db")
  }

  @Test func infoJSONEscapesThroughTheCanonicalWriter() throws {
    let s = RecordingStats(
      fileBytes: 10, formatVersion: 1, complete: false, meta: [("name", "\"a\\b\"\n\t\u{1}"), ("scene", "\"cafe\"")],
      channels: [
        ChannelStats(id: 1, name: "landmarks", encoding: "e", events: 3, chunks: 1, rawBytes: 30, storedBytes: 9, firstT: 0, lastT: 9)
      ],
      eventsByKind: [(kind: "landmarks", count: 3)], durationMs: nil)
    let text = JSONWriter.write(s.json(file: "we\"ird.jprec"))
    let v = try JSONParser.parse(text)
    #expect(v["file"]?.stringValue == "we\"ird.jprec")
    #expect(v["meta"]?["name"]?.stringValue == "\"a\\b\"\n\t\u{1}")
    #expect(v["duration_ms"]?.isNull == true)
    #expect(v["complete"]?.boolValue == false)
    #expect(v["events"]?.int64Value == 3 && v["chunk_bytes"]?.int64Value == 9)
    #expect(v.objectValue?.keys == [
      "file", "format_version", "complete", "file_bytes", "events", "duration_ms", "raw_bytes", "chunk_bytes", "meta",
      "channels", "events_by_kind",
    ])
  }
}
