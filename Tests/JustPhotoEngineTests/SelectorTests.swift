import PoseSpec
import Testing

@testable import JustPhotoEngine

/// Selection with severity boost and tie-breakers (ENGINE §3.7).
@Suite("CueSelector (ENGINE §3.7)")
struct SelectorTests {
  /// A candidate whose severity is derived as abs(error)/hard, as the engine does.
  func candidate(_ id: String, priority: Int, mutex: String, error: Double, hard: Double?) -> CueCandidate {
    let set = ThresholdSet(hard: hard.map { [Threshold(.greater, $0)] } ?? [])
    return CueCandidate(
      id: id, level: .hard, error: error, severity: set.severity(of: error), priority: priority, mutexGroup: mutex)
  }

  func ranked(_ c: [CueCandidate]) -> [String] { CueSelector.rank(c, policy: .standard).map(\.id) }

  @Test("§3.7 example 1: LEFT error 0.25 (sev 2.08, eff 6) beats CAFE_01 error 0.15 (sev 1.07, eff 5)")
  func example1() {
    let left = candidate("FRAME_MOVE_LEFT", priority: 4, mutex: "FRAME_X", error: 0.25, hard: 0.12)
    let dark = candidate("CAFE_01_FACE_TOO_DARK", priority: 5, mutex: "LIGHT_FACE", error: 0.15, hard: 0.14)
    let r = CueSelector.rank([dark, left], policy: .standard)
    #expect(r.map(\.id) == ["FRAME_MOVE_LEFT", "CAFE_01_FACE_TOO_DARK"])
    #expect(r.map(\.effectivePriority) == [6, 5])
  }

  @Test("§3.7 example 2: eff tie 5 — HEAD_LEVEL 22° (sev 1.83) beats CAFE_01 0.168 (sev 1.2)")
  func example2() {
    let dark = candidate("CAFE_01_FACE_TOO_DARK", priority: 5, mutex: "LIGHT_FACE", error: 0.168, hard: 0.14)
    let head = candidate("HEAD_LEVEL", priority: 3, mutex: "HEAD_TILT", error: 22, hard: 12)
    let r = CueSelector.rank([dark, head], policy: .standard)
    #expect(r.map(\.id) == ["HEAD_LEVEL", "CAFE_01_FACE_TOO_DARK"])
    #expect(r.map(\.effectivePriority) == [5, 5])
  }

  @Test("§3.7 example 3 (validateSeverityBoostWins): prio 3 at sev 2.0 beats prio 4 at sev 0.5")
  func example3() {
    let a = candidate("A", priority: 4, mutex: "M1", error: 0.05, hard: 0.1)
    let b = candidate("B", priority: 3, mutex: "M2", error: 0.2, hard: 0.1)
    #expect(ranked([a, b]) == ["B", "A"])
  }

  @Test("§3.7: tie-breakers severity → priority → mutexGroup → id; nil severity ranks lowest")
  func tieBreakers() {
    // Same effective priority 4: higher severity first.
    let sev = [
      candidate("X", priority: 4, mutex: "A", error: 0.5, hard: 1),
      candidate("Y", priority: 4, mutex: "A", error: 0.9, hard: 1),
    ]
    #expect(ranked(sev) == ["Y", "X"])
    // Eff 5 each (4 boosted at sev 1.3, 5 unboosted at sev 0.3): severity decides.
    let boosted = [
      candidate("P5", priority: 5, mutex: "Z", error: 0.3, hard: 1),
      candidate("P4", priority: 4, mutex: "Z", error: 1.3, hard: 1),
    ]
    #expect(ranked(boosted) == ["P4", "P5"])
    // Eff 6 each through the cap, same severity 1.8: the higher base priority wins.
    let capped = [
      candidate("P5", priority: 5, mutex: "A", error: 1.8, hard: 1),
      candidate("P6", priority: 6, mutex: "Z", error: 1.8, hard: 1),
    ]
    #expect(CueSelector.rank(capped, policy: .standard).map(\.effectivePriority) == [6, 6])
    #expect(ranked(capped) == ["P6", "P5"])
    // Everything equal but the mutex group, then the id (byte order: "Z" < "a").
    let mutex = [
      candidate("c", priority: 4, mutex: "FRAME_Y", error: 0.1, hard: 1),
      candidate("d", priority: 4, mutex: "FRAME_X", error: 0.1, hard: 1),
    ]
    #expect(ranked(mutex) == ["d", "c"])
    let ids = [
      candidate("a", priority: 4, mutex: "M", error: 0.1, hard: 1),
      candidate("Z", priority: 4, mutex: "M", error: 0.1, hard: 1),
    ]
    #expect(ranked(ids) == ["Z", "a"])
    // nil severity (FRAME_GENERAL, or no hard threshold) after any severity.
    let fallback = CueCandidate(
      id: "FRAME_GENERAL", level: .warn, error: nil, severity: nil, priority: 4, mutexGroup: "A")
    #expect(ranked([fallback, candidate("W", priority: 4, mutex: "Z", error: 0, hard: 1)]) == ["W", "FRAME_GENERAL"])
  }

  @Test("bestOnly settles the same first place as the full order, with every candidate's effective priority, faults included")
  func bestOnlyIsTheSortsFirst() {
    // A fixed generator (SplitMix64): the same 400 draws on every run.
    var state: UInt64 = 0x5EED
    func next(_ n: Int) -> Int {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Int((z ^ (z >> 31)) % UInt64(n))
    }
    var differing = 0
    for draw in 0..<400 {
      let count = 1 + next(12)
      // Tie ranks for all (as the engine's plans give) or for none (ids and groups compared):
      // a mix is no total order.
      let ranked = next(2) == 0
      // Few distinct priorities, severities and groups, so the later tie-breakers decide often.
      let candidates = (0..<count).map { k in
        CueCandidate(
          id: "C\(next(40))_\(k)", level: .warn, error: Double(next(5)),
          severity: next(4) == 0 ? nil : Double(next(3)) / 2, priority: next(3), mutexGroup: "M\(next(3))",
          tieRank: ranked ? 100 + next(1000) * 16 + k : -1)
      }
      for (reverse, boost) in [(false, true), (true, true), (false, false)] {
        var full = candidates
        var best = candidates
        CueSelector.rank(&full, policy: .standard, reverseTies: reverse, boost: boost)
        CueSelector.rank(&best, policy: .standard, reverseTies: reverse, boost: boost, bestOnly: true)
        #expect(best.first == full.first, "draw \(draw), reverseTies \(reverse), boost \(boost)")
        #expect(best.map(\.id).sorted() == full.map(\.id).sorted())
        #expect(best.allSatisfy { c in full.first { $0.id == c.id }?.effectivePriority == c.effectivePriority })
        if best.map(\.id) != full.map(\.id) { differing += 1 }
      }
    }
    // The rest stays unsorted (the test would pass a full sort too, but then measured nothing).
    #expect(differing > 100)
  }

  @Test("§3.7: no candidate selects nothing")
  func empty() {
    #expect(CueSelector.select([], policy: .standard) == nil)
  }
}
