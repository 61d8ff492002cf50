import PoseSpec
import Testing

/// Threshold operators (ENGINE §3.1), level precedence (§3.3) and severity (§3.7).
@Suite("Thresholds and levels (ENGINE §3.1, §3.3)")
struct ThresholdTests {
  @Test("§3.1: plain and abs comparisons at and around their boundary")
  func operators() {
    let cases: [(ThresholdOp, Double, [(Double, Bool)])] = [
      (.greater, 0.07, [(0.07, false), (0.0700001, true), (-1, false)]),
      (.greaterOrEqual, 0.07, [(0.07, true), (0.0699999, false)]),
      (.less, -0.07, [(-0.07, false), (-0.0700001, true)]),
      (.lessOrEqual, 0.04, [(0.04, true), (0.0400001, false), (-5, true)]),
      (.absGreater, 10, [(10, false), (-10.5, true), (10.5, true)]),
      (.absGreaterOrEqual, 0.02, [(-0.02, true), (0.019, false)]),
      (.absLess, 0.01, [(-0.009, true), (0.01, false), (-0.011, false)]),
      (.absLessOrEqual, 6, [(-6, true), (6.1, false)]),
    ]
    for (op, a, checks) in cases {
      for (v, expected) in checks {
        #expect(Threshold(op, a).matches(v) == expected, "\(op.rawValue)\(a) on \(v)")
      }
    }
  }

  @Test("§3.1: between is inclusive with bounds in any order")
  func between() {
    for t in [Threshold(.between, 0.36, 0.42), Threshold(.between, 0.42, 0.36)] {
      #expect(t.matches(0.36))
      #expect(t.matches(0.42))
      #expect(t.matches(0.4))
      #expect(!t.matches(0.3599))
      #expect(!t.matches(0.4201))
    }
    #expect(Threshold(.between, 0.36, 0.42).magnitude == 0.42)
  }

  @Test("§3.3: hard → warn → enter → exit → none; dead-band is none")
  func levels() {
    // FRAME_MOVE_LEFT noRef: warn >0.07, hard >0.12, exit <=0.04.
    let left = ThresholdSet(
      hard: [Threshold(.greater, 0.12)], warn: [Threshold(.greater, 0.07)], exit: [Threshold(.lessOrEqual, 0.04)])
    #expect(left.level(of: 0.15) == .hard)
    #expect(left.level(of: 0.12) == .warn)
    #expect(left.level(of: 0.08) == .warn)
    #expect(left.level(of: 0.07) == .none)
    #expect(left.level(of: 0.05) == .none)
    #expect(left.level(of: 0.04) == .exit)
    #expect(left.level(of: -0.3) == .exit)
    #expect(left.level(of: .nan) == .none)
    #expect(left.level(of: .infinity) == .none)
    #expect(left.level(of: nil) == .none)
    // enter sits between warn and exit; the first list entry that matches decides.
    let withEnter = ThresholdSet(
      hard: [Threshold(.greater, 10)], warn: [Threshold(.greater, 5)], enter: [Threshold(.greater, 2)],
      exit: [Threshold(.greater, 1), Threshold(.less, 0)])
    #expect(withEnter.level(of: 3) == .enter)
    #expect(withEnter.level(of: 1.5) == .exit)
    #expect(withEnter.level(of: -1) == .exit)
    #expect(withEnter.level(of: 0.5) == .none)
  }

  @Test("§3.3: a null level is never reached (WEIGHT_SHIFT hard: null)")
  func nullLevel() {
    let weight = ThresholdSet(warn: [Threshold(.absLess, 0.01)], exit: [Threshold(.absGreaterOrEqual, 0.02)])
    #expect(weight.level(of: 0.0) == .warn)
    #expect(weight.level(of: 0.015) == .none)
    #expect(weight.level(of: -0.03) == .exit)
    #expect(weight.severity(of: 0.0) == nil)
  }

  @Test("§3.7: severity = abs(error)/hardAbs; effective priority boosts and caps")
  func severityAndBoost() {
    let left = ThresholdSet(hard: [Threshold(.greater, 0.12)])
    #expect(abs(left.severity(of: 0.25)! - 2.083333) < 1e-6)
    #expect(left.severity(of: -0.06) == 0.5)
    #expect(ThresholdSet(hard: [Threshold(.greater, 0)]).severity(of: 1) == nil)
    let policy = SelectionPolicy.standard
    #expect(policy.effectivePriority(priority: 4, severity: 2.08) == 6)
    #expect(policy.effectivePriority(priority: 5, severity: 1.75) == 6)  // 7 capped
    #expect(policy.effectivePriority(priority: 4, severity: 1.25) == 5)
    #expect(policy.effectivePriority(priority: 4, severity: 1.2499) == 4)
    #expect(policy.effectivePriority(priority: 6, severity: 0.2) == 6)
    #expect(policy.effectivePriority(priority: 7, severity: nil) == 7)  // no boost, no cap
  }
}
