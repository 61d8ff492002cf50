/// One step of an edit script from sequence A (golden) to sequence B (replay).
public enum DiffOp: Equatable, Sendable {
  case equal(Int, Int)
  case delete(Int)
  case insert(Int)
}

/// Myers' O(ND) difference algorithm over indices, with an arbitrary equivalence predicate
/// (so "equal within tolerance" works). Common prefix and suffix are matched first; when the
/// remaining middle needs more than `maxEdits` edits, it is reported as delete-all then
/// insert-all (memory stays O(maxEdits²)).
public enum Myers {
  /// The edit script between sequences of `n` and `m` items whose items `equal` compares, within `maxEdits` (Myers' O(ND) algorithm).
  public static func diff(
    _ n: Int, _ m: Int, maxEdits: Int = 2_000, equal: (Int, Int) -> Bool
  ) -> [DiffOp] {
    var start = 0
    while start < n, start < m, equal(start, start) { start += 1 }
    var endA = n
    var endB = m
    while endA > start, endB > start, equal(endA - 1, endB - 1) {
      endA -= 1
      endB -= 1
    }
    var ops: [DiffOp] = (0..<start).map { .equal($0, $0) }
    ops += middle(a0: start, a1: endA, b0: start, b1: endB, maxEdits: maxEdits, equal: equal)
    ops += (0..<(n - endA)).map { .equal(endA + $0, endB + $0) }
    return ops
  }

  private static func middle(
    a0: Int, a1: Int, b0: Int, b1: Int, maxEdits: Int, equal: (Int, Int) -> Bool
  ) -> [DiffOp] {
    let n = a1 - a0
    let m = b1 - b0
    let fallback = (a0..<a1).map { DiffOp.delete($0) } + (b0..<b1).map { DiffOp.insert($0) }
    if n == 0 || m == 0 { return fallback }
    let limit = min(n + m, maxEdits)
    let offset = limit + 1
    var v = [Int](repeating: 0, count: 2 * limit + 3)
    // trace[d] holds v[k] for k in -(d-1)...(d-1) as it was before round d.
    var trace: [[Int]] = []
    for d in 0...limit {
      trace.append(d == 0 ? [] : Array(v[(offset - d + 1)...(offset + d - 1)]))
      for k in stride(from: -d, through: d, by: 2) {
        var x: Int
        if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
          x = v[offset + k + 1]
        } else {
          x = v[offset + k - 1] + 1
        }
        var y = x - k
        while x < n, y < m, equal(a0 + x, b0 + y) {
          x += 1
          y += 1
        }
        v[offset + k] = x
        if x >= n, y >= m {
          return backtrack(trace: trace, d: d, n: n, m: m, a0: a0, b0: b0)
        }
      }
    }
    return fallback
  }

  private static func backtrack(trace: [[Int]], d: Int, n: Int, m: Int, a0: Int, b0: Int)
    -> [DiffOp]
  {
    var ops: [DiffOp] = []
    var x = n
    var y = m
    var step = d
    while step > 0 {
      let snapshot = trace[step]
      func value(_ k: Int) -> Int { snapshot[k + step - 1] }
      let k = x - y
      let prevK = (k == -step || (k != step && value(k - 1) < value(k + 1))) ? k + 1 : k - 1
      let prevX = value(prevK)
      let prevY = prevX - prevK
      let midX = prevK == k + 1 ? prevX : prevX + 1
      while x > midX {
        ops.append(.equal(a0 + x - 1, b0 + y - 1))
        x -= 1
        y -= 1
      }
      ops.append(prevK == k + 1 ? .insert(b0 + prevY) : .delete(a0 + prevX))
      x = prevX
      y = prevY
      step -= 1
    }
    while x > 0, y > 0 {
      ops.append(.equal(a0 + x - 1, b0 + y - 1))
      x -= 1
      y -= 1
    }
    return ops.reversed()
  }
}
