import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import PoseSpec
import Testing

/// `CompiledSpec`: a spec compiled once (ENGINE §2.9) and shared by many engines (issue 15
/// item 8, one `tune` trial replays a whole corpus with one spec).
@Suite("Compiled spec shared by engines (ENGINE §2.9)")
struct CompiledSpecTests {
  typealias F = Fixture

  func configuration(_ spec: PoseSpecDocument = F.reference) -> EngineConfiguration {
    var o = EngineOptions()
    try! o.set("angleFix", "on")
    return EngineConfiguration(spec: spec, options: o, initial: ["scene": "outdoor"], traceMetrics: true)
  }

  /// The subject drifting right of centre and back, then its head tilted: displays, changes
  /// and per-frame `cue_eval` lines.
  var events: [InputEvent] {
    F.frames(0..<30) { k in F.subject(dx: 0.15 * Double(min(k, 30 - k)) / 15) }
  }

  @Test("§2.9: engines built from one CompiledSpec share its plans and replay exactly as an engine that compiles its own")
  func sharedPlansSameTrace() {
    let config = configuration()
    let compiled = CompiledSpec(spec: config.spec, errorSourceFormulaFirst: config.options.errorSourceFormulaFirst)
    let a = Engine(configuration: config, compiled: compiled)
    let b = Engine(configuration: config, compiled: compiled)
    #expect(a.plans.count == F.reference.cues.count)
    #expect(zip(a.plans, b.plans).allSatisfy { $0 === $1 })
    #expect(zip(a.plans, compiled.plans).allSatisfy { $0 === $1 })
    let own = F.run(Engine(configuration: config), events)
    let shared = F.run(a, events)
    #expect(own.contains { $0.out == "cue_display" })
    #expect(F.lines(shared) == F.lines(own))
    #expect(shared.map { JSONWriter.write(.object($0.fields)) } == own.map { JSONWriter.write(.object($0.fields)) })
  }

  @Test("§1.8 errorSource: a CompiledSpec made for the other errorSource is not used; the engine compiles its own")
  func mismatchedOptionRecompiles() {
    let config = configuration()
    let wrong = CompiledSpec(spec: config.spec, errorSourceFormulaFirst: !config.options.errorSourceFormulaFirst)
    let engine = Engine(configuration: config, compiled: wrong)
    #expect(!zip(engine.plans, wrong.plans).contains { $0 === $1 })
    let own = F.run(Engine(configuration: config), events)
    #expect(F.lines(F.run(engine, events)) == F.lines(own))
  }
}
