import CanonicalJSON
import EngineIO
import PoseSpec

/// One cue's line item in a `cue_eval` record.
struct CueEvalEntry: Equatable, Sendable {
  var id: String
  /// The level observed this evaluation (not the sticky one).
  var level: CueLevel
  var error: Double?
  var severity: Double?
  var state: String
  var reason: String?
  /// withRef sessions only: `withRef`, `withRef:mirrored` or `noRef:missing_target` (§3.2).
  var mode: String? = nil
  /// The thresholds the level was judged against (the set of the mode used), so a reader of
  /// `--trace metrics` needs no spec at hand: `{"hard":">0.12","warn":">0.07","enter":null,
  /// "exit":"<=0.04"}`.
  var thresholds: ThresholdSet? = nil

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
    t: Millis, frame: Int64, scene: String, mode: String = "noRef", entries: [CueEvalEntry],
    unsupported: [(id: String, why: String)], ranked: [CueCandidate], gate: AntiJitterGate.Result,
    gateState: AntiJitterGate, gateParameters: GateParameters, input: GateSignal
  ) -> TraceRecord {
    var gateObject: JSONObject = [
      "cue_id": gate.output.id.map { .string($0) } ?? .null,
      "level": .string(gate.output.level.rawValue),
      "reason": .string(gate.reason.rawValue),
      "input": input.id.map { .string($0) } ?? .null,
      "stable_frames": .number(Double(gateState.stableFrameCount)),
      "persist_frames": .number(Double(gateParameters.persistFrames)),
      "held_ms": .number(Double(t - gateState.lastOutputChangeMs)),
      "min_hold_ms": .number(Double(gateParameters.minHoldMs)),
    ]
    if let id = input.id, let until = gateState.cooldownUntil[id], until > t {
      gateObject["cooldown_until"] = .number(Double(until))
    }
    let cues = objects(entries)
    return TraceRecord(
      t: t, out: "cue_eval",
      fields: [
        "frame": .number(Double(frame)),
        "scene": .string(scene),
        "mode": .string(mode),
        "cues": .object(cues),
        "unsupported": .object(JSONObject(unsupported.map { JSONMember($0.id, .string($0.why)) })),
        "ranked": .array(ranked.map { .string($0.id) }),
        "gate": .object(gateObject),
      ])
  }

  /// The verbose record of one T1 tick: `{"t":…, "out":"cue_eval", "tier":"T1", "tick":k,
  /// "scene":…, "cues":{…}}` with the T1 cues evaluated on that tick (same entry shape).
  static func t1Record(t: Millis, tick: Int, scene: String, entries: [CueEvalEntry]) -> TraceRecord {
    TraceRecord(
      t: t, out: "cue_eval",
      fields: [
        "tier": "T1", "tick": .number(Double(tick)), "scene": .string(scene), "cues": .object(objects(entries)),
      ])
  }

  static func objects(_ entries: [CueEvalEntry]) -> JSONObject {
    JSONObject(
      entries.map { e in
        var o: JSONObject = [
          "level": .string(e.level.rawValue),
          "error": e.error.map { .number($0) } ?? .null,
          "severity": e.severity.map { .number($0) } ?? .null,
          "state": .string(e.state),
          "reason": e.reason.map { .string($0) } ?? .null,
        ]
        if let mode = e.mode { o["mode"] = .string(mode) }
        if let th = e.thresholds {
          func text(_ list: [Threshold]) -> JSONValue {
            list.isEmpty ? .null : .string(list.map(\.description).joined(separator: "|"))
          }
          o["thresholds"] = .object(["hard": text(th.hard), "warn": text(th.warn), "enter": text(th.enter), "exit": text(th.exit)])
        }
        return JSONMember(e.id, .object(o))
      })
  }
}
