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

/// Cue observations (T0 and T1) kept from one replay and read by the next (issue 38 item 2): a replay that
/// reads another configuration's tape writes the bytes of one that computes everything itself
/// (`--trace metrics` lines included: every cue's error and state on every evaluation), the
/// tape is really read, and configurations that differ in anything an observation reads get
/// different keys.
@Suite("Observation tapes")
struct ObservationTapeTests {
  static let root = TuneTests.repoRoot
  static let specPath = root.appendingPathComponent("PoseSpec.json").path

  /// withRef, several people, luma planes, a spec reload (the tape stops there), a scene
  /// switch, a labelled drift. (After a kill the relaunched engine is a new one, without a tape.)
  static let names = [
    "tune-cafe-withref", "tune-outdoor-crowd", "val-cafe-dim", "s18-stale-decider", "s12-scene-switch",
    "drift-left-and-back",
  ]

  /// The shipped spec with every cue's anti-jitter and thresholds moved (what the key leaves out).
  static func movedSpec(_ spec: JSONValue) -> JSONValue {
    guard var root = spec.objectValue, let cues = root["cues"]?.arrayValue else { return spec }
    root["cues"] = .array(
      cues.map { cue in
        guard var c = cue.objectValue else { return cue }
        if var aj = c["antiJitter"]?.objectValue {
          aj["persistFrames"] = 5
          aj["minHoldMs"] = 1500
          c["antiJitter"] = .object(aj)
        }
        if var trigger = c["trigger"]?.objectValue, var noRef = trigger["noRef"]?.objectValue,
          var warn = noRef["warn"]?.objectValue, let m = warn.members.first, let d = m.value.doubleValue
        {
          warn[m.key] = .number(d * 0.8)
          noRef["warn"] = .object(warn)
          trigger["noRef"] = .object(noRef)
          c["trigger"] = .object(trigger)
        }
        return .object(c)
      })
    return .object(root)
  }

  static let movedOptions: [(String, String)] = [
    ("activateFrames", "2"), ("noiseGate", "15"), ("noiseGateMargin", "2"), ("gatePersistByCue", "true"),
    ("gateReleaseOnExit", "true"),
  ]

  static func options(_ pairs: [(String, String)]) throws -> EngineOptions {
    var o = EngineOptions()
    for (k, v) in pairs { try o.set(k, v) }
    return o
  }

  static func document(_ json: JSONValue) throws -> PoseSpecDocument {
    try Harness.validateSpec(bytes: Array(JSONWriter.write(json).utf8), path: "test spec")
  }

  /// The trace and A.13 lines of one replay of `rec` (with `--trace metrics` unless
  /// `traceMetrics` is false), and the observations it read from `tape`.
  static func replay(
    _ rec: LoadedRecording, spec: PoseSpecDocument, options: EngineOptions, tape: ObservationTape?,
    decisions: DecisionRun? = nil, traceMetrics: Bool = true
  ) throws -> (text: String, hits: Int) {
    let overrides = options.nonDefault.members.map { ($0.key, $0.value.stringValue ?? "") }
    let config = try EngineConfiguration(
      spec: spec, header: RecordingHeader(rec.header), overrides: overrides, traceMetrics: traceMetrics)
    var source = InMemoryEventSource(header: rec.header, events: rec.events)
    var output = TraceOutput(trace: MemoryLineSink(), a13: MemoryLineSink(), vocabulary: JustPhotoVocabulary.self)
    let engine = Engine(configuration: config, compiled: nil, observationTape: tape, decisions: decisions)
    var replayer = Replayer(engine: engine, sessionStore: MemorySessionStore())
    _ = try replayer.run(&source, into: &output, recording: rec.path)
    return (output.trace.text + "\n--- a13\n" + output.a13.text, replayer.engine.observationTapeHits)
  }

  @Test("a replay reading another configuration's tape writes the bytes of one without (trace metrics, A.13)")
  func sameBytes() throws {
    let specJSON = try JSONParser.parse(String(contentsOfFile: Self.specPath, encoding: .utf8))
    let moved = Self.movedSpec(specJSON)
    let plainOptions = EngineOptions()
    let movedOptions = try Self.options(Self.movedOptions)
    // The two configurations share a key: what differs is read only after an observation.
    #expect(ObservationKey.of(specJSON: specJSON, options: plainOptions) == ObservationKey.of(specJSON: moved, options: movedOptions))
    #expect(JSONWriter.write(moved) != JSONWriter.write(specJSON))
    let (a, b) = (try Self.document(specJSON), try Self.document(moved))
    let scorer = try CorpusScorer(paths: Self.names.map { Self.root.appendingPathComponent("Recordings/\($0).jprec").path })
    var totalHits = 0
    for rec in scorer.recordings {
      let tape = ObservationTape(evaluationsMax: 1_000_000)
      let recorded = try Self.replay(rec, spec: a, options: plainOptions, tape: tape)
      tape.finish()
      #expect(recorded.hits == 0)
      #expect(try Self.replay(rec, spec: a, options: plainOptions, tape: nil).text == recorded.text, "\(rec.name)")
      let without = try Self.replay(rec, spec: b, options: movedOptions, tape: nil)
      let with = try Self.replay(rec, spec: b, options: movedOptions, tape: tape)
      #expect(with.text == without.text, "\(rec.name)")
      #expect(without.text != recorded.text, "\(rec.name): the moved configuration changes nothing here")
      // Not vacuous: the tape holds this recording's evaluations and the replay read them
      // (s18-stale-decider reloads its spec at the start: a tape of the first evaluations).
      #expect(tape.evaluations > (rec.name == "s18-stale-decider" ? 0 : 50), "\(rec.name)")
      #expect(with.hits > 0, "\(rec.name)")
      totalHits += with.hits
      // The same configuration reads its own tape too, to the same bytes.
      let again = try Self.replay(rec, spec: a, options: plainOptions, tape: tape)
      #expect(again.text == recorded.text, "\(rec.name)")
      #expect(again.hits == with.hits || rec.name == "s18-stale-decider", "\(rec.name)")
    }
    #expect(totalHits > 10_000)
  }

