/// Zeller's ddmin: the smallest subset of a set of changes for which a test still holds.
///
/// `test(subset)` answers "does this subset still show the behaviour?" (true = interesting).
/// The result is 1-minimal: removing any single element makes the test fail. Subsets are
/// tried in a fixed order and each distinct subset is tested at most once, so the result and
/// the number of tests depend only on the inputs.
package enum DeltaDebugging {
  /// Runs ddmin over `items` (indices into the caller's change list). `test(items)` is assumed
  /// true; when `test([])` is true the answer is `[]`. `testsMax` bounds the number of tests
  /// (the result is then the smallest interesting subset found so far).
  package static func minimize(
    _ items: [Int], testsMax: Int = 10_000, test: ([Int]) throws -> Bool
  ) rethrows -> (subset: [Int], tests: Int) {
    var cache: [[Int]: Bool] = [:]
    var tests = 0
    func check(_ s: [Int]) throws -> Bool {
      if let r = cache[s] { return r }
      tests += 1
      let r = try test(s)
      cache[s] = r
      return r
    }
    if try check([]) { return ([], tests) }
    var current = items
    var n = 2
    while current.count >= 2, tests < testsMax {
      let chunks = split(current, into: n)
      var reduced = false
      // Try each chunk alone, then each complement.
      for c in chunks where try check(c) {
        current = c
        n = 2
        reduced = true
        break
      }
      if !reduced, n > 2 || chunks.count > 2 {
        for i in chunks.indices {
          let complement = chunks.enumerated().filter { $0.offset != i }.flatMap(\.element)
          if try check(complement) {
            current = complement
            n = max(n - 1, 2)
            reduced = true
            break
          }
        }
      }
      if !reduced {
        if n >= current.count { break }
        n = min(current.count, n * 2)
      }
    }
    return (current, tests)
  }

  /// `items` in `n` contiguous chunks of near-equal size (the first ones one longer).
  static func split(_ items: [Int], into n: Int) -> [[Int]] {
    let n = max(1, min(n, items.count))
    var out: [[Int]] = []
    var start = 0
    for k in 0..<n {
      let size = items.count / n + (k < items.count % n ? 1 : 0)
      out.append(Array(items[start..<(start + size)]))
      start += size
    }
    return out
  }
}
