import EngineIO

// The JSONL import schema: what `import` checks of each kind's fields (docs/FORMAT.md) is what
// the recording's engine's vocabulary (``EventDefinitions``) states, handed to the readers by
// their caller (the engine's plug-in or vocabulary); Recording names no engine's vocabulary.

/// One field of an event kind's schema.
package typealias FieldSpec = EventFieldInfo
