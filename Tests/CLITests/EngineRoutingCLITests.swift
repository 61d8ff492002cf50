import Foundation
import Testing

/// A recording of an engine this jpreplay has no plug-in for (header `engine`) is refused by
/// every command that replays it, with exit 2 naming the file, the header and the engines it
/// knows; commands that only read events (info, cat, doctor) still work; a malformed `engine`
/// is exit 2 naming the file and line.
@Suite("engine routing by the recording header")
struct EngineRoutingCLITests {
  static let jsonl = """
    {"format":"jp-replay/1","engine":"tally","duration_ms":500}
    {"t":0,"kind":"launch"}
    {"t":100,"kind":"push","n":1}

    """

  @Test func anUnknownEngineIsExitTwoNamingItAndTheKnownOnes() throws {
    let dir = try CLI.tempDir()
    let rec = dir.appendingPathComponent("tally.jsonl")
    try Self.jsonl.write(to: rec, atomically: true, encoding: .utf8)
    for args in [["replay", rec.path], ["import", rec.path, "-o", dir.appendingPathComponent("t.jprec").path]] {
      let r = try CLI.run(args)
      #expect(r.code == 2, "\(args): \(r.stderr)")
      #expect(r.stderr.contains("tally.jsonl"), "\(args): \(r.stderr)")
      #expect(r.stderr.contains("unknown engine \"tally\" (this jpreplay knows justphoto"), "\(args): \(r.stderr)")
    }
    let cat = try CLI.run(["cat", rec.path])
    #expect(cat.code == 0, "\(cat.stderr)")
    #expect(cat.stdout.contains("\"kind\":\"push\""), "\(cat.stdout)")
  }

  @Test func aMalformedEngineIsExitTwoNamingTheHeader() throws {
    let dir = try CLI.tempDir()
    let rec = dir.appendingPathComponent("bad.jsonl")
    try #"{"format":"jp-replay/1","engine":"Pix Scan"}"#.appending("\n").write(to: rec, atomically: true, encoding: .utf8)
    let r = try CLI.run(["replay", rec.path])
    #expect(r.code == 2)
    #expect(r.stderr.contains("bad.jsonl:1"), "\(r.stderr)")
    #expect(r.stderr.contains("\"engine\": \"Pix Scan\" is not an engine name"), "\(r.stderr)")
  }
}
