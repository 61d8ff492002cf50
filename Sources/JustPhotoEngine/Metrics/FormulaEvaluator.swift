#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import EngineIO
import PoseSpec

/// A value of the formula language: a number (`a`), a point (`a`,`b` = x,y) or a box
/// (`a`,`b`,`c`,`d` = minX, minY, maxX, maxY). The static type says which.
struct MetricValue: Sendable {
  var a: Double
  var b: Double = 0
  var c: Double = 0
  var d: Double = 0
  static func scalar(_ v: Double) -> MetricValue { MetricValue(a: v) }
  static func point(_ p: Point2) -> MetricValue { MetricValue(a: p.x, b: p.y) }
  static func box(_ r: BBox) -> MetricValue { MetricValue(a: r.minX, b: r.minY, c: r.maxX, d: r.maxY) }
  static func rect(_ r: Rect) -> MetricValue { MetricValue(a: r.x, b: r.y, c: r.x + r.w, d: r.y + r.h) }
}

/// Evaluates one cue's compiled formula on a frame. The first missing input ends the
/// evaluation with its reason (ENGINE §3.4.1 reason strings).
///
/// A node's value is computed by running its subtree's range of the program front to back
/// (``MetricProgram``), each node reading its children's registers: no recursion and no
/// optional per node. The first node that fails stops the run, as the first failing input
/// stops a recursive evaluation; a `local` runs its assignment's range where it stands (or
/// takes its `frame_scalars` override without running it, on T1).
///
/// The registers are the engine's (`RegisterFile`, lent through the context), else on the
/// stack for one call. The program's buffers are read through pointers taken once (the plan
/// keeps them alive while it evaluates). The context is a parameter of every step, not a stored reference: borrowed, it
/// costs no retain.
struct FormulaEvaluation {
  /// The plan whose formula this is; `unowned(unsafe)`: an evaluation lives only inside a call
  /// on the plan (which holds it), and retaining it per cue and frame was a measurable cost.
  unowned(unsafe) let plan: CuePlan
  // Base addresses (not buffer pointers): a smaller value to build per cue and frame.
  let ops: UnsafeMutablePointer<MetricOp>
  let starts: UnsafeMutablePointer<Int>
  let arguments: UnsafeMutablePointer<Int>
  let roots: UnsafeMutablePointer<Int>
  let count: Int
  let bodyJoints: UnsafeBufferPointer<Joint>
  // Why a value is unavailable is kept by the context (`MetricContext.failure`), not here: a
  // string field made every evaluation's destruction an outlined release, per cue and frame.
  #if DEBUG
    /// Test builds: `step` calls made (the work the loop in `run` saves), and `run` made to
    /// take every node through `step` (what the loop is compared with).
    var steps = 0
    var stepOnly = false
  #endif

  @inline(__always) init(plan: CuePlan) {
    self.plan = plan
    let c = plan.code
    ops = c.ops
    starts = c.starts
    arguments = c.arguments
    roots = c.roots
    count = c.count
    bodyJoints = c.bodyJoints
  }

  /// The value of node `node` of the plan's formula as a number; nil with the reason in
  /// `ctx.failure` (cleared first: the first failure of this call).
  mutating func scalar(_ node: Int, _ ctx: MetricContext) -> Double? {
    ctx.clearFailure()
    return evaluate(node, ctx)
  }

  /// The value of the formula's assignment `index` as a number (`frame_scalars` overrides
  /// apply on T1 evaluations).
  mutating func assignment(_ index: Int, _ ctx: MetricContext) -> Double? {
    ctx.clearFailure()
    if let v = override(index, ctx) { return finite(v, ctx) }
    return evaluate(roots[index], ctx)
  }

  /// `node` as a finite number: its subtree run on the registers the context lends (no
  /// allocation, and no closure holding the context), else on temporary ones.
  mutating func evaluate(_ node: Int, _ ctx: MetricContext) -> Double? {
    if let regs = ctx.registers, count <= ctx.registerCapacity {
      return finite(run(node, ctx, regs) ? regs[node] : nil, ctx)
    }
    return Self.withRegisters(count) { regs in finite(run(node, ctx, regs) ? regs[node] : nil, ctx) }
  }

