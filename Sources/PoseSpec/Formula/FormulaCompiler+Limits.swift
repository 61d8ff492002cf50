/// The bounds the formula compiler enforces while it expands aliases, other cues' metrics and
/// nested expressions (`PoseSpecLimits`), so that a hostile spec is refused before it
/// exhausts the stack or memory.
extension CueCompiler {
  /// Refuses an expansion nested more than `aliasChainMax` deep; remembers where the
  /// outermost one starts in the cue's text.
  mutating func checkChain(_ name: String, at: Int) throws {
    if expanding.isEmpty { expansionColumn = at }
    guard expanding.count < PoseSpecLimits.aliasChainMax else {
      throw fail(
        expansionColumn,
        "'\(expanding[0])' expands through more than aliasChainMax = \(PoseSpecLimits.aliasChainMax) names "
          + "(\(expanding.prefix(3).joined(separator: " → ")) → … → \(name))",
        token: expanding[0])
    }
  }

  /// Refuses the next node past `formulaDepthMax` or `formulaNodesMax`, before compiling it
  /// (the column is the expanded name's in the cue's text while an expansion is under way).
  func checkSize(_ syntaxColumn: Int) throws {
    let column = expanding.isEmpty ? syntaxColumn : expansionColumn
    let inside = expanding.isEmpty ? "" : " (expanding \(expanding.joined(separator: " → ")))"
    guard depth <= PoseSpecLimits.formulaDepthMax else {
      throw fail(
        column, "the expression nests deeper than formulaDepthMax = \(PoseSpecLimits.formulaDepthMax) levels\(inside)",
        token: expanding.first)
    }
    guard nodes <= PoseSpecLimits.formulaNodesMax else {
      throw fail(
        column,
        "the cue compiles to more than formulaNodesMax = \(PoseSpecLimits.formulaNodesMax) nodes\(inside); "
          + "an alias used twice is copied twice — simplify the definitions",
        token: expanding.first)
    }
  }
}
