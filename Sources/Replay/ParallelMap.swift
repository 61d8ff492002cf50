import Foundation

/// Runs independent work items on a fixed number of threads; results keep the items' order,
/// whatever the number of threads. For replays (engines are values, so workers share
/// nothing): `verify --jobs N`, and sweeps in `Lab`.
public enum ParallelMap {
  private final class State<T>: @unchecked Sendable {
    let lock = NSLock()
    var next = 0
    var done = 0
    var results: [T?]
    init(count: Int) { results = Array(repeating: nil, count: count) }
  }

  /// Maps `work` over `items` on `jobs` threads (inline when `jobs <= 1`). `finished` is called
  /// once per item, one call at a time, with the number of items finished so far, the item's
  /// index and its result.
  public static func run<Item: Sendable, T: Sendable>(
    _ items: [Item], jobs: Int, work: @escaping @Sendable (Item) -> T,
    finished: (@Sendable (_ completed: Int, _ index: Int, _ result: T) -> Void)? = nil
  ) -> [T] {
    let state = State<T>(count: items.count)
    let report: @Sendable (Int, T) -> Void = { index, value in
      state.lock.lock()
      defer { state.lock.unlock() }
      state.results[index] = value
      state.done += 1
      finished?(state.done, index, value)
    }
    let workers = max(1, min(jobs, items.count))
    if workers <= 1 {
      for (i, item) in items.enumerated() { report(i, work(item)) }
    } else {
      let group = DispatchGroup()
      for _ in 0..<workers {
        group.enter()
        let thread = Thread {
          while true {
            state.lock.lock()
            let i = state.next
            state.next += 1
            state.lock.unlock()
            guard i < items.count else { break }
            report(i, work(items[i]))
          }
          group.leave()
        }
        // Engines may recurse (formula evaluation); do not rely on the small default stack.
        thread.stackSize = 16 << 20
        thread.start()
      }
      group.wait()
    }
    return state.results.map { $0! }
  }
}
