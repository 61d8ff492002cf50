import Foundation
import Lab
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `jpreplay tune` with a validation corpus: fit on drift-left-and-back, validate on
/// s04-frame-left-enter, whose intent wants FRAME_MOVE_LEFT from the first frame: a longer persistFrames delays it (p90 267 ms
/// against the shipped 200 ms).
@Suite("jpreplay tune --validation (CLI)")
struct TuneValidationCLITests {
  /// Trial #0 (persistFrames 4 for every cue) keeps the shipped validation p90; #1 (5) does not.
  static let space = "objective: latency_p90_ms\noptions.mirrorMode: [points]\ncues[*].antiJitter.persistFrames: [4, 5]\noptions.angleFix: [on]\n"

  static func scratch() throws -> URL {
    let dir = try TuneCLITests.scratch()
    let name = "s04-frame-left-enter"
    try FileManager.default.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/\(name).jprec"), to: dir.appendingPathComponent("Recordings/\(name).jprec"))
    try TuneCLITests.write(space, dir.appendingPathComponent("space.yaml"))
    return dir
  }

  static func run(_ dir: URL, study: String = "s.sqlite", _ extra: [String] = []) throws -> CLI.Result {
    try CLI.run(
      ["tune", "run", "space.yaml", "--study", study, "--sampler", "grid", "--corpus", "drift-*", "--validation", "s04-frame-left-enter"] + extra,
      cwd: dir)
  }

  @Test func aTrialWorseThanShippedOnValidationIsMarkedAndPromoteRefusesIt() throws {
    let dir = try Self.scratch()
    let run = try Self.run(dir)
    #expect(run.code == 0, "\(run.stderr)")
    let report = try CLI.run(["tune", "report", "s.sqlite", "--objectives", "latency_p90_ms", "--trial", "1"], cwd: dir)
    #expect(report.code == 0, "\(report.stderr)")
    #expect(report.stdout.contains("Validation corpus: 1 recording (s04-frame-left-enter)"), "\(report.stdout)")
    // Both trials are one point over latency_p90_ms (fit 0 ms): one front row, its count beside it.
    let frontParts = report.stdout.components(separatedBy: "Pareto front over latency_p90_ms (2 trials, 1 distinct point):\n")
    try #require(frontParts.count == 2, "\(report.stdout)")
    let front = frontParts[1].split(separator: "\n")
    try #require(front.count >= 3)
    #expect(front[0].contains("val.latency_p90_ms") && front[0].contains("generalises"))
    #expect(front[1].hasPrefix("shipped") && front[1].contains("200"))
    #expect(front[2].hasPrefix("#0") && front[2].contains(" yes ") && front[2].contains("×2: #0 #1"), "\(front[2])")
    let askedParts = report.stdout.components(separatedBy: "Trials asked for:\n")
    try #require(askedParts.count == 2, "\(report.stdout)")
    let asked = askedParts[1].split(separator: "\n")
    try #require(asked.count >= 3)
    #expect(asked[1].hasPrefix("shipped"))
    #expect(asked[2].hasPrefix("#1") && asked[2].contains("does not generalise: validation latency_p90_ms 267 > shipped 200"), "\(asked[2])")
    let svg = try CLI.run(["tune", "report", "s.sqlite", "--objectives", "latency_p90_ms", "--svg", "f.svg"], cwd: dir)
    #expect(svg.code == 0, "\(svg.stderr)")
    let data = try Data(contentsOf: dir.appendingPathComponent("f.svg"))
    #expect(XMLParser(data: data).parse(), "the SVG is well-formed XML")
    #expect(String(decoding: data, as: UTF8.self).contains("latency_p90_ms on the validation corpus"))

    let refused = try CLI.run(["tune", "promote", "s.sqlite", "1", "--no-verify"], cwd: dir)
    #expect(refused.code == 2)
    #expect(refused.stderr.contains("trial #1 does not generalise: validation latency_p90_ms 267 > shipped 200"), "\(refused.stderr)")
    let spec = try String(contentsOf: dir.appendingPathComponent("PoseSpec.json"), encoding: .utf8)
    #expect(spec == (try String(contentsOf: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), encoding: .utf8)), "nothing written")
    let forced = try CLI.run(["tune", "promote", "s.sqlite", "1", "--no-verify", "--force"], cwd: dir)
    #expect(forced.code == 0, "\(forced.stderr)")
    #expect(forced.stderr.contains("warning: trial #1 does not generalise"))
    #expect(forced.stdout.contains("values written to PoseSpec.json"))
    // A budget the space states: p90 ≤ 100 on validation, which even #0 breaks.
    try TuneCLITests.write("generalise: {latency_p90_ms: 100}\n" + Self.space, dir.appendingPathComponent("space.yaml"))
    #expect(try Self.run(dir, study: "b.sqlite").code == 0)
    let budget = try CLI.run(["tune", "promote", "b.sqlite", "0", "--to", "out"], cwd: dir)
    #expect(budget.code == 2)
    #expect(budget.stderr.contains("validation latency_p90_ms 200 > budget 100"), "\(budget.stderr)")
  }

