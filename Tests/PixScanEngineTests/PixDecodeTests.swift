import CanonicalJSON
import PixScanEngine
import Testing

/// Input decoding and the store snapshot: every refusal names the field and the expectation;
/// encode and decode are inverse; the store round-trips.
@Suite("PixScan decoding and store")
struct PixDecodeTests {
  static func decodeError(_ kind: String, _ fields: JSONObject) -> PixDecodeError? {
    do {
      _ = try PixInput.decode(kind: kind, fields: fields)
      return nil
    } catch { return error }
  }

  @Test func unknownKindNamesTheKinds() throws {
    let e = try #require(Self.decodeError("swype", ["direction": "left"]))
    #expect(e.field == nil && e.message.contains("unknown input kind") && e.message.contains("swipe"))
  }

  @Test func unknownMissingAndMistypedFields() throws {
    var e = try #require(Self.decodeError("swipe", ["direction": "left", "speed": 3]))
    #expect(e.field == "speed" && e.message.contains("unknown field") && e.message.contains("direction"))
    e = try #require(Self.decodeError("swipe", [:]))
    #expect(e.field == "direction" && e.message == "missing field")
    e = try #require(Self.decodeError("swipe", ["direction": 1]))
    #expect(e.field == "direction" && e.message == "expected a string, found number")
    e = try #require(Self.decodeError("swipe", ["direction": "sideways"]))
    #expect(e.description == "swipe.direction: expected one of right, left, down, up, found \"sideways\"")
    e = try #require(Self.decodeError("undo", ["x": true]))
    #expect(e.field == "x" && e.message.contains("no fields"))
    e = try #require(Self.decodeError("delete_result", ["batch": 1.5, "outcome": "ok"]))
    #expect(e.field == "batch" && e.message.contains("integer"))
    e = try #require(Self.decodeError("delete_result", ["batch": 0, "outcome": "ok"]))
    #expect(e.field == "batch" && e.message.contains("PixLimits.batchMax"))
    e = try #require(Self.decodeError("permission_result", ["status": "not_determined"]))
    #expect(e.field == "status")
    // A field given twice (an object built in memory: the parser refuses it in text), before
    // or after another field; an asset's field given twice is named with its place.
    e = try #require(Self.decodeError("swipe", JSONObject([JSONMember("direction", "left"), JSONMember("direction", "up")])))
    #expect(e.field == "direction" && e.message == "field given twice")
    let twice = JSONObject([JSONMember("batch", 1), JSONMember("outcome", "ok"), JSONMember("batch", 1)])
    e = try #require(Self.decodeError("delete_result", twice))
    #expect(e.field == "batch" && e.message == "field given twice")
    let asset: JSONValue = .object(
      JSONObject([JSONMember("id", "a"), JSONMember("created", 1), JSONMember("screenshot", false), JSONMember("bytes", 1), JSONMember("id", "b")]))
    e = try #require(Self.decodeError("library_snapshot", ["assets": [asset]]))
    #expect(e.field == "assets[0].id" && e.message == "field given twice", "\(e)")
  }

  @Test func fieldsThatDoNotGoTogether() throws {
    var e = try #require(Self.decodeError("ocr_result", ["photo": "a", "ok": false, "text": "x"]))
    #expect(e.field == "text" && e.message.contains("ok is false"))
    e = try #require(Self.decodeError("ocr_result", ["photo": "a", "ok": true]))
    #expect(e.field == "text" && e.message == "missing field")
    e = try #require(Self.decodeError("delete_sheet", ["action": "open", "photo": "a"]))
    #expect(e.field == "photo")
    e = try #require(Self.decodeError("delete_sheet", ["action": "select"]))
    #expect(e.field == "photo" && e.message == "missing field")
    e = try #require(Self.decodeError("onboarding", ["action": "tap_icon", "icon": "star"]))
    #expect(e.field == "icon" && e.message.contains("trash, ocr"))
    e = try #require(Self.decodeError("delete_result", ["batch": 1, "outcome": "ok", "error": "x"]))
    #expect(e.field == "error")
  }

  @Test func assetsAndLimits() throws {
    let good: JSONValue = .object(["id": "a", "created": 5, "screenshot": false, "bytes": 10])
    var e = try #require(Self.decodeError("library_snapshot", ["assets": [good, .object(["id": "b", "created": 5, "screenshot": "no", "bytes": 1])]]))
    #expect(e.field == "assets[1].screenshot" && e.message.contains("true or false"))
    e = try #require(Self.decodeError("library_snapshot", ["assets": [good, good]]))
    #expect(e.field == "assets[1].id" && e.message.contains("twice"))
    e = try #require(Self.decodeError("library_snapshot", ["assets": [.object(["id": "a", "created": 5, "screenshot": false])]]))
    #expect(e.field == "assets[0].bytes")
    e = try #require(Self.decodeError("ocr_result", ["photo": .string(String(repeating: "x", count: PixLimits.idBytesMax + 1)), "ok": false]))
    #expect(e.field == "photo" && e.message.contains("PixLimits.idBytesMax"))
    e = try #require(Self.decodeError("ocr_result", ["photo": "a", "ok": true, "text": .string(String(repeating: "t", count: PixLimits.textBytesMax + 1))]))
    #expect(e.field == "text" && e.message.contains("PixLimits.textBytesMax"))
    let many = JSONValue.array(Array(repeating: good, count: PixLimits.libraryMax + 1))
    e = try #require(Self.decodeError("library_snapshot", ["assets": many]))
    #expect(e.field == "assets" && e.message.contains("PixLimits.libraryMax"))
  }

