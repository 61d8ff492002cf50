import CanonicalJSON
import EngineIO

/// The header value naming Just Photo, the engine of every recording without an `engine` key.
public let justPhotoEngineName = "justphoto"

/// One event kind of an engine: how files store it and whether the engine sees it.
public struct EventKindInfo: Sendable, Equatable {
  /// What the replayer does with an event of the kind.
  public enum Role: String, Sendable, Equatable {
    /// An input the engine receives.
    case input
    /// Ground truth for scorers; counted and skipped by the replayer.
    case label
  }
  /// The kind name (`kind` in JSONL).
  public var name: String
  /// The `.jprec` channel it is stored in (`device`, `sensors`, `ui`, `effects`, `label`).
  public var channel: String
  /// Whether the engine sees it.
  public var role: Role
  /// Fields `import` requires, each with the JSON type it must have.
  public var required: [(name: String, type: FieldType)]
  /// True for the kind that launches the app (after a kill it goes through `relaunch`).
  public var launches: Bool
  /// A predicate on the fields: true when the event kills the process (its pending effect
  /// requests die with it and the next launch restores from the store).
  public var endsProcessWhen: (@Sendable (JSONObject) -> Bool)?

  /// A kind.
  ///
  /// - Parameters:
  ///   - name: its `kind` in JSONL.
  ///   - channel: its `.jprec` channel (default `ui`).
  ///   - role: input (default) or label.
  ///   - required: the fields `import` requires, with their JSON types.
  ///   - launches: true for the launch event.
  ///   - endsProcessWhen: the predicate on the fields that makes it a kill.
  ///
  /// Example: `EventKindInfo(name: "frame", channel: "sensors", required: [("roll", .number)])`.
  public init(
    name: String, channel: String = "ui", role: Role = .input,
    required: [(name: String, type: FieldType)] = [], launches: Bool = false,
    endsProcessWhen: (@Sendable (JSONObject) -> Bool)? = nil
  ) {
    self.name = name
    self.channel = channel
    self.role = role
    self.required = required
    self.launches = launches
    self.endsProcessWhen = endsProcessWhen
  }

  /// Equal in every declared fact (the kill predicate is not compared).
  public static func == (a: EventKindInfo, b: EventKindInfo) -> Bool {
    a.name == b.name && a.channel == b.channel && a.role == b.role && a.launches == b.launches
      && a.required.map(\.name) == b.required.map(\.name) && a.required.map(\.type) == b.required.map(\.type)
  }

  /// The JSON type of a required field.
  public enum FieldType: String, Sendable, Equatable {
    case string, integer, number, bool, object, array

    /// True when `value` has this type (`integer`: a number without fraction).
    public func admits(_ value: JSONValue) -> Bool {
      switch (self, value) {
      case (.string, .string), (.number, .number), (.bool, .bool), (.object, .object), (.array, .array): true
      case (.integer, .number(let d)): d.rounded() == d
      default: false
      }
    }
  }

  /// The first problem of `fields` against ``required`` ("field \"x\": expected …"); nil = fine.
  public func problem(in fields: JSONObject) -> (field: String, message: String)? {
    for r in required {
      guard let v = fields[r.name] else { return (r.name, "\(name): missing field \"\(r.name)\" (\(r.type.rawValue))") }
      if !r.type.admits(v) {
        return (r.name, "\(name): field \"\(r.name)\": expected \(r.type.rawValue), found \(v.typeName)")
      }
    }
    return nil
  }
}

/// An effect request an output asks the platform for: its kind name and the fields that
/// carry the correlation key (ENGINE §1.6).
public struct EffectCall: Sendable, Equatable {
  /// The request's kind, e.g. `ocr`.
  public var kind: String
  /// Its fields (those of ``EffectRuleInfo/keyFields`` make the correlation key).
  public var fields: JSONObject
  /// A request.
  ///
  /// - Parameters:
  ///   - kind: the request's kind.
  ///   - fields: its fields.
  public init(kind: String, fields: JSONObject) {
    self.kind = kind
    self.fields = fields
  }
}

/// How an effect request is answered: the result kinds, the key fields shared by request and
/// result, and the success result lenient replay makes up when the recording has none.
public struct EffectRuleInfo: Sendable, Equatable {
  /// The request kind, e.g. `photokit_write`.
  public var request: String
  /// The input kinds that answer it; the first is the success result of lenient replay.
  public var results: [String]
  /// The fields shared by request and result that form the correlation key.
  public var keyFields: [String]
  /// The fields a made-up success result carries besides the key fields.
  public var successFields: JSONObject

