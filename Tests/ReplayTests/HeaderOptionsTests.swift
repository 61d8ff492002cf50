import CanonicalJSON
import JustPhotoPlugin
import Replay
import Testing

/// `options.strictEffects` is read through an engine's own option catalogue when its vocabulary
/// has one (`HeaderOptionsVocabulary`: Just Photo's takes text values and checks every option),
/// directly otherwise (a JSON boolean, other options the engine's own). Replay tells them apart
/// by conformance, never by engine name (issue 36 item 1).
@Suite("Header options through the vocabulary")
struct HeaderOptionsTests {
  @Test func strictEffectsIsReadThroughTheVocabularysCatalogueElseDirectly() throws {
    let text = RecordingHeader(["options": .object(["strictEffects": "false"])])
    #expect(try text.strictEffects(for: JustPhotoVocabulary.self) == false)
    #expect(throws: BadInputError.self) { try text.strictEffects(for: CounterVocabulary.self) }

    let plain = RecordingHeader(["options": .object(["strictEffects": .bool(false)])])
    #expect(try plain.strictEffects(for: JustPhotoVocabulary.self) == false)
    #expect(try plain.strictEffects(for: CounterVocabulary.self) == false)

    let unknown = RecordingHeader(["options": .object(["noSuchOption": "1"])])
    #expect {
      _ = try unknown.strictEffects(for: JustPhotoVocabulary.self)
    } throws: { "\($0)".contains("noSuchOption") }
    #expect(try unknown.strictEffects(for: CounterVocabulary.self) == true)
    #expect(try RecordingHeader([:]).strictEffects(for: JustPhotoVocabulary.self) == true)
  }
}
