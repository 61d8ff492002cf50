import CanonicalJSON

/// Why a formula or error expression does not compile: the cue, which text, where, what.
public struct FormulaCompileError: Error, Equatable, Sendable, CustomStringConvertible {
  public var cueIndex: Int
  public var cueId: String
  /// `metric.formula`, `trigger.noRef.error`, `trigger.withRef.error`, or
  /// `binding.aliases.<name>` / `metric.formula of <other cue>` when the problem sits in a
  /// definition the cue uses.
  public var place: String
  public var text: String
  public var column: Int
  public var message: String
  /// The offending token (a name, a function), when there is one.
  public var token: String?

  public init(
    cueIndex: Int, cueId: String, place: String, text: String, column: Int, message: String, token: String? = nil
  ) {
    self.cueIndex = cueIndex
    self.cueId = cueId
    self.place = place
    self.text = text
    self.column = column
    self.message = message
    self.token = token
  }

  public var description: String {
    "cues[\(cueIndex)] \(cueId) \(place) \"\(text)\", column \(column): \(message)"
  }
}

/// Compiles every cue of a PoseSpec (ENGINE §2.9) into `SpecProgram`.
///
/// Name resolution, in order: the formula's earlier assignments → `bodyPoints` (the
/// binding set) → `binding.aliases` → the [D] bindings of ENGINE §2.5 (names the formulas use
/// that the aliases lack) → catalogue inputs (§2.10) → ROIs (the spec's `rois` and the [D]
/// ROIs of §2.7) → a metric that another cue's formula assigns (first in spec order; e.g.
/// CAFE_15's `torsoLeanAngleDeg`, OUT_14's `bboxHeight`), inlined and evaluated over *this*
/// cue's landmarks. Qualified names: `body.<joint>`, `face.<input>`, `target.<metric>`.
/// Anything else is an error naming the cue and the token — never a silent zero.
public enum PoseSpecCompiler {
  /// [D] bindings of ENGINE §2.5 for names the formulas use but `binding.aliases` lacks.
  public static let derivedBindings: [(name: String, definition: String)] = [
    ("shoulderMid", "mid(lShoulder, rShoulder)"),
    ("lElbow", "body.leftElbow"), ("rElbow", "body.rightElbow"),
    ("lWrist", "body.leftWrist"), ("rWrist", "body.rightWrist"),
    ("leftWrist", "body.leftWrist"), ("rightWrist", "body.rightWrist"),
    ("nose", "body.nose"),
    ("mouthCenter", "face.mouthCenter"),
    ("personCenter", "center(bbox(bodyPoints))"),
    ("torsoLen", "dist(shoulderMid, hipMid)"),
    ("faceLandmarks", "face.landmarks"),
  ]

  /// ROIs the cues reference but the spec's `rois` does not define ([D] ENGINE §2.7).
  public static let derivedROIs = [
    "faceLeftHalf", "faceRightHalf", "BG_Ring_ROI", "upperBGROI", "skyROI", "top10pctFrame",
  ]

  /// The 19 Vision body joints by PoseSpec name (ENGINE §2.6).
  public static let jointNames: Set<String> = [
    "nose", "neck", "leftShoulder", "rightShoulder", "leftElbow", "rightElbow", "leftWrist",
    "rightWrist", "root", "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle",
    "rightAnkle", "leftEye", "rightEye", "leftEar", "rightEar",
  ]

  /// Compiles every cue. `formulaFirst` is the engine option `errorSource` (§3.2).
  /// Compiles every cue; throws `FormulaCompileError`.
  public static func compile(_ doc: PoseSpecDocument, formulaFirst: Bool = true) throws -> SpecProgram {
    try compileUntyped(doc, formulaFirst: formulaFirst)
  }

