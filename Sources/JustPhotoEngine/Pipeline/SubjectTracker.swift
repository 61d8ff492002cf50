import EngineIO

/// Subject choice over time (ENGINE §3.4.4c, §3.4.6; [D] G-20).
///
/// - A `subject_tap` locks the subject to the tapped face (by Vision index) until the subject
///   is lost (a result with no face), or `camera_flipped` resets the lock (PRD §7.1.3).
/// - Otherwise the subject is the largest face (`SubjectChoice`).
/// - Identity proxy: the subject's index in Vision order. `multiPersonTargetUnstable` holds
///   when that identity switched at least twice within the last 1000 ms (FRAME_GENERAL's
///   third trigger).
struct SubjectTracker: Equatable, Sendable {
  static let unstableWindowMs: Millis = 1000
  static let unstableSwitches = 2

  private(set) var lockedIndex: Int?
  private(set) var lastIndex: Int?
  /// Times of identity switches within the window, oldest first.
  private(set) var switches: [Millis] = []

  mutating func tap(faceIndex: Int) { lockedIndex = faceIndex }
  mutating func resetLock() { lockedIndex = nil }

  /// The subject face of `faces` at `t`, and whether the target is unstable.
  /// The subject's index in `faces` (nil without faces) and whether the target is unstable.
  /// (An index, not the face: a face is a large value, copied only where it is read.)
  mutating func subject(_ faces: [FaceObservation], at t: Millis) -> (index: Int?, unstable: Bool) {
    guard !faces.isEmpty else {
      lockedIndex = nil  // subject lost: the manual lock ends
      return (nil, recent(at: t) >= Self.unstableSwitches)
    }
    let index: Int
    if let locked = lockedIndex, locked < faces.count {
      index = locked
    } else {
      index = SubjectChoice.index(faces) ?? 0
    }
    if let last = lastIndex, last != index { switches.append(t) }
    lastIndex = index
    return (index, recent(at: t) >= Self.unstableSwitches)
  }

  mutating func recent(at t: Millis) -> Int {
    // Most evaluations have no switch to forget: `removeAll(where:)` on the empty array went
    // through a range replacement (and a new buffer for the shared empty one), every evaluation.
    if !switches.isEmpty { switches.removeAll { t - $0 > Self.unstableWindowMs } }
    return switches.count
  }
}