  /// A rule.
  ///
  /// - Parameters:
  ///   - request: the request kind.
  ///   - results: the result kinds, the success result first.
  ///   - keyFields: the fields that correlate request and result.
  ///   - successFields: what a made-up success result carries besides the key.
  ///
  /// Example: `EffectRuleInfo(request: "delete_batch", results: ["delete_result"], keyFields: ["batch"])`.
  public init(request: String, results: [String], keyFields: [String], successFields: JSONObject = JSONObject()) {
    self.request = request
    self.results = results
    self.keyFields = keyFields
    self.successFields = successFields
  }

  /// The correlation key of `fields`, e.g. `shot=2,attempt=1`; nil when a key field is missing.
  public func key(of fields: JSONObject) -> String? {
    var parts: [String] = []
    for name in keyFields {
      guard let v = fields[name] else { return nil }
      parts.append("\(name)=\(Self.text(v))")
    }
    return parts.joined(separator: ",")
  }

  static func text(_ v: JSONValue) -> String {
    switch v {
    case .string(let s): s
    case .number(let d): JSONWriter.formatNumber(d)
    default: JSONWriter.write(v, sortKeys: true, numbers: .fixed6)
    }
  }
}

/// A failure to read a stored snapshot back (the session store names its file around it).
public struct SnapshotError: Error, Sendable, CustomStringConvertible {
  /// What does not read back, e.g. `"delete_queue": expected an array`.
  public var message: String
  /// An error with its message.
  public init(_ message: String) { self.message = message }
  /// The message.
  public var description: String { message }
}

/// What the harness knows of one engine, beside its calls (``SeamEngine``): its name, its event
/// kinds, its effect correlation table, how an output becomes a trace line and how its
/// persisted state is written. Every requirement is static: a vocabulary is a type, so the
/// replayer's uses of it are resolved at compile time.
///
/// An engine must write only ``Output``, ``engineName``, ``kinds`` and ``traceRecord(_:)``;
/// every other requirement has a default (docs/ARCHITECTURE.md, "The engine seam", lists which
/// engine overrides which). An engine that persists sets ``Snapshot`` and its three members; one
/// that asks the platform for effects sets ``effectRules`` and ``effectCall(_:)``.
///
/// Example (the smallest vocabulary: no effects, no store):
/// ```swift
/// enum BeepVocabulary: EngineVocabulary {
///   static let engineName = "beep"
///   static let kinds = [EventKindInfo(name: "press", required: [("n", .integer)])]
///   static func traceRecord(_ output: Int) -> (out: String, fields: JSONObject) {
///     ("beep", ["n": .number(Double(output))])
///   }
/// }
/// ```
public protocol EngineVocabulary {
  /// The engine's typed output (what its steps carry, ``EngineStep/outputs``).
  associatedtype Output
  /// The engine's persisted state; ``NoSnapshot`` (the default) for an engine that keeps none.
  associatedtype Snapshot = NoSnapshot

  /// The name recording headers carry in `engine` (``justPhotoEngineName`` for Just Photo):
  /// lowercase letters, digits and `_`, starting with a letter (``EngineName``).
  ///
  /// Example: `"pixscan"`, `"cameracoach"`.
  static var engineName: String { get }

  /// Whether the engine writes diagnostic (A.13) lines, and so has a `.a13.jsonl` golden per
  /// recording beside its trace. Default: `false` — an engine without diagnostics gets no empty
  /// A.13 file to keep, review or accept.
  ///
  /// Example: `true` for Just Photo (its A.13 log); PixScan and Camera Coach keep the default.
  static var writesDiagnostics: Bool { get }

  /// The definitions `Recording`'s readers, importer, recorder and doctor are handed for the
  /// engine's typed kinds (import fields, `.jprec` channels, typed values). Default:
  /// ``NoEventDefinitions`` (all its events are named events, which its vocabulary checks).
  /// Example: Just Photo's vocabulary returns its event definitions; PixScan keeps the default.
  static var eventDefinitions: any EventDefinitions.Type { get }