  @Test("a tape of another recording is left at the first evaluation that differs: the bytes of a replay without")
  func otherRecording() throws {
    let spec = try Harness.loadSpec(path: Self.specPath)
    let scorer = try CorpusScorer(
      paths: ["tune-outdoor-still", "tune-outdoor-noisy"].map { Self.root.appendingPathComponent("Recordings/\($0).jprec").path })
    let tape = ObservationTape(evaluationsMax: 1_000_000)
    _ = try Self.replay(scorer.recordings[0], spec: spec, options: EngineOptions(), tape: tape)
    tape.finish()
    let without = try Self.replay(scorer.recordings[1], spec: spec, options: EngineOptions(), tape: nil)
    let with = try Self.replay(scorer.recordings[1], spec: spec, options: EngineOptions(), tape: tape)
    #expect(with.text == without.text)
    #expect(with.hits == 0)
  }

  @Test("anything an observation reads changes the key: a formula, a confidence gate, an ROI, a metric option")
  func keys() throws {
    let specJSON = try JSONParser.parse(String(contentsOfFile: Self.specPath, encoding: .utf8))
    let base = ObservationKey.of(specJSON: specJSON, options: EngineOptions())
    func edited(_ edit: (inout JSONObject) -> Void) -> JSONValue {
      guard var root = specJSON.objectValue, var cues = root["cues"]?.arrayValue, var c = cues[0].objectValue else { return specJSON }
      edit(&c)
      cues[0] = .object(c)
      root["cues"] = .array(cues)
      return .object(root)
    }
    let minConfidence = edited { c in
      var conf = c["confidence"]?.objectValue ?? JSONObject()
      conf["minConfidence"] = 0.7
      c["confidence"] = .object(conf)
    }
    let error = edited { c in
      var trigger = c["trigger"]!.objectValue!
      var noRef = trigger["noRef"]!.objectValue!
      noRef["error"] = "centerXOffset * 2"
      trigger["noRef"] = .object(noRef)
      c["trigger"] = .object(trigger)
    }
    let landmarks = edited { c in
      var metric = c["metric"]!.objectValue!
      metric["landmarks"] = ["body.leftShoulder", "body.rightShoulder"]
      c["metric"] = .object(metric)
    }
    for changed in [minConfidence, error, landmarks] {
      #expect(JSONWriter.write(changed) != JSONWriter.write(specJSON))
      #expect(ObservationKey.of(specJSON: changed, options: EngineOptions()) != base)
    }
    var roi = specJSON.objectValue!
    roi["rois"] = .object(JSONObject())
    #expect(ObservationKey.of(specJSON: .object(roi), options: EngineOptions()) != base)
    for option in [("bboxRequiresAllListed", "true"), ("landmarkFilter", "oneEuro"), ("angleFix", "on"), ("errorSource", "outputsFirst")] {
      #expect(ObservationKey.of(specJSON: specJSON, options: try Self.options([option])) != base, "\(option)")
    }
    for option in Self.movedOptions {
      #expect(ObservationKey.of(specJSON: specJSON, options: try Self.options([option])) == base, "\(option)")
    }
  }

  @Test("tune's scorer: the scores of a plain scorer; the second score of the same key reads the first one's tapes")
  func scorerShares() throws {
    let names = ["tune-cafe-withref", "drift-left-and-back"]
    let plain = try CorpusScorer(paths: names.map { Self.root.appendingPathComponent("Recordings/\($0).jprec").path })
    let taped = plain.memoizingObservations()
    let specJSON = try JSONParser.parse(String(contentsOfFile: Self.specPath, encoding: .utf8))
    let first = PreparedTrial(specJSON: specJSON, options: EngineOptions())
    let second = PreparedTrial(specJSON: Self.movedSpec(specJSON), options: try Self.options(Self.movedOptions))
    #expect(try taped.objectives(trial: first) == plain.objectives(trial: first))
    let counts = taped.recordings.map { $0.observationTapes!.counts }
    #expect(counts.allSatisfy { $0.tapes == 1 && $0.evaluations > 50 }, "\(counts)")
    #expect(try taped.objectives(trial: second) == plain.objectives(trial: second))
    #expect(taped.recordings.map { $0.observationTapes!.counts.tapes } == [1, 1])
    // A bound of 0 observations: no tape, the same scores.
    let none = plain.memoizingObservations(budget: ObservationBudget(0))
    #expect(try none.objectives(trial: second) == plain.objectives(trial: second))
    #expect(none.recordings.map { $0.observationTapes!.counts.tapes } == [0, 0])
    // A budget of one step: the first recording's tape keeps that many observations and the
    // second gets none; the scores are the same.
    let partial = plain.memoizingObservations(budget: ObservationBudget(ObservationTape.reserveStep))
    #expect(try partial.objectives(trial: first) == plain.objectives(trial: first))
    #expect(try partial.objectives(trial: second) == plain.objectives(trial: second))
    let kept = partial.recordings.map { $0.observationTapes!.counts }
    #expect(kept.map(\.tapes) == [1, 0], "\(kept)")
    #expect(kept[0].observations == ObservationTape.reserveStep, "\(kept)")
  }
}
