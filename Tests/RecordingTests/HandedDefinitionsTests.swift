import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoIO
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
  static var kindTable: [String] { JustPhotoEvents.kindTable }
  static var typedEngine: String? { JustPhotoEvents.typedEngine }
}

/// Just Photo's definitions, but `thermal` is stored in the `ui` channel.
private enum ThermalInUI: EventDefinitions {
  static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> CoachEvent {
    try JustPhotoEvents.decode(kind: kind, fields: fields)
  }
  static func fields(of kind: String) -> [EventFieldInfo]? { JustPhotoEvents.fields(of: kind) }
  static func channel(of kind: String) -> String? { kind == "thermal" ? "ui" : JustPhotoEvents.channel(of: kind) }
  static var kindTable: [String] { JustPhotoEvents.kindTable }
  static var typedEngine: String? { JustPhotoEvents.typedEngine }
}

/// Just Photo's kinds and table without a channel for any of them.
private enum NoChannels: EventDefinitions {
  static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> CoachEvent {
    try JustPhotoEvents.decode(kind: kind, fields: fields)
  }
  static func fields(of kind: String) -> [EventFieldInfo]? { JustPhotoEvents.fields(of: kind) }
  static func channel(of kind: String) -> String? { nil }
  static var kindTable: [String] { JustPhotoEvents.kindTable }
  static var typedEngine: String? { JustPhotoEvents.typedEngine }
}

/// Just Photo's definitions with the kind table reversed: a recording written with them
/// stores each kind under another code.
private enum ReversedTable: EventDefinitions {
  static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> CoachEvent {
    try JustPhotoEvents.decode(kind: kind, fields: fields)
  }
  static func fields(of kind: String) -> [EventFieldInfo]? { JustPhotoEvents.fields(of: kind) }
  static func channel(of kind: String) -> String? { JustPhotoEvents.channel(of: kind) }
  static var kindTable: [String] { JustPhotoEvents.kindTable.reversed() }
  static var typedEngine: String? { JustPhotoEvents.typedEngine }
}

/// Just Photo's definitions, but their recordings hold named events.
private enum NamedJustPhoto: EventDefinitions {
  static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> CoachEvent {
    try JustPhotoEvents.decode(kind: kind, fields: fields)
  }
  static func fields(of kind: String) -> [EventFieldInfo]? { JustPhotoEvents.fields(of: kind) }
  static func channel(of kind: String) -> String? { JustPhotoEvents.channel(of: kind) }
  static var kindTable: [String] { JustPhotoEvents.kindTable }
  static var typedEngine: String? { nil }
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
    // A recorder handed definitions without a channel for a typed kind: refused, not trapped.
    let none = try Recorder(path: dir.appendingPathComponent("none.jprec").path, header: ["format": "jp-replay/1"], definitions: NoChannels.self)
    let e = #expect(throws: RecordingError.self) { try none.append(event) }
    #expect(e?.description.contains("no .jprec channel") == true)
    // A recorder handed no definitions records named events: a typed one is refused.
    let named = try Recorder(path: dir.appendingPathComponent("named.jprec").path, header: ["format": "jp-replay/1"], definitions: NoEventDefinitions.self)
    let n = #expect(throws: RecordingError.self) { try named.append(event) }
    #expect(n?.description.contains("its events are named events") == true)
  }

  /// Issue 36: the `.jprec` kind table a recording starts with is the handed definitions'
  /// (`EventDefinitions.kindTable`), not a vocabulary of Recording's own: the codes follow it,
  /// and the file reads back with its own table.
  @Test func theKindTableIsTheHandedDefinitions() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("table-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let events = [
      InputEvent(t: 0, payload: .landmarks(LandmarkFrame(frame: 1))),
      InputEvent(t: 5, payload: .typed(TypedEvent(kind: .thermal, fields: ["state": "fair"]))),
      InputEvent(t: 9, payload: .luma(LumaFrame(frame: 1, w: 1, h: 1, data: [7]))),
    ]
    var tables: [[String]] = []
    for (name, definitions) in [("jp", JustPhotoEvents.self), ("reversed", ReversedTable.self)] as [(String, any EventDefinitions.Type)] {
      let path = dir.appendingPathComponent("\(name).jprec").path
      let r = try Recorder(path: path, header: ["format": "jp-replay/1"], definitions: definitions)
      for e in events { try r.append(e) }
      try r.finish()
      let reader = try RecordingReader(path: path, definitions: JustPhotoEvents.self)
      tables.append(reader.kindNames)
      var read: [InputEvent] = []
      while let e = try reader.next() { read.append(e) }
      #expect(read == events, "\(name)")
    }
    #expect(tables == [JustPhotoEvents.kindTable, JustPhotoEvents.kindTable.reversed()])
    #expect(JustPhotoEvents.kindTable == EventKind.allCases.map(\.rawValue))
  }

  /// Issue 36: whether a recording's events are named is the handed definitions' word
  /// (`EventDefinitions.typedEngine` against the header), not a comparison with Just Photo's name.
  @Test func namedEventsAreTheDefinitionsWord() throws {
    let text = "{\"format\":\"jp-replay/1\"}\n" + thermal + "\n"
    let typed = try JSONLReader(bytes: Array(text.utf8), path: "run.jsonl", definitions: JustPhotoEvents.self)
    guard case .typed = try typed.next()?.payload else { Issue.record("not typed"); return }
    let named = try JSONLReader(bytes: Array(text.utf8), path: "run.jsonl", definitions: NamedJustPhoto.self)
    guard case .named(let n) = try named.next()?.payload else { Issue.record("not named"); return }
    #expect(n.kind == "thermal" && n.fields == ["state": "fair"])
    // Another engine's recording read with Just Photo's definitions: named events, as its
    // header says (the CLI reads any recording's header and events so, then routes it).
    let beep = "{\"format\":\"jp-replay/1\",\"engine\":\"beep\"}\n" + thermal + "\n"
    let other = try JSONLReader(bytes: Array(beep.utf8), path: "run.jsonl", definitions: JustPhotoEvents.self)
    guard case .named = try other.next()?.payload else { Issue.record("not named"); return }
    #expect(JustPhotoEvents.namedEvents(in: "beep") && !JustPhotoEvents.namedEvents(in: "justphoto"))
    #expect(NoEventDefinitions.namedEvents(in: "justphoto") && NoEventDefinitions.namedEvents(in: nil))
    // A named recording's table starts with the definitions' table; its kinds reuse their codes.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("named-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("n.jprec").path
    let r = try Recorder(path: path, header: ["format": "jp-replay/1"], definitions: NamedJustPhoto.self)
    try r.append(InputEvent(t: 1, payload: .named(n)))
    try r.append(InputEvent(t: 2, payload: .named(NamedEvent(kind: "swipe", fields: ["d": "up"]))))
    try r.finish()
    let reader = try RecordingReader(path: path, definitions: NamedJustPhoto.self)
    #expect(reader.kindNames == JustPhotoEvents.kindTable + ["swipe"])
    guard case .named(let back) = try reader.next()?.payload else { Issue.record("not named"); return }
    #expect(back == n)
  }
}
