import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoEngine
import JustPhotoIO
import JustPhotoPlugin
import PoseSpec
import Replay
import Testing

@testable import Lab

/// Steps 3–5 of each T0 evaluation kept from one replay and read by the next (issue 38 item 2):
/// a replay that reads the decisions of a configuration differing only in what the display
/// gate reads writes the bytes of one that decides everything itself, the decisions are really
/// read, a replay that leaves them says so (and the scorer replays it again without), and the
/// key changes with everything steps 3–5 read.
@Suite("Decision tapes")
struct DecisionTapeTests {
  static let root = ObservationTapeTests.root
  static let specPath = ObservationTapeTests.specPath

  /// withRef, several people, luma planes, a scene switch, a labelled drift, a spec reload (the
  /// observation tape stops there, so no decisions are kept). (No recording of the corpus has
  /// T0 evaluations before a kill; the relaunched engine is a new one, given no decisions.)
  static let names = [
    "tune-cafe-withref", "tune-outdoor-crowd", "val-cafe-dim", "s12-scene-switch", "drift-left-and-back",
    "s18-stale-decider",
  ]

  /// The shipped spec with every cue's `minHoldMs` and `cooldownMs` set (what the key leaves out).
  static func gateSpec(_ spec: JSONValue, minHoldMs: Int, cooldownMs: Int) -> JSONValue {
    edited(spec) { aj in
      aj["minHoldMs"] = .number(Double(minHoldMs))
      aj["cooldownMs"] = .number(Double(cooldownMs))
    }
  }

  /// `spec` with `edit` applied to every cue's `antiJitter`.
  static func edited(_ spec: JSONValue, _ edit: (inout JSONObject) -> Void) -> JSONValue {
    guard var root = spec.objectValue, let cues = root["cues"]?.arrayValue else { return spec }
    root["cues"] = .array(
      cues.map { cue in
        guard var c = cue.objectValue, var aj = c["antiJitter"]?.objectValue else { return cue }
        edit(&aj)
        c["antiJitter"] = .object(aj)
        return .object(c)
      })
    return .object(root)
  }

  /// The trace and A.13 lines of one replay of `rec` (the default trace: what the scorer
  /// reads), and the decisions it read.
  static func replay(
    _ rec: LoadedRecording, spec: PoseSpecDocument, options: EngineOptions, tape: ObservationTape?,
    decisions: DecisionRun?
  ) throws -> (text: String, hits: Int) {
    let text = try ObservationTapeTests.replay(
      rec, spec: spec, options: options, tape: tape, decisions: decisions, traceMetrics: false
    ).text
    return (text, decisions?.hits ?? 0)
  }

  @Test("a replay reading another gate configuration's decisions writes the bytes of one without (trace, A.13)")
  func sameBytes() throws {
    let specJSON = try JSONParser.parse(String(contentsOfFile: Self.specPath, encoding: .utf8))
    // B records decisions, C reads them: the same key, another gate.
    let bJSON = Self.gateSpec(specJSON, minHoldMs: 1250, cooldownMs: 300)
    let cJSON = Self.gateSpec(specJSON, minHoldMs: 3750, cooldownMs: 1500)
    // C's `gateReleaseOnExit` reads which cues had crossed their exit from the decisions.
    let bOptions = try ObservationTapeTests.options([("gatePersistByCue", "true")])
    let cOptions = try ObservationTapeTests.options([("gateReleaseOnExit", "true")])
    #expect(DecisionKey.of(specJSON: bJSON, options: bOptions) == DecisionKey.of(specJSON: cJSON, options: cOptions))
    let (a, b, c) = (try ObservationTapeTests.document(specJSON), try ObservationTapeTests.document(bJSON), try ObservationTapeTests.document(cJSON))
    let scorer = try CorpusScorer(paths: Self.names.map { Self.root.appendingPathComponent("Recordings/\($0).jprec").path })
    var totalHits = 0
    var differs = 0
    for rec in scorer.recordings {
      let tape = ObservationTape(evaluationsMax: 1_000_000)
      _ = try Self.replay(rec, spec: a, options: EngineOptions(), tape: tape, decisions: nil)
      tape.finish()
      let recording = DecisionRun(recordingAtMost: 1_000_000)
      let recorded = try Self.replay(rec, spec: b, options: bOptions, tape: tape, decisions: recording)
      #expect(try Self.replay(rec, spec: b, options: bOptions, tape: nil, decisions: nil).text == recorded.text, "\(rec.name)")
      guard let decided = recording.finished() else {
        // The reload stops the observation tape, and decisions go with it.
        #expect(rec.name == "s18-stale-decider")
        continue
      }
      #expect(decided.count > 50, "\(rec.name)")
      let without = try Self.replay(rec, spec: c, options: cOptions, tape: nil, decisions: nil)
      let reading = DecisionRun(reading: decided)
      let with = try Self.replay(rec, spec: c, options: cOptions, tape: tape, decisions: reading)
      #expect(!reading.broken, "\(rec.name)")
      #expect(with.text == without.text, "\(rec.name)")
      if without.text != recorded.text { differs += 1 }
      // Not vacuous: every evaluation was read from the tape.
      #expect(with.hits == decided.count, "\(rec.name)")
      totalHits += with.hits
    }
    #expect(differs >= 4, "the gate configurations change too little here")
    #expect(totalHits > 3_000)
  }

