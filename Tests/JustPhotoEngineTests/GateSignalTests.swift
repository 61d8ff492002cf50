@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import PoseSpec
import Testing

/// The display step's signals name interned cue ids (`GateSignal`, `CueDisplayMachine.Table`):
/// a signal equals one made from the same id, whatever made it; a replan keeps the names the
/// machine had, so a signal of the old table stays the same cue as the new table's.
@Suite("Gate signals: interned names")
struct GateSignalTests {
  typealias F = Fixture

  static func table() -> CueDisplayMachine.Table {
    CueDisplayMachine.Table(
      plans: F.engine().plans, planIndex: F.engine().planIndex, spec: F.reference,
      settings: EngineSettings(EngineOptions()), faults: PlantedFaults())
  }

  @Test("an interned signal equals the signal made from its id, and no other cue's")
  func internedEqualsMade() {
    let table = Self.table()
    #expect(table.ids.count >= 2)
    for p in table.ids.indices {
      let interned = table.signal(plan: p, level: .warn)
      #expect(interned.id == table.ids[p])
      #expect(interned == GateSignal(id: table.ids[p], level: .warn))
      #expect(interned != GateSignal(id: table.ids[p], level: .hard))
      #expect(interned.at(.hard) == GateSignal(id: table.ids[p], level: .hard))
      #expect(!interned.isNone && interned != .empty && !interned.sameCue(as: .empty))
      let other = table.signal(plan: (p + 1) % table.ids.count, level: .warn)
      #expect(!interned.sameCue(as: other) && interned != other)
      #expect(table.signal(id: table.ids[p], plan: p, level: .warn) == interned)
    }
    // An id that is not the plan's gets a name of its own, and compares by id.
    let odd = table.signal(id: "NOT_A_CUE", plan: 0, level: .warn)
    #expect(odd.id == "NOT_A_CUE" && odd != table.signal(plan: 0, level: .warn))
    #expect(table.signal(id: nil, plan: 0, level: .warn) == .empty)
    #expect(GateSignal.empty.at(.hard).level == .none)
  }

  @Test("a replan keeps the machine's names: the shown cue is the same cue under the new table")
  func replanKeepsNames() {
    let old = Self.table()
    var display = CueDisplayMachine(table: old)
    let p = old.planIndex["FRAME_MOVE_LEFT"]!
    for k in 0..<10 {
      _ = display.step(.offer(old.signal(plan: p, level: .hard), plan: p, withRef: false), at: Millis(k * 67))
    }
    #expect(display.current.id == "FRAME_MOVE_LEFT")
    _ = display.step(.replan(Self.table()), at: 700)
    // The new table's name for the cue is the old one: one name per id for the machine's life.
    #expect(display.table.names[p] === old.names[p])
    #expect(display.table.signal(plan: p, level: .hard) == display.current)
    #expect(display.shownPlan == p)
  }
}
