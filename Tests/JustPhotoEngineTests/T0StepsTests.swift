import EngineIO
import PoseSpec
import Testing

@testable import JustPhotoEngine

private typealias F = Fixture

/// The per-step T0 pipeline (ENGINE §3.15): tracing only adds `cue_eval` lines, the reused
/// buffers give the results fresh ones would, and the flattened formulas agree with the rules.
@Suite("T0 steps (ENGINE §3.15)")
struct T0StepsTests {
  /// Drifts right (FRAME_MOVE_LEFT), back (exit → praise), then left (FRAME_MOVE_RIGHT), with
  /// a stretch without a body (unavailable → tracking lost → FRAME_GENERAL requested).
  func session() -> [InputEvent] {
    F.frames(0..<160) { k in
      if (120..<135).contains(k) { return nil }
      return F.subject(dx: (10..<40).contains(k) ? 0.15 : (70..<100).contains(k) ? -0.15 : 0)
    }
  }

  @Test("§3.15: with the cue_eval collector the other outputs are the same lines in the same order")
  func collectorAddsOnlyCueEval() {
    let plain = F.run(F.engine(), session())
    let traced = F.run(F.engine(traceMetrics: true), session())
    #expect(traced.contains { $0.out == "cue_eval" })
    #expect(F.lines(traced.filter { $0.out != "cue_eval" }) == F.lines(plain))
    #expect(F.lines(plain).contains { $0.contains("cue_display FRAME_MOVE_LEFT") })
    #expect(F.lines(plain).contains { $0.contains("cue_display FRAME_MOVE_RIGHT") })
  }

  @Test("§3.15 step 4: tracking lost requests the fallback, recorded on the fallback cue's cue_eval entry")
  func fallbackEntry() {
    let traced = F.run(F.engine(traceMetrics: true), session())
    let reasons = traced.filter { $0.out == "cue_eval" }.compactMap { F.cueEval($0, "FRAME_GENERAL")?["reason"]?.stringValue }
    #expect(reasons.contains { $0.hasPrefix("fallback:") && $0.contains("tracking_lost") })
  }

  @Test("§3.7: ranking in place gives the order and effective priorities of rank(_:policy:)")
  func rankInPlace() {
    func c(_ id: String, _ p: Int, _ m: String, _ sev: Double?) -> CueCandidate {
      CueCandidate(id: id, level: .warn, error: 0, severity: sev, priority: p, mutexGroup: m)
    }
    let candidates = [
      c("B", 4, "X", 1.9), c("A", 4, "X", 1.9), c("C", 5, "Y", 0.2), c("D", 3, "Z", nil), c("E", 4, "W", 1.2),
    ]
    var inPlace = candidates
    CueSelector.rank(&inPlace, policy: .standard)
    let copied = CueSelector.rank(candidates, policy: .standard)
    #expect(inPlace.map(\.id) == copied.map(\.id))
    #expect(inPlace.map(\.effectivePriority) == copied.map(\.effectivePriority))
    #expect(inPlace.map(\.id).first == "A")
  }

  @Test("§2.4: canonicalizing over an earlier frame gives what a fresh canonicalization gives")
  func canonicalizeInPlace() {
    let first = LandmarkFrame(
      frame: 1, coords: .vision, body: F.subject(dx: 0.1, feetY: 0.9),
      faces: [FaceObservation(bbox: Rect(x: 0.4, y: 0.6, w: 0.2, h: 0.25), conf: 0.9)], people: 2)
    let second = LandmarkFrame(frame: 2, coords: .canonical, body: F.subject(conf: 0.3, nose: false))
    var reused = Canonicalizer.canonicalize(first, minLandmarkConfidence: 0.5)
    Canonicalizer.canonicalize(second, minLandmarkConfidence: 0.5, into: &reused)
    let fresh = Canonicalizer.canonicalize(second, minLandmarkConfidence: 0.5)
    #expect(reused.frame == 2)
    #expect(reused.hasBody == fresh.hasBody)
    #expect(reused.kept == fresh.kept)
    #expect(reused.dropReasons == fresh.dropReasons)
    #expect(reused.rawConfidence == fresh.rawConfidence)
    #expect(reused.faces.isEmpty && reused.people == nil)
    #expect(reused.dropReasons[Joint.leftShoulder.rawValue] == .lowConf)
    #expect(reused.dropReasons[Joint.nose.rawValue] == .missingInput)
  }

  @Test("§2.9: a flattened formula keeps the expression's structure (children before parents, locals by index)")
  func flattenedFormula() {
    // dist(mid(a, b), c) / 2 - (-x)   with a call, a field, a negation and a local.
    let a = FormulaExpr.joint("leftShoulder")
    let b = FormulaExpr.joint("rightShoulder")
    let mid = FormulaExpr.call(.mid, [a, b])
    let program = MetricProgram(
      assignments: [.field(mid, .x)],
      expressions: [
        .binary(
          .subtract, .binary(.divide, .call(.dist, [mid, .joint("leftHip")]), .constant(2)), .negate(.local(0))),
        nil,
      ],
      bodyBoxMinPoints: 2)
    #expect(program.expressionRoots.count == 2 && program.expressionRoots[1] == -1)
    #expect(program.roots[0] >= 0 && program.expressionRoots[0] > program.roots[0])
    guard case .binary(.subtract, _, let right) = program.ops[program.expressionRoots[0]],
      case .negate(let inner) = program.ops[right], case .local(0) = program.ops[inner]
    else {
      Issue.record("unexpected program shape")
      return
    }
  }

  @Test("§2.9: in every compiled cue of the reference spec, a node's subtree is the range subtreeStart[n]…n, holding its children")
  func subtreesAreContiguousRanges() {
    var checked = 0
    for plan in F.engine().plans {
      let code = plan.code
      for n in 0..<code.count {
        let start = code.starts[n]
        #expect(start <= n)
        func inside(_ child: Int) {
          #expect(child >= start && child < n, "\(plan.id) node \(n): child \(child) outside \(start)...\(n)")
          // A child's own range lies inside its parent's.
          #expect(code.starts[child] >= start, "\(plan.id) node \(n)")
          checked += 1
        }
        switch code.ops[n] {
        case .negate(let x), .field(let x, _), .verticalDifference(let x), .directionAngle(let x),
          .angleDifference(let x):
          inside(x)
        case .binary(_, let l, let r):
          inside(l)
          inside(r)
          #expect(l < r)  // left subtree first: the recursive order
        case .call(_, let first, let count):
          for k in 0..<count { inside(code.arguments[first + k]) }
        case .local(let i):
          #expect(code.roots[i] < n || start == n)  // an assignment stands outside the range
        default:
          #expect(start == n)  // leaves are their own range
        }
      }
    }
    #expect(checked > 100)
  }
}