  /// Runs `body` with `count` registers (one per node of the program), on the stack.
  static func withRegisters<R>(_ count: Int, _ body: (UnsafeMutablePointer<MetricValue>) -> R) -> R {
    withUnsafeTemporaryAllocation(of: MetricValue.self, capacity: max(1, count)) { body($0.baseAddress!) }
  }

  func finite(_ value: MetricValue?, _ ctx: MetricContext) -> Double? {
    guard let v = value else { return nil }
    guard v.a.isFinite else {
      ctx.fail("non_finite")
      return nil
    }
    return v.a
  }

  /// The `frame_scalars` value standing in for assignment `i` (T1 evaluations), if any.
  func override(_ i: Int, _ ctx: MetricContext) -> MetricValue? {
    guard ctx.overrides, !ctx.scalars.isEmpty else { return nil }
    for key in plan.assignments[i].overrideKeys { if let v = ctx.scalars[key] { return .scalar(v) } }
    return nil
  }

  func fail(_ reason: String, _ ctx: MetricContext) -> MetricValue? {
    ctx.fail(reason)
    return nil
  }

  /// Computes the nodes of `node`'s subtree in order into `regs`; false at the first failure.
  ///
  /// The nodes that read only registers (constants, arithmetic, fields, calls, the angle-fix
  /// wrappers), a kept joint
  /// and a `local` without `frame_scalars` overrides are computed here, in the loop; every
  /// other node, and a joint that is not kept, goes through `step` (a call per node: most nodes
  /// are the simple ones, and the call and its register saves cost more than the node's work).
  /// Both compute the same values in the same order, so the result and the first failure are
  /// the same.
  mutating func run(_ node: Int, _ ctx: MetricContext, _ regs: UnsafeMutablePointer<MetricValue>) -> Bool {
    var n = starts[node]
    #if DEBUG
      if stepOnly {
        while n <= node {
          guard step(n, ctx, regs) else { return false }
          n += 1
        }
        return true
      }
    #endif
    while n <= node {
      switch ops[n] {
      case .constant(let d): regs[n] = .scalar(d)
      case .negate(let x): regs[n] = .scalar(-regs[x].a)
      case .binary(let op, let l, let r): regs[n] = .scalar(Self.binary(op, regs[l].a, regs[r].a))
      case .field(let x, let f): regs[n] = .scalar(Self.field(regs[x], f))
      case .joint(let j):
        if ctx.frame.hasBody, let p = ctx.frame[j] {
          regs[n] = .point(p)
        } else {
          guard step(n, ctx, regs) else { return false }
        }
      case .jointField(let j, let f):
        if ctx.frame.hasBody, let p = ctx.frame[j] {
          regs[n] = .scalar(Self.field(.point(p), f))
        } else {
          guard step(n, ctx, regs) else { return false }
        }
      case .call(let f, let first, let count):
        guard call(f, first, count, into: n, regs, ctx) else { return false }
      case .verticalDifference(let x):
        let v = regs[x].a
        regs[n] = .scalar(ctx.options.angleFix ? -v : v)
      case .directionAngle(let x):
        let v = regs[x].a
        regs[n] = .scalar(ctx.options.angleFix ? AngleMath.foldLine(v) : v)
      case .angleDifference(let x):
        let v = regs[x].a
        regs[n] = .scalar(ctx.options.angleFix ? AngleMath.wrap(v) : v)
      case .local(let i) where !ctx.overrides:
        let root = roots[i]
        guard run(root, ctx, regs) else { return false }
        regs[n] = regs[root]
      default:
        guard step(n, ctx, regs) else { return false }
      }
      n += 1
    }
    return true
  }

  /// `x op y` (shared by `run` and `step`).
  @inline(__always) static func binary(_ op: FormulaOperator, _ x: Double, _ y: Double) -> Double {
    switch op {
    case .add: x + y
    case .subtract: x - y
    case .multiply: x * y
    case .divide: x / y
    }
  }

  /// Field `f` of `v` (shared by `run` and `step`): on a point a,b are x,y; on a box a,b,c,d
  /// are minX,minY,maxX,maxY.
  @inline(__always) static func field(_ v: MetricValue, _ f: FormulaField) -> Double {
    switch f {
    case .x, .minX: v.a
    case .y, .minY: v.b
    case .w: v.c - v.a
    case .h: v.d - v.b
    case .maxX: v.c
    case .maxY: v.d
    }
  }

