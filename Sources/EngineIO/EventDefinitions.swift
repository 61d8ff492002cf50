import CanonicalJSON

/// What the readers and writers need of an engine's event kinds beside decoding them: each
/// kind's `.jprec` channel and the fields `import` checks, in the order the JSONL writer puts
/// them. The readers and codecs read a recording's kinds through it, never through the
/// engine's own definition types.
///
/// Example: Just Photo's `JustPhotoEvents` gives `thermal` the channel `device` and one field,
/// `state`, a required string, one of `nominal`, `fair`, `serious`, `critical`.
public protocol EventDefinitions: EventDecoding, SendableMetatype {
  /// The fields of an event kind.
  ///
  /// - Parameter kind: the kind name.
  /// - Returns: its fields besides `t` and `kind`, in the order the JSONL writer puts them (a
  ///   field not listed is refused as unknown); nil for a kind the vocabulary does not declare.
  static func fields(of kind: String) -> [EventFieldInfo]?

  /// The `.jprec` channel of an event kind.
  ///
  /// - Parameter kind: the kind name.
  /// - Returns: the channel's name (`landmarks`, `pixels`, `sensors`, `device`, `ui`,
  ///   `effects`, `label`); nil for a kind the vocabulary does not declare.
  static func channel(of kind: String) -> String?

  /// The kind table a new `.jprec` of the engine starts with (meta `jprec.kinds`): an event is
  /// stored as the index of its kind in it, so the order is part of the engine's recordings'
  /// format and never changes (a kind is only ever added at the end). A recording of named
  /// events appends each kind not listed on its first appearance.
  ///
  /// Example: Just Photo's starts `["app_launch", "posespec_reload", "app_lifecycle", …]`.
  static var kindTable: [String] { get }

  /// The engine whose recordings hold these definitions' typed kinds, as a recording header
  /// names it (`engine`; the header's default when absent): its events carry their kind by the
  /// kind table's index and decode into the typed values. A recording of any other engine, and
  /// every recording when nil, holds named events (``InputPayload/named(_:)``: kinds by name,
  /// fields as JSON, which that engine's own vocabulary checks) — see ``namedEvents(in:)``.
  ///
  /// Example: `"justphoto"` for Just Photo's; nil for ``NoEventDefinitions`` (PixScan, Camera Coach).
  static var typedEngine: String? { get }

  /// Whether an event of `kind` carries one camera frame's results among its fields — `body`,
  /// `faces`, `people` and `coords` as a `landmarks` event has them, an optional `luma` plane
  /// and `frame_scalars` object — which the JSONL reader checks as it checks the hot payloads.
  /// Default: `false`.
  ///
  /// - Parameter kind: the kind name.
  /// - Returns: true for such a kind (Just Photo's `ref_analysis`).
  static func carriesFrame(_ kind: String) -> Bool
}

extension EventDefinitions {
  /// Whether a recording of `engine` holds named events when read or written with these
  /// definitions: its engine is not their ``typedEngine`` (or they have none). A reader handed
  /// one engine's definitions reads another engine's recording (its header, its named events)
  /// without mistaking its kinds for typed ones.
  ///
  /// - Parameter engine: the engine the recording's header names; nil for a malformed `engine`.
  /// - Returns: true for named events, false for the definitions' typed kinds.
  public static func namedEvents(in engine: String?) -> Bool { typedEngine == nil || typedEngine != engine }

  /// `false`: no kind carries a camera frame in its fields.
  ///
  /// - Parameter kind: the kind name.
  /// - Returns: false.
  public static func carriesFrame(_ kind: String) -> Bool { false }
}

/// One field of an event kind as `import` checks it: its name, JSON type, whether it must be
/// present (and not null), and the strings it allows when it is an enumeration.
public struct EventFieldInfo: Sendable, Equatable {
  /// The JSON type of a field's value.
  public enum ValueType: String, Sendable, Equatable {
    /// A number without fraction.
    case integer
    /// Any number.
    case number
    /// A string.
    case string
    /// `true` or `false`.
    case bool = "boolean"
    /// An object.
    case object
    /// An array.
    case array
    /// Any value.
    case any
  }
  /// The field's name.
  public var name: String
  /// Its JSON type.
  public var type: ValueType
  /// Whether every event of the kind carries it (not null).
  public var required: Bool
  /// The allowed strings, when the field is an enumeration.
  public var oneOf: [String]?

  /// A field.
  ///
  /// - Parameters:
  ///   - name: its name.
  ///   - type: its JSON type.
  ///   - required: whether it must be present (default true).
  ///   - oneOf: the allowed strings of an enumeration.
  public init(_ name: String, _ type: ValueType, required: Bool = true, oneOf: [String]? = nil) {
    self.name = name
    self.type = type
    self.required = required
    self.oneOf = oneOf
  }

  /// What this field's value must be, in the words import messages use.
  ///
  /// Example: `EventFieldInfo("state", .string, oneOf: ["nominal", "fair"]).expectation` is
  /// `one of "nominal", "fair"`.
  public var expectation: String { Self.expectation(type, oneOf: oneOf) }

  /// A value as import messages quote what they found: a string in quotes (cut at 40
  /// characters), a number in its shortest form, `true`/`false`, `null`, else its type.
  ///
  /// - Parameter v: the value found.
  /// - Returns: the phrase, e.g. `"serious"` or `an object`.
  public static func found(_ v: JSONValue) -> String {
    switch v {
    case .string(let s): return "\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
    case .number(let d): return "\(JSONWriter.shortest(d))"
    case .bool(let b): return "\(b)"
    case .null: return "null"
    default: return v.typeName
    }
  }

  /// What a value of `type` (or, for an enumeration, of `oneOf`) must be, in the words import
  /// messages use: "an integer", "a number", "true or false", "one of "a", "b"", ….
  ///
  /// - Parameters:
  ///   - type: the JSON type.
  ///   - oneOf: the allowed strings of an enumeration, nil otherwise.
  /// - Returns: the phrase.
  public static func expectation(_ type: ValueType, oneOf: [String]?) -> String {
    if let allowed = oneOf { return "one of " + allowed.map { "\"\($0)\"" }.joined(separator: ", ") }
    switch type {
    case .integer: return "an integer"
    case .number: return "a number"
    case .string: return "a string"
    case .bool: return "true or false"
    case .object: return "an object"
    case .array: return "an array"
    case .any: return "any value"
    }
  }
}
