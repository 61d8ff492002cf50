import CanonicalJSON

/// Expressions of a cue's formula (ENGINE §2.9): recursion, qualified fields and calls.
extension CueCompiler {
  /// Compiles one node. Only recursion happens here; the typing of each node is in
  /// `typeField` / `typeNegate` / `typeBinary` / `typeCall`, so that the frames on the
  /// recursive path stay small (a debug frame holds every temporary of its function) and
  /// `PoseSpecLimits.formulaDepthMax` levels fit a 512 KiB stack.
  mutating func compileExpression(_ s: FormulaSyntax) throws -> Typed {
    depth += 1
    defer { depth -= 1 }
    nodes += 1
    try checkSize(s.column)
    switch s {
    case .number(let d, _):
      return Typed(expr: .constant(d), type: .scalar)
    case .name(let n, let at):
      return try resolve(n, at: at)
    case .field(let base, let member, let at):
      if let q = try qualifiedField(base, member, at: at) { return q }
      return try typeField(try compileExpression(base), member, at: at)
    case .negate(let inner, let at):
      return try typeNegate(try compileExpression(inner), at: at)
    case .binary(let op, let l, let r, let at):
      let a = try compileExpression(l)
      return try typeBinary(op, a, try compileExpression(r), at: at)
    case .call(let name, let args, let at):
      return try call(name, args, at: at)
    }
  }

  /// `body.x`, `face.x`, `target.x`, … when `base` is such a qualifier (not a local name).
  mutating func qualifiedField(_ base: FormulaSyntax, _ member: String, at: Int) throws -> Typed? {
    guard case .name(let qualifier, _) = base, localIndex[qualifier] == nil, lookupForeign(qualifier) == nil,
      ["body", "face", "target", "frame", "device", "ref"].contains(qualifier)
    else { return nil }
    return try qualified(qualifier, member, at: at)
  }

  func typeField(_ b: Typed, _ member: String, at: Int) throws -> Typed {
    guard let field = FormulaField(rawValue: member) else {
      throw fail(at, "unknown field '.\(member)' (known: .x .y .w .h .minX .minY .maxX .maxY)", token: member)
    }
    switch (b.type, field) {
    case (.point, .x), (.point, .y):
      return Typed(expr: .field(b.expr, field), type: .scalar, isVertical: field == .y)
    case (.rect, _):
      return Typed(expr: .field(b.expr, field), type: .scalar)
    default:
      throw fail(at, "a \(b.type.rawValue) has no field '.\(member)'", token: member)
    }
  }

  func typeNegate(_ t: Typed, at: Int) throws -> Typed {
    guard t.type == .scalar else { throw fail(at, "cannot negate a \(t.type.rawValue)") }
    if case .constant(let d) = t.expr { return Typed(expr: .constant(-d), type: .scalar) }
    return Typed(expr: .negate(t.expr), type: .scalar, isAngle: t.isAngle)
  }

  func typeBinary(_ op: FormulaOperator, _ a: Typed, _ b: Typed, at: Int) throws -> Typed {
    guard a.type == .scalar, b.type == .scalar else {
      throw fail(at, "'\(op.rawValue)' needs two numbers, found a \(a.type.rawValue) and a \(b.type.rawValue)")
    }
    if op == .divide, case .constant(0) = b.expr {
      throw fail(expanding.isEmpty ? at : expansionColumn, "division by the constant 0", token: expanding.first)
    }
    if case .constant(let x) = a.expr, case .constant(let y) = b.expr {
      let v: Double =
        switch op {
        case .add: x + y
        case .subtract: x - y
        case .multiply: x * y
        case .divide: x / y
        }
      guard v.isFinite else {
        throw fail(
          expanding.isEmpty ? at : expansionColumn,
          "the constant \(JSONWriter.shortest(x)) \(op.rawValue) \(JSONWriter.shortest(y)) is not a finite number")
      }
      return Typed(expr: .constant(v), type: .scalar)
    }
    let e = FormulaExpr.binary(op, a.expr, b.expr)
    if op == .subtract && a.isVertical && b.isVertical {
      return Typed(expr: .verticalDifference(e), type: .scalar)
    }
    if op == .subtract && a.isAngle && b.isAngle {
      return Typed(expr: .angleDifference(e), type: .scalar, isAngle: true)
    }
    return Typed(expr: e, type: .scalar)
  }

