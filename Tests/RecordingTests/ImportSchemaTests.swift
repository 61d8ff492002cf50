import CanonicalJSON
import EngineIO
import JustPhotoIO
import Testing

@testable import Recording

/// Just Photo's import schema and `.jprec` channel of a kind, as the readers are handed them
/// (its event definitions): test sugar, Recording itself names no engine's vocabulary.
extension EventKind {
  var schema: [FieldSpec] { JustPhotoEvents.fields(of: rawValue) ?? [] }
  var channel: Channel { Channel(rawValue: JustPhotoEvents.channel(of: rawValue) ?? "")! }
}

/// The import schema and the channels are the event definitions (JustPhotoIO/Events): one per kind,
/// exhaustive by construction (a kind without one does not compile).
@Suite struct ImportSchemaTests {
  @Test func everyDefinitionIsItsOwnKindsWithDistinctFields() {
    for kind in EventKind.allCases {
      let d = kind.definition
      #expect(d.kind == kind, "\(kind.rawValue)'s definition is \(d.kind.rawValue)'s")
      #expect(Set(d.fields.map(\.name)).count == d.fields.count, "\(kind.rawValue) lists a field twice")
      #expect(kind.schema.map(\.name) == d.fields.map(\.name))
    }
  }

  /// Recording's kind table reads each kind's channel and import fields through the
  /// engine-agnostic `EventDefinitions` (issue 36): equal to the definitions for every kind,
  /// nothing for a name the vocabulary does not declare.
  @Test func theKindTableIsTheVocabularysThroughEventDefinitions() {
    for kind in EventKind.allCases {
      #expect(kind.channel.rawValue == kind.definition.channel.rawValue, "\(kind.rawValue)")
      #expect(JustPhotoEvents.channel(of: kind.rawValue) == kind.channel.rawValue)
      let fields = JustPhotoEvents.fields(of: kind.rawValue) ?? []
      #expect(fields.map(\.type.rawValue) == kind.definition.fields.map(\.type.rawValue), "\(kind.rawValue)")
      #expect(fields.map(\.oneOf) == kind.definition.fields.map(\.oneOf), "\(kind.rawValue)")
      #expect(fields == kind.schema)
    }
    #expect(JustPhotoEvents.channel(of: "swipe") == nil)
    #expect(JustPhotoEvents.fields(of: "swipe") == nil)
    #expect(KindTable.channels(of: JustPhotoEvents.kindTable, JustPhotoEvents.self).allSatisfy { $0 != nil })
    #expect(KindTable.channels(of: NoEventDefinitions.kindTable, NoEventDefinitions.self).allSatisfy { $0 == nil })
  }

  @Test func aRowIsWhatImportChecks() {
    #expect(EventKind.thermal.schema.map(\.name) == ["state"])
    #expect(EventKind.thermal.schema.first?.oneOf == ["nominal", "fair", "serious", "critical"])
    #expect(EventKind.shutter_tap.schema.isEmpty)
    #expect(EventKind.photokit_write_result.schema.filter(\.required).map(\.name) == ["shot", "attempt", "ok"])
    #expect(EventKind.prompt_action.schema.map(\.name) == ["key", "action_id", "item"])
    #expect(EventKind.prompt_action.schema.map(\.required) == [true, true, false])
  }

  /// DESIGN §3: one channel per event family.
  @Test func channelsFollowTheEventFamilies() {
    #expect(EventKind.landmarks.channel == .landmarks)
    #expect(EventKind.luma.channel == .pixels)
    #expect(EventKind.frame_scalars.channel == .pixels)
    #expect(EventKind.white_balance.channel == .sensors)
    #expect(EventKind.thermal.channel == .device)
    #expect(EventKind.app_launch.channel == .device)
    #expect(EventKind.shutter_tap.channel == .ui)
    #expect(EventKind.ref_analysis.channel == .ui)
    #expect(EventKind.photo_data.channel == .effects)
    #expect(EventKind.pending_write_failed.channel == .effects)
    #expect(EventKind.label.channel == .label)
    #expect(Set(EventKind.allCases.map(\.channel)) == Set(Channel.allCases))
  }

  func decode(_ line: String) -> RecordingError? {
    do {
      _ = try JSONLEventDecoder(file: "run.jsonl", line: 7, definitions: JustPhotoEvents.self).decode(try JSONParser.parse(line))
      return nil
    } catch let e as RecordingError { return e } catch { return RecordingError(file: "?", "\(error)") }
  }

  /// A field the kind does not define is refused, naming file, line, field and what is expected.
  @Test func anUnknownFieldIsAnImportError() {
    let e = decode(#"{"t":5,"kind":"thermal","state":"fair","temp":41}"#)
    #expect(e?.description == #"run.jsonl:7: thermal: unknown field "temp" (expected state)"#)
    #expect(e?.field == "temp")
    let none = decode(#"{"t":5,"kind":"shutter_tap","force":true}"#)
    #expect(none?.description == #"run.jsonl:7: shutter_tap: unknown field "force" (expected no fields besides t and kind)"#)
    #expect(decode(#"{"t":5,"kind":"prompt_action","key":"write_failed","action_id":"retry","item":3}"#) == nil)
  }

  @Test func anUnknownKindIsAnImportError() {
    let e = decode(#"{"t":5,"kind":"battery","level":0.5}"#)
    #expect(e?.description.hasPrefix(#"run.jsonl:7: field "kind": unknown event kind "battery""#) == true)
  }

  /// What the typed payload checks beyond the field types is refused at import too (what
  /// imports, replays): a `frame_scalars` value that is not a number.
  @Test func aPayloadTheEngineCannotReadIsAnImportError() {
    let e = decode(#"{"t":5,"kind":"frame_scalars","values":{"faceLumaMean":"dark"}}"#)
    #expect(
      e?.description
        == #"run.jsonl:7: frame_scalars: field "values": expected an object {metric: number}, found faceLumaMean: "dark""#)
    #expect(e?.field == "values")
  }
}
