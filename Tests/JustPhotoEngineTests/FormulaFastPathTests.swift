@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import JustPhotoScenarios
import PoseSpec
import Testing

/// Issue 38 item 1: `FormulaEvaluation.run` computes the simple nodes (constants, arithmetic,
/// fields, calls, kept joints, locals) in its loop and calls `step` only for the others. The
/// loop must give the very values and first failures `step` gives — the traces are built from
/// them — and must take the work it claims: counted `step` calls (debug builds count them),
/// never a time.
@Suite("Formula evaluation's loop against step (issue 38 item 1)")
struct FormulaFastPathTests {
  static let plans: [CuePlan] = Engine.plans(for: Fixture.project, settings: EngineSettings(EngineOptions())).0

  /// A value's bits (nil when unavailable) and the failure, as the traces see them.
  struct Outcome: Equatable {
    var bits: UInt64?
    var failure: String?
  }

  /// Every root a cue is evaluated at (its noRef and withRef errors and its assignments) on
  /// `ctx`, by the loop or, with `stepOnly`, by `step` alone; and the `step` calls made.
  static func outcomes(
    _ plan: CuePlan, _ ctx: MetricContext, stepOnly: Bool, withRef: Bool = true
  ) -> (outcomes: [Outcome], steps: Int) {
    var result: [Outcome] = []
    var steps = 0
    func record(_ body: (inout FormulaEvaluation) -> Double?) {
      var e = FormulaEvaluation(plan: plan)
      e.stepOnly = stepOnly
      let v = body(&e)
      result.append(Outcome(bits: v?.bitPattern, failure: ctx.failure))
      steps += e.steps
    }
    for root in [plan.noRefError, withRef ? plan.withRefError : nil].compactMap({ $0 }) {
      record { $0.scalar(root, ctx) }
    }
    for i in plan.assignments.indices {
      record { $0.assignment(i, ctx) }
    }
    return (result, steps)
  }

  /// The bench session's landmark frames with joints dropped (low confidence or absent) and
  /// faces removed by a seeded generator, so every failure path is taken.
  static func frames(_ count: Int) -> [CanonicalFrame] {
    var rng = LumaTablesTests.Mix(state: 38)
    var frames: [CanonicalFrame] = []
    for event in SyntheticSession(durationMs: 120_000, fps: 30, seed: 3) {
      guard case .landmarks(var f) = event.payload else { continue }
      if var body = f.body {
        for j in Joint.allCases {
          switch rng.next() % 10 {
          case 0: body[j] = nil
          case 1: body[j]?.conf = 0.1
          default: break
          }
        }
        f.body = rng.next() % 20 == 0 ? nil : body
      }
      if rng.next() % 5 == 0 { f.faces = [] }
      frames.append(Canonicalizer.canonicalize(f, minLandmarkConfidence: 0.5))
      if frames.count == count { break }
    }
    return frames
  }

  @Test("On 1,500 frames, every cue's roots give the same bits and first failure from the loop as from step alone")
  func loopEqualsStep() throws {
    #if DEBUG
      let frames = Self.frames(1_500)
      #expect(frames.count == 1_500)
      var compared = 0
      var failures = Set<String>()
      var values = 0
      for (k, frame) in frames.enumerated() {
        // Every 4th frame as a T1 context whose `frame_scalars` stand in for some assignments.
        let overrides = k % 4 == 0
        let ctx = MetricContext(
          frame: frame, face: SubjectChoice.face(frame.faces), options: MetricOptions(EngineOptions()),
          scalars: overrides ? ["centerXOffset": 0.25, "faceLumaMean": 0.5, "meanLuma_faceROI": 0.4] : [:],
          overrides: overrides)
        for plan in Self.plans {
          let loop = Self.outcomes(plan, ctx, stepOnly: false).outcomes
          let step = Self.outcomes(plan, ctx, stepOnly: true).outcomes
          #expect(loop == step, "\(plan.id) on frame \(k)")
          compared += loop.count
          for o in loop {
            if let f = o.failure { failures.insert(f) }
            if o.bits != nil { values += 1 }
          }
        }
      }
      // Not vacuous: values and several kinds of failure were compared.
      #expect(compared > 50_000)
      #expect(values > 10_000)
      #expect(failures.contains { $0.hasPrefix("missing_input:") && $0.contains("=") })
      #expect(failures.contains("missing_input:no_face"))
      #expect(failures.contains("missing_input:no_pose"))
      #expect(failures.contains("missing_input:luma"))
    #else
      throw Skip()
    #endif
  }

  @Test(
    "Work: a noRef metric of kept joints takes no step call (angleFix on or off); a dropped joint takes one and fails as step does",
    arguments: [false, true])
  func stepCalls(angleFix: Bool) throws {
    #if DEBUG
      let plan = Self.plans.first { $0.id == "SHOULDER_LEVEL_LEFT_DOWN" }!
      var engineOptions = EngineOptions()
      if angleFix { try engineOptions.set("angleFix", "on") }
      let options = MetricOptions(engineOptions)
      let kept = Canonicalizer.canonicalize(
        LandmarkFrame(
          frame: 1,
          body: Fixture.body([(.leftShoulder, 0.60, 0.40, 0.9), (.rightShoulder, 0.45, 0.42, 0.9)])),
        minLandmarkConfidence: 0.5)
      let (ok, okSteps) = Self.outcomes(plan, MetricContext(frame: kept, options: options), stepOnly: false, withRef: false)
      #expect(ok.allSatisfy { $0.bits != nil && $0.failure == nil })
      #expect(okSteps == 0)
      // The same formula node by node through step: one call per node.
      let (same, allSteps) = Self.outcomes(plan, MetricContext(frame: kept, options: options), stepOnly: true, withRef: false)
      #expect(same == ok)
      #expect(allSteps >= plan.formula.nodeCount)
      // The joints' fields are single nodes (`jointField`): four in this formula.
      let fused = (0..<plan.formula.nodeCount).filter { if case .jointField = plan.formula.ops[$0] { true } else { false } }
      #expect(fused.count == 4)

      let dropped = Canonicalizer.canonicalize(
        LandmarkFrame(
          frame: 2,
          body: Fixture.body([(.leftShoulder, 0.60, 0.40, 0.9), (.rightShoulder, 0.45, 0.42, 0.2)])),
        minLandmarkConfidence: 0.5)
      let (failed, failedSteps) = Self.outcomes(
        plan, MetricContext(frame: dropped, options: options), stepOnly: false, withRef: false)
      #expect(failed.allSatisfy { $0.bits == nil && $0.failure == "missing_input:rightShoulder=low_conf" })
      #expect(failedSteps == failed.count)  // the dropped joint, once per root
    #else
      throw Skip()
    #endif
  }

  struct Skip: Error {}
}
