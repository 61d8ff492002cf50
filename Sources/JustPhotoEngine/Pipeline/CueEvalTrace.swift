import CanonicalJSON
import EngineIO
import PoseSpec

/// One cue's line item in a `cue_eval` record.
public struct CueEvalEntry: Equatable, Sendable {
  public var id: String
  /// The level observed this evaluation (not the sticky one).
  public var level: CueLevel
  public var error: Double?
  public var severity: Double?
  public var state: String
  public var reason: String?
  /// withRef sessions only: `withRef`, `withRef:mirrored` or `noRef:missing_target` (§3.2).
  public var mode: String? = nil
  /// The thresholds the level was judged against (the set of the mode used), so a reader of
  /// `--trace metrics` needs no spec at hand: `{"hard":">0.12","warn":">0.07","enter":null,
  /// "exit":"<=0.04"}`.
  public var thresholds: ThresholdSet? = nil

  public init(
    id: String, level: CueLevel, error: Double? = nil, severity: Double? = nil, state: String = "inactive",
    reason: String? = nil, mode: String? = nil, thresholds: ThresholdSet? = nil
  ) {
    self.id = id
    self.level = level
    self.error = error
    self.severity = severity
    self.state = state
    self.reason = reason
    self.mode = mode
    self.thresholds = thresholds
  }

  /// The verbose `cue_eval` record of one T0 evaluation (`--trace metrics`; never in goldens).
  ///
  /// Shape (the trace writer sorts keys; numbers are printed with 6 decimals):
  ///
  ///     {"t":200,"out":"cue_eval","frame":3,"scene":"cafe","mode":"noRef",
  ///      "cues":{"FRAME_MOVE_LEFT":{"level":"hard","error":0.15,"severity":1.25,
  ///                                 "state":"active:hard","reason":null}, …},
  ///      "unsupported":{"CAFE_12_CAFE_THIRDS_COMPOSE":"metric distToThird not implemented", …},
  ///      "ranked":["FRAME_MOVE_LEFT"],
  ///      "gate":{"cue_id":"FRAME_MOVE_LEFT","level":"hard","reason":"none"}}
  ///
  /// - `cues`: every evaluated cue of the scene, spec order. `level` none/enter/warn/hard/exit;
  ///   `error` and `severity` null when unavailable (severity also null without a hard
  ///   threshold); `state` is `inactive`, `active:<sticky level>`, `unavailable`, or for the
  ///   fallback cue `candidate`; `reason` is the hysteresis event (`entered`, `exit_crossed`),
  ///   the unavailability reason (`missing_input:no_pose`, `bbox_invalid:insufficientPoints`,
  ///   `low_confidence`, prefixed `deactivated:` when it cleared an active cue), for the
  ///   fallback cue `fallback:<requesting cue ids or tracking_lost>`, else null.
  /// - `unsupported`: scene cues not evaluated, with why (metric not implemented yet, no
  ///   noRef trigger).
  /// - `ranked`: the candidates after the multi-person filter, best first (§3.7).
  /// - `gate`: the gate's output this evaluation and its reason (§3.9).
  /// - `gate` also carries the gate's counters after this call: `stable_frames` (consecutive
  ///   identical inputs) against `persist_frames`, `held_ms` of the shown cue against
  ///   `min_hold_ms`, and `cooldown_until` of the input cue when it is cooling down (§3.9).
  static func record(
    t: Millis, frame: Int64, scene: String, mode: GuidanceMode = .noRef, entries: [CueEvalEntry],
    unsupported: [(id: String, why: String)], ranked: [CueCandidate], gate: AntiJitterGate.Result,
    gateState: AntiJitterGate, gateParameters: GateParameters, input: GateSignal
  ) -> EngineOutput {
    var cooldown: Millis?
    if let id = input.id, let until = gateState.cooldownUntil[id], until > t { cooldown = until }
    let gateLine = CueEvalGate(
      cueId: gate.output.id, level: gate.output.level, reason: gate.reason, input: input.id,
      stableFrames: gateState.stableFrameCount, persistFrames: gateParameters.persistFrames,
      heldMs: t - gateState.lastOutputChangeMs, minHoldMs: gateParameters.minHoldMs, cooldownUntil: cooldown)
    return .cueEval(
      .t0(
        CueEvalT0(
          frame: frame, scene: scene, mode: mode, entries: entries,
          unsupported: unsupported.map { CueUnsupported(id: $0.id, why: $0.why) }, ranked: ranked.map(\.id),
          gate: gateLine)))
  }

  /// The verbose record of one T1 tick: `{"t":…, "out":"cue_eval", "tier":"T1", "tick":k,
  /// "scene":…, "cues":{…}}` with the T1 cues evaluated on that tick (same entry shape).
  static func t1Record(t: Millis, tick: Int, scene: String, entries: [CueEvalEntry]) -> EngineOutput {
    .cueEval(.t1(tick: tick, scene: scene, entries: entries))
  }
}

/// A `cue_eval` output: one T0 evaluation or one T1 tick (shapes in `CueEvalEntry.record`).
public enum CueEval: Equatable, Sendable {
  case t0(CueEvalT0)
  case t1(tick: Int, scene: String, entries: [CueEvalEntry])

  /// Every cue entry of the evaluation, in spec order.
  public var entries: [CueEvalEntry] {
    switch self {
    case .t0(let e): e.entries
    case .t1(_, _, let entries): entries
    }
  }
}

/// A scene cue that was not evaluated, and why.
public struct CueUnsupported: Equatable, Sendable {
  public var id: String
  public var why: String
}

/// One T0 evaluation in full.
public struct CueEvalT0: Equatable, Sendable {
  public var frame: Int64
  public var scene: String
  public var mode: GuidanceMode
  public var entries: [CueEvalEntry]
  public var unsupported: [CueUnsupported]
  /// Candidate ids after the multi-person filter, best first.
  public var ranked: [String]
  public var gate: CueEvalGate
}

/// The gate's output of one T0 evaluation and its counters after the call (§3.9).
public struct CueEvalGate: Equatable, Sendable {
  public var cueId: String?
  public var level: CueLevel
  public var reason: GateReason
  public var input: String?
  public var stableFrames: Int
  public var persistFrames: Int
  public var heldMs: Millis
  public var minHoldMs: Int
  /// The input cue's cooldown end when it is cooling down.
  public var cooldownUntil: Millis?
}
