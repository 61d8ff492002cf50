import CanonicalJSON
import EngineIO
import Foundation
import GRDB
import JustPhotoIO
import Mutants
@testable import Recording
import Testing


/// Robustness of the recording readers (issue 12 "Fuzzing"): hundreds of seeded mutants of a
/// JSONL recording and of a `.jprec` file each end in events or a thrown `RecordingError`
/// naming the file — never a trap, a hang or a crash. The long-running version of these
/// checks is scripts/fuzz (docs/FUZZING.md).
@Suite struct RecordingMutationTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  /// A short committed recording (10 s, landmarks and UI events).
  static let seedRecording = repoRoot.appendingPathComponent("Recordings/s05-head-level-flicker.jprec").path

  /// Reads every event of a JSONL text, as `jpreplay replay` does.
  static func readJSONL(_ bytes: [UInt8], path: String) throws -> Int {
    let reader = try JSONLReader(bytes: bytes, path: path, definitions: JustPhotoEvents.self)
    var n = 0
    while try reader.next() != nil { n += 1 }
    return n
  }

  /// The JSONL seed: the first events of the seed recording, then one line of every kind.
  static func jsonlSeed() throws -> [UInt8] {
    let reader = try RecordingReader(path: seedRecording, definitions: JustPhotoEvents.self)
    var header = reader.header
    header["duration_ms"] = nil
    var lines = [JSONLEventEncoder.headerLine(header)]
    var lastT: Millis = 0
    while lines.count < 16, let e = try reader.next() {
      lines.append(JSONLEventEncoder.line(e))
      lastT = e.t
    }
    // JSONLTests' lines start at t = 10; shift them after the recording's events.
    for line in JSONLTests.everyKindLines() {
      var o = try #require(JSONParser.parse(line).objectValue)
      o["t"] = .number(Double(lastT + Millis(o["t"]?.doubleValue ?? 0)))
      lines.append(JSONWriter.write(.object(o)))
    }
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  @Test func jsonlMutantsDecodeOrThrowNamingTheFile() throws {
    let seed = try Self.jsonlSeed()
    let file = "mutant.jsonl"
    #expect(try Self.readJSONL(seed, path: file) > 30)
    let report = MutationRun.run(seed, count: 600, seed: 0x4A53_4F4E, file: file) { bytes in
      _ = try Self.readJSONL(bytes, path: file)
    }
    print("JSONL mutants: \(report.summary)")
    #expect(report.accepted > 20)
    #expect(report.refused > 300)
    #expect(report.unnamed == [])
  }
}
