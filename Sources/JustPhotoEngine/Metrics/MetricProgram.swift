import EngineIO
import PoseSpec

/// One node of a cue's compiled formula with its inputs resolved to engine types (joints by
/// index, the cue's body points), built once per cue. Children are indices into the cue's
/// ``MetricProgram``: a flat array of plain values, so evaluating a formula retains nothing.
enum MetricOp: Sendable {
  case constant(Double)
  case joint(Joint)
  case facePoint(FacePoint)
  case faceBBox
  /// `bbox(bodyPoints)` over the cue's landmarks (or all joints, `bodyPointsScope=allJoints`).
  case bodyBox(minPoints: Int)
  /// `avgConfidence(bodyPoints)` / `avgConfidence(faceLandmarks)`.
  case bodyConfidence
  case faceLandmarkConfidence
  case catalogue(CatalogueScalar)
  /// A pixel metric over the ROI named `names[roi]`; `names[override]` is its
  /// `frame_scalars` key `<function>_<ROI>` (§2.11), built once here rather than per tick.
  case pixel(FormulaFunction, roi: Int, override: Int)
  /// `target.<names[i]>`.
  case target(Int)
  /// The value of assignment `i` (its root is `roots[i]`).
  case local(Int)
  case negate(Int)
  case binary(FormulaOperator, Int, Int)
  /// A call; its arguments are `arguments[first ..< first + count]`.
  case call(FormulaFunction, first: Int, count: Int)
  case field(Int, FormulaField)
  /// A field of a joint (`rShoulder.y`): `.field` over `.joint` in one node, the commonest
  /// pair in the spec's formulas (one dispatch and one register instead of two), with the
  /// joint's failure or else the field's value, as the pair gives.
  case jointField(Joint, FormulaField)
  case verticalDifference(Int)
  case directionAngle(Int)
  case angleDifference(Int)
}

/// A cue's compiled formula, flattened: every expression's nodes in one buffer owned by the
/// program (allocated once, never resized), so the per-frame evaluator reads them without
/// reference counting. Immutable after `init`.
///
/// Nodes are in post-order (children before parents), and each node's subtree is the
/// contiguous range `subtreeStart[n] ... n` (a `local` refers to an assignment outside it):
/// the evaluator runs that range front to back, one register per node, which is exactly the
/// order in which a recursive evaluation would finish the nodes.
final class MetricProgram: @unchecked Sendable {
  let ops: UnsafeMutableBufferPointer<MetricOp>
  /// The first node of each node's subtree, by node.
  let subtreeStart: UnsafeMutableBufferPointer<Int>
  let arguments: UnsafeMutableBufferPointer<Int>
  /// Root node of each assignment, by assignment index.
  let roots: UnsafeMutableBufferPointer<Int>
  /// ROI names and target metric names the nodes refer to.
  let names: [String]
  /// Root nodes of `expressions` passed to `init`, in order.
  let expressionRoots: [Int]

  /// The cue's `bodyPoints` joints (`CuePlan.bodyJoints`), read by `bbox(bodyPoints)` and
  /// `avgConfidence(bodyPoints)` without retaining the plan's array.
  let bodyJoints: UnsafeMutableBufferPointer<Joint>

  /// Flattens `assignments` (by index) and the further `expressions` (nil: absent).
  init(assignments: [FormulaExpr], expressions: [FormulaExpr?], bodyBoxMinPoints: Int, bodyJoints: [Joint] = []) {
    var builder = Builder(bodyBoxMinPoints: bodyBoxMinPoints)
    let assignmentRoots = assignments.map { builder.add($0) }
    expressionRoots = expressions.map { $0.map { builder.add($0) } ?? -1 }
    names = builder.names
    nodeCount = builder.ops.count
    // Buffers of at least one element (allocating none is not allowed); only the first
    // `nodeCount` nodes exist.
    ops = .allocate(capacity: max(1, builder.ops.count))
    _ = ops.initialize(from: builder.ops)
    subtreeStart = .allocate(capacity: max(1, builder.starts.count))
    _ = subtreeStart.initialize(from: builder.starts)
    arguments = .allocate(capacity: max(1, builder.arguments.count))
    _ = arguments.initialize(from: builder.arguments)
    roots = .allocate(capacity: max(1, assignmentRoots.count))
    _ = roots.initialize(from: assignmentRoots)
    let joints = UnsafeMutablePointer<Joint>.allocate(capacity: max(1, bodyJoints.count))
    joints.initialize(from: bodyJoints, count: bodyJoints.count)
    self.bodyJoints = UnsafeMutableBufferPointer(start: joints, count: bodyJoints.count)
  }

  /// The number of nodes (the buffers may be larger: never empty).
  let nodeCount: Int