  /// Every event kind the engine's recordings may hold, in a fixed order: where `.jprec`
  /// stores each, whether the engine sees it, the fields `import` requires, its launch or
  /// kill role.
  ///
  /// Example: `[EventKindInfo(name: "swipe", channel: "ui", required: [("direction", .string)])]`.
  static var kinds: [EventKindInfo] { get }

  /// Every effect request that expects a result; other requests expect none. Default: none.
  ///
  /// Example: `[EffectRuleInfo(request: "ocr", results: ["ocr_result"], keyFields: ["photo"])]`.
  static var effectRules: [EffectRuleInfo] { get }

  /// The field values coverage looks for in recordings and traces. Default: none declared.
  ///
  /// Example: `[CoverageFacet(.input, kind: "swipe", field: "direction", values: ["left", "right"])]`.
  static var coverageFacets: [CoverageFacet] { get }

  /// The effect request an output makes. Default: nil (an engine without effects).
  ///
  /// - Parameter output: one output of a step.
  /// - Returns: the request's kind and key fields, correlated with ``effectRules``; nil for an
  ///   output that requests nothing.
  ///
  /// Example: PixScan's `ocr` output gives `EffectCall(kind: "ocr", fields: ["photo": "p3"])`.
  static func effectCall(_ output: Output) -> EffectCall?

  /// The trace line of an output (the harness adds `t` and writes the line canonically).
  ///
  /// - Parameter output: one output of a step.
  /// - Returns: the line's `out` name and its fields, in the order they are written.
  ///
  /// Example: `("hint", ["advice": "headroom", "direction": "more"])` is written
  /// `{"t":300,"out":"hint","advice":"headroom","direction":"more"}`.
  static func traceRecord(_ output: Output) -> (out: String, fields: JSONObject)

  /// The `out` name of an output (what `replay --trace kinds` filters on). Default:
  /// ``traceRecord(_:)``'s `out` (an engine overrides it when the name is cheaper to tell).
  ///
  /// - Parameter output: one output of a step.
  /// - Returns: the name its trace line has in `out`.
  ///
  /// Example: `"hint"` for a Camera Coach hint.
  static func outputKind(_ output: Output) -> String

  /// An output narrowed to a set of cues (Just Photo's `replay --cue`). Default: unchanged.
  ///
  /// - Parameters:
  ///   - output: one output of a step.
  ///   - cues: the cue ids the user asked for.
  /// - Returns: the output with only what concerns `cues`; nil drops it from the trace.
  ///
  /// Example: a Just Photo `cue_eval` keeps the entries of `["tilt"]` only.
  static func narrow(_ output: Output, toCues cues: Set<String>) -> Output?

  /// The snapshot as one JSON object (the session store's form for engines without a schema).
  /// Default for ``NoSnapshot``: `{}`.
  ///
  /// - Parameter snapshot: what the engine asked to persist (``EngineStep/persist``).
  /// - Returns: the object the store writes.
  ///
  /// Example: PixScan's store gives `{"delete_queue":[…],"processed":[…]}`.
  static func snapshotJSON(_ snapshot: Snapshot) -> JSONObject

  /// The snapshot of a stored JSON object (handed back at ``SeamEngine/relaunch(_:restoring:)``).
  /// Default for ``NoSnapshot``: ``NoSnapshot``, whatever is stored.
  ///
  /// - Parameter json: what ``snapshotJSON(_:)`` wrote.
  /// - Returns: the snapshot.
  /// - Throws: ``SnapshotError`` naming what does not read back.
  ///
  /// Example: `snapshot(json: snapshotJSON(s)) == s` for every snapshot `s`.
  static func snapshot(json: JSONObject) throws(SnapshotError) -> Snapshot

  /// What a store that never saw a flush holds. Default for ``NoSnapshot``: ``NoSnapshot``.
  ///
  /// Example: PixScan's `PixStore()` (no photo processed, an empty delete queue).
  static var emptySnapshot: Snapshot { get }

  /// Whether the replayer hands an event to the engine. Default: its kind's ``EventKindInfo/role``
  /// is not `.label`.
  ///
  /// - Parameter event: a recorded event.
  /// - Returns: false for ground truth the engine never sees (counted and skipped).
  ///
  /// Example: a `label` event gives false.
  static func isEngineInput(_ event: InputEvent) -> Bool

  /// Whether an event launches the app (after a kill it goes through `relaunch`). Default: its
  /// kind's ``EventKindInfo/launches``.
  ///
  /// - Parameter event: a recorded event.
  /// - Returns: true for the launch event.
  ///
  /// Example: Just Photo's `app_launch`.
  static func launches(_ event: InputEvent) -> Bool

