import CanonicalJSON
import Foundation
import JustPhotoEngine
import JustPhotoIO

/// The ``ObservationTape``s of one recording, by observation key (issue 38 item 2): the first
/// replay under a key records one, every later replay under the same key reads it. At most
/// ``ScoreLimits/observationTapesPerRecording`` keys per recording, and the observations of
/// all tapes of a study come from one ``ObservationBudget``; past either a replay computes
/// its observations as without tapes. Every tape gives the same outputs as none, so which
/// replay records and which reads changes nothing but the work.
package final class ObservationTapes: @unchecked Sendable {
  private let lock = NSLock()
  private var finished: [String: ObservationTape] = [:]
  private var recording: Set<String> = []
  /// Decisions by observation key, then decision key; and the pairs being recorded.
  private var decisions: [String: [String: DecisionTape]] = [:]
  private var recordingDecisions: Set<[String]> = []
  /// Replays that left the decisions they read and ran again without, and evaluations read
  /// from decisions (tests: work done).
  private var reruns = 0
  private var decisionHits = 0
  private let budget: ObservationBudget
  /// Landmark events of the recording and T1 ticks of its length: no replay evaluates more.
  private let landmarkEvents: Int
  private let ticks: Int

  init(landmarkEvents: Int, durationMs: Int64, budget: ObservationBudget) {
    self.landmarkEvents = landmarkEvents
    ticks = Int(max(0, durationMs) / 400) + 1  // the T1 period, 500 ms (400 under a planted fault)
    self.budget = budget
  }

  /// A replay's tape and decisions (``lend(key:decisionKey:)``).
  struct Lent {
    var tape: ObservationTape
    var decisions: DecisionRun? = nil
    var decisionKey: String? = nil
  }

  /// The tape for a replay under `key`, with decisions under `decisionKey` once the tape is
  /// finished: decisions to read, or a run to record them (up to
  /// ``ScoreLimits/decisionTapesPerTape`` per tape, from the budget's decisions); nil when there
  /// is no tape.
  func lend(key: String, decisionKey: String?) -> Lent? {
    guard let tape = lend(key: key) else { return nil }
    guard let decisionKey, !tape.isRecording else { return Lent(tape: tape) }
    lock.lock()
    defer { lock.unlock() }
    if let d = decisions[key]?[decisionKey] {
      return Lent(tape: tape, decisions: DecisionRun(reading: d), decisionKey: decisionKey)
    }
    let kept = (decisions[key]?.count ?? 0) + recordingDecisions.filter { $0[0] == key }.count
    guard !recordingDecisions.contains([key, decisionKey]), kept < ScoreLimits.decisionTapesPerTape,
      !budget.isSpent(.decisions)
    else { return Lent(tape: tape) }
    recordingDecisions.insert([key, decisionKey])
    let budget = budget
    let run = DecisionRun(recordingAtMost: landmarkEvents, reserve: { budget.reserve($0, of: .decisions) })
    return Lent(tape: tape, decisions: run, decisionKey: decisionKey)
  }

  /// Ends a replay that had `lent`: its tape as ``give(_:key:completed:)``, and the decisions
  /// it recorded kept when the replay ran to its end without breaking them.
  func give(_ lent: Lent, key: String, completed: Bool) {
    give(lent.tape, key: key, completed: completed)
    guard let run = lent.decisions, let decisionKey = lent.decisionKey else { return }
    lock.lock()
    defer { lock.unlock() }
    decisionHits += run.hits
    guard run.reading == nil else { return }
    recordingDecisions.remove([key, decisionKey])
    if completed, let tape = run.finished() { decisions[key, default: [:]][decisionKey] = tape }
  }

  /// Counts a replay run again without its decisions.
  func countRerun() {
    lock.lock()
    defer { lock.unlock() }
    reruns += 1
  }

  /// The tape for a replay under `key`: a finished one to read, or a new one
  /// to record (give it back with ``give(_:key:completed:)``), which asks the budget for its
  /// observations as it grows; nil when another replay is recording that key or a bound is
  /// reached.
  func lend(key: String) -> ObservationTape? {
    lock.lock()
    defer { lock.unlock() }
    if let t = finished[key] { return t }
    guard !recording.contains(key), finished.count + recording.count < ScoreLimits.observationTapesPerRecording else {
      return nil
    }
    // At most one T0 evaluation per landmark event and one T1 tick per 400 ms; the observations
    // come from the study's budget as the tape grows.
    guard !budget.isSpent() else { return nil }
    recording.insert(key)
    let budget = budget
    return ObservationTape(evaluationsMax: landmarkEvents + ticks, reserve: { budget.reserve($0) })
  }

  /// Ends a replay that had `tape`: a recorded tape of a replay that ran to its end is kept
  /// for reading; one whose replay failed is dropped (its budget stays spent).
  func give(_ tape: ObservationTape, key: String, completed: Bool) {
    lock.lock()
    defer { lock.unlock() }
    guard tape.isRecording else { return }
    recording.remove(key)
    if completed {
      tape.finish()
      finished[key] = tape
    }
  }

  /// Decision tapes kept, their evaluations, and replays run again without decisions (tests:
  /// work done, not time).
  package var decisionCounts: (tapes: Int, evaluations: Int, hits: Int, reruns: Int) {
    lock.lock()
    defer { lock.unlock() }
    let all = decisions.values.flatMap(\.values)
    return (all.count, all.reduce(0) { $0 + $1.count }, decisionHits, reruns)
  }

  /// Tapes kept, their evaluations and observations (tests: work done, not time).
  package var counts: (tapes: Int, evaluations: Int, observations: Int) {
    lock.lock()
    defer { lock.unlock() }
    return (
      finished.count, finished.values.reduce(0) { $0 + $1.evaluations },
      finished.values.reduce(0) { $0 + $1.observationsKept }
    )
  }
}

