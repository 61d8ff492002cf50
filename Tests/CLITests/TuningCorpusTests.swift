import CanonicalJSON
import Foundation
import Testing

/// The tuning corpus (issue 15.2, docs/CORPUS.md "Tuning corpus"): at least 12 `tune-*`
/// sessions of 1–5 minutes over both scenes and both modes, whose nuisances are in the
/// recordings but never in the ground-truth labels.
@Suite struct TuningCorpusTests {
  static var names: [String] {
    let dir = CLI.repoRoot.appendingPathComponent("Recordings")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return files.filter { $0.hasPrefix("tune-") && $0.hasSuffix(".jprec") }.map { String($0.dropLast(6)) }.sorted()
  }

  /// The header and the events of a recording, parsed.
  static func lines(_ name: String) throws -> (header: JSONValue, events: [JSONValue]) {
    let r = try CLI.run(["cat", "Recordings/\(name).jprec"])
    #expect(r.code == 0, "\(r.stderr)")
    let all = r.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
    return (all.first ?? .null, Array(all.dropFirst()))
  }

  @Test func atLeastTwelveSessionsOfOneToFiveMinutesInBothScenesAndModes() throws {
    #expect(Self.names.count >= 12, "\(Self.names)")
    var scenes = Set<String>()
    var modes = Set<String>()
    for name in Self.names {
      let (header, events) = try Self.lines(name)
      let ms = header["duration_ms"]?.int64Value ?? 0
      #expect((60_000...300_000).contains(ms), "\(name): \(ms) ms")
      scenes.insert(header["initial"]?["scene"]?.stringValue ?? "?")
      let withRef = events.contains { $0["kind"] == "ref_analysis" }
      modes.insert(withRef ? "withRef" : "noRef")
      // A realistic session: some frames lost to the detector (misses or dropouts).
      #expect(events.contains { $0["kind"] == "landmarks" && $0["people"]?.doubleValue == 0 }, "\(name): no lost frame")
    }
    #expect(scenes == ["cafe", "outdoor"])
    #expect(modes == ["noRef", "withRef"])
  }

  @Test("tune-outdoor-still: the frames carry dropouts and misses, the labels nothing")
  func stillHasNoLabels() throws {
    let (_, events) = try Self.lines("tune-outdoor-still")
    #expect(!events.contains { $0["kind"] == "label" })
    let lost = events.filter { $0["kind"] == "landmarks" && $0["body"] == .null }.count
    #expect(lost > 10, "\(lost) lost frames")
  }

  @Test("tune-outdoor-crowd: passers-by make people 2 in the frames, but OUT_11 (a crowd) is never labelled")
  func passersByAreNotACrowd() throws {
    let (_, events) = try Self.lines("tune-outdoor-crowd")
    #expect(events.contains { $0["kind"] == "landmarks" && $0["people"]?.doubleValue == 2 })
    let labels = events.filter { $0["kind"] == "label" }
    #expect(!labels.contains { $0["cue_id"] == "OUT_11_CROWD_TOO_MUCH" })
    // The true changes are labelled: the head tilt and the walk to the right.
    #expect(labels.contains { $0["cue_id"] == "HEAD_LEVEL" && $0["holds"] == true })
    #expect(labels.contains { $0["cue_id"] == "FRAME_MOVE_LEFT" && $0["holds"] == true })
  }
}
