/// The noise gate (engine option `noiseGate`, ENGINE §3.4.7, G-57; off by default, as in the
/// app): a T0 cue whose error jumps about more, from frame to frame, than the band between its
/// activating and exit thresholds cannot tell a pose from the detector's noise, so it is
/// unavailable (`noisy`) until its error settles.
///
/// Per cue it keeps the last `window` frame-to-frame changes of the error (in one mode, noRef
/// or withRef) and compares their median with `ratio` × the cue's band
/// (``LevelRule/noiseBand``). The median, not the mean: one outlier frame (two large changes)
/// does not gate a cue whose error is otherwise steady. Nothing is allocated after `init`.
struct NoiseGate: Sendable {
  /// Frame-to-frame changes weighed (N of `noiseGate=N`); 0 is off.
  let window: Int
  /// The multiple of the band allowed (`noiseGateRatio`).
  let ratio: Double
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

  /// A gate for `cues` cues; `window` 0 makes ``observe(_:error:withRef:band:)`` always false.
  init(window: Int, ratio: Double, cues: Int) {
    self.window = max(0, window)
    self.ratio = ratio
    let n = self.window > 0 ? cues : 0
    changes = Array(repeating: 0, count: n * self.window)
    held = Array(repeating: 0, count: n)
    next = Array(repeating: 0, count: n)
    last = Array(repeating: 0, count: n)
    lastWithRef = Array(repeating: false, count: n)
    hasLast = Array(repeating: false, count: n)
    scratch = Array(repeating: 0, count: self.window)
  }

  /// Whether the gate is on (`noiseGate` ≥ 1).
  var isOn: Bool { window > 0 }

  /// Records cue `i`'s error of this evaluation and says whether the cue is too noisy to be
  /// judged: the median of its last changes (up to `window`, in one mode) is above
  /// `ratio × band`, or fewer than ``settling`` changes are held yet. A cue without a band (no
  /// activating or no exit threshold) is never gated.
  mutating func observe(_ i: Int, error: Double, withRef: Bool, band: Double?) -> Bool {
    guard isOn, i < held.count else { return false }
    guard error.isFinite else {
      clear(i)
      return false
    }
    if hasLast[i] && lastWithRef[i] == withRef {
      changes[i * window + next[i]] = abs(error - last[i])
      next[i] = (next[i] + 1) % window
      held[i] = min(held[i] + 1, window)
    } else {
      (held[i], next[i]) = (0, 0)
    }
    (last[i], lastWithRef[i], hasLast[i]) = (error, withRef, true)
    guard let band else { return false }
    // Too little seen to tell the noise: after a start, a reset, an unavailable evaluation or
    // a mode change the cue waits for `settling` changes (a detector dropout would otherwise
    // open the gate to the frames right after it).
    guard held[i] >= settling else { return true }
    return median(i, of: held[i]) > ratio * band
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
