import CanonicalJSON
import Testing

@testable import JustPhotoPlugin
@testable import Replay

/// A recording's own budget limits (header `budgets: {name: value}`) over the `--budget` ones.
@Suite struct BudgetHeaderTests {
  @Test func theHeadersLimitsApplyOverTheGivenOnesInHeaderOrder() throws {
    var given = BudgetLimits()
    try given.set("minHoldMs=100")
    let header: JSONObject = ["name": "sweep", "budgets": .object(["maxCueChangesPerMinute": 30, "repeatWindowMs": "2000"])]
    let (limits, settings) = try given.applying(header: header)
    #expect(settings == ["maxCueChangesPerMinute=30", "repeatWindowMs=2000"])
    #expect(limits.maxCueChangesPerMinute == 30 && limits.repeatWindowMs == 2000)
    #expect(limits.minHoldMs == 100)
    #expect(given.maxCueChangesPerMinute == 8)
  }

  @Test func noBudgetsKeepsTheLimitsAndABadOneIsAnError() throws {
    let given = BudgetLimits()
    let (limits, settings) = try given.applying(header: ["name": "plain"])
    #expect(limits == given && settings.isEmpty)
    #expect(throws: BudgetError.self) { try given.applying(header: ["budgets": .object(["maxFun": 1])]) }
    #expect(throws: BudgetError.self) { try given.applying(header: ["budgets": .object(["minHoldMs": -5])]) }
  }
}
