import EngineIO

/// The event vocabulary of a recording without an `engine` key (Just Photo's): the one place
/// Recording names it. The readers, codecs and writers read its kinds' channels, import fields
/// and decoding through ``EventDefinitions``, never through Just Photo's definition types.
let justPhotoEvents: any EventDefinitions.Type = JustPhotoEvents.self

/// The JSONL import schema: what `import` checks of each kind's fields (docs/FORMAT.md), as the
/// kind's vocabulary (``EventDefinitions``) states it.
extension EventKind {
  /// The fields of this kind (besides `t` and `kind`) that `import` checks, in the order the
  /// JSONL writer puts them. A field not listed is refused (`unknown field`).
  package var schema: [FieldSpec] { justPhotoEvents.fields(of: rawValue) ?? [] }
}

/// One field of an event kind's schema.
package typealias FieldSpec = EventFieldInfo