  /// The buffers' base addresses and node count: valid while the program lives.
  struct Code: @unchecked Sendable {
    let ops: UnsafeMutablePointer<MetricOp>
    let starts: UnsafeMutablePointer<Int>
    let arguments: UnsafeMutablePointer<Int>
    let roots: UnsafeMutablePointer<Int>
    let count: Int
    let bodyJoints: UnsafeBufferPointer<Joint>
  }

  var code: Code {
    Code(
      ops: ops.baseAddress!, starts: subtreeStart.baseAddress!, arguments: arguments.baseAddress!,
      roots: roots.baseAddress!, count: nodeCount, bodyJoints: UnsafeBufferPointer(bodyJoints))
  }

  deinit {
    bodyJoints.baseAddress!.deallocate()
    ops.deallocate()
    subtreeStart.deallocate()
    arguments.deallocate()
    roots.deallocate()
  }

  struct Builder {
    let bodyBoxMinPoints: Int
    var ops: [MetricOp] = []
    /// `subtreeStart` of each node.
    var starts: [Int] = []
    var arguments: [Int] = []
    var names: [String] = []

    mutating func name(_ n: String) -> Int {
      if let i = names.firstIndex(of: n) { return i }
      names.append(n)
      return names.count - 1
    }

    mutating func emit(_ op: MetricOp) -> Int {
      ops.append(op)
      return ops.count - 1
    }

    /// Appends `e`'s nodes (children first) and returns the index of its root; the nodes added
    /// are the root's subtree.
    mutating func add(_ e: FormulaExpr) -> Int {
      let start = ops.count
      let root = addNodes(e)
      while starts.count < ops.count { starts.append(start) }
      starts[root] = start
      return root
    }

    mutating func addNodes(_ e: FormulaExpr) -> Int {
      switch e {
      case .constant(let d): return emit(.constant(d))
      // The compiler only emits names of Vision joints (PoseSpecCompiler.jointNames).
      case .joint(let name): return emit(Joint(name: name).map { .joint($0) } ?? .constant(.nan))
      case .facePoint(let p): return emit(.facePoint(p))
      case .faceBBox: return emit(.faceBBox)
      case .bodyPoints, .faceLandmarks, .roi: return emit(.constant(.nan))  // only as arguments, below
      case .catalogue(let c): return emit(.catalogue(c))
      case .target(let m): return emit(.target(name(m)))
      case .local(let i): return emit(.local(i))
      case .negate(let x): return emit(.negate(add(x)))
      case .binary(let op, let a, let b):
        let l = add(a)
        return emit(.binary(op, l, add(b)))
      case .call(.bbox, _): return emit(.bodyBox(minPoints: bodyBoxMinPoints))
      case .call(.avgConfidence, let args):
        return emit(args.first == .faceLandmarks ? .faceLandmarkConfidence : .bodyConfidence)
      case .call(let f, let args) where f.isPixel:
        if case .roi(let r)? = args.first { return emit(.pixel(f, roi: name(r), override: name("\(f.rawValue)_\(r)"))) }
        return emit(.constant(.nan))
      case .call(let f, let args):
        let children = args.map { add($0) }
        let first = arguments.count
        arguments.append(contentsOf: children)
        return emit(.call(f, first: first, count: children.count))
      case .field(.joint(let name), let f):
        // A Vision joint's field in one node; another name is NaN's field, as before.
        if let j = Joint(name: name) { return emit(.jointField(j, f)) }
        return emit(.field(add(.joint(name)), f))
      case .field(let x, let f): return emit(.field(add(x), f))
      case .verticalDifference(let x): return emit(.verticalDifference(add(x)))
      case .directionAngle(let x): return emit(.directionAngle(add(x)))
      case .angleDifference(let x): return emit(.angleDifference(add(x)))
      }
    }
  }
}

/// Registers for formula evaluations (one `MetricValue` per node of the largest program),
/// owned by an engine and lent to its metric contexts: an evaluation then runs on them
/// instead of allocating its own. Evaluations on one context run one after another (a
/// `local` runs nested, on other nodes' registers). `@unchecked Sendable`: an engine value
/// holding it may move to another thread, and `Engine.uniqueRegisters()` gives any copy that
/// evaluates a file of its own, so a file is never used by two threads.
final class RegisterFile: @unchecked Sendable {
  let values: UnsafeMutablePointer<MetricValue>
  let capacity: Int

  init(capacity: Int) {
    self.capacity = max(1, capacity)
    values = .allocate(capacity: self.capacity)
    values.initialize(repeating: MetricValue(a: 0), count: self.capacity)
  }

  /// Registers for every plan of `plans`.
  convenience init(for plans: [CuePlan]) {
    self.init(capacity: plans.map(\.code.count).max() ?? 1)
  }

  deinit { values.deallocate() }
}
