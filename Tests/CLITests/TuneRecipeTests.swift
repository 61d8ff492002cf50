import CanonicalJSON
import Foundation
import Testing

/// `tune rebuild RECIPE` (issue 35 item 1): a committed study recipe rebuilds its tuned files
/// byte for byte; the committed recipe's declared outputs are docs/tuned's files; docs/tuned
/// breaks no `expect:` rule of the fit, validation and test recordings.
@Suite struct TuneRecipeTests {
  static func repo(_ p: String) -> String { CLI.repoRoot.appendingPathComponent(p).path }

  /// The short fixture recipe with absolute paths, written into `dir`.
  static func shortRecipe(in dir: URL) throws -> URL {
    var text = try String(contentsOfFile: repo("Tests/Fixtures/recipe-short.yaml"), encoding: .utf8)
    text = text.replacingOccurrences(of: "space: docs/", with: "space: \(repo("docs"))/")
      .replacingOccurrences(of: "spec: PoseSpec.json", with: "spec: \(repo("PoseSpec.json"))")
      .replacingOccurrences(of: "recordings_dir: Recordings", with: "recordings_dir: \(repo("Recordings"))")
    let url = dir.appendingPathComponent("recipe.yaml")
    try Data(text.utf8).write(to: url)
    return url
  }

  static func sha(_ path: String) throws -> String { SHA256.hex(Array(try Data(contentsOf: URL(fileURLWithPath: path)))) }

