import CanonicalJSON
import EngineIO
import JustPhotoIO
import Testing

/// Issue 36: an event of a non-hot kind is engine-agnostic in EngineIO (`InputPayload.typed`):
/// its kind name, its fields as recorded, and the value its engine's `EventDecoding` made of
/// them, decoded once when the event is made and shared by every copy.
@Suite("TypedEvent: engine-agnostic typed payload")
struct TypedEventTests {
  /// A decoded value with identity, to see that copies share one decode.
  final class Token: Sendable {
    let kind: String
    let n: Int
    init(kind: String, n: Int) {
      self.kind = kind
      self.n = n
    }
  }

  /// A vocabulary of one kind, `press {n: integer}`.
  enum PressEvents: EventDecoding {
    static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> Token {
      guard kind == "press" else { throw EventDecodingError(kindName: kind, field: nil, "not a press") }
      guard let n = fields["n"]?.int64Value else { throw EventDecodingError(kindName: kind, field: "n", "missing field \"n\"") }
      return Token(kind: kind, n: Int(n))
    }
  }

  /// Another engine's vocabulary: every kind decodes to a string.
  enum OtherEvents: EventDecoding {
    static func decode(kind: String, fields: JSONObject) throws(EventDecodingError) -> String { kind }
  }

  @Test("decoded once when made: every copy of the event reads the same typed value")
  func decodedOnce() throws {
    let e = InputEvent(t: 5, payload: .typed(TypedEvent(PressEvents.self, kind: "press", fields: ["n": 3])))
    let copies = Array(repeating: e, count: 4)
    var tokens: [Token] = []
    for c in copies {
      guard case .typed(let g) = c.payload else { Issue.record("not typed"); return }
      tokens.append(try g.decoded(as: Token.self).get())
    }
    #expect(tokens.allSatisfy { $0 === tokens[0] })
    #expect(tokens[0].n == 3)
    #expect(e.kindName == "press")
    #expect(e.kind == nil, "press is no Just Photo kind")
    #expect(e.jsonFields == ["n": 3])
  }

  @Test("a decoding failure is kept with the event: decodingError and decoded(as:) name it")
  func failureKept() {
    let g = TypedEvent(PressEvents.self, kind: "press", fields: ["m": 1])
    #expect(g.decodingError == EventDecodingError(kindName: "press", field: "n", "missing field \"n\""))
    #expect(throws: EventDecodingError.self) { try g.decoded(as: Token.self).get() }
    #expect(TypedEvent(PressEvents.self, kind: "press", fields: ["n": 1]).decodingError == nil)
  }

  @Test("a value another engine's decoder made is refused, not cast")
  func otherEnginesValueRefused() {
    let g = TypedEvent(OtherEvents.self, kind: "press", fields: ["n": 1])
    #expect(g.decodingError == nil)
    #expect(throws: EventDecodingError.self) { try g.decoded(as: Token.self).get() }
    #expect((try? g.decoded(as: String.self).get()) == "press")
  }

  @Test("equality is kind and fields: the typed value follows from them")
  func equality() {
    let a = TypedEvent(PressEvents.self, kind: "press", fields: ["n": 1])
    #expect(a == TypedEvent(OtherEvents.self, kind: "press", fields: ["n": 1]))
    #expect(a != TypedEvent(PressEvents.self, kind: "press", fields: ["n": 2]))
    #expect(a != TypedEvent(PressEvents.self, kind: "push", fields: ["n": 1]))
  }

  @Test("a Just Photo event travels as .typed: its kind, fields and the decoder's refusal")
  func justPhotoEventIsTyped() {
    let good = InputEvent(t: 0, payload: .justPhoto(JustPhotoEvent(kind: .thermal, fields: ["state": "serious"])))
    guard case .typed(let g) = good.payload else { Issue.record("not typed"); return }
    #expect(good.kind == .thermal)
    #expect(good.kindName == "thermal")
    #expect(g.eventKind == .thermal)
    #expect(g.decodingError == nil)
    let bad = JustPhotoEvent(kind: .thermal, fields: ["state": "warm"])
    #expect(bad.decodingError?.kindName == "thermal")
    #expect(bad.decodingError?.field == "state")
    #expect(bad.decodingError?.kind == .thermal)
  }
}
