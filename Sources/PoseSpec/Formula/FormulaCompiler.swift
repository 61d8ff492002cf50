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

  /// `cueIndex` is -1 for a text outside any cue (an unused `binding.aliases` entry).
  public var description: String {
    cueIndex < 0
      ? "\(place) \"\(text)\", column \(column): \(message)"
      : "cues[\(cueIndex)] \(cueId) \(place) \"\(text)\", column \(column): \(message)"
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
}

/// Function names in the texts `compile` never compiles (ENGINE §2.3 [D]; issue 25).
extension PoseSpecCompiler {
  /// A binding alias no formula uses is never expanded, and a system fallback cue's formula is a
  /// label (FRAME_GENERAL's `system_fallback_when_tracking_unreliable`), so a misspelt function
  /// there would pass `compile` unnoticed until a later formula used the alias. The first call
  /// of a function the language lacks, in file order (aliases, then fallback cues), or nil.
  /// Only function names are checked: other names in an unused alias are never resolved, and a
  /// text that does not parse is left to `compile` (it is an error there once used).
  public static func unknownFunctionOutsideFormulas(_ doc: PoseSpecDocument) -> FormulaCompileError? {
    if let binding = doc.binding {
      for name in binding.aliasOrder {
        guard let text = binding.aliases[name], let syntax = try? FormulaParser.parseExpression(text),
          let (function, column) = firstUnknownCall(syntax)
        else { continue }
        return FormulaCompileError(
          cueIndex: -1, cueId: "", place: "binding.aliases.\(name)", text: text, column: column,
          message: unknownFunctionMessage(function), token: function)
      }
    }
    for cue in doc.cues where cue.metric.computeTier == "fallback" {
      guard let statements = try? FormulaParser.parseFormula(cue.formula.text) else { continue }
      for s in statements {
        guard let (function, column) = firstUnknownCall(s.expression) else { continue }
        return FormulaCompileError(
          cueIndex: cue.index, cueId: cue.id, place: "metric.formula", text: cue.formula.text, column: column,
          message: unknownFunctionMessage(function), token: function)
      }
    }
    return nil
  }

  static func unknownFunctionMessage(_ name: String) -> String {
    "unknown function '\(name)' (known: \(FormulaFunction.allCases.map(\.rawValue).joined(separator: ", ")))"
  }

  /// The first call, left to right, of a name that is not a `FormulaFunction`. The parser bounds
  /// the depth (`formulaDepthMax`), so the recursion is shallow.
  static func firstUnknownCall(_ s: FormulaSyntax) -> (String, Int)? {
    switch s {
    case .number, .name: return nil
    case .call(let name, let args, let at):
      if FormulaFunction(rawValue: name) == nil { return (name, at) }
      for a in args { if let u = firstUnknownCall(a) { return u } }
      return nil
    case .field(let base, _, _): return firstUnknownCall(base)
    case .negate(let inner, _): return firstUnknownCall(inner)
    case .binary(_, let l, let r, _): return firstUnknownCall(l) ?? firstUnknownCall(r)
    }
  }
}
