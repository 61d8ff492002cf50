/// Name resolution of a cue's formula (ENGINE §2.5, §2.7, §2.10): aliases, derived bindings,
/// catalogue inputs, ROIs, inlined metrics of other cues, qualified names.
extension CueCompiler {
  func lookupForeign(_ name: String) -> FormulaSyntax? {
    for scope in foreignScopes.reversed() { if let s = scope[name] { return s } }
    return nil
  }

  /// Expands `definition` (an alias or derived binding text) as an expression.
  mutating func expand(_ name: String, definition: String, at: Int, what: String) throws
    -> Typed
  {
    guard !expanding.contains(name) else { throw cycle(name, at: at) }
    try checkChain(name, at: at)
    let syntax = try parseDefinition(name, definition, at: at, what: what)
    expanding.append(name)
    defer { expanding.removeLast() }
    // Aliases never see the formula's own variables or a foreign formula's scope.
    let savedLocals = localIndex
    let savedScopes = foreignScopes
    localIndex = [:]
    foreignScopes = []
    defer {
      localIndex = savedLocals
      foreignScopes = savedScopes
    }
    return try compileExpression(syntax)
  }

  /// `name` is being expanded inside itself.
  func cycle(_ name: String, at: Int) -> FormulaCompileError {
    fail(at, "'\(name)' is defined in terms of itself (\((expanding + [name]).joined(separator: " → ")))", token: name)
  }

  /// The syntax of an alias or binding definition.
  func parseDefinition(_ name: String, _ definition: String, at: Int, what: String) throws -> FormulaSyntax {
    do { return try FormulaParser.parseExpression(definition) } catch {
      throw fail(at, "\(what) '\(name)' = \"\(definition)\" does not parse: \(error.description)", token: name)
    }
  }

  /// What a name stands for (`classify`), so that `resolve`, which is on the recursive path,
  /// keeps a small frame.
  enum Resolution {
    case typed(Typed)
    case foreign(FormulaSyntax)
    case definition(String, what: String)
    case metric(MetricDefinitions.Definition)
  }

  mutating func resolve(_ name: String, at: Int) throws -> Typed {
    switch try classify(name, at: at) {
    case .typed(let t):
      return t
    case .foreign(let s):
      guard !expanding.contains(name) else { throw cycle(name, at: at) }
      try checkChain(name, at: at)
      expanding.append(name)
      defer { expanding.removeLast() }
      return try compileExpression(s)
    case .definition(let definition, let what):
      return try expand(name, definition: definition, at: at, what: what)
    case .metric(let def):
      return try inline(name, def, at: at)
    }
  }

  func classify(_ name: String, at: Int) throws -> Resolution {
    if let i = localIndex[name] {
      let a = assignments[i]
      return .typed(Typed(expr: .local(i), type: a.type, isAngle: a.isAngle))
    }
    if let s = lookupForeign(name) { return .foreign(s) }
    if name == "bodyPoints" { return .typed(Typed(expr: .bodyPoints, type: .points)) }
    if let alias = doc.binding?.aliases[name] { return .definition(alias, what: "binding.aliases") }
    if let derived = PoseSpecCompiler.derivedBindings.first(where: { $0.name == name }) {
      return .definition(derived.definition, what: "binding")
    }
    if let c = CatalogueScalar(rawValue: name) {
      return .typed(Typed(expr: .catalogue(c), type: .scalar, isAngle: name.hasSuffix("Deg")))
    }
    if isROI(name) { return .typed(Typed(expr: .roi(name), type: .roi)) }
    if let def = definitions.byName[name], def.cueIndex != cue.index { return .metric(def) }
    throw unknownName(name, at: at)
  }

  func unknownName(_ name: String, at: Int) -> FormulaCompileError {
    fail(
      at,
      "unknown name '\(name)': not assigned earlier in this formula, not a binding alias, not a catalogue input, ROI or metric of another cue",
      token: name)
  }

  func isROI(_ name: String) -> Bool {
    switch name {
    case "faceROI": doc.rois.faceROI != nil
    case "eyeROI": doc.rois.eyeROI != nil
    case "bgROI": doc.rois.bgROI != nil
    default: PoseSpecCompiler.derivedROIs.contains(name)
    }
  }

