import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Replay
import PoseSpec

extension TraceRecord {
  /// The trace record of `output` at `t`: the field names and shapes of docs/FORMAT.md.
  public init(_ output: EngineOutput, at t: Millis) {
    self.init(t: t, out: output.kind.rawValue, fields: Self.fields(output))
  }

  static func fields(_ output: EngineOutput) -> JSONObject {
    switch output {
    case .camera(let c):
      var f = JSONObject(trace: [.warmup: .string(c.warmup.rawValue)])
      if let text = c.text { (f[.zh], f[.en]) = (.string(text.zh), .string(text.en)) }
      return f
    case .cueDisplay(let d):
      return JSONObject(trace: [
        .cue_id: string(d.cueId), .level: .string(d.level.rawValue), .reason: .string(d.reason.rawValue),
        .mode: .string(d.mode.rawValue),
      ])
    case .cueEval(let e): return CueEvalRender.fields(e)
    case .diagnosticsDeleted(let file, let rule): return JSONObject(trace: [.op: "delete", .file: .string(file), .rule: .string(rule)])
    case .effect(let request): return request.traceFields
    case .eval(.t0(let frame)): return JSONObject(trace: [.tier: "T0", .frame: number(frame)])
    case .eval(.t1(let tick, let cues)): return JSONObject(trace: [.tier: "T1", .tick: number(tick), .cues: number(cues)])
    case .item(let line): return itemFields(line)
    case .match(let m):
      return JSONObject(trace: [
        .match: .bool(m.match), .required: .array(m.required.map { .string($0) }),
        .blocked_by: .array(m.blockedBy.map { .string($0) }), .mirror_applied: .bool(m.mirrorApplied),
      ])
    case .odr(let state): return JSONObject(trace: [.state: .string(state.rawValue)])
    case .posespec(let f), .prompt(let f), .reference(let f): return f
    case .praise(let p): return praiseFields(p)
    case .scriptCard(let c):
      return JSONObject(trace: [
        .cue_id: string(c.cueId), .variant: c.variant.map(number) ?? .null, .zh: string(c.zh),
        .en: string(c.en), .frozen: .bool(c.frozen),
      ])
    case .session(let s): return sessionFields(s)
    case .shutter(let enabled, let reason):
      var f = JSONObject(trace: [.enabled: .bool(enabled)])
      if let reason { f[.reason] = .string(reason.rawValue) }
      return f
    case .shutterTapRefused(let reason): return JSONObject(trace: [.accepted: false, .reason: .string(reason.rawValue)])
    case .tier(let tier):
      return JSONObject(trace: [.t0_hz: number(tier.t0Hz), .t1_enabled: .bool(tier.t1Enabled), .cause: .string(tier.cause)])
    case .wrap(let op): return JSONObject(trace: [.op: .string(op.rawValue)])
    }
  }

