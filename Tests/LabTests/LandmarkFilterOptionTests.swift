import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import JustPhotoPlugin
import PoseSpec
import Testing

@testable import Lab

/// The landmark filter options (`landmarkFilter`, `oneEuro*`) through the replay harness and
/// `tune`: off by default the corpus replays as its goldens, and numeric options take
/// continuous ranges in a search space whose trial values reach the engine.
@Suite("landmark filter options: replay and tune")
struct LandmarkFilterOptionTests {
  static let root = TuneTests.repoRoot
  static let recording = root.appendingPathComponent("Recordings/drift-left-and-back.jprec").path
  static let specPath = root.appendingPathComponent("PoseSpec.json").path

  static func trace(_ overrides: [(name: String, value: String)]) throws -> String {
    try Harness.traceText(of: recording, specPath: specPath, overrides: overrides).text
  }

  @Test func offByDefaultAReplayEqualsItsGoldenWithOrWithoutTheExplicitOption() throws {
    let golden = try String(
      contentsOf: Self.root.appendingPathComponent("Golden/drift-left-and-back.trace.jsonl"), encoding: .utf8)
    let plain = try Self.trace([])
    #expect(plain == golden)
    #expect(try Self.trace([("landmarkFilter", "off")]) == plain)
    #expect(try Self.trace([("landmarkFilter", "off"), ("oneEuroMinCutoff", "0.2")]) == plain)
    // On, the filter delays FRAME_MOVE_LEFT: the option reaches the engine through the header path.
    #expect(try Self.trace([("landmarkFilter", "oneEuro"), ("oneEuroMinCutoff", "0.5")]) != plain)
  }

  /// Replays the recording with the trial's options (as `CorpusScorer` does: the non-default
  /// options as overrides); the objective is the time of the first `cue_display`.
  struct FirstDisplayEvaluator: TrialEvaluator, Sendable {
    func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double] {
      let overrides = options.nonDefault.members.map { ($0.key, $0.value.stringValue ?? "") }
      let text = try LandmarkFilterOptionTests.trace(overrides)
      return ["flicker_per_min": LandmarkFilterOptionTests.firstDisplay(text)]
    }
  }

  static func firstDisplay(_ trace: String) -> Double {
    for line in trace.split(separator: "\n") where line.contains("\"out\":\"cue_display\"") {
      if let v = try? JSONParser.parse(bytes: Array(line.utf8)), let t = v["t"]?.doubleValue { return t }
    }
    return .infinity
  }

  @Test func aContinuousRangeOfANumericOptionParsesAndItsTrialValueReachesTheEngine() throws {
    let s = try TuneTests.space("options.landmarkFilter: [oneEuro]\noptions.oneEuroMinCutoff: {min: 0.5, max: 3}\n")
    guard case .option("oneEuroMinCutoff") = s.parameters[1].target,
      case .range(let lo, let hi, _) = s.parameters[1].domain
    else {
      Issue.record("expected a continuous option parameter")
      return
    }
    #expect((lo, hi) == (0.5, 3))
    let sampler = TuneSampler(kind: .random, domains: s.parameters.map(\.domain), seed: 3, objective: "flicker_per_min")
    let runner = TuneRunner(
      space: s, sampler: sampler, trials: 2, jobs: 1, baseSpec: TuneTests.spec, evaluator: FirstDisplayEvaluator())
    let values = sampler.values(for: 0, history: [])!
    guard case .number(let cutoff) = values[1] else {
      Issue.record("expected a number, got \(values[1])")
      return
    }
    #expect(cutoff >= 0.5 && cutoff <= 3)
    // The trial's value reaches the options as the same text (a number round-trips) …
    var options = EngineOptions()
    try options.set("oneEuroMinCutoff", values[1].description)
    #expect(options["oneEuroMinCutoff"] == values[1].description)
    // … and the engine: the trial's objective is the replay with that option set by hand.
    let trial = runner.evaluate(0, values)
    #expect(trial.status == .ok, "\(trial.reason ?? "")")
    let byHand = Self.firstDisplay(
      try Self.trace([("landmarkFilter", "oneEuro"), ("oneEuroMinCutoff", values[1].description)]))
    #expect(trial.objectives["flicker_per_min"] == byHand)
    // The slowest cutoff shows the cue later than the unfiltered replay.
    let slow = runner.evaluate(1, [.string("oneEuro"), .number(0.5)])
    #expect(slow.objectives["flicker_per_min"]! > Self.firstDisplay(try Self.trace([])))
  }

  @Test(arguments: [
    ("options.oneEuroMinCutoff: {min: 0, max: 3}\n", "not inside the range of oneEuroMinCutoff"),
    ("options.oneEuroBeta: {min: 10, max: 2000}\n", "[0, 1000]"),
    ("options.oneEuroBeta: [1, -2]\n", "'-2' is not a value of oneEuroBeta"),
    ("options.landmarkFilter: {min: 0, max: 1}\n", "takes a list of values"),
    ("options.landmarkFilter: [oneEuro, kalman]\n", "'kalman' is not a value of landmarkFilter (off, oneEuro)"),
  ])
  func badOptionDomainsAreRefused(text: String, expected: String) {
    do {
      _ = try TuneTests.space(text)
      Issue.record("accepted: \(text)")
    } catch {
      #expect(error.code == 2)
      #expect(error.message.contains(expected), "\(error.message)")
    }
  }

  @Test func numericOptionListsAndIntegerOptionsAreAccepted() throws {
    let s = try TuneTests.space("options.oneEuroBeta: [0, 0.5, 20]\noptions.t1MaxHz: [2, 4]\noptions.oneEuroDCutoff: {min: 0.5, max: 2, step: 0.5}\n")
    #expect(s.parameters.count == 3)
    #expect(s.parameters[2].domain.count == 4)
  }
}
