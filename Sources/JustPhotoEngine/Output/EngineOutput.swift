import CanonicalJSON
import EngineIO
import JustPhotoIO
import PoseSpec

/// One output of one engine call, typed (one case per `OutputKind`). Its time is the time of
/// the call that produced it (`handle`'s `event.t`, `fire`'s `now`, 0 for `start`).
///
/// The engine never serializes: `Replay` renders each value to its canonical trace line
/// (`TraceRecord(_:at:)` and `TraceFormat`), and matches effect requests by value.
public enum EngineOutput: Equatable, Sendable {
  /// Camera warm-up phase and its overlay text (§5.12).
  case camera(CameraLine)
  /// The anti-jitter gate's output changed (§3.9).
  case cueDisplay(CueDisplay)
  /// One evaluation in full (`--trace metrics` only; never in goldens).
  case cueEval(CueEval)
  /// A.13 log rotation deleted a file (§6.5): `op: delete`, `file`, `rule` (age / size).
  case diagnosticsDeleted(file: String, rule: String)
  /// A request to the platform (§1.6), answered by a recorded result event.
  case effect(EffectRequest)
  /// `traceEvaluations=true`: when the engine evaluated.
  case eval(EvalMark)
  /// A session item changed or was removed (§5.2–5.11).
  case item(ItemLine)
  /// The MatchDecider's tuple changed (§3.13e).
  case match(MatchLine)
  /// The Inspiration sheet's ODR state (§5.14).
  case odr(OdrState)
  /// The result of a PoseSpec reload (§3.13d); fields as written.
  case posespec(JSONObject)
  /// Praise on / off (§3.12).
  case praise(PraiseLine)
  /// A prompt shown / dismissed / action / dropped (§4); fields as written.
  case prompt(JSONObject)
  /// A reference stored / skipped / rejected / selected (§3.13b); fields as written.
  case reference(JSONObject)
  /// The director script card (§3.10).
  case scriptCard(ScriptCardLine)
  /// Session created / restored / killed (§5.1).
  case session(SessionLine)
  /// The shutter's enabled state or block reason changed (§5.3).
  case shutter(enabled: Bool, reason: ShutterBlockReason?)
  /// A shutter tap the gate refused (no item).
  case shutterTapRefused(ShutterBlockReason)
  /// The device tier changed (§3.11).
  case tier(TierLine)
  /// Wrap opened / exported (§5.13).
  case wrap(WrapOp)

  public var kind: OutputKind {
    switch self {
    case .camera: .camera
    case .cueDisplay: .cue_display
    case .cueEval: .cue_eval
    case .diagnosticsDeleted: .diagnostics
    case .effect: .effect
    case .eval: .eval
    case .item: .item
    case .match: .match
    case .odr: .odr
    case .posespec: .posespec
    case .praise: .praise
    case .prompt: .prompt
    case .reference: .reference
    case .scriptCard: .script_card
    case .session: .session
    case .shutter: .shutter
    case .shutterTapRefused: .shutter_tap
    case .tier: .tier
    case .wrap: .wrap
    }
  }
}

/// Which rules a displayed cue or an evaluation used (§3.2).
public enum GuidanceMode: String, Sendable, Equatable {
  case noRef, withRef
}

public struct CameraLine: Equatable, Sendable {
  public var warmup: WarmupPhase
  /// The overlay text; nil for phases without one (`ready`).
  public var text: (zh: String, en: String)?
  public init(warmup: WarmupPhase, text: (zh: String, en: String)?) {
    self.warmup = warmup
    self.text = text
  }
  public static func == (a: CameraLine, b: CameraLine) -> Bool {
    a.warmup == b.warmup && a.text?.zh == b.text?.zh && a.text?.en == b.text?.en
  }
}

public struct CueDisplay: Equatable, Sendable {
  public var cueId: String?
  public var level: CueLevel
  public var reason: GateReason
  public var mode: GuidanceMode
  public init(cueId: String?, level: CueLevel, reason: GateReason, mode: GuidanceMode) {
    self.cueId = cueId
    self.level = level
    self.reason = reason
    self.mode = mode
  }
}

public enum EvalMark: Equatable, Sendable {
  /// One accepted T0 evaluation of landmarks frame `frame`.
  case t0(frame: Int64)
  /// T1 tick `tick`, which evaluated `cues` cues.
  case t1(tick: Int, cues: Int)
}

public struct ItemLine: Equatable, Sendable {
  /// The item (as it was just before its removal, for a removal).
  public var item: SessionItem
  /// Set when the item was deleted (`deadline`, `abandon`, `phantom`, …).
  public var removedReason: String?
  public init(item: SessionItem, removedReason: String? = nil) {
    self.item = item
    self.removedReason = removedReason
  }
}

public struct MatchLine: Equatable, Sendable {
  public var match: Bool
  public var required: [String]
  public var blockedBy: [String]
  public var mirrorApplied: Bool
  public init(match: Bool, required: [String], blockedBy: [String], mirrorApplied: Bool) {
    self.match = match
    self.required = required
    self.blockedBy = blockedBy
    self.mirrorApplied = mirrorApplied
  }
}

public struct PraiseLine: Equatable, Sendable {
  public enum State: String, Sendable { case on, off }
  public var state: State
  public var trigger: String
  public var dimension: String
  /// Quiet mode at the time of an `on` (§3.12); written only when true.
  public var quiet: Bool
  /// Why an `off` happened (timeout, shutter_tap, retracted, …).
  public var offReason: String?
  public init(state: State, trigger: String, dimension: String, quiet: Bool = false, offReason: String? = nil) {
    self.state = state
    self.trigger = trigger
    self.dimension = dimension
    self.quiet = quiet
    self.offReason = offReason
  }
}

public struct ScriptCardLine: Equatable, Sendable {
  public var cueId: String?
  public var variant: Int?
  public var zh: String?
  public var en: String?
  public var frozen: Bool
  public init(cueId: String?, variant: Int?, zh: String?, en: String?, frozen: Bool) {
    self.cueId = cueId
    self.variant = variant
    self.zh = zh
    self.en = en
    self.frozen = frozen
  }
}

public enum SessionLine: Equatable, Sendable {
  /// `cause`: cold_start / ttl_expired / reset.
  case created(sessionId: String, cause: String)
  case restored(sessionId: String, workset: Int)
  case killed
}

public struct TierLine: Equatable, Sendable {
  public var t0Hz: Int
  public var t1Enabled: Bool
  public var cause: String
  public init(t0Hz: Int, t1Enabled: Bool, cause: String) {
    self.t0Hz = t0Hz
    self.t1Enabled = t1Enabled
    self.cause = cause
  }
}

public enum WrapOp: String, Equatable, Sendable {
  case open, export
}

/// Why the shutter is disabled (§5.3), in the order the gate checks them. The raw value is
/// what the trace writes.
public enum ShutterBlockReason: String, Sendable, Equatable, CaseIterable {
  case camera_not_authorized, warmup_failed, warmup_not_ready, blocked_by_write_failed
  case in_flight_limit_reached, workset_full, posespec_invalid, app_inactive, interrupted, rotating
}
