import Foundation
import Testing

/// `verify` judges a PixScan recording against its scenario the way it judges Just Photo's:
/// through PixScan's hook (`PixScanScenarioChecks`), a recording that is not what its scenario
/// YAML generates is STALE (exit 1, nothing written for it) and a replay that breaks one of the
/// scenario's `expect:` rules is UNMET (exit 1), each with a message naming the files.
@Suite("verify: PixScan staleness and expect: rules")
struct PixScanVerifyCLITests {
  /// A library of two photos, both swiped left: the author expects each to be deleted.
  static func scenario(direction: String = "left", expect: String) -> String {
    """
    engine: pixscan
    name: tiny
    library: {count: 2, seed: 1}
    script:
      - {at: 0, do: app_launch, permission: authorized, store: {onboarding_completed: true}}
      - {at: 100, do: library_snapshot}
      - {at: 200, do: swipe, direction: \(direction)}
    expect:
    \(expect)

    """
  }

  /// The author's rule: the first swipe (left) deletes the first photo, IMG_0001.
  static let rule = "  - {saw: action, with: {photo: IMG_0001, direction: left, action: delete}}"

  /// A folder with tiny.yaml, its recording and goldens that hold: verify passes there.
  static func corpus() throws -> (dir: URL, yaml: URL, args: [String]) {
    let dir = try CLI.tempDir("pixverify")
    let yaml = dir.appendingPathComponent("tiny.yaml")
    try scenario(expect: rule).write(to: yaml, atomically: true, encoding: .utf8)
    let rec = try CLI.run(["record", yaml.path])
    try #require(rec.code == 0, "\(rec.stdout)\(rec.stderr)")
    let golden = dir.appendingPathComponent("golden")
    try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
    let args = ["verify", "--recordings-dir", dir.path, "--golden-dir", golden.path]
    let bless = try CLI.run(args + ["--update", "always"])
    try #require(bless.code == 0, "\(bless.stdout)\(bless.stderr)")
    let ok = try CLI.run(args)
    try #require(ok.code == 0, "\(ok.stdout)\(ok.stderr)")
    return (dir, yaml, args)
  }