  static let samples: [PixInput] = [
    .appLaunch(permission: .notDetermined, store: nil),
    .appLaunch(permission: .limited, store: PixStore(onboarded: true, filter: .screenshots, processed: ["a"], queue: ["a"], texts: [PixTextEntry(photo: "a", text: "hi", t: 5)], nextBatch: 3)),
    .appKill, .librarySnapshot([PixAsset(id: "a", created: -5, screenshot: true, bytes: 9)]), .permissionTap,
    .permissionResult(.denied), .swipe(.up), .undo, .filterMode(.screenshots),
    .ocrResult(photo: "a", outcome: .text("")), .ocrResult(photo: "a", outcome: .failed(error: nil)),
    .ocrResult(photo: "a", outcome: .failed(error: "e")),
    .deleteSheet(.open), .deleteSheet(.close), .deleteSheet(.select("a")), .deleteSheet(.deselect("a")),
    .deleteSheet(.deleteSelected), .deleteSheet(.deleteAll),
    .deleteResult(batch: 2, outcome: .ok), .deleteResult(batch: 2, outcome: .cancelled), .deleteResult(batch: 2, outcome: .error(nil)),
    .deleteResult(batch: 2, outcome: .error("busy")),
    .onboarding(.next), .onboarding(.practiceSwipe(.left)), .onboarding(.tapIcon(.ocr)),
  ]

  @Test func encodeDecodeRoundTrip() throws {
    var kinds = Set<String>()
    for input in Self.samples {
      let (kind, fields) = input.encode()
      kinds.insert(kind)
      #expect(kind == input.kind.rawValue)
      #expect(fields.keys.allSatisfy(input.kind.fields.contains), "\(kind): \(fields.keys)")
      #expect(try PixInput.decode(kind: kind, fields: fields) == input)
    }
    #expect(kinds == Set(PixInputKind.allCases.map(\.rawValue)))
  }

  @Test func channelsAndResults() {
    #expect(PixInputKind.allCases.filter(\.isEffectResult) == [.permissionResult, .ocrResult, .deleteResult])
    #expect(PixInputKind.swipe.channel == "ui" && PixInputKind.librarySnapshot.channel == "device")
    let ocr = PixEffectRequest.ocr(photo: "p")
    #expect(ocr.resultKind == .ocrResult && ocr.key == ["photo": "p"])
    #expect(ocr.isAnswered(by: .ocrResult(photo: "p", outcome: .text("x"))))
    #expect(!ocr.isAnswered(by: .ocrResult(photo: "q", outcome: .text("x"))))
    let batch = PixEffectRequest.deleteBatch(batch: 4, ids: ["p"], bytes: 1)
    #expect(batch.key == ["batch": 4] && batch.isAnswered(by: .deleteResult(batch: 4, outcome: .ok)))
    #expect(!batch.isAnswered(by: .deleteResult(batch: 5, outcome: .ok)))
    #expect(PixEffectRequest.prefetch(["p"]).resultKind == nil)
    #expect(PixEffectRequest.requestPermission.isAnswered(by: .permissionResult(.limited)))
  }

  @Test func storeRoundTripAndDefaults() throws {
    let s = PixStore(
      onboarded: true, filter: .screenshots, processed: ["b", "a"], queue: ["a"],
      texts: [PixTextEntry(photo: "a", text: "x\ny", t: 12)], nextBatch: 7)
    let json = s.json()
    #expect(json.keys == PixStore.keys)
    #expect(try PixStore(json: json) == s)
    #expect(try PixStore(json: [:]) == PixStore())
    #expect(try PixStore(json: ["onboarding_completed": true]) == PixStore(onboarded: true))
  }

  @Test func storeRefusals() throws {
    func err(_ o: JSONObject) -> PixDecodeError? {
      do {
        _ = try PixStore(json: o)
        return nil
      } catch { return error }
    }
    var e = try #require(err(["onboarded": true]))
    #expect(e.field == "onboarded" && e.message.contains("onboarding_completed"))
    e = try #require(err(["processed_ids": ["a", "a"]]))
    #expect(e.field == "processed_ids[1]" && e.message.contains("twice"))
    e = try #require(err(["delete_queue": [1]]))
    #expect(e.field == "delete_queue[0]")
    e = try #require(err(["recognized_texts": [.object(["photo": "a", "text": "", "t": 1])]]))
    #expect(e.field == "recognized_texts[0].text")
    e = try #require(err(["processed_ids": .array(Array(repeating: "a", count: PixLimits.processedMax + 1))]))
    #expect(e.field == "processed_ids" && e.message.contains("PixLimits.processedMax"))
    e = try #require(err(["next_batch": 0]))
    #expect(e.field == "next_batch")
    // Through the launch event: the error keeps the store's field.
    let launch = try #require(Self.decodeError("app_launch", ["permission": "authorized", "store": .object(["filter_mode": "recent"])]))
    #expect(launch.field == "store" && launch.message.contains("filter_mode"))
  }

