import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import JustPhotoScenarios
import PoseSpec
import Replay
import XCTest

/// Issue 38 item 1: the reference spec's per-frame path allocates nothing. `jpreplay bench`'s
/// generated session (a wandering one-person subject with a face, 30 fps) on the project's
/// PoseSpec: after a warm-up, a landmark frame whose evaluation emits nothing (no output, no
/// timer, no flush) makes no Swift heap allocation. A count, not a time. An XCTest case, so no
/// other test runs while the allocation hook is in place (`AllocationCounter`).
final class AllocationTests: XCTestCase {
  typealias F = Fixture

  /// Replays `seconds` of the bench session; returns the allocations of each landmark frame
  /// after `warmUp` frames whose `handle` emitted nothing, and how many frames emitted.
  static func quietFrameAllocations(
    seconds: Int64, warmUp: Int = 60, options: EngineOptions = EngineOptions()
  ) throws -> (quiet: [Int], emitting: Int) {
    var e = Engine(
      configuration: EngineConfiguration(
        spec: F.project, options: options, initial: ["scene": "outdoor"], traceMetrics: false))
    let events = Array(SyntheticSession(durationMs: seconds * 1000, fps: 30, seed: 1))
    var due: [TimerID: Millis] = [:]
    func apply(_ fx: Effects) {
      for r in fx.timers {
        switch r {
        case .schedule(let id, let at): due[id] = at
        case .cancel(let id): due[id] = nil
        }
      }
    }
    apply(e.start())
    var quiet = [Int](repeating: -1, count: events.count)
    var emitting = 0
    let counted: Void? = AllocationCounter.counting { allocations in
      for (i, ev) in events.enumerated() {
        while let next = due.filter({ $0.value <= ev.t }).min(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
          due[next.key] = nil
          apply(e.fire(next.key, at: next.value))
        }
        let before = allocations()
        let fx = e.handle(ev)
        let made = allocations() - before
        if fx.outputs.isEmpty, fx.timers.isEmpty, fx.diagnostics.isEmpty, fx.persist == nil {
          quiet[i] = made
        } else {
          emitting += 1
        }
        apply(fx)
      }
    }
    guard counted != nil else { throw XCTSkip("this Swift runtime has no allocation hook to count with") }
    return (Array(quiet.dropFirst(warmUp).filter { $0 >= 0 }), emitting)
  }

  /// After a warm-up, a landmark frame that emits nothing allocates nothing (60 s of bench's session).
  func testQuietFramesAllocateNothing() throws {
    let (quiet, emitting) = try Self.quietFrameAllocations(seconds: 60)
    // Not vacuous: most frames are quiet, and the cues moved on some (displays, timers).
    XCTAssertGreaterThan(quiet.count, 1_000)
    XCTAssertGreaterThan(emitting, 0)
    let allocating = quiet.filter { $0 > 0 }
    XCTAssertEqual(allocating.count, 0, "\(allocating.count) of \(quiet.count) quiet frames allocated, \(allocating.reduce(0, +)) allocations")
  }

  /// The proposed options on the same path: the noise gate (§3.4.7: each cue's changes in a ring
  /// allocated at `init`, the median sorted in a scratch array), two activating evaluations and the
  /// gate options of docs/tuned.
  func testQuietFramesAllocateNothingWithTheNoiseGateAndActivation() throws {
    var options = EngineOptions()
    try options.set("noiseGate", "15")
    try options.set("activateFrames", "2")
    // docs/tuned's gate options too (ENGINE §3.9, G-58): two flags and one counter, no storage.
    try options.set("gatePersistByCue", "true")
    try options.set("gateReleaseOnExit", "true")
    let (quiet, emitting) = try Self.quietFrameAllocations(seconds: 60, options: options)
    XCTAssertGreaterThan(quiet.count, 1_000)
    XCTAssertGreaterThan(emitting, 0)
    let allocating = quiet.filter { $0 > 0 }
    XCTAssertEqual(allocating.count, 0, "\(allocating.count) of \(quiet.count) quiet frames allocated, \(allocating.reduce(0, +)) allocations")
  }

