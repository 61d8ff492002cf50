import Testing

@testable import JustPhotoPlugin
@testable import Replay

/// Prompt budgets on traces (issue: Camera Coach guidance rules).
@Suite("Prompt budgets")
struct BudgetTests {
  static func display(_ t: Int, _ cue: String?) -> String {
    let id = cue.map { "\"\($0)\"" } ?? "null"
    return #"{"cue_id":\#(id),"level":"hard","mode":"noRef","out":"cue_display","reason":"none","t":\#(t)}"#
  }
  static func prompt(_ t: Int) -> String { #"{"key":"k","op":"shown","out":"prompt","t":\#(t)}"# }
  /// The budgets of a trace text, read as a golden (the one reader).
  static func check(name: String, trace: String, limits: BudgetLimits) throws -> BudgetReport {
    BudgetCheck.check(name: name, records: try GoldenTrace.records(trace), limits: limits)
  }

  @Test("A calm trace is within every budget; changes per minute are counted per cue id, not per level")
  func calm() throws {
    let trace = [Self.display(200, "A"), Self.display(3200, "A"), Self.display(6200, nil), Self.display(9000, "B")]
      .joined(separator: "\n")
    let r = try Self.check(name: "calm", trace: trace, limits: BudgetLimits())
    #expect(r.passed)
    #expect(r.cueChanges == 3)  // A, null, B (A→A is a level change)
    #expect(r.changesPerMinute == 3)
  }

  @Test("A cue shown a 4th time within 10 s, a 3rd prompt within 1 s and a 200 ms hold are breaches")
  func breaches() throws {
    let flapping = (0..<8).map { Self.display(1000 * $0, $0 % 2 == 0 ? "A" : "B") }
    let r = try Self.check(name: "flap", trace: flapping.joined(separator: "\n"), limits: BudgetLimits())
    #expect(r.breaches.contains { $0.hasPrefix("A shown more than 3 times within 10000 ms (by t=6000)") })
    let prompts = try Self.check(
      name: "p", trace: [Self.prompt(0), Self.prompt(400), Self.prompt(999)].joined(separator: "\n"), limits: BudgetLimits())
    #expect(prompts.breaches == ["more than 2 prompts shown within 1000 ms (by t=999)"])
    // Exactly 1000 ms apart is not "within 1 s".
    let spaced = try Self.check(
      name: "s", trace: [Self.prompt(0), Self.prompt(500), Self.prompt(1000)].joined(separator: "\n"), limits: BudgetLimits())
    #expect(spaced.passed)
    let short = try Self.check(
      name: "h", trace: [Self.display(100, "A"), Self.display(300, "B")].joined(separator: "\n"), limits: BudgetLimits())
    #expect(short.breaches == ["A held 200 ms < 300 ms (t=100…300)"])
  }

  @Test("Limits are configurable by name; an unknown name or a bad value is an error naming the known ones")
  func configurable() throws {
    var limits = BudgetLimits()
    try limits.set("minHoldMs=100")
    let trace = [Self.display(100, "A"), Self.display(300, "B")].joined(separator: "\n")
    #expect(try Self.check(name: "h", trace: trace, limits: limits).passed)
    #expect(throws: BudgetError.self) { try limits.set("maxHold=3") }
    do { try limits.set("maxHold=3") } catch { #expect(error.message.contains("minHoldMs")) }
    #expect(throws: BudgetError.self) { try limits.set("minHoldMs=-1") }
  }
}
