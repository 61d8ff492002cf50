import EngineIO
import HeapModule

/// The discrete-event queue of a replay: engine timers and recorded inputs, ordered as
/// ENGINE §1.3.3 requires.
///
/// Entries are ordered by `(time, class, sequence)`:
/// - timers (class 0) by due time, ties by the sequence number of the `schedule` request that
///   set that due time (a re-schedule counts as a new creation);
/// - recorded inputs (class 1) by `t`, ties by file order;
/// - synthesized effect results of lenient replay (class 2) last, so that a recorded result at
///   the same instant wins.
///
/// So at any instant t, every timer due ≤ t runs before the inputs stamped t, and a timer the
/// engine schedules for "now" while handling an input runs before the next input of the same
/// instant. Cancelled and replaced timers are deleted lazily: each live timer has a generation,
/// and heap entries of an older generation are dropped when they reach the top.
///
/// The heap holds small fixed-size entries (times, sequence numbers, slot indices); the events
/// themselves stay outside it. Recorded inputs must be pushed in non-decreasing `t` (the
/// replayer checks the recording before pushing) and wait in a FIFO; the replayer keeps at most
/// one look-ahead input here, so memory depends on the live timers, not on the recording length.
public struct EventQueue: Sendable {
  /// What comes out of the queue.
  public enum Item: Equatable, Sendable {
    case timer(TimerID, due: Millis)
    case input(InputEvent)
    case synthesized(InputEvent)

    /// When the entry is due.
    public var time: Millis {
      switch self {
      case .timer(_, let due): due
      case .input(let e), .synthesized(let e): e.t
      }
    }
  }

  struct Entry: Comparable, Sendable {
    var time: Millis
    var rank: UInt8
    var sequence: UInt64
    /// Timer slot (rank 0) or key of `synthesized` (rank 2).
    var ref: Int
    var generation: UInt64

    static func < (a: Entry, b: Entry) -> Bool {
      (a.time, a.rank, a.sequence) < (b.time, b.rank, b.sequence)
    }
    static func == (a: Entry, b: Entry) -> Bool {
      (a.time, a.rank, a.sequence) == (b.time, b.rank, b.sequence)
    }
  }

  private var heap = Heap<Entry>()
  /// Timer slots: a slot per id ever scheduled; generation 0 = not live.
  private var slotOf: [TimerID: Int] = [:]
  private var slotID: [TimerID] = []
  private var slotGeneration: [UInt64] = []
  private var slotDue: [Millis] = []
  private var slotSequence: [UInt64] = []
  private var liveCount = 0
  /// Recorded inputs waiting, in push order, with their sequence numbers (and times, readable
  /// after the event has been moved out by `pop`).
  private var inputs: [(event: InputEvent?, t: Millis, sequence: UInt64)] = []
  private var inputHead = 0
  private var synthesized: [Int: InputEvent] = [:]
  private var nextSequence: UInt64 = 0
  private var nextGeneration: UInt64 = 0

  /// An empty queue.
  public init() {}

  /// Schedules `id` at `due`, replacing an earlier schedule of the same id.
  public mutating func schedule(_ id: TimerID, at due: Millis) {
    let slot: Int
    if let s = slotOf[id] {
      slot = s
    } else {
      slot = slotID.count
      slotOf[id] = slot
      slotID.append(id)
      slotGeneration.append(0)
      slotDue.append(0)
      slotSequence.append(0)
    }
    if slotGeneration[slot] == 0 { liveCount += 1 }
    nextGeneration += 1
    let sequence = takeSequence()
    slotGeneration[slot] = nextGeneration
    slotDue[slot] = due
    slotSequence[slot] = sequence
    heap.insert(
      Entry(time: due, rank: 0, sequence: sequence, ref: slot, generation: nextGeneration))
  }

  /// Cancels `id`; cancelling an unknown or already fired timer does nothing.
  public mutating func cancel(_ id: TimerID) {
    guard let slot = slotOf[id], slotGeneration[slot] != 0 else { return }
    slotGeneration[slot] = 0
    liveCount -= 1
  }

