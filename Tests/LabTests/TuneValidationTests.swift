import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import JustPhotoPlugin
import PoseSpec
import Testing

@testable import Lab

/// A validation evaluator that disagrees with ``FormulaEvaluator``: its flicker is lowest at
/// persistFrames 5, where the fit's is lowest at 4.
struct OtherFormulaEvaluator: TrialEvaluator, Sendable {
  func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double] {
    let persist = specJSON["cues"]?.arrayValue?.first?["antiJitter"]?["persistFrames"]?.doubleValue ?? 0
    return ["flicker_per_min": (persist - 5) * (persist - 5), "latency_p90_ms": persist * 150, "budget_violations": 0]
  }
}

@Suite("tune: validation corpus, shipped row, generalisation")
struct TuneValidationTests {
  static func runner(_ kind: TuneSamplerKind, trials: Int, shard: (Int, Int) = (0, 1), jobs: Int = 2, validated: Bool = true) throws -> TuneRunner {
    var r = try TuneTests.runner(kind, trials: trials, shard: shard, jobs: jobs)
    r.validator = validated ? OtherFormulaEvaluator() : nil
    return r
  }

  static func run(_ r: TuneRunner, _ path: String) throws -> TuneStudy {
    let study = try TuneStudy.open(path, create: true)
    try study.bind(r.studyMeta(specSHA256: "x", corpus: ["c"], validation: ["v"]))
    try r.run(study: study)
    return study
  }

  @Test func validationFiguresAreStoredAndNeverSteerTheSampler() throws {
    let with = try Self.run(try Self.runner(.tpe, trials: 48), TuneTests.tempStudy("v.sqlite")).trials()
    let without = try TuneTests.run(try Self.runner(.tpe, trials: 48, validated: false), TuneTests.tempStudy("n.sqlite"))
    #expect(with.count == 48)
    for (a, b) in zip(with, without) {
      #expect(a.values == b.values, "#\(a.index): validation changed the sampled values")
      #expect(a.status == b.status)
      let persist = a.values[0].description
      #expect(a.objectives["val.latency_p90_ms"] == (Double(persist) ?? -1) * 150)
      #expect(a.objectives.filter { !$0.key.hasPrefix("val.") } == b.objectives)
    }
  }

  @Test func theShippedRowIsStoredOnce() throws {
    let path = TuneTests.tempStudy("shipped.sqlite")
    let study = try Self.run(try Self.runner(.random, trials: 4), path)
    let shipped = try #require(try study.shipped())
    // The reference spec's first cue holds persistFrames 4.
    #expect(shipped["val.latency_p90_ms"] == 600)
    #expect(shipped["flicker_per_min"] != nil)
    try study.setMeta(TuneStudy.shippedKey, "{}")
    #expect(try study.shipped() == shipped, "the first value stands")
  }

  @Test func aStudyWithoutValidationJudgesNothing() throws {
    let study = try TuneTests.run(try Self.runner(.random, trials: 4, validated: false), TuneTests.tempStudy("none.sqlite"))
    #expect(study.allSatisfy { !$0.objectives.keys.contains { $0.hasPrefix("val.") } })
    // An old study (no validation key) continues with no validation corpus.
    let path = TuneTests.tempStudy("old.sqlite")
    let s = try TuneStudy.open(path, create: true)
    let r = try Self.runner(.random, trials: 4, validated: false)
    try s.bind(r.studyMeta(specSHA256: "x", corpus: ["c"]).filter { $0.0 != "validation" })
    try s.bind(r.studyMeta(specSHA256: "x", corpus: ["c"]))
    #expect(throws: HarnessFailure.self) { try s.bind(r.studyMeta(specSHA256: "x", corpus: ["c"], validation: ["v"])) }
  }

  @Test func spaceFileValidationKeys() throws {
    #expect(try TuneTests.space(TuneTests.spaceText).validation == nil)
    #expect(try TuneTests.space("validation: none\n" + TuneTests.spaceText).validation == [])
    #expect(try TuneTests.space("validation: \"val-*\"\n" + TuneTests.spaceText).validation == ["val-*"])
    #expect(try TuneTests.space("validation: [val-a, 'b*']\n" + TuneTests.spaceText).validation == ["val-a", "b*"])
    let g = try TuneTests.space("generalise: {latency_p90_ms: 1000, misses: 0}\n" + TuneTests.spaceText).generalise
    #expect(g.map(\.name) == ["latency_p90_ms", "misses"] && g.map(\.max) == [1000, 0])
    for (text, expected) in [
      ("validation: []\n", "space.yaml:1:13: validation"), ("validation: {a: 1}\n", "space.yaml:1:13: validation"),
      ("generalise: {nope: 1}\n", "space.yaml:1:14: generalise"), ("generalise: {misses: x}\n", "space.yaml:1:22: generalise.misses"),
    ] {
      #expect(throws: HarnessFailure.self) { try TuneTests.space(text + TuneTests.spaceText) }
      do { _ = try TuneTests.space(text + TuneTests.spaceText) } catch { #expect(error.message.hasPrefix(expected), "\(error.message)") }
    }
  }

  @Test func theValidationCorpusIsChosenAndNeverOverlapsTheFit() throws {
    let all = ["a", "tune-x", "val-1", "val-2"]
    let space = try TuneTests.space()
    func names(_ cli: [String] = [], none: Bool = false, space s: TuneSpace = space) throws(HarnessFailure) -> [String] {
      try TuneSetup.validationNames(cli: cli, none: none, space: s, all: all, recordingsDir: "R")
    }
    #expect(try names() == ["val-1", "val-2"])
    #expect(try TuneSetup.validationNames(cli: [], none: false, space: space, all: ["a"], recordingsDir: "R") == [])
    #expect(try names(none: true) == [])
    #expect(try names(["a"]) == ["a"])
    #expect(try names(space: TuneTests.space("validation: none\n" + TuneTests.spaceText)) == [])
    #expect(throws: HarnessFailure.self) { try names(["a"], none: true) }
    #expect(throws: HarnessFailure.self) { try names(["zz*"]) }
    // With no tune-* recordings, the default fit corpus is every recording but the validation ones.
    #expect(try TuneSetup.corpusNames([], all: ["a", "val-1"], recordingsDir: "R", excluding: ["val-1"]) == ["a"])
    let root = TuneTests.repoRoot.path
    do {
      _ = try TuneSetup.make(
        spacePath: root + "/docs/tune-space.example.yaml", specPath: root + "/PoseSpec.json", sampler: nil, seed: nil, trials: 1,
        tpeBatch: 32, shard: "1/1", corpus: ["drift-*"], validation: ["drift-left-and-back"], recordingsDir: root + "/Recordings", jobs: 1)
      Issue.record("an overlapping validation corpus was accepted")
    } catch {
      #expect(error.code == 2)
      #expect(error.message.contains("drift-left-and-back.jprec is in both the fit corpus and the validation corpus"), "\(error.message)")
    }
  }
}