  /// Node `n` into `regs[n]` from its children's registers (already computed); false when it
  /// fails. (Writing the register here, not returning an optional value, spares a 33-byte
  /// aggregate through memory per node.)
  mutating func step(_ n: Int, _ ctx: MetricContext, _ regs: UnsafeMutablePointer<MetricValue>) -> Bool {
    #if DEBUG
      steps += 1
    #endif
    @inline(__always) func put(_ v: MetricValue) -> Bool {
      regs[n] = v
      return true
    }
    @inline(__always) func put(_ v: MetricValue?) -> Bool {
      guard let v else { return false }
      regs[n] = v
      return true
    }
    switch ops[n] {
    case .constant(let d): return put(.scalar(d))
    case .joint(let j): return put(keptJoint(j, ctx).map(MetricValue.point))
    case .jointField(let j, let f): return put(keptJoint(j, ctx).map { .scalar(Self.field(.point($0), f)) })
    case .facePoint(let fp): return put(facePoint(fp, ctx))
    case .faceBBox:
      guard ctx.facePoints.present else { return failed("missing_input:no_face", ctx) }
      return put(.rect(ctx.facePoints.bbox))
    case .bodyBox(let minPoints):
      guard ctx.frame.hasBody else { return failed("missing_input:no_pose", ctx) }
      // The points read in place from the context's frame (no copy of it, no retain).
      let box =
        ctx.options.perCue
        ? BodyBBox.perCue(bodyJoints, minPoints: minPoints) { ctx.frame[$0] } : BodyBBox.allJoints(in: ctx.frame)
      switch box {
      case .failure(let f): return failed(f == .insufficientPoints ? Reasons.insufficientPoints : Reasons.degenerateBBox, ctx)
      case .success(let b): return put(.box(b))
      }
    case .bodyConfidence:
      // avgConfidence(bodyPoints): mean raw confidence of the kept listed joints.
      var sum = 0.0
      var count = 0
      for j in bodyJoints where ctx.frame[j] != nil {
        sum += ctx.frame.rawConfidence[j.rawValue] ?? 1
        count += 1
      }
      guard count > 0 else { return failed("missing_input:no_pose", ctx) }
      return put(.scalar(sum / Double(count)))
    case .faceLandmarkConfidence:
      // Vision gives no per-landmark face confidence: 1.0 unless recorded (§2.10, G-36).
      guard ctx.facePoints.present else { return failed("missing_input:no_face", ctx) }
      return put(.scalar(ctx.facePoints.landmarkConfAvg ?? 1))
    case .catalogue(let c):
      return put(catalogue(c, ctx))
    case .pixel(let f, let roiIndex, let override):
      return put(pixel(f, roiIndex, override, ctx))
    case .target(let i):
      let m = plan.formula.names[i]
      guard let v = ctx.targets[m] else { return failed("missing_target:target.\(m)", ctx) }
      return put(.scalar(v))
    case .local(let i):
      if ctx.overrides, let v = override(i, ctx) { return put(v) }
      let root = roots[i]
      return run(root, ctx, regs) && put(regs[root])
    case .negate(let x):
      return put(.scalar(-regs[x].a))
    case .binary(let op, let l, let r):
      return put(.scalar(Self.binary(op, regs[l].a, regs[r].a)))
    case .call(let f, let first, let count):
      return call(f, first, count, into: n, regs, ctx)
    case .field(let x, let f):
      return put(.scalar(Self.field(regs[x], f)))
    case .verticalDifference(let x):
      let v = regs[x].a
      return put(.scalar(ctx.options.angleFix ? -v : v))
    case .directionAngle(let x):
      let v = regs[x].a
      return put(.scalar(ctx.options.angleFix ? AngleMath.foldLine(v) : v))
    case .angleDifference(let x):
      let v = regs[x].a
      return put(.scalar(ctx.options.angleFix ? AngleMath.wrap(v) : v))
    }
  }

