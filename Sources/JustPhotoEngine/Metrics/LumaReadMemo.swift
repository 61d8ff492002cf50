import EngineIO
import PoseSpec

/// Pixel metrics already read from a recording's luma planes, remembered across the replays of
/// the same events (a `tune` study replays each recording once per trial; issue 38 item 2).
///
/// A pixel metric is a function of the plane, the metric and the ROI's rects alone, so a value
/// read once is the value every later replay would compute: an engine given a memo replays
/// byte-identically to one without. Unlike ``LumaTableCache`` (four `UInt32` tables per plane,
/// ~0.9 GB for a tune study's fit and validation corpora) it keeps a few numbers per plane: a
/// study whose trials do not move the ROIs (anti-jitter, thresholds) reads each plane's pixels
/// in its first trial only.
///
/// Not thread-safe: one engine at a time uses a memo (`CorpusScorer` lends one per replay from
/// a pool); that is what makes the unchecked `Sendable` true. Bounded: at most
/// ``readsPerPlaneMax`` reads kept per plane and ``readsMax`` in all; past either, reads are
/// computed and not kept.
public final class LumaReadMemo: @unchecked Sendable {
  /// One plane's remembered reads.
  public final class Slot: @unchecked Sendable {
    let plane: LumaFrame
    var reads: [(function: FormulaFunction, rects: [Rect], value: Double?)] = []
    /// Unowned: the memo holds its slots (no cycle), and a slot is reached only through it.
    unowned let memo: LumaReadMemo

    init(plane: LumaFrame, memo: LumaReadMemo) {
      self.plane = plane
      self.memo = memo
    }

    /// The remembered value of `function` over `rects`; nil when not remembered (`.some(nil)`:
    /// remembered as an empty ROI).
    func value(_ function: FormulaFunction, _ rects: [Rect]) -> Double?? {
      for r in reads where r.function == function && r.rects == rects {
        memo.hits += 1
        return .some(r.value)
      }
      return nil
    }

    /// Remembers `value` while the bounds allow.
    func keep(_ function: FormulaFunction, _ rects: [Rect], _ value: Double?) {
      memo.computed += 1
      guard reads.count < LumaReadMemo.readsPerPlaneMax, memo.kept < memo.readsMax else { return }
      reads.append((function, rects, value))
      memo.kept += 1
    }
  }

  /// Reads kept per plane at most (a look-up scans them: a study whose trials move the ROIs
  /// keeps the first ones and computes the rest).
  public static let readsPerPlaneMax = 64
  /// Reads kept in all.
  public let readsMax: Int
  /// Slots by fingerprint (``LumaTableCache/fingerprint(_:)``: size and sampled pixels).
  private var slots: [UInt64: [Slot]] = [:]
  /// Look-ups answered from the memo, reads computed from the pixels, reads kept.
  public private(set) var hits = 0
  public private(set) var computed = 0
  public private(set) var kept = 0
  /// Planes with a slot.
  public private(set) var planes = 0

  public init(readsMax: Int) { self.readsMax = readsMax }

  /// The slot of `plane` (matched by content, never by where it lives), made when absent.
  func slot(for plane: LumaFrame) -> Slot {
    let key = LumaTableCache.fingerprint(plane)
    if let s = slots[key]?.first(where: { LumaTableCache.same($0.plane, plane) }) { return s }
    var stored = plane
    stored.frame = 0  // the frame number is not part of the plane's content
    let s = Slot(plane: stored, memo: self)
    slots[key, default: []].append(s)
    planes += 1
    return s
  }
}
