import Foundation
import Testing

/// Issue 34.4: one JSON rule — a duplicate key in any JSON object is bad input (exit 2) naming
/// the file and the place, never "first one wins".
@Suite("Duplicate JSON keys (CLI)")
struct DuplicateJSONKeyCLITests {
  @Test("a decisions file naming a key twice is refused with its line and column")
  func decisionsFile() throws {
    let dir = try CLI.tempDir("dup-decisions")
    defer { try? FileManager.default.removeItem(at: dir) }
    for sub in ["Recordings", "Golden"] {
      try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    let file = dir.appendingPathComponent("d.json")
    try #"{"format":"jpreplay-decisions","version":1,"decisions":[{"recording":"x","decision":"reject","decision":"accept"}]}"#
      .write(to: file, atomically: true, encoding: .utf8)
    let r = try CLI.run(["accept", "--decisions", file.path], cwd: dir)
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("d.json: line 1, column 94: duplicate key \"decision\""), "\(r.stderr)")
  }

  @Test("a JSONL recording whose header names engine twice is refused, not routed by the first")
  func recordingHeader() throws {
    let dir = try CLI.tempDir("dup-header")
    defer { try? FileManager.default.removeItem(at: dir) }
    let source = try CLI.corpusJSONL("s04-frame-left-enter", in: dir)
    var lines = try String(contentsOf: source, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    try #require(lines[0].hasPrefix("{"))
    let header = lines[0].replacingOccurrences(of: #""engine":"justphoto","#, with: "")
    lines[0] = #"{"engine":"pixscan","# + String(header.dropFirst().dropLast()) + #","engine":"justphoto"}"#
    let file = dir.appendingPathComponent("dup.jsonl")
    try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
    let r = try CLI.run(["replay", file.path, "-o", dir.appendingPathComponent("t.jsonl").path])
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("dup.jsonl") && r.stderr.contains("duplicate key \"engine\""), "\(r.stderr)")
  }
}
