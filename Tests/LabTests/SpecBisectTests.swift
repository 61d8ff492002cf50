import CanonicalJSON
import Foundation
import Lab
import Testing

/// `bisect spec` (issue 14): leaf edits between specs, ddmin, and grouping by culprit.
@Suite("Spec edits, delta debugging and bisect spec")
struct SpecBisectTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let specURL = repoRoot.appendingPathComponent("PoseSpec.json")
  static func recording(_ name: String) -> URL { repoRoot.appendingPathComponent("Recordings/\(name).jprec") }

  static func projectSpec() throws -> JSONValue {
    try JSONParser.parse(bytes: [UInt8](try Data(contentsOf: specURL)))
  }

  /// The project spec with `value` set at `path` (through the differ's own apply).
  static func editing(_ doc: JSONValue, _ path: [SpecEdit.Step], _ value: JSONValue) throws -> JSONValue {
    try SpecDiff.apply([SpecEdit(path: path, old: nil, new: value)], to: doc)
  }

  static func side(_ name: String, _ doc: JSONValue) -> SpecBisect.Side {
    SpecBisect.Side(name: name, bytes: Array(JSONWriter.write(doc).utf8))
  }

  // MARK: SpecDiff

  @Test("cues are keyed by id: reordering the cue array is no edit; a changed leaf is one edit with its path")
  func cuesKeyedByID() throws {
    let base = try Self.projectSpec()
    var o = try #require(base.objectValue)
    let cues = try #require(o["cues"]?.arrayValue)
    o["cues"] = .array(cues.reversed())
    #expect(SpecDiff.edits(from: base, to: .object(o)).isEmpty)
    let edited = try Self.editing(.object(o), [.key("cues"), .id("FRAME_MOVE_LEFT"), .key("antiJitter"), .key("persistFrames")], 5)
    let edits = SpecDiff.edits(from: base, to: edited)
    #expect(edits.map(\.description) == ["cues[FRAME_MOVE_LEFT].antiJitter.persistFrames 4 → 5"])
  }

  @Test("apply(edits(a, b), a) has b's content: members added, removed and changed, a cue removed and one added")
  func applyRoundTrip() throws {
    let a: JSONValue = .object([
      "name": "x", "defaults": .object(["persist": 6, "hold": 3000]),
      "cues": [.object(["id": "A", "w": 1]), .object(["id": "B", "w": 2]), .object(["id": "C", "w": 3])], "list": [1, 2, 3],
    ])
    let b: JSONValue = .object([
      "name": "y", "defaults": .object(["persist": 6, "cool": 800]),
      "cues": [.object(["id": "A", "w": 1.5]), .object(["id": "C", "w": 3]), .object(["id": "D", "w": 4])], "list": [1, 2],
    ])
    let edits = SpecDiff.edits(from: a, to: b)
    #expect(
      edits.map(\.description) == [
        #"name "x" → "y""#, "defaults.hold 3000 → (absent)", "defaults.cool (absent) → 800", "cues[A].w 1 → 1.5",
        #"cues[B] {"id":"B","w":2} → (absent)"#, #"cues[D] (absent) → {"id":"D","w":4}"#, "list [1,2,3] → [1,2]",
      ])
    #expect(try SpecDiff.apply(edits, to: a).sortedRecursively() == b.sortedRecursively())
    // Any subset applies (no path is a prefix of another).
    for i in edits.indices { _ = try SpecDiff.apply([edits[i]], to: a) }
  }

  // MARK: ddmin

  @Test("ddmin finds the interacting pair among 16 changes, and the answer is 1-minimal and deterministic")
  func ddminPair() {
    let items = Array(0..<16)
    let r = DeltaDebugging.minimize(items) { Set($0).isSuperset(of: [3, 11]) }
    #expect(r.subset == [3, 11])
    #expect(r.tests < 60)
    #expect(DeltaDebugging.minimize(items) { Set($0).isSuperset(of: [3, 11]) }.tests == r.tests)
    #expect(DeltaDebugging.minimize(items) { $0.contains(7) }.subset == [7])
    #expect(DeltaDebugging.minimize(items) { _ in true }.subset == [])
  }

  // MARK: bisect spec over corpus recordings

  @Test("five edits of which one changes behaviour: bisect names that edit alone, with its recordings")
  func oneCulprit() throws {
    let old = try Self.projectSpec()
    var new = try Self.editing(old, [.key("cues"), .id("FRAME_MOVE_LEFT"), .key("antiJitter"), .key("persistFrames")], 5)
    new = try Self.editing(new, [.key("cues"), .id("FRAME_MOVE_LEFT"), .key("qa"), .key("beforeExpected")], "edited")
    new = try Self.editing(new, [.key("cues"), .id("FRAME_MOVE_RIGHT"), .key("script"), .key("rule")], "edited")
    new = try Self.editing(new, [.key("cues"), .id("HEAD_LEVEL"), .key("metric"), .key("notes")], "edited")
    new = try Self.editing(new, [.key("generatedAt")], "2026-11-23")
    let bisect = SpecBisect(old: Self.side("old", old), new: Self.side("new", new), jobs: 2)
    let report = try bisect.run(recordings: ["s04-frame-left-enter", "s05-head-level-flicker"].map(Self.recording))
    #expect(report.edits.count == 5)
    #expect(report.groups.count == 1)
    let g = try #require(report.groups.first)
    #expect(g.culprits.map { report.edits[$0].description } == ["cues[FRAME_MOVE_LEFT].antiJitter.persistFrames 4 → 5"])
    #expect(g.recordings == ["s04-frame-left-enter"])
    #expect(report.render().contains("1 changed, 1 unchanged"))
  }

  @Test("two independent culprits: each is named with its own recordings")
  func twoCulprits() throws {
    let old = try Self.projectSpec()
    var new = try Self.editing(old, [.key("cues"), .id("FRAME_MOVE_LEFT"), .key("antiJitter"), .key("persistFrames")], 5)
    new = try Self.editing(new, [.key("cues"), .id("FRAME_MOVE_LEFT"), .key("qa"), .key("beforeExpected")], "edited")
    new = try Self.editing(new, [.key("cues"), .id("HEAD_LEVEL"), .key("antiJitter"), .key("persistFrames")], 6)
    new = try Self.editing(new, [.key("generatedAt")], "2026-11-23")
    let bisect = SpecBisect(old: Self.side("old", old), new: Self.side("new", new), jobs: 2)
    let report = try bisect.run(recordings: ["s04-frame-left-enter", "s05-head-level-flicker"].map(Self.recording))
    let named = report.groups.map { g in (g.culprits.map { report.edits[$0].pathText }, g.recordings) }
    #expect(named.count == 2)
    #expect(named.contains { $0.0 == ["cues[FRAME_MOVE_LEFT].antiJitter.persistFrames"] && $0.1 == ["s04-frame-left-enter"] })
    #expect(named.contains { $0.0 == ["cues[HEAD_LEVEL].antiJitter.persistFrames"] && $0.1 == ["s05-head-level-flicker"] })
    let json = try JSONParser.parse(report.json())
    #expect(json["groups"]?.arrayValue?.count == 2)
  }
}