  /// The luma path: a `luma` event handed to the engine, and a direct read of each pixel metric
  /// with its cost (`PixelMetrics.directWork`), allocate nothing (each read mapped its ROI to an
  /// array of pixel rects before: one allocation per read, two with the cost).
  func testLumaEventsAndDirectPixelReadsAllocateNothing() throws {
    let events = LumaTableCacheTests.events(planeEvery: 400)
    let planes = events.compactMap { e -> LumaFrame? in
      if case .luma(let l) = e.payload { return l }
      return nil
    }
    let rois = [Rect(x: 0.1, y: 0.05, w: 0.5, h: 0.4), Rect(x: 0.3, y: 0.5, w: 0.6, h: 0.45)]
    var engine = F.engine(scene: "cafe", traceMetrics: false)
    _ = engine.start()
    var sum = 0.0
    var work = 0
    let functions: [FormulaFunction] = [.meanLuma, .highlightClipPct, .shadowClipPct, .sobelEdgeDensity]
    let counted = AllocationCounter.counting { allocations -> [Int] in
      var made: [Int] = []
      made.reserveCapacity(2 * planes.count)
      for (ev, plane) in zip(events.filter { if case .luma = $0.payload { true } else { false } }, planes) {
        var before = allocations()
        let fx = engine.handle(ev)
        made.append(allocations() - before)
        before = allocations()
        for f in functions {
          work += PixelMetrics.directWork(f, plane, rois)
        }
        sum += PixelMetrics.meanLuma(plane, rois) ?? 0
        sum += PixelMetrics.highlightClipPct(plane, rois) ?? 0
        sum += PixelMetrics.shadowClipPct(plane, rois) ?? 0
        sum += PixelMetrics.sobelEdgeDensity(plane, rois) ?? 0
        made.append(allocations() - before)
        _ = fx
      }
      return made
    }
    guard let counted else { throw XCTSkip("this Swift runtime has no allocation hook to count with") }
    // Not vacuous: 15 planes handled and read, the reads pooled pixels.
    XCTAssertEqual(counted.count, 2 * 15)
    XCTAssertGreaterThan(work, 15 * 4 * 1_000)
    XCTAssertGreaterThan(sum, 0)
    XCTAssertEqual(counted.filter { $0 > 0 }.count, 0, "allocations per luma event, per plane's reads: \(counted)")
  }

  /// The trace writer (issue 38 item 4): a line whose layout a sink has written before is
  /// written from that layout's shape (`TraceLineShapes`, what `FileLineSink` writes through)
  /// without an allocation; only a line of a new layout makes its shape. Three layouts of
  /// PixScan's lines (numbers, strings, a bool, an array), 300 lines into a buffer with room.
  func testTraceLinesOfAKnownLayoutAllocateNothing() throws {
    let records: [TraceRecord] = (0..<300).map { i in
      let t = Int64(i) * 250
      switch i % 3 {
      case 0:
        return TraceRecord(
          t: t, out: "progress",
          fields: ["processed": .number(Double(i)), "total": 5000, "fraction": .number(Double(i) / 5000), "deleted": 0])
      case 1:
        return TraceRecord(t: t, out: "photo", fields: ["id": .string("IMG_\(i)"), "index": .number(Double(i)), "can_undo": true])
      default:
        return TraceRecord(t: t, out: "effect", fields: ["kind": "prefetch", "ids": .array([.string("IMG_\(i + 1)"), .string("IMG_\(i + 2)")])])
      }
    }
    var shapes = TraceLineShapes()
    var bytes = JSONBytes(capacity: 1 << 16)
    let counted = AllocationCounter.counting { allocations -> [Int] in
      var made: [Int] = []
      made.reserveCapacity(records.count)
      for r in records {
        let before = allocations()
        shapes.append(r, to: &bytes)
        bytes.byte(0x0A)
        made.append(allocations() - before)
      }
      return made
    }
    guard let counted else { throw XCTSkip("this Swift runtime has no allocation hook to count with") }
    XCTAssertEqual(shapes.count, 3)
    // Not vacuous: each new layout's line made its shape (allocations seen), and the lines are the writer's.
    XCTAssertEqual(counted.prefix(3).filter { $0 > 0 }.count, 3)
    let later = counted.dropFirst(3)
    XCTAssertEqual(later.filter { $0 > 0 }.count, 0, "\(later.filter { $0 > 0 }.count) of \(later.count) lines allocated")
    XCTAssertEqual(bytes.text, records.map { TraceFormat.line($0) + "\n" }.joined())
  }

  /// The counter counts: a frame's worth of deliberate allocations is seen.
  func testTheCounterSeesAllocations() throws {
    var kept: [[Int]] = []
    let n = AllocationCounter.counting { allocations -> Int in
      for i in 0..<10 { kept.append([i]) }
      return allocations()
    }
    guard let n else { throw XCTSkip("this Swift runtime has no allocation hook to count with") }
    XCTAssertGreaterThanOrEqual(n, 10)
    XCTAssertEqual(kept.count, 10)
  }
}
