import EngineIO
import CanonicalJSON
import JustPhotoIO
import Recording
import Testing

/// `RecordingError.field`: the event field a decoding problem is about, as a value (the
/// scenario parser points at that field's line with it instead of reading the message).
@Suite struct EventFieldErrorTests {
  func field(_ line: String) throws -> String?? {
    let value = try JSONParser.parse(line)
    do {
      _ = try JSONLEventDecoder(file: "f.jsonl", line: 3, definitions: JustPhotoEvents.self).decode(value)
      return .none
    } catch { return .some(error.field) }
  }

  @Test func schemaAndTopLevelProblemsNameTheField() throws {
    #expect(try field(#"{"t": 5, "kind": "thermal", "state": "hot"}"#) == .some("state"))
    #expect(try field(#"{"t": -1, "kind": "thermal", "state": "fair"}"#) == .some("t"))
    #expect(try field(#"{"t": 5, "kind": "thermo"}"#) == .some("kind"))
    #expect(try field(#"{"t": 5, "kind": "ref_analysis", "ref_id": "r", "people": "two"}"#) == .some("people"))
    #expect(try field(#"{"t": 5, "kind": "ref_analysis", "ref_id": "r", "extra": 1}"#) == .some("extra"))
    #expect(try field(#"{"t": 5, "kind": "thermal", "state": "fair"}"#) == .none)
  }

  @Test func aProblemInsideAFieldsValueNamesNoTopLevelField() throws {
    // A face's box is nested: the message says where, no top-level field is at fault.
    #expect(try field(#"{"t": 5, "kind": "landmarks", "frame": 1, "faces": [{"bbox": [1]}]}"#) == .some(nil))
  }

  @Test func aReferencesLandmarkProblemsAreLabelledRefAnalysisWithoutRewritingTheValue() throws {
    let line = #"{"t": 5, "kind": "ref_analysis", "ref_id": "r", "coords": "landmarks: up"}"#
    let value = try JSONParser.parse(line)
    do {
      _ = try JSONLEventDecoder(file: "f.jsonl", line: 3, definitions: JustPhotoEvents.self).decode(value)
      Issue.record("accepted \(line)")
    } catch {
      #expect(error.field == "coords")
      #expect(error.message.hasPrefix("ref_analysis: field \"coords\": expected"), "\(error)")
      #expect(error.message.hasSuffix("found \"landmarks: up\""), "\(error)")
    }
  }
}