/// The observations every tape of a study may hold together (``ScoreLimits/observationsMax``),
/// taken by each tape as it grows, before it keeps them (`ObservationTape.reserveStep` at a
/// time); and, apart, the decisions every decision tape may hold (``ScoreLimits/decisionsMax``),
/// so decisions never take the room of the observations they are read with.
package final class ObservationBudget: @unchecked Sendable {
  /// The two pools.
  enum Pool: Int {
    case observations, decisions
  }

  private let lock = NSLock()
  /// What is left, by pool.
  private var left: [Int]

  package init(_ total: Int, decisions: Int = ScoreLimits.decisionsMax) { left = [total, decisions] }

  /// Takes `n` from what is left of `pool`; false (and nothing taken) when less is left.
  func reserve(_ n: Int, of pool: Pool = .observations) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard n <= left[pool.rawValue] else { return false }
    left[pool.rawValue] -= n
    return true
  }

  /// Nothing left in `pool`: no new tape of it is made.
  func isSpent(_ pool: Pool = .observations) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    return left[pool.rawValue] <= 0
  }
}

/// Which replays may share an ``ObservationTape``: a cue observation reads the spec's formulas,
/// landmarks, confidence gates, ROIs and defaults and the engine options that shape a metric
/// (``EngineOptions``), never a cue's anti-jitter parameters, its warn / hard / exit
/// thresholds, or the options of the stages after it (`activateFrames`, the noise gate's, the
/// display gate's). The key is the SHA-256 of the spec and options with exactly those taken
/// out: anything else that differs gives another key (`ObservationTapeTests` holds a replay
/// read from another configuration's tape to the bytes of one without).
package enum ObservationKey {
  /// Options read only after an observation (ENGINE §3.4.7, §3.5, §3.9).
  static let laterOptions: Set<String> = [
    "activateFrames", "noiseGate", "noiseGateRatio", "noiseGateMargin", "gatePersistByCue", "gateReleaseOnExit",
  ]
  /// A cue's trigger fields read only after an observation (§3.3).
  static let thresholdKeys: Set<String> = ["warn", "hard", "exit"]

  /// The key of a trial's spec (as JSON) and options: each cue without its `antiJitter` and its
  /// triggers' thresholds, the options without `laterOptions`.
  package static func of(specJSON: JSONValue, options: EngineOptions) -> String {
    TapeKey.of(specJSON, options: options, leavingOut: laterOptions) { c in
      c.members.removeAll { $0.key == "antiJitter" }
      if var trigger = c["trigger"]?.objectValue {
        for i in trigger.members.indices {
          guard var mode = trigger.members[i].value.objectValue else { continue }
          mode.members.removeAll { thresholdKeys.contains($0.key) }
          trigger.members[i].value = .object(mode)
        }
        c["trigger"] = .object(trigger)
      }
    }
  }
}

/// The SHA-256 of a spec whose cues `edit` changed and of the options but `leftOut`: what
/// ``ObservationKey`` and ``DecisionKey`` are made of.
enum TapeKey {
  static func of(
    _ spec: JSONValue, options: EngineOptions, leavingOut leftOut: Set<String>, cue edit: (inout JSONObject) -> Void
  ) -> String {
    var edited = spec
    if var root = spec.objectValue, let cues = root["cues"]?.arrayValue {
      root["cues"] = .array(
        cues.map { cue in
          guard var c = cue.objectValue else { return cue }
          edit(&c)
          return .object(c)
        })
      edited = .object(root)
    }
    var text = JSONWriter.write(edited)
    text += "\n"
    for m in options.json.members where !leftOut.contains(m.key) {
      text += m.key + "=" + (m.value.stringValue ?? "") + "\n"
    }
    return SHA256.hex(Array(text.utf8))
  }
}

/// Which replays may share a ``DecisionTape``: steps 3–5 of a T0 evaluation (levels,
/// hysteresis, fallbacks, selection) read everything an observation does and the thresholds,
/// `activateFrames`, the noise gate's options and each cue's `persistFrames` (the hysteresis's
/// exit count) — but not a cue's `minHoldMs` and `cooldownMs`, or the options `gatePersistByCue`
/// and `gateReleaseOnExit`, which only the display gate reads (a decision keeps which cues had
/// crossed their exit, for `gateReleaseOnExit`). The key is the SHA-256 of the spec and options
/// with exactly those taken out (`defaults.antiJitter` stays in).
package enum DecisionKey {
  /// Options only the display gate reads (ENGINE §3.9).
  static let gateOptions: Set<String> = ["gatePersistByCue", "gateReleaseOnExit"]
  /// A cue's anti-jitter fields only the display gate reads.
  static let gateFields: Set<String> = ["minHoldMs", "cooldownMs"]

  /// The key of a trial's spec (as JSON) and options: each cue's `antiJitter` without
  /// `gateFields`, the options without `gateOptions`.
  package static func of(specJSON: JSONValue, options: EngineOptions) -> String {
    TapeKey.of(specJSON, options: options, leavingOut: gateOptions) { c in
      guard var aj = c["antiJitter"]?.objectValue else { return }
      aj.members.removeAll { gateFields.contains($0.key) }
      c["antiJitter"] = .object(aj)
    }
  }
}