  /// Inlines another cue's definition of a metric, with that formula's earlier assignments
  /// visible by name.
  mutating func inline(_ name: String, _ def: MetricDefinitions.Definition, at: Int) throws
    -> Typed
  {
    guard !expanding.contains(name) else { throw cycle(name, at: at) }
    try checkChain(name, at: at)
    let statements = definitions.statements[def.cueIndex]
    var scope: [String: FormulaSyntax] = [:]
    for s in statements[..<def.statementIndex] { if let n = s.name { scope[n] = s.expression } }
    expanding.append(name)
    foreignScopes.append(scope)
    let savedLocals = localIndex
    localIndex = [:]
    defer {
      expanding.removeLast()
      foreignScopes.removeLast()
      localIndex = savedLocals
    }
    return try compileExpression(statements[def.statementIndex].expression)
  }

  mutating func qualified(_ qualifier: String, _ member: String, at: Int) throws -> Typed {
    switch qualifier {
    case "body":
      guard PoseSpecCompiler.jointNames.contains(member) else {
        throw fail(at, "unknown body joint 'body.\(member)'", token: "body.\(member)")
      }
      return Typed(expr: .joint(member), type: .point)
    case "face":
      if member == "faceBBox" { return Typed(expr: .faceBBox, type: .rect) }
      if member == "landmarks" { return Typed(expr: .faceLandmarks, type: .points) }
      if member == "eyeAR" { return Typed(expr: .catalogue(.eyeAR), type: .scalar) }
      guard let p = FacePoint(rawValue: member) else {
        throw fail(at, "unknown face input 'face.\(member)'", token: "face.\(member)")
      }
      return Typed(expr: .facePoint(p), type: .point)
    case "target":
      // target.M: M must be a metric this spec defines (or a catalogue input).
      let isAngle: Bool
      if let i = localIndex[member] {
        guard assignments[i].type == .scalar else {
          throw fail(at, "target.\(member) names a \(assignments[i].type.rawValue), not a metric", token: "target.\(member)")
        }
        isAngle = assignments[i].isAngle
      } else if definitions.byName[member] != nil {
        isAngle = member.hasSuffix("Deg")
      } else if CatalogueScalar(rawValue: member) != nil {
        isAngle = member.hasSuffix("Deg")
      } else {
        throw fail(at, "unknown target metric 'target.\(member)'", token: "target.\(member)")
      }
      return Typed(expr: .target(member), type: .scalar, isAngle: isAngle)
    default:
      throw fail(
        at, "'\(qualifier).\(member)' is an input declaration (metric.landmarks), not a value in a formula",
        token: "\(qualifier).\(member)")
    }
  }
}

/// Walks compiled trees and collects what the cue reads.
struct Facts {
  var joints: [String] = []
  var facePoints: [FacePoint] = []
  var faceBBox = false
  var bodyPoints = false
  var bodyBoxUsed = false
  var bodyBoxFullUse = false
  var catalogue: [CatalogueScalar] = []
  var rois: [String] = []
  var targets: [String] = []

  mutating func visit(_ e: FormulaExpr, parent: FormulaExpr?) {
    switch e {
    case .constant, .local: break
    case .joint(let j): if !joints.contains(j) { joints.append(j) }
    case .facePoint(let p): if !facePoints.contains(p) { facePoints.append(p) }
    case .faceBBox: faceBBox = true
    case .bodyPoints: bodyPoints = true
    case .faceLandmarks: break
    case .catalogue(let c): if !catalogue.contains(c) { catalogue.append(c) }
    case .roi(let r): if !rois.contains(r) { rois.append(r) }
    case .target(let m): if !targets.contains(m) { targets.append(m) }
    case .negate(let x), .verticalDifference(let x), .directionAngle(let x), .angleDifference(let x):
      visit(x, parent: e)
    case .binary(_, let a, let b):
      visit(a, parent: e)
      visit(b, parent: e)
    case .call(let f, let args):
      if f == .bbox {
        bodyBoxUsed = true
        if case .field(_, .maxY)? = parent {} else { bodyBoxFullUse = true }
      }
      for a in args { visit(a, parent: e) }
    case .field(let x, _):
      visit(x, parent: e)
    }
  }
}

