/// The noise gate (engine option `noiseGate`, ENGINE §3.4.7, G-57; off by default, as in the
/// app): a T0 cue whose error jumps about more, from frame to frame, than the band between its
/// activating and exit thresholds cannot tell a pose from the detector's noise, so it is
/// unavailable (`noisy`) until its error settles.
///
/// Per cue it keeps the last `window` frame-to-frame changes of the error (in one mode, noRef
/// or withRef) and compares their median with `ratio` × the cue's band
/// (``LevelRule/noiseBand``). The median, not the mean: one outlier frame (two large changes)
/// does not gate a cue whose error is otherwise steady. With `noiseGateMargin` k > 0 an inactive
/// cue also needs its error past the activating threshold by more than k median changes: a
/// crossing within the noise is no evidence. Nothing is allocated after `init`.
struct NoiseGate: Sendable {
  /// Frame-to-frame changes weighed (N of `noiseGate=N`); 0 is off.
  let window: Int
  /// The multiple of the band allowed (`noiseGateRatio`).
  let ratio: Double
  /// How many median changes an inactive cue's error must be past its activating threshold
  /// (`noiseGateMargin`; 0: any amount, as the spec).
  let marginFactor: Double
  /// Cue `i`'s changes live in `changes[i * window ..< (i + 1) * window]`, a ring.
  private var changes: [Double]
  /// Per cue: changes held (≤ window), the ring's next slot, the last error and its mode.
  private var held: [Int]
  private var next: [Int]
  private var last: [Double]
  private var lastWithRef: [Bool]
  /// Per cue: whether the last error exists (a reset or an unavailable evaluation clears it).
  private var hasLast: [Bool]
  /// The median's working copy of one cue's changes.
  private var scratch: [Double]

  /// A gate for `cues` cues; `window` 0 makes every ``judge(_:error:withRef:band:pastThreshold:active:)`` a pass.
  init(window: Int, ratio: Double, margin: Double = 0, cues: Int) {
    self.window = max(0, window)
    self.ratio = ratio
    self.marginFactor = margin
    let n = self.window > 0 ? cues : 0
    changes = Array(repeating: 0, count: n * self.window)
    held = Array(repeating: 0, count: n)
    next = Array(repeating: 0, count: n)
    last = Array(repeating: 0, count: n)
    lastWithRef = Array(repeating: false, count: n)
    hasLast = Array(repeating: false, count: n)
    scratch = Array(repeating: 0, count: self.window)
  }

  /// The gate the engine options ask for (`noiseGate`, `noiseGateRatio`, `noiseGateMargin`).
  init(_ s: EngineSettings, cues: Int) {
    self.init(window: s.noiseGate, ratio: s.noiseGateRatio, margin: s.noiseGateMargin, cues: cues)
  }

  /// Whether the gate is on (`noiseGate` ≥ 1).
  var isOn: Bool { window > 0 }

  /// What the gate makes of one evaluation of a cue.
  enum Verdict: Equatable, Sendable {
    /// Judged as the spec says.
    case pass
    /// Unavailable (`noisy`): the median change is past `ratio × band`, or too few changes are
    /// held yet to tell.
    case noisy
    /// An inactive cue's activating level counts as none: its error is past the activating
    /// threshold by no more than `margin × median change` (`noiseGateMargin`).
    case demoted
  }

  /// Records cue `i`'s error of this evaluation and judges it (§3.4.7): ``Verdict/noisy`` when
  /// the median of its last changes (up to `window`, in one mode) is above `ratio × band`, or
  /// fewer than ``settling`` changes are held yet; else ``Verdict/demoted`` when the cue is
  /// inactive, `marginFactor` > 0 and `pastThreshold` (how far the error is past its activating
  /// threshold) is at most `marginFactor ×` that median; else ``Verdict/pass``. A cue without a
  /// band (no activating or no exit threshold) is never `noisy`; one without a `pastThreshold`
  /// (a `between` activating threshold) is never demoted.
  mutating func judge(
    _ i: Int, error: Double, withRef: Bool, band: Double?, pastThreshold: Double? = nil, active: Bool = false
  ) -> Verdict {
    guard isOn, i < held.count else { return .pass }
    guard error.isFinite else {
      clear(i)
      return .pass
    }
    if hasLast[i] && lastWithRef[i] == withRef {
      changes[i * window + next[i]] = abs(error - last[i])
      next[i] = (next[i] + 1) % window
      held[i] = min(held[i] + 1, window)
    } else {
      (held[i], next[i]) = (0, 0)
    }
    (last[i], lastWithRef[i], hasLast[i]) = (error, withRef, true)
    // Too little seen to tell the noise: after a start, a reset, an unavailable evaluation or
    // a mode change the cue waits for `settling` changes (a detector dropout would otherwise
    // open the gate to the frames right after it).
    let median = held[i] >= settling ? median(i, of: held[i]) : .infinity
    if let band, median > ratio * band { return .noisy }
    if marginFactor > 0, !active, let pastThreshold, pastThreshold <= marginFactor * median { return .demoted }
    return .pass
  }

  /// Changes needed before a cue can be judged: 2 (one change is one outlier), or the window.
  var settling: Int { min(window, 2) }

  /// Forgets cue `i`'s changes: it was unavailable, or the hysteresis table was reset (§3.5).
  mutating func clear(_ i: Int) {
    guard isOn, i < held.count else { return }
    (held[i], next[i], hasLast[i]) = (0, 0, false)
  }

  /// Forgets every cue's changes.
  mutating func clearAll() {
    guard isOn else { return }
    for i in held.indices { clear(i) }
  }

  /// The median of cue `i`'s first `count` changes (the mean of the middle two for an even
  /// count), by insertion sort of a copy: at most 30 values. Which `count` slots hold changes
  /// does not matter: the ring fills slots 0, 1, … before it wraps.
  private mutating func median(_ i: Int, of count: Int) -> Double {
    let base = i * window
    for k in 0..<count {
      let v = changes[base + k]
      var j = k
      while j > 0 && scratch[j - 1] > v {
        scratch[j] = scratch[j - 1]
        j -= 1
      }
      scratch[j] = v
    }
    let mid = count / 2
    return count % 2 == 1 ? scratch[mid] : (scratch[mid - 1] + scratch[mid]) / 2
  }
}