  /// Whether an event kills the process (pending effect requests die with it; the next launch
  /// restores from the store). Default: its kind's ``EventKindInfo/endsProcessWhen``.
  ///
  /// - Parameter event: a recorded event.
  /// - Returns: true for a kill.
  ///
  /// Example: Just Photo's `app_lifecycle` with `state: terminated`.
  static func endsProcess(_ event: InputEvent) -> Bool

  /// The rule an event answers as an effect result. Default: the rule of ``effectRules`` whose
  /// `results` name the event's kind.
  ///
  /// - Parameter event: a recorded event.
  /// - Returns: the rule, nil when the event answers no request.
  ///
  /// Example: PixScan's `ocr_result` gives the `ocr` rule.
  static func rule(forResult event: InputEvent) -> EffectRuleInfo?

  /// The success result lenient replay delivers when the recording holds none. Default: an
  /// event of the rule's first result kind with the request's key fields and the rule's
  /// ``EffectRuleInfo/successFields``.
  ///
  /// - Parameters:
  ///   - rule: the request's rule.
  ///   - fields: the request's fields.
  ///   - t: when the result is delivered.
  /// - Returns: the made-up result event.
  ///
  /// Example: `ocr {photo: p3}` under the `ocr` rule gives `ocr_result {photo: p3, …success fields}`.
  static func syntheticSuccess(_ rule: EffectRuleInfo, request fields: JSONObject, at t: Millis) -> InputEvent

  /// Every `out` name the engine's trace lines may have (what `minimize --expect` checks a
  /// matcher's kind against, what `coverage` looks for). Default: empty = not declared, any
  /// name is taken.
  ///
  /// Example: Camera Coach's `["state", "hint", "telemetry", …]`.
  static var outputKinds: [String] { get }

  /// What `jpreplay plot` draws of a replay of this engine (series and markers read from its
  /// trace lines). Default: nothing (an engine with a plot of its own, like Just Photo's).
  ///
  /// Example: `TraceTimeline(markers: [.init(lane: "hints", out: "hint") { $0["advice"]?.stringValue ?? "" }])`.
  static var timeline: TraceTimeline { get }

  /// Why the engine refuses an event (a value its decoder does not take): what `import` refuses
  /// and `doctor` reports, so no recording holds an event its engine rejects at replay.
  /// Default: nil (the kinds' required fields are all that is checked).
  ///
  /// - Parameter event: a recorded event.
  /// - Returns: the field and what was expected; nil when the engine takes the event.
  ///
  /// Example: `EventRefusal(field: "direction", message: "expected left, right, up or down, found \"sideways\"")`.
  static func refusal(of event: InputEvent) -> EventRefusal?
}

/// The state of an engine that persists nothing (the default ``EngineVocabulary/Snapshot``):
/// stored as `{}`, read back from anything.
public struct NoSnapshot: Equatable, Sendable {
  /// The one value.
  public init() {}
}

extension EngineVocabulary where Snapshot == NoSnapshot {
  /// `{}`.
  public static func snapshotJSON(_ snapshot: NoSnapshot) -> JSONObject { JSONObject() }

  /// ``NoSnapshot``, whatever is stored.
  public static func snapshot(json: JSONObject) throws(SnapshotError) -> NoSnapshot { NoSnapshot() }

  /// ``NoSnapshot``.
  public static var emptySnapshot: NoSnapshot { NoSnapshot() }
}

/// Why an engine refuses a recorded event: the field (a path such as `assets[3].id`; nil for the
/// event as a whole) and what was expected and found.
public struct EventRefusal: Equatable, Sendable {
  /// The refused field's path, e.g. `assets[3].id`; nil for the event as a whole.
  public var field: String?
  /// What was expected and found.
  public var message: String
  /// A refusal.
  ///
  /// - Parameters:
  ///   - field: the field's path, or nil.
  ///   - message: what was expected and found.
  public init(field: String?, message: String) {
    self.field = field
    self.message = message
  }
}

extension EngineVocabulary {
  /// No diagnostics (``writesDiagnostics``).
  public static var writesDiagnostics: Bool { false }

  /// ``NoEventDefinitions``: every event is a named event (``eventDefinitions``).
  public static var eventDefinitions: any EventDefinitions.Type { NoEventDefinitions.self }