  @Test("decisions of another recording break the replay at its first evaluation; the scorer replays it again")
  func otherRecording() throws {
    let spec = try Harness.loadSpec(path: Self.specPath)
    let scorer = try CorpusScorer(
      paths: ["tune-outdoor-still", "tune-outdoor-noisy"].map { Self.root.appendingPathComponent("Recordings/\($0).jprec").path })
    let (still, noisy) = (scorer.recordings[0], scorer.recordings[1])
    // Each recording's own observation tape, and the decisions of the first.
    var tapes: [ObservationTape] = []
    for rec in [still, noisy] {
      let tape = ObservationTape(evaluationsMax: 1_000_000)
      _ = try Self.replay(rec, spec: spec, options: EngineOptions(), tape: tape, decisions: nil)
      tape.finish()
      tapes.append(tape)
    }
    let recording = DecisionRun(recordingAtMost: 1_000_000)
    _ = try Self.replay(still, spec: spec, options: EngineOptions(), tape: tapes[0], decisions: recording)
    let decided = try #require(recording.finished())
    let reading = DecisionRun(reading: decided)
    _ = try Self.replay(noisy, spec: spec, options: EngineOptions(), tape: tapes[1], decisions: reading)
    #expect(reading.broken)
    #expect(reading.hits < 5)
    // The scorer: decisions of the first recording kept as the second's (by hand) are left at
    // the second's first evaluation, and its replay runs again without: the plain scores.
    let plain = scorer
    let taped = plain.memoizingObservations()
    let specJSON = try JSONParser.parse(String(contentsOfFile: Self.specPath, encoding: .utf8))
    let first = PreparedTrial(specJSON: specJSON, options: EngineOptions())
    let second = PreparedTrial(specJSON: Self.gateSpec(specJSON, minHoldMs: 1250, cooldownMs: 300), options: EngineOptions())
    #expect(try taped.objectives(trial: first) == plain.objectives(trial: first))
    let (stillTapes, noisyTapes) = (taped.recordings[0].observationTapes!, taped.recordings[1].observationTapes!)
    let stolen = try #require(noisyTapes.lend(key: second.observationKey, decisionKey: second.decisionKey))
    let stillTape = try #require(stillTapes.lend(key: second.observationKey))
    _ = try Self.replay(still, spec: ObservationTapeTests.document(second.specJSON), options: EngineOptions(), tape: stillTape, decisions: stolen.decisions)
    noisyTapes.give(stolen, key: second.observationKey, completed: true)
    #expect(noisyTapes.decisionCounts.tapes == 1)
    #expect(try taped.objectives(trial: second) == plain.objectives(trial: second))
    #expect(noisyTapes.decisionCounts.reruns == 1)
    #expect(stillTapes.decisionCounts.reruns == 0)
    // A recording run past its bound is no tape.
    let short = DecisionRun(recordingAtMost: 10)
    _ = try Self.replay(still, spec: spec, options: EngineOptions(), tape: tapes[0], decisions: short)
    #expect(short.broken && short.finished() == nil)
    // Without an observation tape there are no decisions either.
    let untaped = DecisionRun(recordingAtMost: 1_000_000)
    _ = try Self.replay(still, spec: spec, options: EngineOptions(), tape: nil, decisions: untaped)
    #expect(untaped.finished() == nil)
  }

