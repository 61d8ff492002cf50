import ScenarioYAML
/// The subject state walked forward in time (times must not decrease): keyframes, ramps, then
/// oscillations. Cost per call is the number of parameters plus the oscillations running,
/// whatever the length of the timeline, and the numbers are those of evaluating every step
/// from the baseline (each parameter's value comes from the last step that writes it, with
/// the same expression), so recordings keep their bytes.
struct SubjectCursor {
  /// A ramp in progress for one parameter: `v0 + (target − v0) · (t − start) / (to − start)`.
  struct Ramp {
    var start: Int64
    var to: Int64
    var target: Double
    var v0: Double
  }

  /// The baseline with the keyframes so far; `ramps[i]` overrides parameter i while set.
  struct Base {
    var state: SubjectState
    var ramps: [Ramp?] = Array(repeating: nil, count: SubjectParam.allCases.count)

    mutating func apply(start: Int64, _ step: Scenario.Track.Step) {
      switch step {
      case .keyframe(let p):
        state.apply(p)
        for (param, _) in p.numbers { ramps[param.index] = nil }
      case .ramp(let to, let targets):
        for (param, target, v0) in targets { ramps[param.index] = Ramp(start: start, to: to, target: target, v0: v0) }
      }
    }

    func state(at t: Int64) -> SubjectState {
      var s = state
      for (i, r) in ramps.enumerated() {
        guard let r else { continue }
        // Python interp(): prev + (full - prev) * a, a = (t - prev_t) / (kt - prev_t).
        s.values[i] = t >= r.to ? r.target : r.v0 + (r.target - r.v0) * (Double(t - r.start) / Double(r.to - r.start))
      }
      return s
    }
  }

  let steps: [(start: Int64, step: Scenario.Track.Step)]
  let oscillations: [(from: Int64, to: Int64, Scenario.Oscillation)]
  /// Oscillation indices by start time (stable).
  let oscillationOrder: [Int]
  var base: Base
  var nextStep = 0
  var nextOscillation = 0
  /// The oscillations started and not yet ended, in file order (the order they are added).
  var running: [Int] = []

  init(baseline: SubjectState, track: Scenario.Track) {
    steps = track.steps
    oscillations = track.oscillations
    oscillationOrder = track.oscillations.indices.sorted {
      (track.oscillations[$0].from, $0) < (track.oscillations[$1].from, $1)
    }
    base = Base(state: baseline)
  }

  /// The state at `t` (not before the previous call's `t`).
  mutating func state(at t: Int64) -> SubjectState {
    while nextStep < steps.count, steps[nextStep].start <= t {
      base.apply(start: steps[nextStep].start, steps[nextStep].step)
      nextStep += 1
    }
    while nextOscillation < oscillationOrder.count, oscillations[oscillationOrder[nextOscillation]].from <= t {
      let i = oscillationOrder[nextOscillation]
      running.insert(i, at: running.firstIndex(where: { $0 > i }) ?? running.count)
      nextOscillation += 1
    }
    running.removeAll { t >= oscillations[$0].to }
    var s = base.state(at: t)
    for i in running {
      let (from, _, o) = oscillations[i]
      s[o.param] += o.amplitude * _sin(2 * Double.pi * Double(t - from) / o.periodMs)
    }
    return s
  }
}

extension SubjectParam {
  /// The position in `SubjectState.values`.
  var index: Int { SubjectParam.allCases.firstIndex(of: self)! }
}

/// The frame times of a scenario, one at a time.
struct FrameClock {
  let plan: Scenario.FramePlan
  let fps: Int
  let durationMs: Int64
  var k = 0

  init(_ s: Scenario) {
    plan = s.frames
    fps = s.fps
    durationMs = s.durationMs
  }

  /// The time of frame `k`, or nil past the end (does not advance).
  func peek() -> Int64? {
    switch plan {
    case .none: return nil
    case .times(let t): return k < t.count ? t[k] : nil
    case .every(let ms):
      let (t, overflow) = Int64(k).multipliedReportingOverflow(by: ms)
      return !overflow && t <= durationMs ? t : nil
    case .fps:
      // Python: round(k * 1000 / FPS), half to even.
      let t = Int64((Double(k * 1000) / Double(fps)).rounded(.toNearestOrEven))
      return t <= durationMs ? t : nil
    }
  }
}