  static func compileUntyped(_ doc: PoseSpecDocument, formulaFirst: Bool) throws -> SpecProgram {
    let definitions = MetricDefinitions(doc)
    var programs: [CueProgram] = []
    programs.reserveCapacity(doc.cues.count)
    var specNodes = 0
    for cue in doc.cues {
      var c = CueCompiler(doc: doc, cue: cue, definitions: definitions)
      programs.append(try c.compile(formulaFirst: formulaFirst))
      specNodes += c.nodes  // each ≤ formulaNodesMax, so no overflow before the check
      guard specNodes <= PoseSpecLimits.specNodesMax else {
        throw c.fail(
          1, "the cues compile to \(specNodes) nodes so far, more than specNodesMax = \(PoseSpecLimits.specNodesMax) "
            + "for the whole spec; simplify the formulas or the aliases they use")
      }
    }
    return SpecProgram(cues: programs)
  }
}

/// The first assignment of each metric name in the spec, for inlining (`torsoLeanAngleDeg`
/// in CAFE_15 is TORSO_STRAIGHTEN's formula over CAFE_15's landmarks).
struct MetricDefinitions {
  struct Definition {
    var cueIndex: Int
    var statementIndex: Int
  }
  var byName: [String: Definition] = [:]
  var statements: [[FormulaStatement]] = []

  init(_ doc: PoseSpecDocument) {
    for cue in doc.cues {
      let parsed = (try? FormulaParser.parseFormula(cue.formula.text)) ?? []
      statements.append(parsed)
      guard cue.metric.computeTier != "fallback" else { continue }
      for (k, s) in parsed.enumerated() {
        if let name = s.name, byName[name] == nil {
          byName[name] = Definition(cueIndex: cue.index, statementIndex: k)
        }
      }
    }
  }
}

/// A compiled sub-expression with the static facts the compiler tracks.
struct Typed {
  var expr: FormulaExpr
  var type: FormulaType
  /// An angle in degrees.
  var isAngle = false
  /// A vertical position (`p.y`, or min/max of such): differences of two are y-up-sensitive.
  var isVertical = false
}

struct CueCompiler {
  let doc: PoseSpecDocument
  let cue: PoseSpecCue
  let definitions: MetricDefinitions

  /// The formula's assignments compiled so far.
  var assignments: [CompiledAssignment] = []
  var localIndex: [String: Int] = [:]
  /// Inlining scopes (innermost last): earlier statements of a foreign cue's formula, by name.
  var foreignScopes: [[String: FormulaSyntax]] = []
  /// Names being expanded (alias / definition cycles).
  var expanding: [String] = []
  /// Where we are, for errors.
  var place = "metric.formula"
  var text = ""
  /// Nesting of `compileExpression` (aliases and inlined metrics included) and nodes compiled
  /// for this cue so far (`PoseSpecLimits.formulaDepthMax`, `formulaNodesMax`).
  var depth = 0
  var nodes = 0
  /// The column, in `text`, of the name whose expansion is under way (for limit errors).
  var expansionColumn = 1

  init(doc: PoseSpecDocument, cue: PoseSpecCue, definitions: MetricDefinitions) {
    self.doc = doc
    self.cue = cue
    self.definitions = definitions
  }

  func fail(_ column: Int, _ message: String, token: String? = nil) -> FormulaCompileError {
    FormulaCompileError(
      cueIndex: cue.index, cueId: cue.id, place: place, text: text, column: column, message: message, token: token)
  }

