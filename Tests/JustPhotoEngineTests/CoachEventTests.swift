import CanonicalJSON
import EngineIO
import JustPhotoIO
import Testing

@testable import JustPhotoEngine

/// The typed events (JustPhotoIO/Events): every kind's payload is read through its definition, so
/// a sample built from the definition decodes, and each way of breaking it is refused naming the
/// field (docs/FORMAT.md is the list of fields, types and optionality).
@Suite("Typed events: definitions and decoding (ENGINE §1.5–1.6)") struct CoachEventTests {
  static let plane: JSONValue = .object(["w": 2, "h": 3, "enc": "u8-b64", "data": "AAECAwQF"])

  /// A valid value of `spec` (the first allowed string of an enumeration).
  static func sample(_ kind: EventKind, _ spec: EventFieldSpec) -> JSONValue {
    if kind == .ref_analysis && spec.field == .luma { return plane }
    switch spec.type {
    case .integer: return 3
    case .number: return 1.25
    case .string: return .string(spec.oneOf?[0] ?? "x")
    case .bool: return true
    case .object: return .object(JSONObject())
    case .array: return .array([])
    case .any: return .object(["domain": "PHPhotosErrorDomain", "code": 3311])
    }
  }

  /// A value of another JSON type than `spec` states (nil for `any`).
  static func wrongType(_ spec: EventFieldSpec) -> JSONValue? {
    switch spec.type {
    case .string, .object, .array: 7
    case .integer, .number, .bool: "seven"
    case .any: nil
    }
  }

  static var genericKinds: [EventKind] { EventKind.allCases.filter { $0 != .landmarks && $0 != .luma } }

  static func full(_ kind: EventKind) -> JSONObject {
    JSONObject(kind.definition.fields.map { JSONMember($0.name, sample(kind, $0)) })
  }

  static func decode(_ kind: EventKind, _ fields: JSONObject) -> Result<CoachEvent, EventDecodingError> {
    Result { () throws(EventDecodingError) in try CoachEvent(decoding: JustPhotoEvent(kind: kind, fields: fields)) }
  }

  @Test("every kind decodes from its definition's fields, all of them or only the required ones")
  func everyKindDecodes() throws {
    for kind in Self.genericKinds {
      let all = Self.decode(kind, Self.full(kind))
      #expect((try? all.get())?.kind == kind, "\(kind.rawValue): \(all)")
      let required = JSONObject(Self.full(kind).members.filter { kind.definition.spec($0.key)!.required })
      let minimal = Self.decode(kind, required)
      #expect((try? minimal.get())?.kind == kind, "\(kind.rawValue) with only required fields: \(minimal)")
    }
  }

  @Test("a missing or null required field, a value of another type and an unknown field are refused, naming the field")
  func everyWayOfBreakingAKindIsRefused() {
    for kind in Self.genericKinds {
      let full = Self.full(kind)
      for spec in kind.definition.fields {
        if spec.required {
          var missing = full
          missing[spec.name] = nil
          guard case .failure(let e) = Self.decode(kind, missing) else {
            Issue.record("\(kind.rawValue) without \(spec.name) decoded")
            continue
          }
          #expect(e.field == spec.name && e.problem.hasPrefix("missing field \"\(spec.name)\""), "\(e)")
          var null = full
          null[spec.name] = .null
          #expect(throws: EventDecodingError.self) { try CoachEvent(decoding: JustPhotoEvent(kind: kind, fields: null)) }
        }
        if let wrong = Self.wrongType(spec) {
          var bad = full
          bad[spec.name] = wrong
          guard case .failure(let e) = Self.decode(kind, bad) else {
            Issue.record("\(kind.rawValue) with \(spec.name) = \(wrong) decoded")
            continue
          }
          #expect(e.field == spec.name && e.problem.hasPrefix("field \"\(spec.name)\": expected"), "\(e)")
        }
        if let allowed = spec.oneOf {
          var bad = full
          bad[spec.name] = .string("not-\(allowed[0])")
          guard case .failure(let e) = Self.decode(kind, bad) else {
            Issue.record("\(kind.rawValue) with \(spec.name) outside \(allowed) decoded")
            continue
          }
          #expect(e.description == "\(kind.rawValue): field \"\(spec.name)\": expected one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")), found \"not-\(allowed[0])\"")
        }
      }
      var extra = full
      extra["colour"] = .string("red")
      guard case .failure(let e) = Self.decode(kind, extra) else {
        Issue.record("\(kind.rawValue) with an unknown field decoded")
        continue
      }
      #expect(e.field == "colour" && e.problem.hasPrefix("unknown field \"colour\" (expected "), "\(e)")
    }
  }

  @Test("typed values: enumerations, optional members, the stated default, the PhotoKit error's parts")
  func typedValues() throws {
    let thermal = try CoachEvent(decoding: JustPhotoEvent(kind: .thermal, fields: ["state": "serious"]))
    guard case .thermal(let t) = thermal else { throw Failure("not thermal") }
    #expect(t.state == .serious)
    guard
      case .refAnalysis(let ref) = try CoachEvent(
        decoding: JustPhotoEvent(kind: .ref_analysis, fields: ["ref_id": "r1", "body": .object(["nose": [0.5, 0.4, 0.9]])]))
    else { throw Failure("not ref_analysis") }
    #expect(ref.reference.coords == CoordinateConvention.canonical)  // the definition's default
    #expect(ref.reference.body?[Joint.nose] == JointPoint(x: 0.5, y: 0.4, conf: 0.9))
    #expect(ref.luma == nil && ref.scalars.isEmpty)
    guard
      case .photokitWriteResult(let w) = try CoachEvent(
        decoding: JustPhotoEvent(
          kind: .photokit_write_result,
          fields: [
            "shot": 2, "attempt": 1, "ok": false,
            "error": .object(["domain": "PHPhotosErrorDomain", "code": 3305, "underlying": .object(["domain": "NSPOSIXErrorDomain", "code": 28])]),
          ]))
    else { throw Failure("not photokit_write_result") }
    #expect(w.assetId == nil && w.error?.domain == "PHPhotosErrorDomain" && w.error?.code == 3305)
    #expect(w.error?.underlyingDomain == "NSPOSIXErrorDomain" && w.error?.underlyingCode == 28)
  }

  /// A recording that bypassed `import` (a `.jprec` written by other code) reaches the engine
  /// as it is: the engine refuses it instead of reading a default.
  @Test("the engine refuses an event whose fields do not match its definition, and does nothing else")
  func engineRefusesBadEvents() {
    var engine = Fixture.engine()
    _ = engine.start()
    let bad = engine.handle(InputEvent(t: 40, payload: .justPhoto(JustPhotoEvent(kind: .thermal, fields: ["state": "warm"]))))
    #expect(bad.refused?.description == #"thermal: field "state": expected one of "nominal", "fair", "serious", "critical", found "warm""#)
    #expect(bad.outputs.isEmpty && bad.timers.isEmpty && bad.diagnostics.isEmpty)
    let good = engine.handle(InputEvent(t: 50, payload: .justPhoto(JustPhotoEvent(kind: .thermal, fields: ["state": "serious"]))))
    #expect(good.refused == nil)
    #expect(good.outputs.contains { if case .tier = $0 { true } else { false } })
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
  }
}
