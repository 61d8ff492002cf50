import Recording
/// A readable line diff (unified format, −/+ with context) for `review`.
public enum UnifiedDiff {
  /// Renders the changes from `old` to `new`. With `color`, removed lines are red, added lines
  /// green and hunk headers cyan (ANSI; only for a terminal). Empty when the texts are equal.
  public static func render(
    old: [String], new: [String], oldName: String, newName: String, context: Int = 3,
    color: Bool = false
  ) -> String {
    let ops = Myers.diff(old.count, new.count) { old[$0] == new[$1] }
    guard ops.contains(where: { !$0.isEqual }) else { return "" }
    let red = color ? "\u{1B}[31m" : ""
    let green = color ? "\u{1B}[32m" : ""
    let cyan = color ? "\u{1B}[36m" : ""
    let reset = color ? "\u{1B}[0m" : ""
    // A console diff: names and lines come from files, printed through ConsoleText.line.
    let line = ConsoleText.line
    var out = "\(red)--- \(line(oldName))\(reset)\n\(green)+++ \(line(newName))\(reset)\n"
    for hunk in hunks(ops, context: context) {
      let slice = ops[hunk]
      var oldStart = 0
      var newStart = 0
      var oldCount = 0
      var newCount = 0
      var firstOld: Int?
      var firstNew: Int?
      for op in slice {
        switch op {
        case .equal(let a, let b):
          firstOld = firstOld ?? a
          firstNew = firstNew ?? b
          oldCount += 1
          newCount += 1
        case .delete(let a):
          firstOld = firstOld ?? a
          oldCount += 1
        case .insert(let b):
          firstNew = firstNew ?? b
          newCount += 1
        }
      }
      oldStart = firstOld.map { $0 + 1 } ?? position(before: hunk.lowerBound, ops: ops, old: true)
      newStart = firstNew.map { $0 + 1 } ?? position(before: hunk.lowerBound, ops: ops, old: false)
      out += "\(cyan)@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@\(reset)\n"
      for op in slice {
        switch op {
        case .equal(let a, _): out += " \(line(old[a]))\n"
        case .delete(let a): out += "\(red)-\(line(old[a]))\(reset)\n"
        case .insert(let b): out += "\(green)+\(line(new[b]))\(reset)\n"
        }
      }
    }
    return out
  }

  /// Ranges of `ops` to print: each change with `context` equal lines around it, merged when
  /// they touch.
  static func hunks(_ ops: [DiffOp], context: Int) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    for (i, op) in ops.enumerated() where !op.isEqual {
      let r = max(0, i - context)..<min(ops.count, i + context + 1)
      if let last = ranges.last, r.lowerBound <= last.upperBound {
        ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
      } else {
        ranges.append(r)
      }
    }
    return ranges
  }

  /// The 1-based line after which an empty side of a hunk sits (unified-diff convention: the
  /// line number before the insertion point, 0 at the start).
  private static func position(before index: Int, ops: [DiffOp], old: Bool) -> Int {
    var line = 0
    for op in ops[..<index] {
      switch op {
      case .equal: line += 1
      case .delete: if old { line += 1 }
      case .insert: if !old { line += 1 }
      }
    }
    return line
  }
}