  @Test("render writes out first, then fields in PixOutputKind.fields order; fields() is the same without out")
  func renderOrder() {
    let outputs: [PixOutput] = [
      .app(state: "launched", permission: .authorized, onboarded: true, restored: false), .screen(name: .main, limited: false),
      .onboarding(step: "practice", cardsLeft: 2, icon: nil), .library(count: 1, screenshots: 0, prunedProcessed: 0, prunedQueued: 0),
      .filter(.all), .action(photo: "p", index: 0, direction: .up),
      .undo(photo: "p", index: 0, queueRemoved: true, textRemoved: false, ocrDropped: false), .photo(id: "p", index: 1, canUndo: true),
      .progress(PixProgress(processed: 1, total: 3, kept: 1, deleted: 0, ocr: 0)), .queue(op: .added, photo: "p", changed: 1, count: 1),
      .text(count: 1, entry: PixTextEntry(photo: "p", text: "t", t: 3)),
      .sheet(state: "open", items: 1, bytes: 2, selected: 0, selectedBytes: 0),
      .message(key: .deleteFailed, photo: "p", batch: 1, count: 2, error: "e"),
      .effect(.deleteBatch(batch: 1, ids: ["p"], bytes: 5)), .ignored(input: "undo", reason: .nothingToUndo),
      .store(PixStoreCounts(PixStore())),
    ]
    #expect(Set(outputs.map(\.kind)) == Set(PixOutputKind.allCases))
    for o in outputs {
      let keys = o.render().keys
      #expect(keys.first == "out")
      #expect(Array(keys.dropFirst()) == o.kind.fields.filter(keys.contains), "\(o.kind): \(keys)")
    }
    // `fields()` (a trace record's fields) is `render()` without `out`, member for member,
    // absent optionals and every effect request included.
    let more: [PixOutput] = [
      .app(state: "killed", permission: nil, onboarded: nil, restored: nil), .onboarding(step: "done", cardsLeft: nil, icon: .ocr),
      .undo(photo: "p", index: nil, queueRemoved: false, textRemoved: true, ocrDropped: true), .photo(id: nil, index: nil, canUndo: false),
      .queue(op: .pruned, photo: nil, changed: 2, count: 0), .message(key: .queuePruned, count: 1), .message(key: .ocrNoText),
      .effect(.ocr(photo: "p")), .effect(.prefetch(["a", "b"])), .effect(.requestPermission),
    ]
    for o in outputs + more {
      #expect(o.fields().members == Array(o.render().members.dropFirst()), "\(o.kind)")
      if case .effect(let r) = o {
        #expect(o.fields() == r.fields())
        #expect(r.ownFields().members == Array(r.fields().members.dropFirst()) && r.fields().keys.first == "kind")
      }
    }
    #expect(PixOutput.progress(PixProgress(processed: 1, total: 3, kept: 1, deleted: 0, ocr: 0)).render()["fraction"] == .number(1.0 / 3.0))
    #expect(PixOutput.progress(PixProgress(processed: 0, total: 0, kept: 0, deleted: 0, ocr: 0)).render()["fraction"] == 0)
  }
}

extension PixDecodeTests {
  @Test("effect rules agree with the requests: kinds, keys, and a made-up success answers its request")
  func effectRules() throws {
    let requests: [PixEffectRequest] = [.ocr(photo: "p"), .deleteBatch(batch: 3, ids: ["p"], bytes: 1), .requestPermission, .prefetch(["p"])]
    for r in requests {
      let rule = PixEffectRule.all.first { $0.request == r.kind }
      #expect((rule == nil) == (r.resultKind == nil), "\(r.kind)")
      guard let rule else { continue }
      #expect(rule.results == [r.resultKind!.rawValue])
      #expect(rule.keyFields == r.key.keys)
      var fields = JSONObject()
      for k in rule.keyFields { fields[k] = r.fields()[k] }
      fields.members += rule.successFields.members
      let answer = try PixInput.decode(kind: rule.results[0], fields: fields)
      #expect(r.isAnswered(by: answer), "\(r.kind)")
    }
    for k in PixInputKind.allCases {
      #expect(k.required.map(\.name) == Array(k.fields.prefix(k.required.count)), "\(k): required fields come first")
    }
    #expect(PixInputKind.allCases.filter(\.launches) == [.appLaunch] && PixInputKind.allCases.filter(\.endsProcess) == [.appKill])
  }
}
