import CanonicalJSON

/// The definitions of an engine that declares no typed kinds: every event of its recordings is
/// a named event (header `engine`), which its own vocabulary checks. It declares no kind, so an
/// event read through it as a typed kind is refused, never guessed.
///
/// Example: a reader that only needs a recording's header, or a plug-in without typed kinds,
/// passes `NoEventDefinitions.self`.
public enum NoEventDefinitions: EventDefinitions {
  /// Never: there is no typed kind.
  ///
  /// - Parameters:
  ///   - kind: the kind name.
  ///   - fields: the event's fields.
  /// - Returns: nothing; throws that `kind` is not a typed kind of this engine.
  public static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> Never {
    throw EventDecodingError(kindName: kind, field: nil, "not a typed event kind of this engine (its events are named events)")
  }

  /// nil: no kind is declared.
  ///
  /// - Parameter kind: the kind name.
  /// - Returns: nil.
  public static func fields(of kind: String) -> [EventFieldInfo]? { nil }

  /// nil: no kind is declared.
  ///
  /// - Parameter kind: the kind name.
  /// - Returns: nil.
  public static func channel(of kind: String) -> String? { nil }
}