  /// Adds a recorded input. Inputs must come in non-decreasing `t` (file order). The event is
  /// taken, not copied (a copy retained its payload's arrays, which the reader thread wrote).
  public mutating func push(input event: consuming InputEvent) {
    precondition(
      inputHead == inputs.count || inputs[inputs.count - 1].t <= event.t,
      "EventQueue: recorded inputs must be pushed in non-decreasing t")
    let t = event.t
    let sequence = takeSequence()
    inputs.append((consume event, t, sequence))
  }

  /// Adds a synthesized effect result (lenient replay), delivered after recorded inputs of the
  /// same instant.
  public mutating func push(synthesized event: InputEvent) {
    let sequence = takeSequence()
    let key = Int(truncatingIfNeeded: sequence)
    synthesized[key] = event
    heap.insert(Entry(time: event.t, rank: 2, sequence: sequence, ref: key, generation: 0))
  }

  /// The time of the next item, without removing it.
  public mutating func peekTime() -> Millis? {
    dropDead()
    let input = inputHead < inputs.count ? inputs[inputHead].t : nil
    guard let top = heap.min else { return input }
    guard let input else { return top.time }
    return min(top.time, input)
  }

  /// The next item without removing it.
  public mutating func peek() -> Item? {
    dropDead()
    if inputHead < inputs.count {
      let (t, sequence) = (inputs[inputHead].t, inputs[inputHead].sequence)
      if let top = heap.min, (top.time, top.rank, top.sequence) < (t, 1, sequence) {
        return item(of: top)
      }
      return .input(inputs[inputHead].event!)
    }
    return heap.min.map(item(of:))
  }

  /// Removes and returns the next item. A timer is no longer live once popped.
  public mutating func pop() -> Item? {
    dropDead()
    if inputHead < inputs.count {
      let (t, sequence) = (inputs[inputHead].t, inputs[inputHead].sequence)
      if let top = heap.min, (top.time, top.rank, top.sequence) < (t, 1, sequence) {
        return popHeap()
      }
      // Moved out, not copied: the queue holds the only other reference to its payload.
      if inputHead == inputs.count - 1 {
        // The last one waiting (the replayer keeps one input here): moved out with its slot.
        // Taking it left a nil slot to drop, and dropping an `InputEvent?` goes through its
        // value witnesses, ~110 instructions per input even for nil.
        let event = inputs.removeLast().event!
        // Emptied from the back: `removeAll(keepingCapacity:)` went through a generic range
        // replacement, ~230 instructions per input.
        while !inputs.isEmpty { inputs.removeLast() }
        inputHead = 0
        return .input(event)
      }
      let event = inputs[inputHead].event.take()!
      inputHead += 1
      return .input(event)
    }
    return popHeap()
  }

  /// The live timers, ordered as they would fire.
  public var pendingTimers: [(id: TimerID, due: Millis)] {
    slotGeneration.indices.filter { slotGeneration[$0] != 0 }
      .sorted { (slotDue[$0], slotSequence[$0]) < (slotDue[$1], slotSequence[$1]) }
      .map { (slotID[$0], slotDue[$0]) }
  }

  /// Whether nothing live is left.
  public var isEmpty: Bool { inputHead == inputs.count && liveCount == 0 && synthesized.isEmpty }

  private mutating func popHeap() -> Item? {
    guard let entry = heap.popMin() else { return nil }
    let item = item(of: entry)
    if entry.rank == 0 {
      slotGeneration[entry.ref] = 0
      liveCount -= 1
    } else {
      synthesized[entry.ref] = nil
    }
    return item
  }

  private func item(of entry: Entry) -> Item {
    entry.rank == 0
      ? .timer(slotID[entry.ref], due: entry.time) : .synthesized(synthesized[entry.ref]!)
  }

  private mutating func takeSequence() -> UInt64 {
    defer { nextSequence += 1 }
    return nextSequence
  }

  /// Pops stale timer entries (cancelled, or replaced by a later schedule) off the top.
  private mutating func dropDead() {
    while let top = heap.min, top.rank == 0, slotGeneration[top.ref] != top.generation {
      _ = heap.popMin()
    }
  }
}