  @Test func promoteToWritesTheInPlaceEditAndTheOptions() throws {
    let dir = try Self.scratch()
    #expect(try Self.run(dir).code == 0)
    let to = try CLI.run(["tune", "promote", "s.sqlite", "1", "--force", "--to", "tuned/a"], cwd: dir)
    #expect(to.code == 0, "\(to.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Golden/drift-left-and-back.trace.jsonl.new").path), "no verify")
    let options = try String(contentsOf: dir.appendingPathComponent("tuned/a/options.txt"), encoding: .utf8)
    #expect(options == "mirrorMode=points\nangleFix=on\n", "the space's order, as replay --set takes them")
    let written = try String(contentsOf: dir.appendingPathComponent("tuned/a/PoseSpec.json"), encoding: .utf8)
    let inPlace = try CLI.run(["tune", "promote", "s.sqlite", "1", "--force", "--no-verify"], cwd: dir)
    #expect(inPlace.code == 0, "\(inPlace.stderr)")
    #expect(written == (try String(contentsOf: dir.appendingPathComponent("PoseSpec.json"), encoding: .utf8)))
    // The written files replay as they say.
    let replay = try CLI.run(
      ["replay", "Recordings/drift-left-and-back.jprec", "--spec", "tuned/a/PoseSpec.json", "--set", "mirrorMode=points", "--set", "angleFix=on", "-o", "t.jsonl"],
      cwd: dir)
    #expect(replay.code == 0, "\(replay.stderr)")
  }

  @Test func theValidationReportIsDeterministic() throws {
    let dir = try Self.scratch()
    try TuneCLITests.write("seed: 3\ncues[*].antiJitter.persistFrames: [3..6]\ncues[*].antiJitter.cooldownMs: {min: 400, max: 1200}\n", dir.appendingPathComponent("space.yaml"))
    let args = ["--sampler", "random", "--trials", "6"]
    #expect(try Self.run(dir, study: "a.sqlite", args + ["--jobs", "2"]).code == 0)
    #expect(try Self.run(dir, study: "b.sqlite", args + ["--jobs", "1"]).code == 0)
    let a = try CLI.run(["tune", "report", "a.sqlite", "--json"], cwd: dir)
    let b = try CLI.run(["tune", "report", "b.sqlite", "--json"], cwd: dir)
    #expect(a.code == 0 && a.stdout == b.stdout)
    #expect(a.stdout.contains("\"validation_corpus\":[\"s04-frame-left-enter\"]"))
    #expect(a.stdout.contains("\"shipped\":{\"objectives\":{") && a.stdout.contains("\"validation\":{\"budget_violations\":"))
    // Another validation corpus is another study.
    let other = try CLI.run(["tune", "run", "space.yaml", "--study", "a.sqlite", "--sampler", "random", "--trials", "6", "--corpus", "drift-*", "--no-validation"], cwd: dir)
    #expect(other.code == 2 && other.stderr.contains("validation"), "\(other.stderr)")
  }

  @Test(arguments: [
    (["--corpus", "drift-*", "--validation", "drift-left-and-back"], "Recordings/drift-left-and-back.jprec is in both the fit corpus and the validation corpus"),
    (["--corpus", "drift-*", "--validation", "nothing-*"], "--validation 'nothing-*': matches no recording"),
    (["--corpus", "drift-*", "--validation", "cov-*", "--no-validation"], "--validation and --no-validation"),
  ])
  func badValidationCorporaExit2(args: [String], message: String) throws {
    let dir = try Self.scratch()
    let r = try CLI.run(["tune", "run", "space.yaml", "--study", "s.sqlite"] + args, cwd: dir)
    #expect(r.code == 2)
    #expect(r.stderr.contains(message), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("s.sqlite").path))
  }
}