  @Test func aStaleRecordingFailsVerifyNamingBothFilesAndWhatToRun() throws {
    let (dir, yaml, args) = try Self.corpus()
    defer { try? FileManager.default.removeItem(at: dir) }
    // The scenario now swipes right; the recording still holds the left swipe.
    try Self.scenario(direction: "right", expect: "  - {saw: action, with: {direction: right}}")
      .write(to: yaml, atomically: true, encoding: .utf8)
    let r = try CLI.run(args + ["--update", "new"])
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("STALE"), "\(r.stdout)")
    #expect(r.stdout.contains("stale: \(dir.path)/tiny.jprec is not what \(yaml.path) generates; run jpreplay record \(yaml.path)"), "\(r.stdout)")
    #expect(r.stdout.contains("(event 3 differs (t=200 swipe: direction is \"left\" in the recording, \"right\" in the scenario))"), "\(r.stdout)")
    // A stale recording's replay is not what its scenario makes: nothing is written for it.
    let written = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("golden").path)
    #expect(!written.contains { $0.hasSuffix(".new") }, "\(written)")
    // Recording it again makes it current.
    #expect(try CLI.run(["record", yaml.path]).code == 0)
    let again = try CLI.run(args + ["--update", "no"])
    #expect(!again.stdout.contains("STALE"), "\(again.stdout)")
  }

  @Test func aBrokenExpectRuleFailsVerifyNamingTheRule() throws {
    let (dir, yaml, args) = try Self.corpus()
    defer { try? FileManager.default.removeItem(at: dir) }
    // Only expect: changes (not part of the scenario's meaning: the recording stays current).
    // The script swipes left, so a right swipe is never seen.
    try Self.scenario(expect: Self.rule + "\n  - {saw: action, with: {direction: right}}")
      .write(to: yaml, atomically: true, encoding: .utf8)
    let r = try CLI.run(args)
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(!r.stdout.contains("STALE"), "\(r.stdout)")
    #expect(r.stdout.contains("UNMET"), "\(r.stdout)")
    #expect(r.stdout.contains("1 expectation not met (expect:)"), "\(r.stdout)")
    #expect(r.stdout.contains("\(yaml.path):10: expect[1] (action{direction=right} seen in [0, 200]): not met; 0 matching line(s)"), "\(r.stdout)")
  }

  /// Issue 37: verify's hint named `jpreplay review` / `accept NAME` without the folders, so the
  /// printed command failed on PixScan's corpus; it now carries them and works as printed.
  @Test func theReviewHintNamesTheFoldersAndWorksAsPrinted() throws {
    let (dir, _, args) = try Self.corpus()
    defer { try? FileManager.default.removeItem(at: dir) }
    let golden = dir.appendingPathComponent("golden")
    try FileManager.default.removeItem(at: golden.appendingPathComponent("tiny.trace.jsonl"))
    let r = try CLI.run(args + ["--update", "new"])
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    let folders = " --recordings-dir \(dir.path) --golden-dir \(golden.path)"
    #expect(r.stdout.contains("`jpreplay review\(folders)` (or `jpreplay accept <name>\(folders)`)"), "\(r.stdout)")
    // The printed accept command, with the name filled in, blesses the pending golden.
    let accept = try CLI.run(["accept", "tiny"] + folders.split(separator: " ").map(String.init))
    #expect(accept.code == 0, "\(accept.stdout)\(accept.stderr)")
    #expect(try CLI.run(args).code == 0)
  }

  /// `review` and `accept` refuse a pending golden that breaks a PixScan rule, through the
  /// same hook as `verify`.
  @Test func acceptRefusesAPendingGoldenThatBreaksARuleAndReviewWarns() throws {
    let (dir, yaml, _) = try Self.corpus()
    defer { try? FileManager.default.removeItem(at: dir) }
    try Self.scenario(expect: Self.rule + "\n  - {saw: action, with: {direction: right}}")
      .write(to: yaml, atomically: true, encoding: .utf8)
    // A pending golden (the replay as it is) waits for review.
    let golden = dir.appendingPathComponent("golden")
    try FileManager.default.copyItem(
      at: golden.appendingPathComponent("tiny.trace.jsonl"), to: golden.appendingPathComponent("tiny.trace.jsonl.new"))
    let corpus = ["--recordings-dir", dir.path, "--golden-dir", golden.path]
    let review = try CLI.run(["review", "--accept-all"] + corpus)
    #expect(review.stdout.contains("expect[1] (action{direction=right} seen in [0, 200]): not met"), "\(review.stdout)\(review.stderr)")
    // The one gate (issue 34.3): review refuses the accept as accept does; the file stays pending.
    #expect(review.code == 1 && review.stdout.contains("refusing tiny.trace.jsonl.new"), "\(review.stdout)")
    #expect(FileManager.default.fileExists(atPath: golden.appendingPathComponent("tiny.trace.jsonl.new").path))
    let accept = try CLI.run(["accept", "tiny"] + corpus)
    #expect(accept.code == 1, "\(accept.stdout)\(accept.stderr)")
    #expect(accept.stderr.contains("tiny: the pending golden breaks 1 expect: rule of its scenario:"), "\(accept.stderr)")
    #expect(accept.stderr.contains("\(yaml.path):10: expect[1]"), "\(accept.stderr)")
  }

  /// PixScan writes no A.13 lines, so it has no A.13 golden (issue 37): blessing writes the
  /// trace golden alone, and an A.13 file left from before is stale — named, and removed by
  /// `--update always`. Just Photo keeps its A.13 golden (a missing one is reported).
  @Test func anEngineWithoutDiagnosticsHasNoA13Golden() throws {
    let (dir, _, args) = try Self.corpus()
    defer { try? FileManager.default.removeItem(at: dir) }
    let golden = dir.appendingPathComponent("golden")
    #expect(try FileManager.default.contentsOfDirectory(atPath: golden.path) == ["tiny.trace.jsonl"])
    let stale = golden.appendingPathComponent("tiny.a13.jsonl")
    try Data().write(to: stale)
    let failed = try CLI.run(args)
    #expect(failed.code == 1, "\(failed.stdout)\(failed.stderr)")
    #expect(failed.stdout.contains("tiny.a13.jsonl should not exist: this engine writes no A.13 lines"), "\(failed.stdout)")
    #expect(FileManager.default.fileExists(atPath: stale.path), "verify without --update never removes it")
    let removed = try CLI.run(args + ["--update", "always"])
    #expect(removed.code == 0, "\(removed.stdout)\(removed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: stale.path))
    #expect(try CLI.run(args).code == 0)

    let jp = try CLI.tempDir("jpa13")
    defer { try? FileManager.default.removeItem(at: jp) }
    let name = "s04-frame-left-enter"
    for sub in ["Recordings", "Golden"] { try FileManager.default.createDirectory(at: jp.appendingPathComponent(sub), withIntermediateDirectories: true) }
    for f in ["Recordings/\(name).jprec", "Golden/\(name).trace.jsonl"] {
      try FileManager.default.copyItem(at: CLI.repoRoot.appendingPathComponent(f), to: jp.appendingPathComponent(f))
    }
    let missing = try CLI.run(["verify", "--recordings-dir", jp.appendingPathComponent("Recordings").path, "--golden-dir", jp.appendingPathComponent("Golden").path])
    #expect(missing.code == 1 && missing.stdout.contains("\(name).a13.jsonl"), "\(missing.stdout)")
  }
}
