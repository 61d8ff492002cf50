import JustPhotoPlugin
import Replay
import JustPhotoScenarios
import Testing

/// `saw: KIND` accepts exactly the trace kinds the engine emits (Scenarios does not link the
/// engine, so it keeps its own list; this keeps the two equal).
@Suite struct ExpectationKindsTests {
  @Test func ruleKindsAreTheTraceKinds() {
    #expect(ScenarioExpectation.traceKinds == Set(TraceKinds.all))
  }
}
