import CanonicalJSON
import Foundation
import Testing

/// `jpreplay verify` as CI sees it: categories on the console, in JUnit and JSON, GitHub
/// annotations, colour, update modes, orphans, globs; `review`/`accept` refusing orphan
/// `.new` files. Every test works on a temporary copy of part of the corpus.
@Suite("verify reports (CLI)")
struct VerifyReportTests {
  static let names = ["drift-left-and-back", "s06-hold-and-cooldown"]

  /// A copy of `names` (recording, scenario, goldens) and PoseSpec.json in a fresh folder.
  static func corpusCopy(_ label: String) throws -> URL {
    let dir = try CLI.tempDir(label)
    let fm = FileManager.default
    for sub in ["Recordings", "Golden"] {
      try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    for n in names {
      for f in ["Recordings/\(n).jprec", "Recordings/\(n).scenario.yaml", "Golden/\(n).trace.jsonl", "Golden/\(n).a13.jsonl"] {
        try fm.copyItem(at: CLI.repoRoot.appendingPathComponent(f), to: dir.appendingPathComponent(f))
      }
    }
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    return dir
  }

  static func goldenFiles(_ dir: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("Golden").path)) ?? []).sorted()
  }

  /// A stale recording (its scenario's seed changed): the console, JUnit and JSON count it,
  /// the summary is truthful, the exit is 1 and nothing is written for it.
  @Test func aStaleOnlyRunIsCountedAsStaleEverywhere() throws {
    let dir = try Self.corpusCopy("stale")
    defer { try? FileManager.default.removeItem(at: dir) }
    let yaml = dir.appendingPathComponent("Recordings/drift-left-and-back.scenario.yaml")
    let text = try String(contentsOf: yaml, encoding: .utf8)
    try text.replacingOccurrences(of: "seed: 7", with: "seed: 8").write(to: yaml, atomically: true, encoding: .utf8)
    let junit = dir.appendingPathComponent("verify.xml")
    let r = try CLI.run(["verify", "--junit", junit.path], cwd: dir, removeEnv: ["CI", "GITHUB_ACTIONS", "JPREPLAY_UPDATE"])
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("STALE   drift-left-and-back: stale:"))
    #expect(r.stdout.contains("1 passed, 0 failed, 1 stale\n"), "\(r.stdout)")
    #expect(r.stdout.contains("jpreplay record <name>"))
    let xml = try String(contentsOf: junit, encoding: .utf8)
    #expect(xml.contains(#"tests="2" failures="1" errors="0""#), "\(xml)")
    #expect(xml.contains(#"type="stale_recording""#))
    #expect(xml.contains(#"name="drift-left-and-back" file="Recordings/drift-left-and-back.jprec" time=""#), "\(xml)")
    #expect(Self.goldenFiles(dir).allSatisfy { !$0.hasSuffix(".new") })
    let json = try CLI.run(["verify", "--format", "json"], cwd: dir, env: ["GITHUB_ACTIONS": "true"])
    #expect(json.code == 1)
    let doc = try JSONParser.parse(json.stdout)
    #expect(doc["counts"]?["stale"]?.int64Value == 1 && doc["counts"]?["passed"]?.int64Value == 1)
    #expect(json.stderr.contains("::error file=Recordings/drift-left-and-back.scenario.yaml,title=jpreplay verify drift-left-and-back::stale"))
  }

  /// Exploring with another spec writes nothing into Golden/ unless asked; the differences
  /// are listed per hunk, grouped by cue, annotated on GitHub and coloured on request.
  @Test func verifyWithAnotherSpecWritesNothingUnlessAsked() throws {
    let dir = try Self.corpusCopy("explore")
    defer { try? FileManager.default.removeItem(at: dir) }
    let spec = try String(contentsOf: dir.appendingPathComponent("PoseSpec.json"), encoding: .utf8)
    var doc = try JSONParser.parse(spec)
    guard case .object(var root) = doc, case .array(var cues)? = root["cues"],
      let i = cues.firstIndex(where: { $0["id"]?.stringValue == "FRAME_MOVE_LEFT" }),
      case .object(var cue) = cues[i], case .object(var trigger)? = cue["trigger"],
      case .object(var noRef)? = trigger["noRef"]
    else {
      Issue.record("PoseSpec.json has no FRAME_MOVE_LEFT noRef trigger")
      return
    }
    noRef["hard"] = .object([">": .number(0.2)])
    trigger["noRef"] = .object(noRef)
    cue["trigger"] = .object(trigger)
    cues[i] = .object(cue)
    root["cues"] = .array(cues)
    doc = .object(root)
    let other = dir.appendingPathComponent("other.json")
    try Data(JSONWriter.write(doc).utf8).write(to: other)

    let quiet = try CLI.run(
      ["verify", "drift-*", "--spec", other.path, "--color", "always"], cwd: dir,
      env: ["GITHUB_ACTIONS": "true"], removeEnv: ["CI", "JPREPLAY_UPDATE", "NO_COLOR"])
    #expect(quiet.code == 1, "\(quiet.stdout)\(quiet.stderr)")
    #expect(Self.goldenFiles(dir).allSatisfy { !$0.hasSuffix(".new") })
    #expect(quiet.stdout.contains("\u{1B}[31mFAIL"))
    #expect(quiet.stdout.contains("divergences by cue"))
    #expect(quiet.stdout.contains("FRAME_MOVE_LEFT cue_display"))
    #expect(quiet.stdout.contains("::error file=Golden/drift-left-and-back.trace.jsonl,line="))
    #expect(quiet.stdout.contains("0 passed, 1 failed\n"))
    #expect(quiet.stdout.contains("nothing written (update mode no)"))

    let noColor = try CLI.run(
      ["verify", "drift-*", "--spec", other.path, "--color", "auto"], cwd: dir, env: ["NO_COLOR": "1"])
    #expect(!noColor.stdout.contains("\u{1B}["))

    let asked = try CLI.run(
      ["verify", "drift-left-and-back", "--spec", other.path, "--update", "new"], cwd: dir,
      removeEnv: ["CI", "JPREPLAY_UPDATE"])
    #expect(asked.code == 1)
    #expect(Self.goldenFiles(dir).contains("drift-left-and-back.trace.jsonl.new"))
    let viaEnv = try CLI.run(["verify", "--spec", other.path], cwd: dir, env: ["JPREPLAY_UPDATE": "sometimes"])
    #expect(viaEnv.code == 2)
    #expect(viaEnv.stderr.contains("JPREPLAY_UPDATE=sometimes: expected new, always or no"))
  }

  /// Orphans: a golden without recording fails by default, is deleted on request; review
  /// and accept refuse a pending `.new` whose recording is gone.
  @Test func orphansFailAreDeletedOnRequestAndTheirNewFilesAreRefused() throws {
    let dir = try Self.corpusCopy("orphan")
    defer { try? FileManager.default.removeItem(at: dir) }
    let golden = dir.appendingPathComponent("Golden")
    try Data("{\"out\":\"x\",\"t\":0}\n".utf8).write(to: golden.appendingPathComponent("gone.trace.jsonl"))
    try Data("{\"out\":\"x\",\"t\":0}\n".utf8).write(to: golden.appendingPathComponent("gone.trace.jsonl.new"))
    let review = try CLI.run(["review", "--accept-all"], cwd: dir)
    #expect(review.code == 1)
    #expect(review.stdout.contains("refusing Golden/gone.trace.jsonl.new: no recording gone.jprec"))
    let accept = try CLI.run(["accept", "gone"], cwd: dir)
    #expect(accept.code == 2)
    #expect(accept.stderr.contains("jpreplay reject gone"))
    #expect(Self.goldenFiles(dir).contains("gone.trace.jsonl.new"))

    let fail = try CLI.run(["verify"], cwd: dir, env: ["CI": "true"])
    #expect(fail.code == 1)
    #expect(fail.stdout.contains("ORPHAN  gone: golden without recording"))
    #expect(fail.stdout.contains("2 passed, 0 failed, 1 orphan\n"), "\(fail.stdout)")
    let ignored = try CLI.run(["verify", "--unreferenced", "ignore"], cwd: dir, env: ["CI": "true"])
    #expect(ignored.code == 0, "\(ignored.stdout)")
    let deleted = try CLI.run(["verify", "--unreferenced", "delete"], cwd: dir, env: ["CI": "true"])
    #expect(deleted.code == 0)
    #expect(deleted.stdout.contains("deleted Golden/gone.trace.jsonl, Golden/gone.trace.jsonl.new"))
    #expect(!Self.goldenFiles(dir).contains { $0.hasPrefix("gone") })
    let none = try CLI.run(["verify", "nothing-*"], cwd: dir)
    #expect(none.code == 2)
  }

  @Test func helpDocumentsTheExitCodesAndUpdateModes() throws {
    let r = try CLI.run(["verify", "--help"])
    #expect(r.code == 0)
    let text = r.stdout.replacingOccurrences(of: "\n", with: " ")
      .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    #expect(text.contains("Exit codes: 0 every recording passed"))
    #expect(text.contains("2 bad input"))
    #expect(text.contains("--update <new|always|no>"))
    #expect(text.contains("--unreferenced <ignore|fail|delete>"))
  }

}
