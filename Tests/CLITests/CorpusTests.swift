import CanonicalJSON
import Foundation
import Testing

/// The committed corpus: every recording has a golden, replays match, and replays are
/// byte-identical across processes and hashing seeds (DESIGN §1).
@Suite("corpus")
struct CorpusTests {
  static var recordings: [String] {
    let dir = CLI.repoRoot.appendingPathComponent("Recordings")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return files.filter { $0.hasSuffix(".jprec") }.map { String($0.dropLast(6)) }.sorted()
  }

  /// docs/CORPUS.md carries the coverage table as `jpreplay coverage --markdown` prints it for
  /// the corpus; a new recording that changes it updates the document in the same commit.
  @Test func corpusDocumentCarriesTheCurrentCoverageTable() throws {
    let r = try CLI.run(["coverage", "--markdown"])
    try #require(r.code == 0, "\(r.stderr)")
    let doc = try String(contentsOf: CLI.repoRoot.appendingPathComponent("docs/CORPUS.md"), encoding: .utf8)
    #expect(
      doc.contains(r.stdout),
      "docs/CORPUS.md's coverage table is not what `jpreplay coverage --markdown` prints now: replace the table with its output")
  }

  @Test func theCorpusHasAtLeastFourRecordings() {
    #expect(Self.recordings.count >= 4)
  }

  /// One `verify` of the whole corpus serves both checks (it was two, each minutes of debug
  /// replays): every recording matches its goldens, and — `--determinism`, which runs only when
  /// every golden matched — replays to the same per-event hashes in two more processes, with
  /// SWIFT_DETERMINISTIC_HASHING on and off, with two workers (DESIGN §1).
  @Test func everyRecordingMatchesItsGoldensAndIsDeterministicAcrossProcessesWorkersAndHashSeeds() throws {
    // CI mode: nothing is written, a missing golden fails.
    let r = try CLI.run(["verify", "--determinism", "--jobs", "2"], env: ["CI": "true"])
    #expect(r.code == 0, "verify failed; run `jpreplay verify` then `jpreplay review`:\n\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("recordings byte-identical across processes"), "\(r.stdout)\(r.stderr)")
    // The test set's rules marked known on the committed draw (draw 0) are listed, not failed.
    #expect(r.stdout.contains("known misses ("), "\(r.stdout)")
    #expect(r.stdout.contains("\n  test-outdoor-noisy: Recordings/test-outdoor-noisy.scenario.yaml:"), "\(r.stdout)")
  }

  /// The rule-level recordings, one test case each. The long tuning sessions (`tune-*`,
  /// `val-*`, several minutes of detector frames each) and the test set (`test-*`) are
  /// regenerated event by event by `verify`'s staleness check (the corpus run above), and
  /// byte for byte on a sample by RecordAllTests; another pass here would only add minutes
  /// to the suite.
  static var ruleLevel: [String] { recordings.filter { !$0.hasPrefix("tune-") && !$0.hasPrefix("val-") && !$0.hasPrefix("test-") } }

  @Test(arguments: ruleLevel)
  func eachRecordingIsRecordedFromItsScenario(name: String) throws {
    // The corpus source is Recordings/<name>.scenario.yaml; `jpreplay record` into a temp
    // file gives the committed recording.
    let scenario = "Recordings/\(name).scenario.yaml"
    try #require(FileManager.default.fileExists(atPath: CLI.repoRoot.appendingPathComponent(scenario).path))
    let dir = try CLI.tempDir("corpus")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("\(name).jprec").path
    let rec = try CLI.run(["record", scenario, "-o", out])
    #expect(rec.code == 0, "\(rec.stderr)")
    // Labels are the scenario's declared intent (DESIGN §9): the whole recording, labels
    // included, is a function of the scenario file. Equal bytes are equal events; only files
    // whose bytes differ are compared event by event (two `cat` processes).
    if try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: CLI.repoRoot.appendingPathComponent("Recordings/\(name).jprec")) {
      return
    }
    let committed = try CLI.run(["cat", "Recordings/\(name).jprec"])
    let fresh = try CLI.run(["cat", out])
    #expect(committed.code == 0 && fresh.code == 0)
    #expect(committed.stdout == fresh.stdout, "Recordings/\(name).jprec is stale: jpreplay record \(name)")
  }

  /// Thresholds are read from the PoseSpec at run time (ENGINE §2.8, §3.3): raising
  /// FRAME_MOVE_LEFT's noRef hard threshold in a copy of the spec changes the trace of a
  /// recording that crosses it, with the same binary.
  @Test func editingAThresholdInTheSpecChangesTheTraceWithoutARebuild() throws {
    let dir = try CLI.tempDir("spec-edit")
    defer { try? FileManager.default.removeItem(at: dir) }
    let original = try String(contentsOf: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), encoding: .utf8)
    var doc = try JSONParser.parse(original)
    guard case .object(var root) = doc, case .array(var cues)? = root["cues"] else {
      Issue.record("PoseSpec.json has no cues array")
      return
    }
    let i = try #require(cues.firstIndex { $0["id"]?.stringValue == "FRAME_MOVE_LEFT" })
    // hard 0.12 → 0.2: drift-left-and-back peaks at +0.16, so the hard display disappears.
    func edit(_ v: JSONValue, _ path: [String]) -> JSONValue {
      guard let k = path.first, case .object(var o) = v, let child = o[k] else { return path.isEmpty ? .number(0.2) : v }
      o[k] = edit(child, Array(path.dropFirst()))
      return .object(o)
    }
    cues[i] = edit(cues[i], ["trigger", "noRef", "hard", ">"])
    root["cues"] = .array(cues)
    doc = .object(root)
    let edited = dir.appendingPathComponent("PoseSpec.json")
    try Data(JSONWriter.write(doc, sortKeys: false, numbers: .shortest).utf8).write(to: edited)

    let before = try CLI.run(["replay", "Recordings/drift-left-and-back.jprec"])
    let after = try CLI.run(["replay", "Recordings/drift-left-and-back.jprec", "--spec", edited.path])
    #expect(before.code == 0 && after.code == 0, "\(before.stderr)\(after.stderr)")
    #expect(before.stdout.contains(#""level":"hard""#))
    #expect(!after.stdout.contains(#""level":"hard""#), "\(after.stdout)")
    #expect(after.stdout.contains(#""cue_id":"FRAME_MOVE_LEFT","level":"warn""#))
  }

  @Test func replaysAreByteIdenticalAcrossProcessesAndHashSeeds() throws {
    let name = try #require(Self.recordings.first { $0.contains("drift") } ?? Self.recordings.first)
    let args = ["replay", "Recordings/\(name).jprec"]
    let a = try CLI.run(args, env: ["SWIFT_DETERMINISTIC_HASHING": "1"])
    let b = try CLI.run(args, removeEnv: ["SWIFT_DETERMINISTIC_HASHING"])
    let c = try CLI.run(args, removeEnv: ["SWIFT_DETERMINISTIC_HASHING"])
    #expect(a.code == 0, "\(a.stderr)")
    #expect(!a.stdoutData.isEmpty)
    #expect(a.stdoutData == b.stdoutData)
    #expect(b.stdoutData == c.stdoutData)
  }
}

/// `verify --budgets` on the committed corpus (prompt budgets of the guidance rules).
@Suite("verify --budgets")
struct BudgetCLITests {
  @Test func theCorpusIsWithinTheDefaultBudgetsAndATightLimitFails() throws {
    let ok = try CLI.run(["verify", "s06-hold-and-cooldown", "--budgets"])
    #expect(ok.code == 0, "\(ok.stdout)\(ok.stderr)")
    #expect(ok.stdout.contains("budgets s06-hold-and-cooldown: 3 cue changes"))
    let tight = try CLI.run(["verify", "s06-hold-and-cooldown", "--budgets", "--budget", "maxShowsOfOneCue=1"])
    #expect(tight.code == 1)
    #expect(tight.stdout.contains("BREACH FRAME_MOVE_LEFT shown more than 1 times"))
    let bad = try CLI.run(["verify", "s06-hold-and-cooldown", "--budgets", "--budget", "maxFun=1"])
    #expect(bad.code == 2)
    #expect(bad.stderr.contains("known: maxShowsOfOneCue"))
  }
}