  /// Joint `j` of the context's frame, or nil with why recorded (no body; the joint dropped).
  func keptJoint(_ j: Joint, _ ctx: MetricContext) -> Point2? {
    guard ctx.frame.hasBody else {
      ctx.fail("missing_input:no_pose")
      return nil
    }
    if let p = ctx.frame[j] { return p }
    ctx.fail(Reasons.joint[j.rawValue][ctx.frame.dropReasons[j.rawValue].map(Reasons.dropIndex) ?? 0])
    return nil
  }

  mutating func facePoint(_ fp: FacePoint, _ ctx: MetricContext) -> MetricValue? {
    guard ctx.facePoints.present else { return fail("missing_input:no_face", ctx) }
    guard let p = ctx.facePoints[fp] else { return fail(Reasons.facePoint[fp]!, ctx) }
    return .point(p)
  }

  /// Records `reason` (the first failure wins) and returns false.
  func failed(_ reason: String, _ ctx: MetricContext) -> Bool {
    ctx.fail(reason)
    return false
  }

  /// A pixel metric over the ROI `names[roiIndex]` (T1; the `frame_scalars` value
  /// `names[override]` = `<f>_<roi>` first).
  mutating func pixel(_ f: FormulaFunction, _ roiIndex: Int, _ override: Int, _ ctx: MetricContext) -> MetricValue? {
    // An empty map answers nothing: no key to copy and hash (most ticks have no scalars).
    if ctx.overrides, !ctx.scalars.isEmpty, let v = ctx.scalars[plan.formula.names[override]] { return .scalar(v) }
    guard let luma = ctx.luma else { return fail("missing_input:luma", ctx) }
    let roi = plan.formula.names[roiIndex]
    guard let rects = ROIGeometry.rects(named: roi, face: ctx.face, ctx.roiCoefficients) else {
      return fail("missing_input:\(roi)", ctx)
    }
    switch rects {
    case .failure(let why): return fail(why.reason, ctx)
    case .success(let rs):
      ctx.pixelReads += 1
      if let slot = ctx.lumaSlot {
        if let known = slot.value(f, rs) {
          guard let v = known else { return fail("roi_empty:\(roi)", ctx) }
          return .scalar(v)
        }
      }
      if ctx.lumaTables == nil { ctx.pixelWork += PixelMetrics.directWork(f, luma, rs) }
      let v: Double? =
        if let t = ctx.lumaTables {
          switch f {
          case .meanLuma: t.meanLuma(rs)
          case .highlightClipPct: t.highlightClipPct(rs)
          case .shadowClipPct: t.shadowClipPct(rs)
          default: t.sobelEdgeDensity(rs)
          }
        } else {
          switch f {
          case .meanLuma: PixelMetrics.meanLuma(luma, rs)
          case .highlightClipPct: PixelMetrics.highlightClipPct(luma, rs)
          case .shadowClipPct: PixelMetrics.shadowClipPct(luma, rs)
          default: PixelMetrics.sobelEdgeDensity(luma, rs)
          }
        }
      ctx.lumaSlot?.keep(f, rs, v)
      guard let v else { return fail("roi_empty:\(roi)", ctx) }
      return .scalar(v)
    }
  }

