import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import JustPhotoPlugin
import PoseSpec
import Testing

@testable import Lab

/// An evaluator whose objectives are a fixed function of the tuned values (fast, so the study
/// machinery — samplers, resume, shards — is tested on hundreds of trials). It reads the
/// values back out of the edited spec, so it also checks that the runner applied them.
struct FormulaEvaluator: TrialEvaluator, Sendable {
  func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double] {
    let cues = specJSON["cues"]?.arrayValue ?? []
    let persist = cues.first?["antiJitter"]?["persistFrames"]?.doubleValue ?? 0
    let hold = specJSON["defaults"]?["antiJitter"]?["minHoldMs"]?.doubleValue ?? 0
    let exit = cues.first?["trigger"]?["noRef"]?["exit"]?["<="]?.doubleValue ?? 0
    return [
      "flicker_per_min": (persist - 4) * (persist - 4) + (hold - 2500) * (hold - 2500) / 1e6 + exit,
      "latency_p90_ms": persist * 100 + hold / 10,
      "budget_violations": persist < 3 ? 1 : 0,
    ]
  }
}

@Suite("tune: space, samplers, study")
struct TuneTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let spec: JSONValue = {
    let bytes = try! Data(contentsOf: repoRoot.appendingPathComponent("Tests/Fixtures/reference-posespec.json"))
    return try! JSONParser.parse(bytes: [UInt8](bytes))
  }()

  static let spaceText = """
    cues[*].antiJitter.persistFrames: [2..6]
    defaults.antiJitter.minHoldMs: {min: 1500, max: 4000, step: 250}
    cues[FRAME_MOVE_*].trigger.noRef.exit: {min: 0.02, max: 0.06}

    """

  static func space(_ text: String = spaceText) throws(HarnessFailure) -> TuneSpace {
    try TuneSpace.parse(text: text, file: "space.yaml", spec: spec)
  }

  static func runner(_ kind: TuneSamplerKind, trials: Int, shard: (Int, Int) = (0, 1), jobs: Int = 2, seed: UInt64 = 7) throws -> TuneRunner {
    let s = try space()
    let sampler = TuneSampler(kind: kind, domains: s.parameters.map(\.domain), seed: seed, tpeBatch: 16, objective: "flicker_per_min")
    return TuneRunner(space: s, sampler: sampler, trials: trials, shard: shard, jobs: jobs, baseSpec: spec, evaluator: FormulaEvaluator())
  }

  static func tempStudy(_ name: String) -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tune-tests-\(getpid())-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name).path
  }

  static func run(_ r: TuneRunner, _ path: String) throws -> [TrialResult] {
    let study = try TuneStudy.open(path, create: true)
    try study.bind(r.studyMeta(specSHA256: "x", corpus: ["c"]))
    try r.run(study: study)
    return try study.trials()
  }

  /// An evaluator that refuses every spec, as the harness does for an invalid edited spec.
  struct RefusingEvaluator: TrialEvaluator, Sendable {
    func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double] {
      throw HarnessFailure(code: 2, message: "trial spec: a threshold out of order")
    }
  }

  @Test func aFailedTrialNamesTheSpecFileTheSpaceAndItsValues() throws {
    var r = try Self.runner(.random, trials: 1)
    r.evaluator = RefusingEvaluator()
    r.specName = "PoseSpec.json"
    r.spaceName = "space.yaml"
    let t = r.evaluate(0, r.sampler.values(for: 0, history: [])!)
    #expect(t.status == .infeasible)
    let reason = try #require(t.reason)
    #expect(reason.contains("PoseSpec.json with cues[*].antiJitter.persistFrames="), "\(reason)")
    #expect(reason.contains("(space.yaml)") && reason.contains("a threshold out of order"), "\(reason)")
  }

  @Test func pathsExpandOverCueIDsAndThresholdObjects() throws {
    let s = try Self.space()
    guard case .spec(let all) = s.parameters[0].target, case .spec(let moves) = s.parameters[2].target else {
      Issue.record("expected spec targets")
      return
    }
    #expect(all.count == (Self.spec["cues"]?.arrayValue?.count ?? -1))
    #expect(moves.map(\.display) == ["cues[FRAME_MOVE_LEFT].trigger.noRef.exit", "cues[FRAME_MOVE_RIGHT].trigger.noRef.exit", "cues[FRAME_MOVE_UP].trigger.noRef.exit", "cues[FRAME_MOVE_DOWN].trigger.noRef.exit"])
    #expect(moves.allSatisfy { $0.comparator != nil })
    // Mirrored cues (RIGHT, DOWN: exit >= -0.04) get the value negated, keeping their side.
    #expect(moves.map(\.negated) == [false, true, false, true])
    let edited = TuneTarget.write(.number(0.03), at: moves[1], in: Self.spec)
    let right = edited["cues"]?.arrayValue?.first { $0["id"]?.stringValue == "FRAME_MOVE_RIGHT" }
    #expect(right?["trigger"]?["noRef"]?["exit"]?[">="]?.doubleValue == -0.03)
    #expect(s.parameters[0].domain == .choices([2, 3, 4, 5, 6].map { .number($0) }))
    #expect(s.parameters[1].domain.count == 11)
  }

  @Test func aShadowedDefaultIsWarnedAboutAndACueOwnedPathIsNot() throws {
    let s = try Self.space("defaults.antiJitter.persistFrames: [2..6]\ncues[*].antiJitter.cooldownMs: [400, 800]\n")
    #expect(s.warnings.count == 1)
    #expect(s.warnings.first?.contains("defaults.antiJitter.persistFrames is shadowed") == true)
    let scene = try Self.space("sceneDefaults.cafe.antiJitter.minHoldMs: [1000, 2000]\n")
    #expect(scene.warnings.first?.contains("read by no engine rule") == true)
  }

  @Test(arguments: [
    ("cues[*].antiJitter.persistFrames: [6..2]\n", "space.yaml:1:"),
    ("cues[NOPE_*].antiJitter.persistFrames: [2..3]\n", "matches no element"),
    ("cues[*].antiJitter.nothing: [2..3]\n", "no member 'nothing'"),
    ("seed: 1\nx: {min: 3}\n", "space.yaml:2:"),
    ("cues[*].id: [1, 2]\n", "is a JSON string"),
    ("options.angleFix: [maybe]\n", "not a value of angleFix"),
    ("sampler: annealing\ncues[*].antiJitter.persistFrames: [2..3]\n", "space.yaml:1:"),
    ("[1, 2]\n", "expected a mapping"),
    ("a: [1\n", "YAML syntax"),
  ])
  func malformedSpacesNameTheFileAndPlace(text: String, expected: String) {
    do {
      _ = try Self.space(text)
      Issue.record("accepted: \(text)")
    } catch {
      #expect(error.code == 2)
      #expect(error.message.hasPrefix("space.yaml"), "\(error.message)")
      #expect(error.message.contains(expected), "\(error.message)")
    }
  }

  @Test func trialValuesDependOnlyOnSeedAndIndex() throws {
    let r = try Self.runner(.random, trials: 50)
    let a = (0..<50).map { r.sampler.values(for: $0, history: [])! }
    let b = (0..<50).reversed().map { r.sampler.values(for: $0, history: [])! }.reversed()
    #expect(a == Array(b))
    #expect(Set(a.map { $0.description }).count > 40, "random values should vary")
    let other = try Self.runner(.random, trials: 50, seed: 8)
    #expect(a != (0..<50).map { other.sampler.values(for: $0, history: [])! })
  }

  @Test func gridCoversEveryCombinationOnce() throws {
    let s = try Self.space("cues[*].antiJitter.persistFrames: [2..4]\ndefaults.antiJitter.minHoldMs: [1000, 2000]\n")
    let sampler = TuneSampler(kind: .grid, domains: s.parameters.map(\.domain), seed: 1, objective: "flicker_per_min")
    #expect(sampler.gridSize == 6)
    let all = (0..<6).map { sampler.values(for: $0, history: [])!.map(\.description).joined(separator: ",") }
    #expect(Set(all).count == 6)
  }

  @Test func twoRunsWithTheSameSeedAreIdentical() throws {
    for kind in [TuneSamplerKind.random, .tpe] {
      let a = try Self.run(try Self.runner(kind, trials: 64, jobs: 2), Self.tempStudy("a.sqlite"))
      let b = try Self.run(try Self.runner(kind, trials: 64, jobs: 1), Self.tempStudy("b.sqlite"))
      #expect(a.count == 64)
      #expect(a == b, "\(kind)")
    }
  }

  @Test func tpeLearnsFromEarlierBatches() throws {
    let tpe = try Self.run(try Self.runner(.tpe, trials: 96), Self.tempStudy("tpe.sqlite"))
    let rnd = try Self.run(try Self.runner(.random, trials: 96), Self.tempStudy("rnd.sqlite"))
    func meanLast(_ r: [TrialResult]) -> Double {
      let tail = r.suffix(32).compactMap { $0.objectives["flicker_per_min"] }
      return tail.reduce(0, +) / Double(tail.count)
    }
    // The first batch is the same random draw; later batches concentrate near the optimum.
    #expect(tpe.prefix(16) == rnd.prefix(16))
    #expect(meanLast(tpe) < meanLast(rnd), "tpe \(meanLast(tpe)) vs random \(meanLast(rnd))")
  }

  @Test func aResumedStudyRunsOnlyTheMissingTrials() throws {
    let path = Self.tempStudy("resume.sqlite")
    let full = try Self.run(try Self.runner(.tpe, trials: 40), Self.tempStudy("full.sqlite"))
    // A "killed" run: the study holds the first 21 trials only (one batch and a part).
    let study = try TuneStudy.open(path, create: true)
    let r = try Self.runner(.tpe, trials: 40)
    try study.bind(r.studyMeta(specSHA256: "x", corpus: ["c"]))
    try study.record(Array(full.prefix(21)))
    let ran = try r.run(study: study)
    #expect(ran == 19)
    #expect(try study.trials() == full)
    #expect(try r.run(study: study) == 0, "a complete study runs nothing")
  }

  @Test func anExtendedStudyEqualsOneRunWithTheLargerCountFromTheStart() throws {
    for kind in [TuneSamplerKind.random, .tpe] {
      // TPE: 20 trials end inside the second batch of 16, so the extension finishes a batch
      // whose first trials were proposed before the extension.
      let full = try Self.run(try Self.runner(kind, trials: 40), Self.tempStudy("full.sqlite"))
      let path = Self.tempStudy("extend.sqlite")
      let short = try Self.run(try Self.runner(kind, trials: 20), path)
      #expect(short == Array(full.prefix(20)), "\(kind)")
      let study = try TuneStudy.open(path, create: true)
      let longer = try Self.runner(kind, trials: 40)
      #expect(try study.extend(longer.studyMeta(specSHA256: "x", corpus: ["c"])) == 20)
      #expect(try longer.run(study: study) == 20, "only the new trials run")
      #expect(try study.trials() == full, "\(kind)")
      #expect(try study.meta()["trials"] == "40" && study.meta()["extended"] == "20 → 40")
      // Now bound to 40 trials: a plain rerun with 40 continues; with 20 it is refused.
      try study.bind(longer.studyMeta(specSHA256: "x", corpus: ["c"]))
      #expect(throws: HarnessFailure.self) { try study.bind(Self.runner(kind, trials: 20).studyMeta(specSHA256: "x", corpus: ["c"])) }
    }
  }

  @Test func extendRefusesAnotherSettingASmallerCountAndANewStudy() throws {
    let path = Self.tempStudy("extend-refuse.sqlite")
    _ = try Self.run(try Self.runner(.random, trials: 8), path)
    let study = try TuneStudy.open(path, create: true)
    func message(_ r: TuneRunner, _ s: TuneStudy) -> String {
      do { try s.extend(r.studyMeta(specSHA256: "x", corpus: ["c"])) } catch { return error.message }
      return "accepted"
    }
    #expect(message(try Self.runner(.random, trials: 16, seed: 99), study).contains("seed = 7, not 99"))
    #expect(message(try Self.runner(.random, trials: 8), study).contains("already has 8 trials"))
    #expect(message(try Self.runner(.random, trials: 4), study).contains("already has 8 trials"))
    let fresh = try TuneStudy.open(Self.tempStudy("fresh.sqlite"), create: true)
    #expect(message(try Self.runner(.random, trials: 8), fresh).contains("has none yet"))
    #expect(try study.meta()["trials"] == "8", "a refused extension changes nothing")
  }

  /// Issue 37: a rerun with a larger --trials suggested deleting the study; --extend is the way.
  @Test func aLargerTrialCountPointsToExtendNotToDeleting() throws {
    let path = Self.tempStudy("bind-more.sqlite")
    _ = try Self.run(try Self.runner(.random, trials: 4), path)
    let study = try TuneStudy.open(path, create: false)
    func message(_ r: TuneRunner) -> String {
      do { try study.bind(r.studyMeta(specSHA256: "x", corpus: ["c"])) } catch { return error.message }
      return "accepted"
    }
    let more = message(try Self.runner(.random, trials: 10))
    #expect(more.contains("made with 4 trials, not 10") && more.contains("--extend") && !more.contains("delete"), "\(more)")
    let seed = message(try Self.runner(.random, trials: 4, seed: 99))
    #expect(seed.contains("seed = 7, not 99") && !seed.contains("--extend") && !seed.contains("delete"), "\(seed)")
  }

  @Test func aStudyRefusesAnotherSpace() throws {
    let path = Self.tempStudy("bind.sqlite")
    _ = try Self.run(try Self.runner(.random, trials: 4), path)
    let other = try Self.runner(.random, trials: 4, seed: 99)
    #expect(throws: HarnessFailure.self) { try TuneStudy.open(path, create: false).bind(other.studyMeta(specSHA256: "x", corpus: ["c"])) }
  }

  @Test func twoShardsMergedEqualOneRun() throws {
    let whole = Self.tempStudy("whole.sqlite")
    let one = try Self.run(try Self.runner(.random, trials: 30), whole)
    let a = Self.tempStudy("a.sqlite")
    let b = Self.tempStudy("b.sqlite")
    #expect(try Self.run(try Self.runner(.random, trials: 30, shard: (0, 2)), a).count == 15)
    #expect(try Self.run(try Self.runner(.random, trials: 30, shard: (1, 2)), b).count == 15)
    let merged = Self.tempStudy("merged.sqlite")
    #expect(try TuneStudy.merge([a, b], into: merged) == 30)
    #expect(try TuneStudy.open(merged, create: false).trials() == one)
    let objectives = ["flicker_per_min", "latency_p90_ms"]
    let r1 = try TuneReport(study: TuneStudy.open(whole, create: false), objectives: objectives)
    let r2 = try TuneReport(study: TuneStudy.open(merged, create: false), objectives: objectives)
    #expect(r1.json == r2.json)
  }

  @Test func constraintsMakeTrialsInfeasible() throws {
    let results = try Self.run(try Self.runner(.random, trials: 40), Self.tempStudy("c.sqlite"))
    for t in results {
      let persist = t.values[0]
      #expect((t.status == .infeasible) == (persist == .number(2)), "#\(t.index) \(persist) \(t.status)")
    }
  }

  @Test func paretoFrontIsTheNonDominatedFeasibleSet() {
    func t(_ i: Int, _ a: Double, _ b: Double, _ s: TrialStatus = .ok) -> TrialResult {
      TrialResult(index: i, values: [], status: s, objectives: ["x": a, "y": b], reason: nil)
    }
    let trials = [t(0, 1, 5), t(1, 2, 2), t(2, 3, 3), t(3, 5, 1), t(4, 2, 2), t(5, 0, 0, .infeasible), t(6, 4, 1)]
    // #3 (5, 1) is dominated by #6 (4, 1); #2 by #1; #5 is infeasible; #1 and #4 tie.
    #expect(TuneReport.paretoFront(trials, objectives: ["x", "y"]) == [0, 1, 4, 6])
    #expect(TuneReport.paretoFront(trials, objectives: ["x"]) == [0])
  }

  @Test func promoteEditsOnlyTheTunedLiterals() throws {
    let url = Self.repoRoot.appendingPathComponent("Tests/Fixtures/reference-posespec.json")
    let text = try String(contentsOf: url, encoding: .utf8)
    let space = "cues[FRAME_MOVE_*].antiJitter.persistFrames: [2..6]\ncues[FRAME_MOVE_LEFT].trigger.noRef.exit: [0.03, 0.04]\n"
    let meta = ["space_text": space, "space_file": "s.yaml"]
    let trial = TrialResult(index: 3, values: [.number(5), .number(0.03)], status: .ok, objectives: [:], reason: nil)
    let r = try TunePromote.apply(trial: trial, meta: meta, specText: text, specFile: "PoseSpec.json")
    #expect(r.edits.count == 5)
    let oldLines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let newLines = r.text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(oldLines.count == newLines.count)
    let changed = zip(oldLines, newLines).filter { $0 != $1 }
    #expect(changed.count == 5)
    for (o, n) in changed {
      #expect(o.replacingOccurrences(of: "4", with: "5") == n || o.replacingOccurrences(of: "0.04", with: "0.03") == n, "\(o) → \(n)")
    }
    // The result still loads, and carries the values.
    let edited = try JSONParser.parse(bytes: Array(r.text.utf8))
    let left = edited["cues"]?.arrayValue?.first { $0["id"]?.stringValue == "FRAME_MOVE_LEFT" }
    #expect(left?["trigger"]?["noRef"]?["exit"]?["<="]?.doubleValue == 0.03)
    #expect(left?["antiJitter"]?["persistFrames"]?.doubleValue == 5)
    // Promoting the same trial again changes nothing.
    #expect(try TunePromote.apply(trial: trial, meta: meta, specText: r.text, specFile: "PoseSpec.json").edits.isEmpty)
  }
}