  /// The outputs a recipe file declares.
  static func declared(_ path: String) throws -> [String: String] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var out: [String: String] = [:]
    var inOutputs = false
    for line in text.split(separator: "\n") {
      if line.hasPrefix("outputs:") { inOutputs = true; continue }
      guard inOutputs, line.hasPrefix("  ") else { continue }
      let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
      if parts.count == 2 { out[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
    }
    return out
  }

  @Test func aShortRecipeRebuildsTheSameBytesTwiceWhateverTheJobs() throws {
    let a = try CLI.tempDir("recipe-a")
    let b = try CLI.tempDir("recipe-b")
    defer {
      try? FileManager.default.removeItem(at: a)
      try? FileManager.default.removeItem(at: b)
    }
    let ra = try CLI.run(["tune", "rebuild", try Self.shortRecipe(in: a).path, "--jobs", "2"], cwd: a)
    let rb = try CLI.run(["tune", "rebuild", try Self.shortRecipe(in: b).path, "--jobs", "1"], cwd: b)
    #expect(ra.code == 0, "\(ra.stdout)\n\(ra.stderr)")
    #expect(rb.code == 0, "\(rb.stdout)\n\(rb.stderr)")
    let declared = try Self.declared(Self.repo("Tests/Fixtures/recipe-short.yaml"))
    for name in ["PoseSpec.json", "options.txt"] {
      let fa = try Data(contentsOf: a.appendingPathComponent(name))
      let fb = try Data(contentsOf: b.appendingPathComponent(name))
      #expect(fa == fb, "\(name) differs between two rebuilds")
      #expect(SHA256.hex(Array(fa)) == declared[name], "\(name): the fixture's declared sha256")
    }
    // The promote's test-set reading is printed once.
    #expect(ra.stdout.components(separatedBy: "test set: ").count == 2, "\(ra.stdout)")
    // --check compares without writing: a changed committed file is exit 1, named.
    try Data("landmarkFilter=oneEuro\n".utf8).write(to: a.appendingPathComponent("options.txt"))
    let check = try CLI.run(["tune", "rebuild", a.appendingPathComponent("recipe.yaml").path, "--check", "--jobs", "2"], cwd: a)
    #expect(check.code == 1, "\(check.stdout)\n\(check.stderr)")
    #expect(check.stderr.contains("options.txt: sha256 ") && !check.stderr.contains("PoseSpec.json: sha256"), "\(check.stderr)")
    #expect(try String(contentsOf: a.appendingPathComponent("options.txt"), encoding: .utf8) == "landmarkFilter=oneEuro\n")
  }

  @Test func theCommittedRecipeDeclaresDocsTunedsFiles() throws {
    let declared = try Self.declared(Self.repo("docs/tuned/recipe.yaml"))
    #expect(declared.keys.sorted() == ["PoseSpec.json", "options.txt"])
    for (name, hash) in declared {
      #expect(try Self.sha(Self.repo("docs/tuned/\(name)")) == hash, "docs/tuned/\(name) is not what docs/tuned/recipe.yaml declares; rebuild it (jpreplay tune rebuild docs/tuned/recipe.yaml)")
    }
  }

  /// docs/tuned cannot be committed while it breaks a rule of the fit, validation or test recordings.
  @Test func docsTunedBreaksNoRuleOfTheFitValidationOrTestRecordings() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.repo("Recordings"))
    let paths = files.filter { ($0.hasPrefix("tune-") || $0.hasPrefix("val-") || $0.hasPrefix("test-")) && $0.hasSuffix(".jprec") }
      .sorted().map { "Recordings/\($0)" }
    #expect(paths.contains { $0.hasPrefix("Recordings/test-") })
    let options = try String(contentsOfFile: Self.repo("docs/tuned/options.txt"), encoding: .utf8)
      .split(separator: "\n").flatMap { ["--set", String($0)] }
    let r = try CLI.run(["score"] + paths + ["--spec", "docs/tuned/PoseSpec.json"] + options + ["--json"])
    #expect(r.code == 0, "\(r.stderr)")
    let json = try JSONParser.parse(r.stdout)
    let failures = json["total"]?["expectation_failures"]?.doubleValue
    let broken = (json["recordings"]?.arrayValue ?? []).flatMap { r in
      (r["expectation_failure_list"]?.arrayValue ?? []).map { "\(r["name"]?.stringValue ?? "?"): \($0.stringValue ?? "")" }
    }
    #expect(failures == 0, "docs/tuned breaks \(failures ?? -1) rules:\n\(broken.joined(separator: "\n"))")
    // Nor does a known: marker excuse it (the recipe's known_misses: 0): a marker records the
    // shipped engine's miss, not the answer's.
    let known = (json["recordings"]?.arrayValue ?? []).flatMap { r in
      (r["known_miss_list"]?.arrayValue ?? []).map { "\(r["name"]?.stringValue ?? "?"): \($0.stringValue ?? "")" }
    }
    #expect(known.isEmpty, "docs/tuned misses \(known.count) rules excused by known: markers:\n\(known.joined(separator: "\n"))")
    #expect(try String(contentsOfFile: Self.repo("docs/tuned/recipe.yaml"), encoding: .utf8).contains("\nknown_misses: 0\n"))
  }

  /// docs/TUNING.md's test-set table is what `tune rebuild docs/tuned/recipe.yaml --table`
  /// prints (issue 35 item 9: every answer can be rebuilt): the ablation's rows, each objective's
  /// mean and 95% interval over the recipe's draws of the test set.
  @Test func tuningMdsTestSetTableIsTheRecipesTable() throws {
    let r = try CLI.run(["tune", "rebuild", "docs/tuned/recipe.yaml", "--table", "--jobs", "2"])
    #expect(r.code == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.first?.hasPrefix("<!-- jpreplay tune rebuild docs/tuned/recipe.yaml --table: the test set (") == true, "\(r.stdout)")
    #expect(lines.first?.contains("mean [95% interval] over 5 draws") == true, "\(r.stdout)")
    // One row per ablation row of the recipe (shipped, + activation, + filter, + noise gate,
    // + all-listed bbox, + gate options, thresholds only, filter + thresholds, the promoted trial).
    #expect(lines.filter { $0.hasPrefix("| ") && !$0.hasPrefix("| configuration") }.count == 9, "\(r.stdout)")
    let doc = try String(contentsOfFile: Self.repo("docs/TUNING.md"), encoding: .utf8)
    let start = try #require(doc.range(of: lines[0]), "docs/TUNING.md has no table made by tune rebuild --table (its first line: \(lines[0]))")
    let block = Array(doc[start.lowerBound...].utf8.prefix(r.stdout.utf8.count))
    #expect(block == Array(r.stdout.utf8), "docs/TUNING.md's test-set table is not tune rebuild --table's output; replace it with:\n\(r.stdout)")
  }

  @Test(arguments: [
    ("space: a\nbogus: 1\n", "recipe.yaml:2:1: unknown recipe key bogus"),
    ("space: a\n", "missing key \"corpus\""),
    (
      "space: a\ncorpus: [x]\nvalidation: none\nsampler: grid\nseed: 1\ntrials: 4\ntrial: 4\noutputs: {PoseSpec.json: a, options.txt: b}\n",
      "recipe.yaml:7:8: trial: #4 is not one of the study's 4 trials"
    ),
    (
      "space: a\ncorpus: [x]\nvalidation: none\nsampler: grid\nseed: 1\ntrials: 4\ntrial: 1\noutputs: {PoseSpec.json: a, options.txt: b}\n",
      "outputs: PoseSpec.json: expected a SHA-256"
    ),
    ("- a\n", "recipe.yaml:1:1: expected a mapping"),
    (
      "space: a\ncorpus: [x]\nvalidation: none\nsampler: grid\nseed: 1\ntrials: 4\nseeds: 0\ntrial: 1\noutputs: {PoseSpec.json: a, options.txt: b}\n",
      "recipe.yaml:7:8: seeds: expected an integer 1…64"
    ),
    (
      "space: a\ncorpus: [x]\nvalidation: none\nsampler: grid\nseed: 1\ntrials: 4\ntrial: 1\nknown_misses: -1\noutputs: {PoseSpec.json: a, options.txt: b}\n",
      "recipe.yaml:8:15: known_misses: expected an integer 0…1000000"
    ),
    (
      "space: a\ncorpus: [x]\nvalidation: none\nsampler: grid\nseed: 1\ntrials: 4\ntrial: 1\nablation: {shipped: 1, other: 4}\noutputs: {PoseSpec.json: a, options.txt: b}\n",
      "recipe.yaml:8:31: ablation: other: expected a trial of the study (0…3), found 4"
    ),
    (
      "space: a\ncorpus: [x]\nvalidation: none\nsampler: grid\nseed: 1\ntrials: 4\ntrial: 1\nablation: {\"a|b\": 1}\noutputs: {PoseSpec.json: a, options.txt: b}\n",
      "recipe.yaml:8:12: ablation: expected a label"
    ),
  ])
  func aBadRecipeIsExitTwoNamingItsPlace(text: String, message: String) throws {
    let dir = try CLI.tempDir("recipe-bad")
    defer { try? FileManager.default.removeItem(at: dir) }
    try Data(text.utf8).write(to: dir.appendingPathComponent("recipe.yaml"))
    let r = try CLI.run(["tune", "rebuild", "recipe.yaml"], cwd: dir)
    #expect(r.code == 2, "\(r.stderr)")
    #expect(r.stderr.contains(message), "\(r.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["recipe.yaml"])
  }
}