  /// A call whose arguments are the registers `arguments[first ..< first + count]`, into
  /// `regs[n]`; false when it fails. Inlined into `run`'s loop (a call per call node before):
  /// 4.5 M instructions fewer per bench replay.
  @inline(__always) mutating func call(
    _ f: FormulaFunction, _ first: Int, _ count: Int, into n: Int, _ regs: UnsafeMutablePointer<MetricValue>,
    _ ctx: MetricContext
  ) -> Bool {
    @inline(__always) func arg(_ k: Int) -> MetricValue { regs[arguments[first + k]] }
    @inline(__always) func put(_ v: MetricValue) -> Bool {
      regs[n] = v
      return true
    }
    switch f {
    case .min, .max:
      var best = arg(0).a
      for k in 1..<Swift.max(1, count) {
        let v = arg(k).a
        best = f == .min ? Swift.min(best, v) : Swift.max(best, v)
      }
      return put(.scalar(best))
    case .angle:
      let (a, b, c) = (arg(0), arg(1), arg(2))
      // Angle at b between ba and bc, degrees (PS metrics.helpers).
      let (ux, uy, vx, vy) = (a.a - b.a, a.b - b.b, c.a - b.a, c.b - b.b)
      let norm = (ux * ux + uy * uy).squareRoot() * (vx * vx + vy * vy).squareRoot()
      guard norm > 0 else { return failed("degenerate_angle", ctx) }
      return put(.scalar(acos(Swift.max(-1, Swift.min(1, (ux * vx + uy * vy) / norm))) * 180 / .pi))
    case .center:
      let x = arg(0)
      return put(.point(Point2(x: (x.a + x.c) / 2, y: (x.b + x.d) / 2)))
    case .deg: return put(.scalar(arg(0).a * 180 / .pi))
    case .abs: return put(.scalar(Swift.abs(arg(0).a)))
    case .log: return put(.scalar(log(arg(0).a)))
    case .sqrt: return put(.scalar(arg(0).a.squareRoot()))
    case .acos: return put(.scalar(acos(arg(0).a)))
    case .mid:
      let (x, y) = (arg(0), arg(1))
      return put(.point(Point2(x: (x.a + y.a) / 2, y: (x.b + y.b) / 2)))
    case .dist:
      let (x, y) = (arg(0), arg(1))
      return put(.scalar(((x.a - y.a) * (x.a - y.a) + (x.b - y.b) * (x.b - y.b)).squareRoot()))
    case .atan2: return put(.scalar(atan2(arg(0).a, arg(1).a)))
    default: return failed("unsupported_function:\(f.rawValue)", ctx)
    }
  }

  mutating func catalogue(_ c: CatalogueScalar, _ ctx: MetricContext) -> MetricValue? {
    if !ctx.scalars.isEmpty, let v = ctx.scalars[c.rawValue] { return .scalar(v) }
    switch c {
    case .eyeAR:
      // [D] recorded eye_ar, else the mean of both eyes' aspect ratios (§2.10).
      guard ctx.facePoints.present else { return fail("missing_input:no_face", ctx) }
      if let v = ctx.facePoints.eyeAR { return .scalar(v) }
      guard let l = ctx.facePoints.leftEAR, let r = ctx.facePoints.rightEAR else {
        return fail("missing_input:face.eyeAR", ctx)
      }
      return .scalar((l + r) / 2)
    case .extraPersonCount:
      let people = ctx.frame.people ?? ctx.frame.faces.count
      return .scalar(Double(people - 1))
    default:
      return fail(Reasons.catalogue[c]!, ctx)
    }
  }
}

/// The angle fixes of ENGINE §8 G-5/G-6 (`angleFix=on`).
enum AngleMath {
  /// A line direction folded into (−90°, 90°]: θ > 90 → θ − 180; θ ≤ −90 → θ + 180.
  static func foldLine(_ deg: Double) -> Double {
    if deg > 90 { return deg - 180 }
    if deg <= -90 { return deg + 180 }
    return deg
  }
  /// An angle difference wrapped into (−180°, 180°].
  static func wrap(_ deg: Double) -> Double {
    var d = deg.truncatingRemainder(dividingBy: 360)
    if d > 180 { d -= 360 }
    if d <= -180 { d += 360 }
    return d
  }
}

/// Unavailability reasons built once: an unavailable cue is common on every frame (no face,
/// a dropped joint), and interpolating its reason per frame cost more than evaluating it.
enum Reasons {
  static let dropReasons: [JointDropReason] = [.missingInput, .lowConf, .outOfRange]
  static func dropIndex(_ r: JointDropReason) -> Int { dropReasons.firstIndex(of: r)! }
  /// `missing_input:<joint>=<drop reason>`, by joint and drop reason index.
  static let joint: [[String]] = Joint.allCases.map { j in
    dropReasons.map { "missing_input:\(j.name)=\($0.rawValue)" }
  }
  static let facePoint: [FacePoint: String] = Dictionary(
    uniqueKeysWithValues: FacePoint.allCases.map { ($0, "missing_input:face.\($0.rawValue)") })
  static let catalogue: [CatalogueScalar: String] = Dictionary(
    uniqueKeysWithValues: CatalogueScalar.allCases.map { ($0, "missing_input:\($0.rawValue)") })
  static let insufficientPoints = "bbox_invalid:\(BodyBBox.Failure.insufficientPoints.rawValue)"
  static let degenerateBBox = "bbox_invalid:\(BodyBBox.Failure.degenerateBBox.rawValue)"
}
