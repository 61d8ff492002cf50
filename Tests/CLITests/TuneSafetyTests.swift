import Foundation
import GRDB
import JustPhotoScenarios
import ScenarioYAML
import Testing

/// Issue 23 item 5: tune spaces and study databases that would crash, mislead or be cut
/// silently are refused (exit 2) by name.
@Suite struct TuneSafetyTests {
  static func run(_ dir: URL, _ space: String, _ extra: [String] = []) throws -> CLI.Result {
    try TuneCLITests.write(space, dir.appendingPathComponent("space.yaml"))
    return try CLI.run(["tune", "run", "space.yaml", "--study", "s.sqlite", "--corpus", "drift-*", "--no-validation"] + extra, cwd: dir)
  }

  @Test(
    "a space that overflows, collapses or overlaps is refused naming the place",
    arguments: [
      ("cues[*].antiJitter.persistFrames: [-9223372036854775808..9223372036854775807]\n", "choicesMax"),
      ("cues[*].antiJitter.minHoldMs: {min: -1.7e308, max: 1.7e308}\n", "too large to sample"),
      ("cues[*].antiJitter.minHoldMs: [1000, 2000]\ncues[FRAME_MOVE_LEFT].antiJitter.minHoldMs: [3000]\n", "sets too"),
      ("options.angleFix: [on]\noptions.angleFix: [off]\n", "space.yaml"),
    ])
  func badSpaces(space: String, message: String) throws {
    let dir = try TuneCLITests.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Self.run(dir, space, ["--trials", "2"])
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains(message), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("s.sqlite").path))
  }

  @Test("a 200 KB line in a space's YAML error is quoted as a short excerpt")
  func longLinesAreExcerpted() throws {
    let dir = try TuneCLITests.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Self.run(dir, "cues[*].antiJitter.persistFrames: [" + String(repeating: "9", count: 200_000) + "\n")
    #expect(r.code == 2, "\(r.stderr.prefix(300))")
    #expect(r.stderr.utf8.count < 2_000, "\(r.stderr.utf8.count) bytes of error")
  }

  @Test("a grid under --trials says it runs only its first points; one past trialsMax is refused")
  func gridNeverCutSilently() throws {
    let dir = try TuneCLITests.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let cut = try Self.run(dir, "cues[*].antiJitter.persistFrames: [2..6]\n", ["--sampler", "grid", "--trials", "2"])
    #expect(cut.code == 0, "\(cut.stderr)")
    #expect(cut.stderr.contains("runs the first 2 of the grid's 5 points"), "\(cut.stderr)")
    try? FileManager.default.removeItem(at: dir.appendingPathComponent("s.sqlite"))
    let huge = "cues[*].antiJitter.persistFrames: [1..9999]\ncues[*].antiJitter.minHoldMs: [1..9999]\n"
    let r = try Self.run(dir, huge, ["--sampler", "grid"])
    #expect(r.code == 2 && r.stderr.contains("trialsMax"), "\(r.stderr)")
  }

  @Test("a damaged study or one holding a negative objective is exit 2 in report, never a silent null")
  func damagedStudies() throws {
    let dir = try TuneCLITests.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ok = try Self.run(dir, "cues[*].antiJitter.persistFrames: [3, 4]\n", ["--trials", "2"])
    #expect(ok.code == 0, "\(ok.stderr)")
    let study = dir.appendingPathComponent("s.sqlite")
    // A negative flicker written into a copy.
    let negative = dir.appendingPathComponent("neg.sqlite")
    try FileManager.default.copyItem(at: study, to: negative)
    let q = try DatabaseQueue(path: negative.path)
    try q.write { try $0.execute(sql: "UPDATE trials SET objectives = '{\"flicker_per_min\":-1}' WHERE idx = 0") }
    try q.close()
    let neg = try CLI.run(["tune", "report", "neg.sqlite"], cwd: dir)
    #expect(neg.code == 2 && neg.stderr.contains("not a finite number ≥ 0"), "\(neg.stderr)")
    // Flipped bytes in the headers of the tables' pages (every page after the schema's).
    let flipped = dir.appendingPathComponent("flip.sqlite")
    var bytes = [UInt8](try Data(contentsOf: study))
    for page in stride(from: 4096, to: bytes.count, by: 4096) { for i in 0..<8 { bytes[page + i] ^= 0x5A } }
    try Data(bytes).write(to: flipped)
    let before = try Data(contentsOf: flipped)
    let damaged = try CLI.run(["tune", "report", "flip.sqlite"], cwd: dir)
    #expect(damaged.code == 2, "\(damaged.stdout)\(damaged.stderr)")
    #expect(try Data(contentsOf: flipped) == before, "report never writes to the study it reads")
  }

  @Test("a merge that fails leaves no output study behind")
  func mergeIsAtomic() throws {
    let dir = try TuneCLITests.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    #expect(try Self.run(dir, "cues[*].antiJitter.persistFrames: [3, 4]\n", ["--trials", "2"]).code == 0)
    try FileManager.default.moveItem(at: dir.appendingPathComponent("s.sqlite"), to: dir.appendingPathComponent("a.sqlite"))
    #expect(try Self.run(dir, "cues[*].antiJitter.persistFrames: [5, 6]\n", ["--trials", "2"]).code == 0)
    let r = try CLI.run(["tune", "merge", "a.sqlite", "s.sqlite", "-o", "m.sqlite"], cwd: dir)
    #expect(r.code == 2, "\(r.stderr)")
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    #expect(!left.contains { $0.hasPrefix("m.sqlite") || $0.hasPrefix(".jpreplay-tmp-") }, "\(left)")
  }
}