  @Test("the key changes with what steps 3–5 read (persistFrames, thresholds, options), not with the gate's")
  func keys() throws {
    let specJSON = try JSONParser.parse(String(contentsOfFile: Self.specPath, encoding: .utf8))
    let base = DecisionKey.of(specJSON: specJSON, options: EngineOptions())
    let persist = Self.edited(specJSON) { $0["persistFrames"] = 7 }
    var threshold = specJSON.objectValue!
    var cues = threshold["cues"]!.arrayValue!
    var cue = cues[0].objectValue!
    var trigger = cue["trigger"]!.objectValue!
    var noRef = trigger["noRef"]!.objectValue!
    noRef["exit"] = .number(0.011)
    trigger["noRef"] = .object(noRef)
    cue["trigger"] = .object(trigger)
    cues[0] = .object(cue)
    threshold["cues"] = .array(cues)
    var defaults = specJSON.objectValue!
    var d = defaults["defaults"]!.objectValue!
    var aj = d["antiJitter"]!.objectValue!
    aj["minHoldMs"] = 2000
    d["antiJitter"] = .object(aj)
    defaults["defaults"] = .object(d)
    for changed in [persist, .object(threshold), .object(defaults)] {
      #expect(JSONWriter.write(changed) != JSONWriter.write(specJSON))
      #expect(DecisionKey.of(specJSON: changed, options: EngineOptions()) != base)
    }
    for option in [("activateFrames", "2"), ("noiseGate", "15"), ("noiseGateMargin", "2"), ("landmarkFilter", "oneEuro")] {
      #expect(DecisionKey.of(specJSON: specJSON, options: try ObservationTapeTests.options([option])) != base, "\(option)")
    }
    for option in [("gatePersistByCue", "true"), ("gateReleaseOnExit", "true")] {
      #expect(DecisionKey.of(specJSON: specJSON, options: try ObservationTapeTests.options([option])) == base, "\(option)")
    }
    #expect(DecisionKey.of(specJSON: Self.gateSpec(specJSON, minHoldMs: 1000, cooldownMs: 200), options: EngineOptions()) == base)
  }

  @Test("tune's scorer: the scores of a plain scorer; a third gate configuration reads the second's decisions")
  func scorerShares() throws {
    let names = ["tune-cafe-withref", "drift-left-and-back", "tune-outdoor-crowd"]
    let plain = try CorpusScorer(paths: names.map { Self.root.appendingPathComponent("Recordings/\($0).jprec").path })
    let taped = plain.memoizingObservations()
    let specJSON = try JSONParser.parse(String(contentsOfFile: Self.specPath, encoding: .utf8))
    let trials = [
      PreparedTrial(specJSON: specJSON, options: EngineOptions()),
      PreparedTrial(specJSON: Self.gateSpec(specJSON, minHoldMs: 1250, cooldownMs: 300), options: EngineOptions()),
      PreparedTrial(
        specJSON: Self.gateSpec(specJSON, minHoldMs: 3750, cooldownMs: 1500),
        options: try ObservationTapeTests.options([("gateReleaseOnExit", "true")])),
    ]
    // The first records observations, the second decisions (reading the observations), the
    // third reads both.
    for (i, trial) in trials.enumerated() {
      #expect(try taped.objectives(trial: trial) == plain.objectives(trial: trial), "trial \(i)")
      let decided = taped.recordings.map { $0.observationTapes!.decisionCounts }
      #expect(decided.allSatisfy { $0.tapes == (i == 0 ? 0 : 1) && $0.reruns == 0 }, "trial \(i): \(decided)")
    }
    // Not vacuous: the third trial read every evaluation from the decisions.
    let counts = taped.recordings.map { $0.observationTapes!.decisionCounts }
    #expect(counts.allSatisfy { $0.evaluations > 50 && $0.hits == $0.evaluations }, "\(counts)")
    #expect(try trials.map { try plain.objectives(trial: $0) } != Array(repeating: plain.objectives(trial: trials[0]), count: 3))
    // No room for decisions (their own bound): the observation tapes as before, no decisions,
    // the same scores.
    let undecided = plain.memoizingObservations(budget: ObservationBudget(ScoreLimits.observationsMax, decisions: 0))
    for trial in trials { #expect(try undecided.objectives(trial: trial) == plain.objectives(trial: trial)) }
    let left = undecided.recordings.map { ($0.observationTapes!.counts.tapes, $0.observationTapes!.decisionCounts.tapes) }
    #expect(left.allSatisfy { $0 == (1, 0) }, "\(left)")
  }
}
