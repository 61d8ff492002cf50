import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoIO
import Replay
import Testing

/// `PrefetchingSource` (issue 15 item 8): a source read ahead on its own thread yields exactly
/// the wrapped source's events, then its end or its error at the same place; dropping it early
/// stops the reader; memory stays bounded by the batches in flight.
@Suite("Prefetching source: same events, same errors, bounded")
struct PrefetchingSourceTests {
  /// How many events a source produced (read from the test's thread).
  final class Counting: @unchecked Sendable {
    let lock = NSLock()
    var produced = 0
  }

  /// Events `0 ..< count` (endless when nil; a luma plane every `lumaEvery`-th), then `error`
  /// (or the end).
  struct Numbered: EventSource {
    var header: JSONObject = ["format": "jp-replay/1"]
    let count: Int?
    let lumaEvery: Int
    let error: RecordingError?
    let counter: Counting
    var position = 0

    mutating func next() throws(RecordingError) -> InputEvent? {
      if let count, position == count {
        if let error { throw error }
        return nil
      }
      defer { position += 1 }
      counter.lock.lock()
      counter.produced += 1
      counter.lock.unlock()
      return Self.event(position, lumaEvery: lumaEvery)
    }

    static func event(_ i: Int, lumaEvery: Int) -> InputEvent {
      if lumaEvery > 0, i % lumaEvery == 0 {
        // 1 MiB planes: four of them close a batch before its event count does.
        return InputEvent(
          t: Millis(i), payload: .luma(LumaFrame(frame: Int64(i), w: 1024, h: 1024, data: [UInt8](repeating: UInt8(i % 251), count: 1 << 20))))
      }
      return InputEvent(t: Millis(i), payload: .justPhoto(JustPhotoEvent(kind: .memory_warning, fields: ["n": .number(Double(i))])))
    }
  }

  func drain(_ source: inout PrefetchingSource) throws(RecordingError) -> [InputEvent] {
    var out: [InputEvent] = []
    while let e = try source.next() { out.append(e) }
    return out
  }

  @Test("every event in order across many batches (some closed early by luma bytes), then the end, then nil again")
  func sameEventsInOrder() throws {
    let n = 5 * PrefetchingSource.batchEvents + 17
    var source = PrefetchingSource(Numbered(count: n, lumaEvery: 97, error: nil, counter: Counting()))
    #expect(source.header["format"] == "jp-replay/1")
    let events = try drain(&source)
    #expect(events == (0..<n).map { Numbered.event($0, lumaEvery: 97) })
    #expect(try source.next() == nil)
  }

  @Test("a source error arrives after exactly the events before it, with its place, and once")
  func errorInPlace() throws {
    let failure = RecordingError(file: "x.jprec", place: "chunk 3", "CRC mismatch")
    for n in [0, 1, PrefetchingSource.batchEvents - 1, PrefetchingSource.batchEvents, 3 * PrefetchingSource.batchEvents + 5] {
      var source = PrefetchingSource(Numbered(count: n, lumaEvery: 0, error: failure, counter: Counting()))
      var seen = 0
      do {
        while try source.next() != nil { seen += 1 }
        Issue.record("no error after \(n) events")
      } catch {
        #expect(error == failure)
      }
      #expect(seen == n)
      #expect(try source.next() == nil)
    }
  }

  @Test("dropping the source mid-stream stops the reader; it never runs more than the batches in flight ahead")
  func earlyStopIsBounded() throws {
    let counter = Counting()
    do {
      var source = PrefetchingSource(Numbered(count: nil, lumaEvery: 0, error: nil, counter: counter))
      for _ in 0..<10 { _ = try source.next() }
      // Give the reader time to fill the queue and block.
      Thread.sleep(forTimeInterval: 0.2)
    }  // dropped here: the owner stops the reader and waits for it
    counter.lock.lock()
    let produced = counter.produced
    counter.lock.unlock()
    // At most: the batch handed out, the queued batches, and the one being filled.
    #expect(produced <= (PrefetchingSource.batchesMax + 2) * PrefetchingSource.batchEvents)
    Thread.sleep(forTimeInterval: 0.1)
    counter.lock.lock()
    #expect(counter.produced == produced)  // stopped: nothing more is read
    counter.lock.unlock()
  }
}
