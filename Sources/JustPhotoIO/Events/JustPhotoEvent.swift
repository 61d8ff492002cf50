import CanonicalJSON
import EngineIO

/// Just Photo's event vocabulary as the readers and writers use it: every kind but the hot
/// `landmarks` and `luma` decodes into its ``CoachEvent`` case through the kind's
/// ``EventDefinition`` (the one place event fields become a `CoachEvent`), and each kind's
/// channel and import fields are its definition's.
package enum JustPhotoEvents: EventDefinitions {
  package static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> CoachEvent {
    guard let kind = EventKind(rawValue: kind) else {
      throw EventDecodingError(kindName: kind, field: nil, "not a Just Photo event kind")
    }
    return try CoachEvent(decoding: kind, fields: fields)
  }

  package static func fields(of kind: String) -> [EventFieldInfo]? {
    EventKind(rawValue: kind)?.definition.fields.map {
      EventFieldInfo($0.name, $0.type, required: $0.required, oneOf: $0.oneOf)
    }
  }

  package static func channel(of kind: String) -> String? { EventKind(rawValue: kind)?.eventChannel.rawValue }

  /// Just Photo's recordings (header `engine` absent or `justphoto`) hold these typed kinds.
  package static let typedEngine: String? = "justphoto"

  /// Every ``EventKind`` in declaration order: the order is the `.jprec` kind codes of Just
  /// Photo's recordings (a new kind goes at the end).
  package static let kindTable: [String] = EventKind.allCases.map(\.rawValue)

  /// `ref_analysis` carries the reference photo's landmarks, luma plane and frame scalars.
  package static func carriesFrame(_ kind: String) -> Bool { kind == EventKind.ref_analysis.rawValue }
}

/// A Just Photo event of a non-hot kind: a ``TypedEvent`` whose typed value is a `CoachEvent`.
public typealias JustPhotoEvent = TypedEvent

extension TypedEvent {
  /// A Just Photo event of `kind` with `fields` in the order they are to be written, decoded
  /// into its typed form (see ``decodingError``).
  public init(kind: EventKind, fields: JSONObject = JSONObject()) {
    self.init(JustPhotoEvents.self, kind: kind.rawValue, fields: fields)
  }

  /// The Just Photo kind of this event; nil for a name Just Photo does not declare.
  public var eventKind: EventKind? { EventKind(rawValue: kind) }

  /// The typed form, or why the fields do not match the kind's definition (the engine refuses
  /// such an event; `import` refuses it before it is recorded).
  package var decoded: Result<CoachEvent, EventDecodingError> { decoded(as: CoachEvent.self) }
}

extension InputEvent {
  /// The Just Photo event kind: `landmarks` and `luma` from their typed payloads, any other
  /// from the typed event's kind name; nil for a kind Just Photo does not declare (another
  /// engine's ``InputPayload/named(_:)`` event).
  public var kind: EventKind? {
    switch payload {
    case .landmarks: .landmarks
    case .luma: .luma
    case .typed(let g): EventKind(rawValue: g.kind)
    case .named: nil
    }
  }
}

extension InputPayload {
  /// A Just Photo event of a non-hot kind (``TypedEvent/init(kind:fields:)``).
  public static func justPhoto(_ event: TypedEvent) -> InputPayload { .typed(event) }
}
