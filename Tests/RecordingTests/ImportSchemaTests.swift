import EngineIO
import Testing

@testable import Recording

/// The import schema is a table with one row per event kind (docs/FORMAT.md).
@Suite struct ImportSchemaTests {
  @Test func everyEventKindHasASchemaRowAndNoRowIsForeign() {
    let missing = EventKind.allCases.filter { EventKind.schemas[$0] == nil }
    #expect(missing.isEmpty, "no schema row for \(missing.map(\.rawValue))")
    #expect(EventKind.schemas.count == EventKind.allCases.count)
  }

  @Test func aRowIsWhatImportChecks() {
    #expect(EventKind.thermal.schema.map(\.name) == ["state"])
    #expect(EventKind.thermal.schema.first?.oneOf == ["nominal", "fair", "serious", "critical"])
    #expect(EventKind.shutter_tap.schema.isEmpty)
    #expect(EventKind.photokit_write_result.schema.filter(\.required).map(\.name) == ["shot", "attempt", "ok"])
  }
}
