import CanonicalJSON

// The trace's vocabulary, below every module that writes or reads trace lines (docs/FORMAT.md,
// "Trace lines"). Replay's `TraceRender` is the only writer and spells every field it writes as
// a `TraceField`; every reader (budgets, expectations, the differ, the cue-eval table, score)
// reads through `TraceLine`, whose accessors spell the same `TraceField`s. A field name lives in
// one place: removing or renaming a case is a compile error at each writer and reader of it.

/// The kind of an engine output: the `out` discriminator of its trace line (ENGINE §1.7).
///
/// The documented list is the `out` table of docs/FORMAT.md ("Trace lines"); a test keeps it
/// equal to `allCases`, and `replay --trace KINDS` / `minimize --expect KIND` accept exactly these.
public enum OutputKind: String, CaseIterable, Sendable, Comparable {
  case camera, cue_display, cue_eval, diagnostics, effect, eval, item, match, odr, posespec
  case praise, prompt, reference, script_card, session, shutter, shutter_tap, tier, wrap

  public static func < (a: OutputKind, b: OutputKind) -> Bool { a.rawValue < b.rawValue }

  /// True for the kinds that show a cue on screen (`cue_display`, `script_card`): their
  /// `cue_id` names it, a null one clears it.
  public var showsCue: Bool { self == .cue_display || self == .script_card }

  /// The field that tells lines of this kind apart as the state of one thing (an `item`'s
  /// `shot`, a `prompt`'s `key`, an `effect`'s `kind`); nil for a kind whose lines are one state.
  public var identityField: TraceField? {
    switch self {
    case .item: .shot
    case .prompt: .key
    case .effect: .kind
    default: nil
    }
  }
}

/// The name of a trace-line field (top level, or inside `cue_eval`'s `gate`, `cues` entries and
/// `thresholds`). The raw value is the name as written; `t` and `out` are the line's frame, not
/// fields. The prompt center writes its lines with these names too; `posespec` and `reference`
/// lines carry fields the engine builds for them, of which the ones read here are listed.
public enum TraceField: String, CaseIterable, Sendable {
  // cue_display, script_card, camera
  case cue_id, level, reason, mode, variant, zh, en, frozen, warmup
  // diagnostics, session, wrap, prompt
  case op, file, rule, session_id, cause, workset, key
  // prompt (the prompt center's lines, ENGINE §1.7)
  case surface, priority, drop_reason, dismiss_reason, action_id, by, auto_ms
  // effect (the correlation fields of §1.6)
  case kind, shot, attempt, asset_id, item, tag
  // eval, tier
  case tier, frame, tick, cues, t0_hz, t1_enabled
  // item
  case core, thumb, album, liked
  // match
  case match, required, blocked_by, mirror_applied
  // praise, odr
  case state, trigger, dimension, quiet, off_reason
  // shutter, shutter_tap
  case enabled, accepted
  // cue_eval: the line, its gate, a cue's entry and its thresholds
  case scene, unsupported, ranked, gate
  case input, stable_frames, persist_frames, held_ms, min_hold_ms, cooldown_until
  case error, severity, thresholds, hard, warn, enter, exit
}

extension JSONObject {
  /// An object whose members are trace fields, in the order given (the writer's literal).
  public init(trace members: KeyValuePairs<TraceField, JSONValue>) {
    self.init(members.map { JSONMember($0.key.rawValue, $0.value) })
  }

  /// The value of trace field `field`; setting nil removes it.
  public subscript(_ field: TraceField) -> JSONValue? {
    get { self[field.rawValue] }
    set { self[field.rawValue] = newValue }
  }
}

extension JSONValue {
  /// The member `field` of an object value.
  public subscript(_ field: TraceField) -> JSONValue? { objectValue?[field] }
}

/// One trace line as read back (a golden's line, a replay's record): its kind and typed views
/// of the fields each reader needs. Every field name comes from `TraceField`; a view of a kind
/// is nil on a line of another kind.
public struct TraceLine: Sendable, Equatable {
  /// The `out` discriminator as written.
  public var out: String
  /// Every field besides `t` and `out` (those two, when present, are ignored by the views).
  public var fields: JSONObject

  public init(out: String, fields: JSONObject) {
    self.out = out
    self.fields = fields
  }

  /// A whole line as parsed (`{"t":…,"out":…,…}`); nil when it has no string `out`.
  public init?(line: JSONValue) {
    guard let o = line.objectValue, let out = o["out"]?.stringValue else { return nil }
    self.init(out: out, fields: o)
  }

  /// The kind, when `out` names one the engine emits.
  public var kind: OutputKind? { OutputKind(rawValue: out) }

  func string(_ f: TraceField) -> String? { fields[f]?.stringValue }

