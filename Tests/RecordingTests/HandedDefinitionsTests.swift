import CanonicalJSON
import EngineIO
import Foundation
import Testing

@testable import Recording

/// Just Photo's definitions, but `thermal` also requires a field `zone` (which its typed value
/// leaves out).
private enum ThermalWithZone: EventDefinitions {
  static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> CoachEvent {
    var rest = fields
    rest["zone"] = nil
    return try JustPhotoEvents.decode(kind: kind, fields: rest)
  }
  static func fields(of kind: String) -> [EventFieldInfo]? {
    guard let fields = JustPhotoEvents.fields(of: kind) else { return nil }
    return kind == "thermal" ? fields + [EventFieldInfo("zone", .string)] : fields
  }
  static func channel(of kind: String) -> String? { JustPhotoEvents.channel(of: kind) }
}

/// Just Photo's definitions, but `thermal` is stored in the `ui` channel.
private enum ThermalInUI: EventDefinitions {
  static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> CoachEvent {
    try JustPhotoEvents.decode(kind: kind, fields: fields)
  }
  static func fields(of kind: String) -> [EventFieldInfo]? { JustPhotoEvents.fields(of: kind) }
  static func channel(of kind: String) -> String? { kind == "thermal" ? "ui" : JustPhotoEvents.channel(of: kind) }
}

/// Issue 36: Recording's readers, importer and recorder use the event definitions their caller
/// hands them (the recording's engine's), not a vocabulary of their own.
@Suite struct HandedDefinitionsTests {
  let thermal = #"{"t":5,"kind":"thermal","state":"fair"}"#

  func decode(_ line: String, _ definitions: any EventDefinitions.Type) -> Result<InputEvent, RecordingError> {
    do {
      return .success(try JSONLEventDecoder(file: "run.jsonl", line: 3, definitions: definitions).decode(try JSONParser.parse(line)))
    } catch let e as RecordingError { return .failure(e) } catch { return .failure(RecordingError(file: "?", "\(error)")) }
  }

  @Test func theJSONLDecoderChecksTheFieldsOfTheDefinitionsItIsHanded() throws {
    let event = try decode(thermal, JustPhotoEvents.self).get()
    guard case .typed(let g) = event.payload else { Issue.record("not typed: \(event)"); return }
    #expect(g.definitions.map(ObjectIdentifier.init) == ObjectIdentifier(JustPhotoEvents.self))
    guard case .failure(let e) = decode(thermal, ThermalWithZone.self) else { Issue.record("accepted without zone"); return }
    #expect(e.description == #"run.jsonl:3: thermal: missing field "zone" (a string)"#)
    let zoned = try decode(#"{"t":5,"kind":"thermal","state":"fair","zone":"a"}"#, ThermalWithZone.self).get()
    guard case .typed(let z) = zoned.payload else { Issue.record("not typed: \(zoned)"); return }
    #expect(z.definitions.map(ObjectIdentifier.init) == ObjectIdentifier(ThermalWithZone.self))
    // The JSONL writer orders the fields as the event's own definitions list them.
    #expect(JSONLEventEncoder.line(zoned) == #"{"t":5,"kind":"thermal","state":"fair","zone":"a"}"#)
  }

  @Test func noDefinitionsDeclareNoTypedKind() {
    guard case .failure(let e) = decode(thermal, NoEventDefinitions.self) else { Issue.record("a typed kind without definitions"); return }
    #expect(e.description.hasPrefix("run.jsonl:3: "))
    #expect(NoEventDefinitions.fields(of: "thermal") == nil && NoEventDefinitions.channel(of: "thermal") == nil)
  }

  @Test func theRecorderAndReaderStoreEachKindInTheHandedChannel() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("handed-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let event = InputEvent(t: 5, payload: .typed(TypedEvent(kind: .thermal, fields: ["state": "fair"])))
    let path = dir.appendingPathComponent("ui.jprec").path
    let r = try Recorder(path: path, header: ["format": "jp-replay/1"], definitions: ThermalInUI.self)
    try r.append(event)
    try r.finish()
    let reader = try RecordingReader(path: path, definitions: ThermalInUI.self)
    #expect(try reader.next() == event)
    #expect(try reader.next() == nil)
    // Read with Just Photo's own definitions, the event is in a channel they do not give it.
    #expect(throws: RecordingError.self) {
      let jp = try RecordingReader(path: path, definitions: JustPhotoEvents.self)
      while try jp.next() != nil {}
    }
    #expect(Doctor.check(path: path, definitions: ThermalInUI.self).status == .ok)
    #expect(Doctor.check(path: path, definitions: JustPhotoEvents.self).status != .ok)
    // A recorder handed no definitions has no channel for a typed kind: refused, not trapped.
    let none = try Recorder(path: dir.appendingPathComponent("none.jprec").path, header: ["format": "jp-replay/1"], definitions: NoEventDefinitions.self)
    let e = #expect(throws: RecordingError.self) { try none.append(event) }
    #expect(e?.description.contains("no .jprec channel") == true)
  }
}