  static func string(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
  static func number<I: BinaryInteger>(_ i: I) -> JSONValue { .number(Double(i)) }

  static func itemFields(_ line: ItemLine) -> JSONObject {
    let item = line.item
    var f = JSONObject(trace: [
      .shot: number(item.shotSeq), .core: .string(item.core.rawValue), .thumb: .string(item.thumb.rawValue),
      .album: .string(item.album.rawValue), .liked: .bool(item.liked),
    ])
    if item.core == .write_failed, let r = item.writeFailReason { f[.reason] = .string(r) }
    if let removed = line.removedReason {
      f[.core] = "removed"
      f[.reason] = .string(removed)
    }
    return f
  }

  static func praiseFields(_ p: PraiseLine) -> JSONObject {
    var f = JSONObject(trace: [.state: .string(p.state.rawValue), .trigger: .string(p.trigger), .dimension: .string(p.dimension)])
    if p.state == .on, p.quiet { f[.quiet] = true }
    if let reason = p.offReason { f[.off_reason] = .string(reason) }
    return f
  }

  static func sessionFields(_ s: SessionLine) -> JSONObject {
    switch s {
    case .created(let id, let cause): JSONObject(trace: [.op: "created", .session_id: .string(id), .cause: .string(cause)])
    case .restored(let id, let workset): JSONObject(trace: [.op: "restored", .session_id: .string(id), .workset: number(workset)])
    case .killed: JSONObject(trace: [.op: "killed"])
    }
  }
}

extension EffectRequest {
  /// `kind` then the correlation fields of §1.6, as the trace writes them.
  public var traceFields: JSONObject {
    var f = JSONObject(trace: [.kind: .string(kind.rawValue)])
    switch self {
    case .startCamera, .requestCameraPermission, .leaveApp: break
    case .capturePhoto(let shot): f[.shot] = .number(Double(shot))
    case .photokitWrite(let shot, let attempt), .generateThumb(let shot, let attempt):
      f[.shot] = .number(Double(shot))
      f[.attempt] = .number(Double(attempt))
    case .fetchAsset(let asset, let attempt), .albumAdd(let asset, let attempt):
      f[.asset_id] = .string(asset)
      f[.attempt] = .number(Double(attempt))
    case .favoriteSync(let item): f[.item] = .number(Double(item))
    case .odrRequest(let tag, let attempt):
      f[.tag] = .string(tag)
      f[.attempt] = .number(Double(attempt))
    }
    return f
  }
}

/// The `cue_eval` shapes (documented at `CueEvalEntry.record` in the engine).
enum CueEvalRender {
  static func fields(_ e: CueEval) -> JSONObject {
    switch e {
    case .t1(let tick, let scene, let entries):
      return JSONObject(trace: [.tier: "T1", .tick: .number(Double(tick)), .scene: .string(scene), .cues: .object(objects(entries))])
    case .t0(let e):
      let g = e.gate
      var gate = JSONObject(trace: [
        .cue_id: TraceRecord.string(g.cueId), .level: .string(g.level.rawValue), .reason: .string(g.reason.rawValue),
        .input: TraceRecord.string(g.input), .stable_frames: .number(Double(g.stableFrames)),
        .persist_frames: .number(Double(g.persistFrames)), .held_ms: .number(Double(g.heldMs)),
        .min_hold_ms: .number(Double(g.minHoldMs)),
      ])
      if let until = g.cooldownUntil { gate[.cooldown_until] = .number(Double(until)) }
      return JSONObject(trace: [
        .frame: .number(Double(e.frame)), .scene: .string(e.scene), .mode: .string(e.mode.rawValue),
        .cues: .object(objects(e.entries)),
        .unsupported: .object(JSONObject(e.unsupported.map { JSONMember($0.id, .string($0.why)) })),
        .ranked: .array(e.ranked.map { .string($0) }), .gate: .object(gate),
      ])
    }
  }

  /// One level's thresholds as the trace writes them (`>0.12`; several joined by `|`); nil for none.
  static func ruleText(_ list: [Threshold]) -> String? {
    list.isEmpty ? nil : list.map(\.description).joined(separator: "|")
  }

  static func objects(_ entries: [CueEvalEntry]) -> JSONObject {
    JSONObject(
      entries.map { e in
        var o = JSONObject(trace: [
          .level: .string(e.level.rawValue), .error: e.error.map { .number($0) } ?? .null,
          .severity: e.severity.map { .number($0) } ?? .null, .state: .string(e.state),
          .reason: TraceRecord.string(e.reason),
        ])
        if let mode = e.mode { o[.mode] = .string(mode) }
        if let th = e.thresholds {
          func text(_ list: [Threshold]) -> JSONValue { ruleText(list).map { .string($0) } ?? .null }
          o[.thresholds] = .object(JSONObject(trace: [.hard: text(th.hard), .warn: text(th.warn), .enter: text(th.enter), .exit: text(th.exit)]))
        }
        return JSONMember(e.id, .object(o))
      })
  }
}
