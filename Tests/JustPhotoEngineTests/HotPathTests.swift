import CanonicalJSON
@testable import JustPhotoEngine
import Dispatch
import EngineIO
import PoseSpec
import Replay
import Testing

/// The per-frame path's shortcuts (issue 15 item 8) decide exactly as the rules they stand for:
/// plain-value threshold rules = `ThresholdSet`, the tie rank = (mutexGroup, id) in byte order,
/// and engine copies never share their formula registers.
@Suite("Per-frame shortcuts equal the rules (ENGINE §3.3, §3.7, §2.9)")
struct HotPathTests {
  typealias F = Fixture

  static let ops: [ThresholdOp] = ThresholdOp.allCases

  @Test("§3.3/§3.7: LevelRule gives ThresholdSet's level and severity for every operator, bound and value")
  func levelRuleEqualsThresholdSet() {
    let bounds: [Double] = [-0.5, 0, 0.04, 0.12, 3, .infinity, -.infinity, .nan]
    // Every bound a threshold below can have, and the doubles either side of it (where a rule
    // that tested `x > a` as `x ≥ a.nextUp`, tried in issue 38, would have to agree), ±0, and
    // the non-finite values.
    let edges = [
      -1.5, -1, -0.5, -0.25, -0.24, -0.12, -0.08, -0.04, -0.02, 0, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.12, 0.24, 0.25,
      0.36, 0.5, 1, 1.5, 3, 4, 6, 9,
    ]
    let values = edges.flatMap { [$0.nextDown, $0, $0.nextUp] } + [-0.0, .infinity, -.infinity, .nan]
    var checked = 0
    for hardOp in Self.ops {
      for warnOp in Self.ops {
        for a in bounds {
          let hard = Threshold(hardOp, a * 2, hardOp == .between ? a * 3 : nil)
          let warn = Threshold(warnOp, a, warnOp == .between ? a * 2 : nil)
          let exit = Threshold(.absLessOrEqual, abs(a) / 2)
          for set in [
            ThresholdSet(hard: [hard], warn: [warn], exit: [exit]),
            ThresholdSet(warn: [warn]),
            ThresholdSet(hard: [hard], enter: [warn]),
            ThresholdSet(),
          ] {
            let rule = LevelRule(set)
            #expect(rule.single)
            for v in values {
              #expect(rule.level(of: v) == set.level(of: v), "\(set) \(v)")
              #expect(rule.severity(of: v) == set.severity(of: v), "\(set) \(v)")
              checked += 1
            }
          }
        }
      }
    }
    #expect(checked > 100_000)
    // Several thresholds on a level: not single, so CuePlan asks the set itself.
    #expect(!LevelRule(ThresholdSet(warn: [Threshold(.greater, 1), Threshold(.less, -1)])).single)
    #expect(LevelRule(nil).level(of: 5) == .none && LevelRule(nil).severity(of: 5) == nil)
  }

  @Test("§3.7: ranking with the cues' tie ranks orders every pair of the reference spec's cues as the strings do")
  func tieRankEqualsStrings() throws {
    let engine = F.engine()
    let plans = engine.plans
    #expect(plans.allSatisfy { $0.tieRank >= 0 })
    func candidate(_ p: CuePlan, ranked: Bool) -> CueCandidate {
      // Equal on every earlier tie-breaker, so only (mutexGroup, id) decides.
      CueCandidate(
        id: p.id, level: .warn, error: 0.1, severity: 1, priority: 3, mutexGroup: p.mutexGroup, plan: p.index,
        tieRank: ranked ? p.tieRank : -1)
    }
    for a in plans {
      for b in plans {
        #expect(
          CueSelector.precedes(candidate(a, ranked: true), candidate(b, ranked: true))
            == CueSelector.precedes(candidate(a, ranked: false), candidate(b, ranked: false)), "\(a.id) \(b.id)")
      }
    }
  }

  @Test("§2.9: copies of one engine replaying on two threads at once each match a replay on one thread (registers are never shared)")
  func engineCopiesOnTwoThreads() {
    let events = F.frames(0..<60) { k in F.subject(dx: 0.2 * Double(k % 20) / 20, dy: -0.05 * Double(k % 7) / 7) }
    var warmed = F.engine(traceMetrics: true)
    for e in events.prefix(5) { _ = warmed.handle(e) }  // its registers are in use
    let rest = Array(events.dropFirst(5))
    @Sendable func lines(_ records: [TraceRecord]) -> [String] {
      records.map { "\($0.t) \($0.out) " + JSONWriter.write(.object($0.fields)) }
    }
    let sequential = F.run(warmed, rest)
    // Not vacuous: the cues moved (displays) and every frame was judged (cue_eval lines).
    #expect(sequential.contains { $0.out == "cue_display" })
    #expect(sequential.filter { $0.out == "cue_eval" }.count == rest.count)
    let expected = lines(sequential)
    let results = Results()
    let engine = warmed
    DispatchQueue.concurrentPerform(iterations: 4) { i in
      results.set(i, lines(F.run(engine, rest)))
    }
    for i in 0..<4 { #expect(results.get(i) == expected) }
  }

  final class Results: @unchecked Sendable {
    private let lock = NSLockLike()
    private var byIndex: [Int: [String]] = [:]
    func set(_ i: Int, _ v: [String]) { lock.run { byIndex[i] = v } }
    func get(_ i: Int) -> [String]? { lock.run { byIndex[i] } }
  }
}

/// A tiny lock for the test (the engine module imports no Foundation).
final class NSLockLike: @unchecked Sendable {
  private let queue = DispatchQueue(label: "hot-path-tests")
  func run<T>(_ body: () -> T) -> T { queue.sync(execute: body) }
}