  mutating func call(_ name: String, _ args: [FormulaSyntax], at: Int) throws -> Typed {
    guard let f = FormulaFunction(rawValue: name) else { throw unknownFunction(name, at: at) }
    var typed: [Typed] = []
    for a in args { typed.append(try compileExpression(a)) }
    return try typeCall(f, name, args, typed, at: at)
  }

  func unknownFunction(_ name: String, at: Int) -> FormulaCompileError {
    fail(at, PoseSpecCompiler.unknownFunctionMessage(name), token: name)
  }

  func typeCall(_ f: FormulaFunction, _ name: String, _ args: [FormulaSyntax], _ typed: [Typed], at: Int) throws
    -> Typed
  {
    let types = typed.map(\.type)
    func expect(_ wanted: [FormulaType]) throws {
      guard types == wanted else {
        throw fail(
          at,
          "\(name) takes (\(wanted.map(\.rawValue).joined(separator: ", "))), found (\(types.map(\.rawValue).joined(separator: ", ")))",
          token: name)
      }
    }
    let exprs = typed.map(\.expr)
    switch f {
    case .mid:
      try expect([.point, .point])
      return Typed(expr: .call(f, exprs), type: .point)
    case .center:
      try expect([.rect])
      return Typed(expr: .call(f, exprs), type: .point)
    case .bbox:
      guard exprs == [.bodyPoints] else {
        throw fail(at, "bbox takes the landmark set bodyPoints", token: name)
      }
      return Typed(expr: .call(f, exprs), type: .rect)
    case .dist:
      try expect([.point, .point])
      return Typed(expr: .call(f, exprs), type: .scalar)
    case .angle:
      try expect([.point, .point, .point])
      return Typed(expr: .call(f, exprs), type: .scalar, isAngle: true)
    case .deg:
      try expect([.scalar])
      // A line's inclination `deg(atan2(Δy, Δx))` (G-5) is folded under angleFix; a lean
      // `deg(atan2(Δx, Δy))` (torsoLeanAngleDeg) is a direction, never folded (G-6).
      if case .call(.atan2, let xy) = exprs[0], case .verticalDifference = xy[0] {
        return Typed(expr: .directionAngle(.call(f, exprs)), type: .scalar, isAngle: true)
      }
      return Typed(expr: .call(f, exprs), type: .scalar, isAngle: true)
    case .atan2:
      try expect([.scalar, .scalar])
      return Typed(expr: .call(f, exprs), type: .scalar)
    case .min, .max:
      guard args.count >= 2, types.allSatisfy({ $0 == .scalar }) else {
        throw fail(at, "\(name) takes two or more numbers", token: name)
      }
      return Typed(expr: .call(f, exprs), type: .scalar, isVertical: typed.allSatisfy(\.isVertical))
    case .abs, .log, .sqrt, .acos:
      try expect([.scalar])
      if case .constant(let d) = exprs[0], f == .abs || f == .sqrt {
        guard d >= 0 || f == .abs else {
          throw fail(at, "sqrt of the negative constant \(JSONWriter.shortest(d))", token: name)
        }
        return Typed(expr: .constant(f == .abs ? Swift.abs(d) : d.squareRoot()), type: .scalar)
      }
      return Typed(expr: .call(f, exprs), type: .scalar)
    case .avgConfidence:
      try expect([.points])
      return Typed(expr: .call(f, exprs), type: .scalar)
    case .meanLuma, .highlightClipPct, .shadowClipPct, .sobelEdgeDensity:
      try expect([.roi])
      return Typed(expr: .call(f, exprs), type: .scalar)
    }
  }
}