/// Seeded byte mutants of a study database and of a search space (issue 23 item 9): every one
/// is read with exit 0 or 2 — never a signal, a hang or a negative objective on the front.
@Suite struct TuneMutationTests {
  @Test func mutatedStudiesAndSpacesAreReadOrRefused() throws {
    let dir = try TuneCLITests.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let space = "seed: 3\ncues[*].antiJitter.persistFrames: [3, 4, 5]\ncues[*].antiJitter.minHoldMs: {min: 1000, max: 4000}\n"
    try TuneCLITests.write(space, dir.appendingPathComponent("space.yaml"))
    let ok = try CLI.run(["tune", "run", "space.yaml", "--study", "s.sqlite", "--corpus", "drift-*", "--no-validation", "--trials", "4"], cwd: dir)
    #expect(ok.code == 0, "\(ok.stderr)")
    let study = [UInt8](try Data(contentsOf: dir.appendingPathComponent("s.sqlite")))
    var rng = SplitMix64(seed: 23)
    for i in 0..<12 {
      var bytes = study
      // A few bytes flipped past the SQLite header (which only makes "not a database").
      for _ in 0..<(1 + Int(rng.next() % 6)) {
        let at = 100 + Int(rng.next() % UInt64(bytes.count - 100))
        bytes[at] ^= UInt8(1 + rng.next() % 255)
      }
      let name = "m\(i).sqlite"
      try Data(bytes).write(to: dir.appendingPathComponent(name))
      let r = try CLI.run(["tune", "report", name, "--json"], cwd: dir)
      #expect(r.code == 0 || r.code == 2, "mutant \(i): exit \(r.code) \(r.stderr)")
      if r.code == 0 { #expect(!r.stdout.contains(":-"), "mutant \(i): a negative figure reached the report") }
    }
    for i in 0..<12 {
      var text = Array(space.utf8)
      let at = Int(rng.next() % UInt64(text.count))
      text[at] = [UInt8(ascii: "-"), UInt8(ascii: "9"), UInt8(ascii: "["), UInt8(ascii: "."), 0xFF, 0][Int(rng.next() % 6)]
      try Data(text).write(to: dir.appendingPathComponent("m.yaml"))
      let r = try CLI.run(["tune", "run", "m.yaml", "--study", "t\(i).sqlite", "--corpus", "drift-*", "--no-validation", "--trials", "2"], cwd: dir)
      #expect(r.code == 0 || r.code == 2, "space mutant \(i): exit \(r.code) \(r.stderr)")
    }
  }
}
