import EngineIO

/// The JSONL import schema: what `import` checks of each kind's fields (docs/FORMAT.md). It is
/// the kind's `EventDefinition` (EngineIO/Events), which the engine's typed payload is read through.
extension EventKind {
  /// The fields of this kind (besides `t` and `kind`) that `import` checks, in the order the
  /// JSONL writer puts them. A field not listed is refused (`unknown field`).
  package var schema: [FieldSpec] { definition.fields.map(FieldSpec.init) }
}

/// One field of an event kind's schema.
package struct FieldSpec: Sendable {
  package enum ValueType: String, Sendable {
    case integer, number, string, bool = "boolean", object, array, any
  }
  package var name: String
  package var type: ValueType
  package var required: Bool
  /// Allowed string values, when the field is an enumeration.
  package var oneOf: [String]?
  package init(_ name: String, _ type: ValueType, required: Bool = true, oneOf: [String]? = nil) {
    self.name = name
    self.type = type
    self.required = required
    self.oneOf = oneOf
  }
  init(_ spec: EventFieldSpec) {
    self.init(spec.name, ValueType(rawValue: spec.type.rawValue)!, required: spec.required, oneOf: spec.oneOf)
  }
}
