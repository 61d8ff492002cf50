import EngineIO
import JustPhotoEngine
import PoseSpec

/// A recording's series as a replay collects them for the page (issue 38 item 5): at full
/// rate, each value already in the form the page writes it — a time as its `i32`, an error as
/// its `f32` bits, a level as its code, the gate's counters clamped to their `u8`/`u16`, a
/// landmark frame as its 38 quantized bytes — and a state or a shown cue as the index of its
/// name. About 40 bytes an evaluation (four cues) and 42 a landmark frame, where the raw
/// ``HTMLReportSeries`` take some 300 and 500.
///
/// ``HTMLReportEncoder`` thins them by its strides and numbers the names as the kept values
/// first show them, so the page is byte for byte the one the raw series give
/// (``init(_:)`` converts those: one encoder for both).
package struct HTMLReportColumns: Sendable {
  /// The cues whose metrics are kept, in focus order, and the thresholds of each one's first
  /// judged evaluation.
  package var cues: [String] = []
  package var thresholds: [ThresholdSet?] = []
  /// The gate's persist and minimum hold (of the last evaluation).
  package var persistFrames = 0
  package var minHoldMs = 0
  /// Per evaluation: its time (`i32`, clamped).
  package private(set) var evalT: [Int32] = []
  /// Per cue, per evaluation: the error's `f32` bits (NaN: unavailable), the level's code
  /// (``HTMLReportEncoder/levelCode(_:)``), the state's name.
  private(set) var values: [[UInt32]] = []
  private(set) var levels: [[UInt8]] = []
  private(set) var states: [[UInt16]] = []
  /// Per evaluation: the gate's shown cue (0 none, else its name's index + 1), stable and
  /// persist counters (`u8`), held ms (`u16`), cooling down (0 or 1).
  private(set) var gateShown: [UInt16] = []
  private(set) var gateStable: [UInt8] = []
  private(set) var gatePersist: [UInt8] = []
  private(set) var gateHeld: [UInt16] = []
  private(set) var gateCooling: [UInt8] = []
  /// Landmark frames: time (`i32`), and 19 joints as x, y bytes (``HTMLReportEncoder/quantize(_:)``; 255 absent).
  package private(set) var landmarkT: [Int32] = []
  private(set) var landmarks: [UInt8] = []
  /// The names of states and shown cues, in the order first collected. Index 0 is the empty
  /// name, which a name past ``HTMLReportLimits/seriesNamesMax`` reads as (the engine's
  /// states are four and the shown cues the spec's: never in practice).
  private(set) var names: [String] = [""]
  private var nameIndex: [String: UInt16] = ["": 0]

  /// Coordinate bytes per landmark frame.
  static let landmarkBytes = 2 * Joint.allCases.count

  package init(cues: [String] = []) {
    setCues(cues)
  }

  /// The raw series in page form (the page they give is the one they gave before).
  package init(_ s: HTMLReportSeries) {
    setCues(s.cues)
    for c in s.cues.indices where c < s.thresholds.count { thresholds[c] = s.thresholds[c] }
    persistFrames = s.persistFrames
    minHoldMs = s.minHoldMs
    for i in s.evalT.indices {
      evalT.append(Int32(clamping: s.evalT[i]))
      for c in s.cues.indices {
        let state = c < s.states.count && i < s.states[c].count ? s.states[c][i] : ""
        appendCue(c, error: s.values[c][i], level: s.levels[c][i], state: state)
      }
      appendGate(
        shown: s.gateShown[i], stable: s.gateStable[i], persist: i < s.gatePersist.count ? s.gatePersist[i] : s.persistFrames,
        heldMs: s.gateHeldMs[i], cooling: s.gateCooling[i])
    }
    for i in s.landmarkT.indices {
      landmarkT.append(Int32(clamping: s.landmarkT[i]))
      for p in s.landmarks[i] { appendPoint(p) }
    }
  }

  /// Room for `evaluations` evaluations and `frames` landmark frames (the recording's declared
  /// events, within ``HTMLReportLimits/timelineEventsMax``): no array grows by copying.
  package mutating func reserve(evaluations: Int, frames: Int) {
    let n = max(0, min(evaluations, HTMLReportLimits.timelineEventsMax))
    let f = max(0, min(frames, HTMLReportLimits.timelineEventsMax))
    if n > 0 {
      evalT.reserveCapacity(n)
      for c in cues.indices {
        values[c].reserveCapacity(n)
        levels[c].reserveCapacity(n)
        states[c].reserveCapacity(n)
      }
      gateShown.reserveCapacity(n)
      gateStable.reserveCapacity(n)
      gatePersist.reserveCapacity(n)
      gateHeld.reserveCapacity(n)
      gateCooling.reserveCapacity(n)
    }
    if f > 0 {
      landmarkT.reserveCapacity(f)
      landmarks.reserveCapacity(f * Self.landmarkBytes)
    }
  }

  /// Sets the focus cues (before any evaluation is collected).
  package mutating func setCues(_ cues: [String]) {
    self.cues = cues
    thresholds = cues.map { _ in nil }
    values = cues.map { _ in [] }
    levels = cues.map { _ in [] }
    states = cues.map { _ in [] }
  }

  /// Evaluations collected.
  package var evaluations: Int { evalT.count }
  /// Landmark frames collected.
  package var frames: Int { landmarkT.count }

  /// The bytes the collected values take (their arrays' elements; names and thresholds aside).
  package var valueBytes: Int {
    evalT.count * 4 + values.reduce(0) { $0 + 4 * $1.count } + levels.reduce(0) { $0 + $1.count }
      + states.reduce(0) { $0 + 2 * $1.count } + gateShown.count * 2 + gateStable.count + gatePersist.count
      + gateHeld.count * 2 + gateCooling.count + landmarkT.count * 4 + landmarks.count
  }

  /// One evaluation at `t`: `cue(c)` gives focus cue `c`'s entry (nil: not evaluated), then
  /// the gate's values.
  mutating func appendEvaluation(
    t: Millis, cue: (Int) -> (error: Double?, level: CueLevel, state: String, thresholds: ThresholdSet?)?, shown: String?,
    stable: Int, persist: Int, heldMs: Millis, cooling: Bool
  ) {
    evalT.append(Int32(clamping: t))
    for c in cues.indices {
      let entry = cue(c)
      appendCue(c, error: entry?.error, level: entry?.level ?? .none, state: entry?.state ?? "")
      if thresholds[c] == nil, let th = entry?.thresholds { thresholds[c] = th }
    }
    appendGate(shown: shown, stable: stable, persist: persist, heldMs: heldMs, cooling: cooling)
  }

  mutating func appendCue(_ c: Int, error: Double?, level: CueLevel, state: String) {
    values[c].append(Float(error ?? .nan).bitPattern)
    levels[c].append(UInt8(HTMLReportEncoder.levelCode(level)))
    states[c].append(intern(state))
  }

  mutating func appendGate(shown: String?, stable: Int, persist: Int, heldMs: Millis, cooling: Bool) {
    gateShown.append(shown.map { intern($0) + 1 } ?? 0)
    gateStable.append(UInt8(truncatingIfNeeded: min(stable, 255)))
    gatePersist.append(UInt8(truncatingIfNeeded: min(persist, 255)))
    gateHeld.append(UInt16(min(max(heldMs, 0), 65_535)))
    gateCooling.append(cooling ? 1 : 0)
  }

  /// A landmark frame at `t`: body joints canonical (y down), absent below confidence 0.5.
  package mutating func appendLandmarks(_ f: LandmarkFrame, at t: Millis) {
    landmarkT.append(Int32(clamping: t))
    for i in 0..<Joint.allCases.count {
      guard let body = f.body, let p = body.points[i], p.conf >= 0.5, p.x.isFinite, p.y.isFinite else {
        appendPoint(nil)
        continue
      }
      appendPoint((p.x, f.coords == .vision ? 1 - p.y : p.y))
    }
  }

  mutating func appendPoint(_ p: (x: Double, y: Double)?) {
    landmarks.append(p.map { UInt8(truncatingIfNeeded: HTMLReportEncoder.quantize($0.x)) } ?? 255)
    landmarks.append(p.map { UInt8(truncatingIfNeeded: HTMLReportEncoder.quantize($0.y)) } ?? 255)
  }

  /// Takes `other`'s landmark frames (collected apart, from the recording's events).
  package mutating func takeLandmarks(from other: inout HTMLReportColumns) {
    landmarkT = other.landmarkT
    landmarks = other.landmarks
    other.landmarkT = []
    other.landmarks = []
  }

  /// The index of `name` (0: the empty name, also every name past the limit).
  mutating func intern(_ name: String) -> UInt16 {
    if let k = nameIndex[name] { return k }
    guard names.count < HTMLReportLimits.seriesNamesMax else { return 0 }
    let k = UInt16(names.count)
    names.append(name)
    nameIndex[name] = k
    return k
  }
}