/// `bisect spec`'s text lists every recording (or says how many it left out and where to see
/// them) and names the edits that changed nothing (issue 28.4).
@Suite("bisect spec listing")
struct SpecBisectListingTests {
  @Test("unchanged recordings are listed (or counted, with --json named); edits no recording needs are named and checked")
  func listsEveryRecordingAndInertEdits() throws {
    let old = try SpecBisectTests.projectSpec()
    var new = try SpecBisectTests.editing(old, [.key("cues"), .id("FRAME_MOVE_LEFT"), .key("antiJitter"), .key("persistFrames")], 5)
    new = try SpecBisectTests.editing(new, [.key("cues"), .id("HEAD_LEVEL"), .key("metric"), .key("notes")], "edited")
    let bisect = SpecBisect(old: SpecBisectTests.side("old", old), new: SpecBisectTests.side("new", new), jobs: 2)
    let names = ["s04-frame-left-enter", "s05-head-level-flicker", "drift-left-and-back"]
    let report = try bisect.run(recordings: names.map(SpecBisectTests.recording))
    let changed = report.findings.filter(\.changed).map(\.recording)
    let unchanged = report.findings.filter { !$0.changed }.map(\.recording)
    #expect(changed.contains("s04-frame-left-enter"))
    #expect(unchanged.contains("s05-head-level-flicker"))
    let text = report.render()
    // Every recording appears in the text, changed or not.
    for n in names { #expect(text.contains(n), "\(n) missing from:\n\(text)") }
    #expect(text.contains("unchanged (\(unchanged.count)):"))
    // The notes edit is in no recording's smallest set, and NEW without it behaves as NEW.
    let notes = try #require(report.edits.firstIndex { $0.pathText.contains("HEAD_LEVEL") })
    #expect(report.inert == [notes])
    #expect(report.inertConfirmed == true)
    #expect(text.contains("edits that changed nothing (NEW without them behaves the same on all 3 recording(s)):\n  [\(notes + 1)] cues[HEAD_LEVEL].metric.notes"))
    let json = try JSONParser.parse(report.json())
    #expect(json["inert_edits"]?.arrayValue?.count == 1)
    #expect(json["recordings"]?.arrayValue?.count == 3)
    // Shown fewer: the text says how many it left out and where to see them.
    let short = report.render(unchangedShown: 0)
    #expect(short.contains("… and \(unchanged.count) more unchanged recording(s) not listed here; --json lists every recording"))
    // A long list of such edits is named by number ranges (each edit is listed in full above).
    #expect(SpecBisect.Report.ranges([0, 1, 2, 4, 8, 9]) == "[1]–[3], [5], [9]–[10]")
  }
}