  /// Unchanged: an engine without cues.
  public static func narrow(_ output: Output, toCues cues: Set<String>) -> Output? { output }

  /// None: an engine without effects.
  public static var effectRules: [EffectRuleInfo] { [] }

  /// nil: an engine without effects requests nothing.
  public static func effectCall(_ output: Output) -> EffectCall? { nil }

  /// ``traceRecord(_:)``'s `out`.
  public static func outputKind(_ output: Output) -> String { traceRecord(output).out }

  /// None declared.
  public static var outputKinds: [String] { [] }

  /// None declared.
  public static var coverageFacets: [CoverageFacet] { [] }

  /// None declared: `plot` has nothing to draw.
  public static var timeline: TraceTimeline { .none }

  /// Nothing refused beyond the kinds' required fields.
  public static func refusal(of event: InputEvent) -> EventRefusal? { nil }

  /// The declared kind named `name`.
  public static func kind(named name: String) -> EventKindInfo? { kinds.first { $0.name == name } }

  /// Its kind's role is not `.label`.
  public static func isEngineInput(_ event: InputEvent) -> Bool {
    kind(named: event.kindName)?.role != .label
  }

  /// Its kind launches.
  public static func launches(_ event: InputEvent) -> Bool { kind(named: event.kindName)?.launches ?? false }

  /// Its kind's `endsProcessWhen` holds for its fields.
  public static func endsProcess(_ event: InputEvent) -> Bool {
    guard let test = kind(named: event.kindName)?.endsProcessWhen, let fields = event.jsonFields else { return false }
    return test(fields)
  }

  /// The rule a request of kind `request` follows (a lookup in ``effectRules``; no longer a
  /// requirement: no engine answers it otherwise).
  ///
  /// - Parameter request: an effect request's kind, e.g. `ocr`.
  /// - Returns: its rule, nil when it expects no result.
  public static func rule(forRequest request: String) -> EffectRuleInfo? { effectRules.first { $0.request == request } }

  /// The rule whose results name the event's kind.
  public static func rule(forResult event: InputEvent) -> EffectRuleInfo? {
    guard event.jsonFields != nil else { return nil }
    let name = event.kindName
    return effectRules.first { $0.results.contains(name) }
  }

  /// The key fields of the request, then the rule's success fields, as a named event.
  public static func syntheticSuccess(_ rule: EffectRuleInfo, request fields: JSONObject, at t: Millis) -> InputEvent {
    var out = JSONObject()
    for name in rule.keyFields { out[name] = fields[name] }
    for m in rule.successFields.members { out[m.key] = m.value }
    return InputEvent(t: t, payload: .named(NamedEvent(kind: rule.results[0], fields: out)))
  }

  /// The `engine` a recording header names: its `engine` string, ``justPhotoEngineName`` when
  /// absent; nil when the value is not a string.
  public static func headerNamesThisEngine(_ header: JSONObject) -> Bool {
    EngineName.of(header: header) == engineName
  }
}

/// The `engine` key of a recording header.
public enum EngineName {
  /// The header key.
  public static let headerKey = "engine"
  /// Longest engine name accepted (a name is `[a-z][a-z0-9_]*`).
  public static let lengthMax = 64

  /// The engine a header names: ``justPhotoEngineName`` when `engine` is absent, nil when the
  /// value is not a well-formed name (see ``problem(in:)``).
  public static func of(header: JSONObject) -> String? {
    guard let v = header[headerKey] else { return justPhotoEngineName }
    guard let s = v.stringValue, isWellFormed(s) else { return nil }
    return s
  }

  /// What is wrong with the header's `engine` value; nil when absent or well-formed.
  public static func problem(in header: JSONObject) -> String? {
    guard let v = header[headerKey] else { return nil }
    guard let s = v.stringValue else { return "\"\(headerKey)\": expected an engine name (a string such as \"\(justPhotoEngineName)\"), found \(v.typeName)" }
    guard isWellFormed(s) else {
      return "\"\(headerKey)\": \"\(s)\" is not an engine name (lowercase letters, digits and _, starting with a letter, at most \(lengthMax) characters)"
    }
    return nil
  }

  static func isWellFormed(_ s: String) -> Bool {
    let u = Array(s.utf8)
    guard let f = u.first, (97...122).contains(f), u.count <= lengthMax else { return false }
    return u.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
  }
}