  mutating func compile(formulaFirst: Bool) throws -> CueProgram {
    let isFallback = cue.metric.computeTier == "fallback"
    var program = CueProgram(
      cueId: cue.id, assignments: [], noRefError: nil, withRefError: nil, requiredJoints: [],
      requiredFacePoints: [], usesFaceBBox: false, usesBodyPoints: false, bodyBoxMinPoints: 2,
      catalogueInputs: [], rois: [], targets: [], needsPixels: false, isSystemFallback: isFallback)
    // FRAME_GENERAL's formula is a label (`system_fallback_when_tracking_unreliable`).
    if isFallback { return program }

    text = cue.formula.text
    place = "metric.formula"
    let statements: [FormulaStatement]
    do { statements = try FormulaParser.parseFormula(text) } catch {
      throw fail(error.column, error.message)
    }
    guard !statements.isEmpty else {
      throw fail(1, "the formula is empty: a \(cue.metric.computeTier) cue needs an assignment 'name = expression'")
    }
    for s in statements {
      guard let name = s.name else {
        throw fail(s.column, "expected an assignment 'name = expression'")
      }
      let typed = try compileExpression(s.expression)
      var keys = [name]
      if case .call(let f, let args) = typed.expr, f.isPixel, case .roi(let r)? = args.first {
        keys.insert("\(name)_\(r)", at: 0)
      }
      localIndex[name] = assignments.count
      assignments.append(
        CompiledAssignment(
          name: name, expression: typed.expr, type: typed.type, isAngle: typed.isAngle, overrideKeys: keys))
    }
    program.assignments = assignments

    // noRef error (ENGINE §3.2), only when the cue has a noRef trigger.
    if let noRef = cue.trigger.noRef {
      program.noRefError = try compileError(explicit: noRef.error, which: "noRef", formulaFirst: formulaFirst)
    }
    if let withRef = cue.trigger.withRef {
      program.withRefError = try compileError(explicit: withRef.error, which: "withRef", formulaFirst: formulaFirst)
    }

    // Facts the engine needs for availability (§3.4.1), gathered from every evaluated tree.
    var facts = Facts()
    for a in assignments { facts.visit(a.expression, parent: nil) }
    for e in [program.noRefError, program.withRefError].compactMap({ $0 }) { facts.visit(e.expression, parent: nil) }
    program.requiredJoints = facts.joints
    program.requiredFacePoints = facts.facePoints
    program.usesFaceBBox = facts.faceBBox
    program.usesBodyPoints = facts.bodyPoints
    program.bodyBoxMinPoints = facts.bodyBoxFullUse || !facts.bodyBoxUsed ? 2 : 1
    program.catalogueInputs = facts.catalogue
    program.rois = facts.rois
    program.targets = facts.targets
    program.needsPixels = !facts.rois.isEmpty || facts.catalogue.contains { !$0.isLandmarkBased }
    return program
  }

  /// The error of one trigger: explicit `error` → `error =` in the formula → the single
  /// `metric.outputs` → the last assigned variable (`formulaFirst`; `outputsFirst` swaps the
  /// middle two).
  mutating func compileError(explicit: String?, which: String, formulaFirst: Bool) throws
    -> CompiledError?
  {
    if let e = explicit?.trimmingSpaces, !e.isEmpty {
      place = "trigger.\(which).error"
      text = e
      let syntax: FormulaSyntax
      do { syntax = try FormulaParser.parseExpression(e) } catch { throw fail(error.column, error.message) }
      let typed = try compileExpression(syntax)
      guard typed.type == .scalar else { throw fail(1, "the error must be a number, found a \(typed.type.rawValue)") }
      return CompiledError(text: e, source: .explicit, expression: typed.expr)
    }
    let fromFormula = localIndex["error"].map { (ErrorSource.formula, $0) }
    var fromOutputs: (ErrorSource, Int)?
    if let outs = cue.metric.outputs, outs.count == 1 {
      place = "metric.outputs"
      text = outs[0]
      guard let i = localIndex[outs[0]] else {
        throw fail(1, "metric.outputs names '\(outs[0])', which the formula does not assign", token: outs[0])
      }
      fromOutputs = (.outputs, i)
    }
    let ordered = formulaFirst ? [fromFormula, fromOutputs] : [fromOutputs, fromFormula]
    let chosen = ordered.compactMap { $0 }.first ?? (assignments.isEmpty ? nil : (.lastVariable, assignments.count - 1))
    guard let (source, index) = chosen else { return nil }
    let a = assignments[index]
    guard a.type == .scalar else {
      place = "metric.formula"
      text = cue.formula.text
      throw fail(1, "the error '\(a.name)' must be a number, found a \(a.type.rawValue)", token: a.name)
    }
    return CompiledError(text: a.name, source: source, expression: .local(index))
  }

  // MARK: Expressions

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
    fail(
      at, "unknown function '\(name)' (known: \(FormulaFunction.allCases.map(\.rawValue).joined(separator: ", ")))",
      token: name)
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

  // MARK: Names

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