  /// `cue_display`: the cue shown (nil = none) and its level.
  public struct CueDisplay: Sendable, Equatable {
    public var cueId: String?
    public var level: String?
  }
  public var cueDisplay: CueDisplay? {
    kind == .cue_display ? CueDisplay(cueId: string(.cue_id), level: string(.level)) : nil
  }

  /// The `cue_id` of a `cue_display` or `script_card` line: `.some(nil)` when the line clears
  /// the cue (`cue_id` null or absent), nil on other kinds.
  public var shownCue: String?? {
    kind == .cue_display || kind == .script_card ? .some(string(.cue_id)) : nil
  }

  /// Whether a `cue_display` or `script_card` line's `cue_id` is written as null.
  public var clearsCue: Bool {
    (kind == .cue_display || kind == .script_card) && fields[.cue_id] == .null
  }

  /// The `cue_id` of any line that names one (a display, a card, a cue_eval gate is not one).
  public var cueId: String? { string(.cue_id) }

  /// `praise`: whether it switched on.
  public var praiseOn: Bool? { kind == .praise ? string(.state) == "on" : nil }

  /// `prompt`: its `op` (`shown`, `dismissed`, …), `key`, `level` and English text.
  public struct Prompt: Sendable, Equatable {
    public var op: String?
    public var key: String?
    public var level: String?
    public var en: String?
  }
  public var prompt: Prompt? {
    kind == .prompt ? Prompt(op: string(.op), key: string(.key), level: string(.level), en: string(.en)) : nil
  }

  /// `effect`: its correlation fields.
  public struct Effect: Sendable, Equatable {
    public var kind: String?
    public var shot: Int64?
    public var attempt: Int64?
  }
  public var effect: Effect? {
    kind == .effect ? Effect(kind: string(.kind), shot: fields[.shot]?.int64Value, attempt: fields[.attempt]?.int64Value) : nil
  }

  /// A short human description of the line, naming the fields that tell it apart (what the
  /// differ's explanations and the minimizer's reports print): `cue_display FRAME_MOVE_LEFT/hard`,
  /// `prompt shown posespec_reload`; a kind without a summary of its own shows its first four
  /// fields (`kind a=1 b=x`). An absent or null field reads `none`.
  public var summary: String {
    func f(_ k: TraceField) -> String { fields[k].map(Self.text) ?? "none" }
    switch kind {
    case .cue_display: return "cue_display \(f(.cue_id))/\(f(.level))"
    case .script_card: return "script_card \(f(.cue_id)) \(f(.variant))"
    case .praise: return "praise \(f(.state)) \(f(.trigger))"
    case .match: return "match \(f(.match)) blocked_by=\(f(.blocked_by))"
    case .shutter: return "shutter enabled=\(f(.enabled)) reason=\(f(.reason))"
    case .prompt: return "prompt \(f(.op)) \(f(.key))"
    case .item: return "item shot=\(f(.shot)) core=\(f(.core))"
    case .tier: return "tier t0_hz=\(f(.t0_hz)) cause=\(f(.cause))"
    case .effect:
      let rest = fields.members.filter { $0.key != TraceField.kind.rawValue }.map { "\($0.key)=\(Self.text($0.value))" }
      return "effect \(f(.kind))" + (rest.isEmpty ? "" : " {\(rest.joined(separator: ","))}")
    default:
      let shown = fields.members.prefix(4).map { "\($0.key)=\(Self.text($0.value))" }
      return ([out] + shown).joined(separator: " ")
    }
  }

  /// A field value as a summary prints it: a string bare, null as `none`, a number in its
  /// shortest form, anything else as canonical JSON.
  public static func text(_ v: JSONValue) -> String {
    v.summaryText  // one definition for every summary (CanonicalJSON)
  }

  /// `cue_eval`: the T0 view (a T1 line, which carries `tier`, is not one).
  public var cueEvalT0: CueEvalT0? {
    kind == .cue_eval && fields[.tier] == nil ? CueEvalT0(fields: fields) : nil
  }

  /// A T0 `cue_eval` line: its frame, each cue's entry and the gate.
  public struct CueEvalT0: Sendable, Equatable {
    public var fields: JSONObject
    public var frame: JSONValue? { fields[.frame] }
    /// The entry of cue `id` (`level`, `error`, `state`, `thresholds`, …).
    public func entry(_ id: String) -> JSONObject? { fields[.cues]?[id]?.objectValue }
    /// The gate's state (`cue_id`, `level`, `input`, counters), empty when absent.
    public var gate: JSONObject { fields[.gate]?.objectValue ?? JSONObject() }
    /// Whether the line records a gate (with its parameters: `min_hold_ms`).
    public var hasGate: Bool { fields[.gate]?.objectValue != nil }
  }
}
