@testable import JustPhotoEngine
import PoseSpec
import Testing

/// The MatchDecider's steps 4–5 walk the dimension groups it sorted at init and compare
/// states in place (h/replay4); the definition (`MatchDecider.result(_:)`, static: filtered
/// groups, keys sorted per evaluation) stays as the reference. Both must give the same
/// `MatchResult` on every state list, and the mirrored value read per requirement must be the
/// one `MatchMirror.scalarMirrored` holds.
@Suite("MatchDecider steps 4–5 = their definition (ENGINE §3.13e)")
struct MatchDeciderResultTests {
  /// The module's drawn-input generator (`Support/SplitMix.swift`).
  typealias Mix = SplitMix

  /// Requirements with shared and distinct dimension keys (mutex groups, metrics), keys whose
  /// byte order differs from PoseSpec order, and repeated ids.
  static func requirements(_ mix: inout Mix) -> [MatchRequirement] {
    let keys = ["mutex:frame", "metric:headroom", "mutex:Tilt", "metric:bboxHeight", "mutex:frame_y", "metric:a"]
    let ids = ["FRAME_MOVE_LEFT", "FRAME_MOVE_RIGHT", "HEAD_LEVEL", "HIP_SQUARE", "B", "a", "Z_LAST"]
    return (0..<(1 + mix.below(9))).map { _ in
      MatchRequirement(
        cueId: ids[mix.below(ids.count)], metric: MatchDecider.strongMetrics[mix.below(10)],
        thresholds: ThresholdSet(hard: [], warn: [], enter: [], exit: []), persistFrames: 1 + mix.below(4),
        dimensionKey: keys[mix.below(keys.count)], rawExitSource: false)
    }
  }

  /// One state per requirement, drawn over every status, level, error (ties included),
  /// counter and missing payload.
  static func states(_ requirements: [MatchRequirement], _ mix: inout Mix) -> [MatchCueState] {
    let statuses: [MatchCueState.Status] = [.evaluated, .evaluated, .evaluated, .missingData, .excluded]
    let errors: [Double?] = [nil, 0, 0.5, -0.5, 2, -3, .infinity]
    let reasons = ["no_pose", "missing_target", "low_confidence_hips"]
    return requirements.map { r in
      let status = statuses[mix.below(statuses.count)]
      let missing: MatchMissingInfo? =
        status == .evaluated || mix.below(4) == 0
        ? nil
        : MatchMissingInfo(
          reason: reasons[mix.below(3)], missing: mix.below(2) == 0 ? [] : ["body.leftHip", "target.\(r.metric)"])
      return MatchCueState(
        cueId: r.cueId, dimensionKey: r.dimensionKey, status: status,
        level: status == .evaluated ? CueLevel.allCases[mix.below(CueLevel.allCases.count)] : .none,
        error: status == .evaluated ? errors[mix.below(errors.count)] : nil, mirrored: mix.below(3) == 0,
        stableFrames: mix.below(3), persisted: mix.below(2) == 0, missing: missing)
    }
  }

  @Test("the result over the groups sorted at init equals the definition on 20,000 drawn state lists")
  func resultEqualsDefinition() {
    var mix = Mix(state: 38)
    for _ in 0..<20_000 {
      let requirements = Self.requirements(&mix)
      let decider = MatchDecider(requirements: requirements)
      let states = Self.states(requirements, &mix)
      #expect(decider.result(states) == MatchDecider.result(states))
    }
  }

  @Test("samples by slot give the result the same samples by metric name give, over many evaluations")
  func samplesBySlotEqualSamplesByName() {
    let samples: [MetricSample?] = [
      nil, .value(0.01), .value(-0.3), .value(2), .value(.nan),
      .unavailable(MatchMissingInfo(reason: "no_pose", missing: ["body.leftHip"])),
    ]
    var mix = Mix(state: 11)
    for policy in MissingTargetPolicy.allCases {
      for mode in MirrorMode.allCases {
        let options = MatchOptions(mirrorMode: mode, missingTargetPolicy: policy)
        for _ in 0..<300 {
          let requirements = Self.requirements(&mix)
          var bySlot = MatchDecider(requirements: requirements)
          var byName = bySlot
          // A run of evaluations, so the exit counters carry over.
          for _ in 0..<8 {
            var live = [MetricSample?](repeating: nil, count: requirements.count)
            var mirrored = live
            var liveByName: [String: MetricSample] = [:]
            var mirroredByName: [String: MetricSample] = [:]
            for (j, r) in requirements.enumerated() where bySlot.metricSlots[j] == j {
              live[j] = samples[mix.below(samples.count)]
              mirrored[j] = samples[mix.below(samples.count)]
              liveByName[r.metric] = live[j]
              mirroredByName[r.metric] = mirrored[j]
            }
            var targets: [String: Double] = [:]
            for m in MatchDecider.strongMetrics where mix.below(4) != 0 {
              targets[m] = [0, 0.2, -1, .nan][mix.below(4)]
            }
            let a = bySlot.evaluate(samples: live, mirroredSamples: mirrored, targets: targets, options: options)
            let b = byName.evaluate(live: liveByName, targets: targets, options: options, mirroredLive: mirroredByName)
            #expect(a == b)
            #expect(bySlot == byName)
          }
        }
      }
    }
  }

  @Test("each metric's mirrored value is the one MatchMirror.scalarMirrored holds")
  func scalarMirrorSourceEqualsTheMirroredMap() {
    let names = MatchDecider.strongMetrics + MatchMirror.negatedMetrics + ["colorTempLeftK", "colorTempRightK", "other"]
    let samples: [MetricSample?] = [
      nil, .value(0.25), .value(-2), .value(.nan), .value(.infinity), .unavailable(MatchMissingInfo(reason: "no_pose")),
    ]
    var mix = Mix(state: 7)
    for _ in 0..<2_000 {
      var live: [String: MetricSample] = [:]
      for n in names { live[n] = samples[mix.below(samples.count)] }
      let mirrored = MatchMirror.scalarMirrored(live)
      for n in names {
        let m = MatchMirror.scalarMirrorSource(of: n)
        let value = live[m.source]?.finiteValue.map { m.negated ? -$0 : $0 }
        #expect(value == mirrored[n]?.finiteValue, "\(n)")
      }
    }
  }
}
