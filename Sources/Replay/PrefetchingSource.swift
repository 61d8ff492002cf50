import CanonicalJSON
import EngineIO
import Foundation

/// An event source read ahead on its own thread: decoding the next events overlaps with the
/// engine replaying the current ones, so a replay of a file costs the slower of the two stages,
/// not their sum (issue 15 item 8: decoding was a fifth of a replay).
///
/// The events, and the error that ends a damaged source, arrive in exactly the order and at
/// exactly the place the wrapped source yields them: a replay through it is byte-identical to
/// one reading directly. Memory is bounded: at most `batchesMax` batches of at most
/// `batchEvents` events (and about `batchBytes` of luma pixels) wait at once. Dropping the
/// source (an early stop, an error in the engine) stops the reader thread and waits for it.
public struct PrefetchingSource: EventSource {
  /// The recording's header (read before the reader thread starts).
  public let header: JSONObject
  private let owner: Owner
  /// The current batch; each event is moved out when handed on (no copy, no retain).
  private var batch: EventBatch? = nil
  private var finished = false

  /// Events per batch handed over from the reader thread. Each hand-over can wake the other
  /// thread (the reader, faster than the engine, waits for room): 512 events and one waiting
  /// batch cost 6 % less CPU per replay than 256 and four (issue 38, docs/PERFORMANCE.md).
  public static let batchEvents = 512
  /// Luma bytes that close a batch early (planes are the large events).
  public static let batchBytes = 4 << 20
  /// Batches waiting at most.
  public static let batchesMax = 1

  /// Starts reading `source` on a new thread. `source` must not be used by the caller again.
  public init(_ source: any EventSource) {
    header = source.header
    owner = Owner(Pipe(source: source))
  }

  /// The next event, nil at the end; a read error of the reader thread is thrown here.
  public mutating func next() throws(RecordingError) -> InputEvent? {
    if let batch, let e = batch.take() { return e }
    if finished { return nil }
    switch owner.pipe.take() {
    case .events(let events):
      batch = events
      return events.take()
    case .end:
      batch = nil
      finished = true
      return nil
    case .failed(let error):
      batch = nil
      finished = true
      throw error
    }
  }

  /// Events moved in by the reader thread and out by the replay, in order, each exactly once.
  /// The slots hold `InputEvent`s, not `InputEvent?`s: an optional event is dropped through
  /// its value witnesses (~110 instructions, even for nil), and a batch of them was dropped
  /// per event read. Events not taken are dropped with the batch.
  final class EventBatch: @unchecked Sendable {
    private let base: UnsafeMutablePointer<InputEvent>
    let capacity: Int
    private(set) var count = 0
    private var taken = 0

    init(capacity: Int) {
      base = .allocate(capacity: capacity)
      self.capacity = capacity
    }

    deinit {
      (base + taken).deinitialize(count: count - taken)
      base.deallocate()
    }

    var isFull: Bool { count == capacity }

    /// Appends `event` (the batch must not be full).
    func append(_ event: consuming InputEvent) {
      precondition(count < capacity, "EventBatch: full")
      (base + count).initialize(to: event)
      count += 1
    }

    /// The next event not yet taken, moved out; nil when all were taken.
    @inline(__always)
    func take() -> InputEvent? {
      guard taken < count else { return nil }
      defer { taken += 1 }
      return (base + taken).move()
    }
  }

  /// Stops the reader when the last copy of the source goes away.
  final class Owner: Sendable {
    let pipe: Pipe
    init(_ pipe: Pipe) { self.pipe = pipe }
    deinit { pipe.stop() }
  }

  /// The reader thread and the bounded queue between it and the replay.
  final class Pipe: @unchecked Sendable {
    enum Item {
      case events(EventBatch)
      case end
      case failed(RecordingError)
    }

    private let condition = NSCondition()
    private var queue: [Item] = []
    private var cancelled = false
    private var running = true

    init(source: any EventSource) {
      let box = SourceBox(source)
      let thread = Thread { [self] in read(box.source) }
      thread.name = "jpreplay.prefetch"
      thread.stackSize = 1 << 20
      thread.start()
    }

    /// The next item, waiting for the reader when none is ready.
    func take() -> Item {
      condition.lock()
      defer { condition.unlock() }
      while queue.isEmpty { condition.wait() }
      let item = queue.removeFirst()  // at most `batchesMax` items
      condition.broadcast()
      return item
    }

    /// Asks the reader to stop and waits until it has.
    func stop() {
      condition.lock()
      cancelled = true
      condition.broadcast()
      while running { condition.wait() }
      condition.unlock()
    }

    /// Queues `item` when there is room; false when the replay has stopped listening.
    private func put(_ item: Item) -> Bool {
      condition.lock()
      defer { condition.unlock() }
      while !cancelled && queue.count >= PrefetchingSource.batchesMax { condition.wait() }
      if cancelled { return false }
      queue.append(item)
      condition.broadcast()
      return true
    }

    private func read(_ start: any EventSource) {
      var source = start
      var pending = EventBatch(capacity: PrefetchingSource.batchEvents)
      var bytes = 0
      reading: while true {
        let last: Item?
        do throws(RecordingError) {
          if let e = try source.next() {
            bytes += e.bulkBytes
            pending.append(consume e)  // moved, not copied (a copy retained its arrays)
            guard pending.isFull || bytes >= PrefetchingSource.batchBytes else {
              continue reading
            }
            last = nil
          } else {
            last = .end
          }
        } catch {
          last = .failed(error)
        }
        // A full batch, or what was read before the end or the error, then that.
        if pending.count > 0 {
          // Room for a whole batch at once (grown by appending, an array was reallocated and
          // copied about ten times per batch, in fresh memory on this thread).
          let events = pending
          pending = EventBatch(capacity: PrefetchingSource.batchEvents)
          bytes = 0
          guard put(.events(events)) else { break reading }
        }
        if let last {
          _ = put(last)
          break reading
        }
      }
      condition.lock()
      running = false
      condition.broadcast()
      condition.unlock()
    }
  }

  /// Hands the wrapped source to the reader thread (it is used there only).
  final class SourceBox: @unchecked Sendable {
    let source: any EventSource
    init(_ source: any EventSource) { self.source = source }
  }
}
