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
  public var role: Role
  /// Fields `import` requires, each with the JSON type it must have.
  public var required: [(name: String, type: FieldType)]
  /// True for the kind that launches the app (after a kill it goes through `relaunch`).
  public var launches: Bool
  /// A predicate on the fields: true when the event kills the process (its pending effect
  /// requests die with it and the next launch restores from the store).
  public var endsProcessWhen: (@Sendable (JSONObject) -> Bool)?

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
  public var kind: String
  public var fields: JSONObject
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
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// What the harness knows of one engine, beside its calls (``SeamEngine``): its name, its event
/// kinds, its effect correlation table, how an output becomes a trace line and how its
/// persisted state is written. Every requirement is static: a vocabulary is a type, so the
/// replayer's uses of it are resolved at compile time.
public protocol EngineVocabulary {
  /// The engine's typed output.
  associatedtype Output
  /// The engine's persisted state.
  associatedtype Snapshot
  /// The name recording headers carry in `engine` (``justPhotoEngineName`` for Just Photo).
  static var engineName: String { get }
  /// Every event kind the engine's recordings may hold, in a fixed order.
  static var kinds: [EventKindInfo] { get }
  /// Every effect request that expects a result; other requests expect none.
  static var effectRules: [EffectRuleInfo] { get }
  /// The field values coverage looks for in recordings and traces; empty when not declared.
  static var coverageFacets: [CoverageFacet] { get }
  /// The effect request `output` makes, nil for an output that requests nothing.
  static func effectCall(_ output: Output) -> EffectCall?
  /// The trace line of `output`: its `out` name and fields (the harness adds `t` and writes the
  /// line canonically).
  static func traceRecord(_ output: Output) -> (out: String, fields: JSONObject)
  /// The `out` name of `output` (what `replay --trace kinds` filters on).
  static func outputKind(_ output: Output) -> String
  /// `output` narrowed to `cues` (Just Photo's `replay --cue`); nil drops it. Default: unchanged.
  static func narrow(_ output: Output, toCues cues: Set<String>) -> Output?
  /// The snapshot as one JSON object (the session store's form for engines without a schema).
  static func snapshotJSON(_ snapshot: Snapshot) -> JSONObject
  /// The snapshot of a stored JSON object.
  static func snapshot(json: JSONObject) throws(SnapshotError) -> Snapshot
  /// What a store that never saw a flush holds.
  static var emptySnapshot: Snapshot { get }
  /// True when the replayer hands `event` to the engine (labels are skipped).
  static func isEngineInput(_ event: InputEvent) -> Bool
  /// True for the event that launches the app (after a kill it goes through `relaunch`).
  static func launches(_ event: InputEvent) -> Bool
  /// True for the event that kills the process.
  static func endsProcess(_ event: InputEvent) -> Bool
  /// The rule a request of kind `request` follows, nil when it expects no result.
  static func rule(forRequest request: String) -> EffectRuleInfo?
  /// The rule whose results include `event`'s kind, nil when the event answers no request.
  static func rule(forResult event: InputEvent) -> EffectRuleInfo?
  /// The success result lenient replay delivers for a request with `fields` under `rule`, at `t`.
  static func syntheticSuccess(_ rule: EffectRuleInfo, request fields: JSONObject, at t: Millis) -> InputEvent
  /// Every `out` name the engine's trace lines may have (what `minimize --expect` checks a
  /// matcher's kind against, what `coverage` looks for); empty = not declared, any name is
  /// taken. Default: empty.
  static var outputKinds: [String] { get }
  /// What `jpreplay plot` draws of a replay of this engine (series and markers read from its
  /// trace lines). Default: nothing (an engine with a plot of its own, like Just Photo's).
  static var timeline: TraceTimeline { get }
  /// Why the engine refuses `event` (a value its decoder does not take), nil when it takes it:
  /// what `import` refuses and `doctor` reports, so no recording holds an event its engine
  /// rejects at replay. Default: nil (the kinds' required fields are all that is checked).
  static func refusal(of event: InputEvent) -> EventRefusal?
}

/// Why an engine refuses a recorded event: the field (a path such as `assets[3].id`; nil for the
/// event as a whole) and what was expected and found.
public struct EventRefusal: Equatable, Sendable {
  public var field: String?
  public var message: String
  public init(field: String?, message: String) {
    self.field = field
    self.message = message
  }
}

extension EngineVocabulary {
  public static func narrow(_ output: Output, toCues cues: Set<String>) -> Output? { output }

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

  public static func isEngineInput(_ event: InputEvent) -> Bool {
    kind(named: event.kindName)?.role != .label
  }

  public static func launches(_ event: InputEvent) -> Bool { kind(named: event.kindName)?.launches ?? false }

  public static func endsProcess(_ event: InputEvent) -> Bool {
    guard let test = kind(named: event.kindName)?.endsProcessWhen, let fields = event.jsonFields else { return false }
    return test(fields)
  }

  public static func rule(forRequest request: String) -> EffectRuleInfo? { effectRules.first { $0.request == request } }

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
