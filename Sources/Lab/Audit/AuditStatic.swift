import Foundation
import PoseSpec

/// The audit's checks that need no replay (issue 24): each cue's threshold regions against one
/// another, and each level against the range its formula can take.
///
/// A region is the set of error values a level's thresholds accept. All of them are unions of
/// intervals whose ends are threshold constants, so testing the constants, a value just either
/// side of each, the midpoints between them and a value beyond both ends decides every question
/// asked here exactly.
package enum AuditStatic {
  /// The range of the error over the inputs' bounds, by interval arithmetic on the compiled
  /// formula. Conservative: the true range lies inside it, so a level it cannot reach is a
  /// level no input reaches. Inputs: landmark coordinates in [0, 1] (the canonical frame),
  /// pixel metrics and confidences in [0, 1]; catalogue scalars from events and `target.*`
  /// unbounded. `frame_scalars` overrides (a test device standing in for pixel measurements)
  /// are not inputs here.
  package static func errorRange(_ program: CueProgram) -> ClosedRange<Double>? {
    guard let e = program.noRefError else { return nil }
    var env: [Interval.Value] = []
    for a in program.assignments { env.append(Interval.eval(a.expression, env)) }
    let r = Interval.eval(e.expression, env).scalar
    guard !r.lo.isNaN, !r.hi.isNaN, r.lo <= r.hi else { return nil }
    return r.lo...r.hi
  }

  /// Values that decide every region question over `thresholds` (see the type).
  static func probes(_ thresholds: [Threshold], within range: ClosedRange<Double>? = nil) -> [Double] {
    var cuts: [Double] = []
    for t in thresholds {
      cuts.append(t.a)
      if t.op.rawValue.hasPrefix("abs") { cuts.append(-t.a) }
      if let b = t.b { cuts.append(b) }
    }
    if let range { cuts += [range.lowerBound, range.upperBound].filter(\.isFinite) }
    let sorted = Array(Set(cuts.filter(\.isFinite))).sorted()
    var out: [Double] = []
    for (i, c) in sorted.enumerated() {
      let eps = max(1e-9, abs(c) * 1e-9)
      out += [c - eps, c, c + eps]
      if i + 1 < sorted.count { out.append((c + sorted[i + 1]) / 2) }
    }
    if let lo = sorted.first, let hi = sorted.last { out += [lo - 1 - abs(lo), hi + 1 + abs(hi)] } else { out.append(0) }
    if let range { out = out.filter { range.contains($0) } + [range.lowerBound, range.upperBound].filter(\.isFinite) }
    return out
  }

  static func matches(_ th: [Threshold], _ v: Double) -> Bool { th.contains { $0.matches(v) } }
  static func text(_ th: [Threshold]) -> String { th.map(\.description).joined(separator: " or ") }
  static func num(_ v: Double) -> String { String(format: "%.4g", v) }

  /// The values of `candidates` where `test` holds, as "lo…hi" (or one value).
  static func span(_ candidates: [Double], _ test: (Double) -> Bool) -> String? {
    let hits = candidates.filter(test)
    guard let lo = hits.min(), let hi = hits.max() else { return nil }
    return lo == hi ? num(lo) : "\(num(lo))…\(num(hi))"
  }

  /// The static findings of every cue of `spec` (noRef thresholds), in spec order.
  package static func findings(spec: PoseSpecDocument) -> [AuditFinding] {
    let programs = (try? PoseSpecCompiler.compile(spec))?.cues ?? []
    var out: [AuditFinding] = []
    func add(_ kind: AuditFinding.Kind, _ cue: String, _ level: String?, _ evidence: String) {
      out.append(AuditFinding(kind: kind, cue: cue, level: level, evidence: evidence, angleFix: "both", repro: nil))
    }
    for cue in spec.cues {
      guard let t = cue.trigger.noRef else { continue }
      let all = probes(t.hard + t.warn + t.exit)
      // The exit region must lie outside warn and hard: where both hold, the level is warn
      // (or hard) and the cue never exits there.
      for (level, th) in [("warn", t.warn), ("hard", t.hard)] where !th.isEmpty && !t.exit.isEmpty {
        if let s = span(all, { matches(th, $0) && matches(t.exit, $0) }) {
          add(.overlappingRegions, cue.id, level, "\(level) \(text(th)) and exit \(text(t.exit)) both hold on \(s): no dead band between them")
        }
      }
      // Hard is the stronger level: a value that is hard but not warn means hard is the
      // easier one to reach (warn, checked after hard, is then shown only inside hard).
      if !t.hard.isEmpty, !t.warn.isEmpty, let s = span(all, { matches(t.hard, $0) && !matches(t.warn, $0) }) {
        add(.hardEasierThanWarn, cue.id, "hard", "hard \(text(t.hard)) holds on \(s), where warn \(text(t.warn)) does not: hard is easier to reach than warn")
      }
      // The ideal range is where the subject should end up: no level may fire there.
      if let ideal = cue.raw["trigger"]?["noRef"]?["idealRange"]?.arrayValue?.compactMap(\.doubleValue), ideal.count == 2, ideal[0] <= ideal[1] {
        let inside = probes(t.hard + t.warn, within: ideal[0]...ideal[1])
        if let s = span(inside, { matches(t.warn + t.hard, $0) }) {
          add(.warnCoversIdeal, cue.id, nil, "the ideal range [\(num(ideal[0])), \(num(ideal[1]))] is warn or hard on \(s) (warn \(text(t.warn)), hard \(text(t.hard)))")
        }
      }
      // A level whose region misses the formula's whole range can never fire.
      guard let program = programs.first(where: { $0.cueId == cue.id }), let range = errorRange(program) else { continue }
      for (level, th) in [("warn", t.warn), ("hard", t.hard)] where !th.isEmpty {
        if !probes(th, within: range).contains(where: { matches(th, $0) }) {
          add(.unreachableLevel, cue.id, level, "the error (`\(program.noRefError?.text ?? "")`) lies in [\(num(range.lowerBound)), \(num(range.upperBound))] for every input (interval arithmetic over the formula), and \(level) needs \(text(th))")
        }
      }
    }
    return out
  }
}

/// An interval of reals, possibly unbounded; the value kinds of the formula language over it.
struct Interval: Equatable {
  var lo: Double
  var hi: Double
  static let all = Interval(lo: -.infinity, hi: .infinity)
  static let unit = Interval(lo: 0, hi: 1)
  static func exactly(_ v: Double) -> Interval { Interval(lo: v, hi: v) }

  func hull(_ o: Interval) -> Interval { Interval(lo: min(lo, o.lo), hi: max(hi, o.hi)) }
  static prefix func - (a: Interval) -> Interval { Interval(lo: -a.hi, hi: -a.lo) }
  static func + (a: Interval, b: Interval) -> Interval { Interval(lo: a.lo + b.lo, hi: a.hi + b.hi).sane }
  static func - (a: Interval, b: Interval) -> Interval { a + -b }
  static func * (a: Interval, b: Interval) -> Interval {
    let p = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi].filter { !$0.isNaN }
    guard p.count == 4 else { return .all }
    return Interval(lo: p.min()!, hi: p.max()!)
  }
  static func / (a: Interval, b: Interval) -> Interval {
    guard b.lo > 0 || b.hi < 0 else { return .all }
    return a * Interval(lo: 1 / b.hi, hi: 1 / b.lo)
  }
  /// ∞ − ∞ and the like widen to everything.
  var sane: Interval { lo.isNaN || hi.isNaN ? .all : self }
  var abs: Interval {
    if lo >= 0 { return self }
    if hi <= 0 { return -self }
    return Interval(lo: 0, hi: Swift.max(-lo, hi))
  }
  var squared: Interval { let a = abs; return Interval(lo: a.lo * a.lo, hi: a.hi * a.hi) }
  var sqrt: Interval { Interval(lo: Swift.max(0, lo).squareRoot(), hi: Swift.max(0, hi).squareRoot()) }

  /// A value of the formula language over intervals.
  enum Value {
    case scalar(Interval)
    case point(Interval, Interval)
    /// minX, minY, maxX, maxY, w, h.
    case rect(Interval, Interval, Interval, Interval, Interval, Interval)
    case other

    var scalar: Interval { if case .scalar(let i) = self { return i } else { return .all } }
  }

  static let unitRect = Value.rect(.unit, .unit, .unit, .unit, .unit, .unit)

  static func catalogue(_ c: CatalogueScalar) -> Interval {
    switch c {
    case .extraPersonCount: Interval(lo: 0, hi: .infinity)
    default: .all
    }
  }

  /// A function call over intervals (see ``eval(_:_:)``).
  static func evalCall(_ f: FormulaFunction, _ v: [Value]) -> Value {
    func s(_ i: Int) -> Interval { i < v.count ? v[i].scalar : .all }
    switch f {
    case .abs: return .scalar(s(0).abs)
    case .sqrt: return .scalar(s(0).sqrt)
    case .min, .max:
      guard !v.isEmpty else { return .other }
      let parts = v.map(\.scalar)
      let lo = f == .min ? parts.map(\.lo).min()! : parts.map(\.lo).max()!
      let hi = f == .min ? parts.map(\.hi).min()! : parts.map(\.hi).max()!
      return .scalar(Interval(lo: lo, hi: hi))
    case .log:
      let a = s(0)
      return .scalar(Interval(lo: a.lo > 0 ? Foundation.log(a.lo) : -.infinity, hi: a.hi > 0 ? Foundation.log(a.hi) : -.infinity))
    case .acos: return .scalar(Interval(lo: 0, hi: Double.pi))
    case .atan2: return .scalar(Interval(lo: -Double.pi, hi: Double.pi))
    case .deg: return .scalar(s(0) * .exactly(180 / Double.pi))
    case .avgConfidence, .meanLuma, .highlightClipPct, .shadowClipPct, .sobelEdgeDensity: return .scalar(.unit)
    case .dist:
      guard v.count == 2, case .point(let ax, let ay) = v[0], case .point(let bx, let by) = v[1] else { return .scalar(.all) }
      return .scalar(((ax - bx).squared + (ay - by).squared).sqrt)
    case .mid:
      guard v.count == 2, case .point(let ax, let ay) = v[0], case .point(let bx, let by) = v[1] else { return .other }
      let half = Interval.exactly(0.5)
      return .point((ax + bx) * half, (ay + by) * half)
    case .center:
      guard case .rect(let x0, let y0, let x1, let y1, _, _)? = v.first else { return .point(.unit, .unit) }
      let half = Interval.exactly(0.5)
      return .point((x0 + x1) * half, (y0 + y1) * half)
    case .bbox: return unitRect
    case .angle: return .scalar(.all)
    }
  }

  static func eval(_ e: FormulaExpr, _ env: [Value]) -> Value {
    switch e {
    case .constant(let c): return .scalar(.exactly(c))
    case .joint, .facePoint: return .point(.unit, .unit)
    case .faceBBox: return unitRect
    case .bodyPoints, .faceLandmarks, .roi: return .other
    case .catalogue(let c): return .scalar(catalogue(c))
    case .target: return .scalar(.all)
    case .local(let i): return i < env.count ? env[i] : .other
    case .negate(let a):
      switch eval(a, env) {
      case .scalar(let i): return .scalar(-i)
      case .point(let x, let y): return .point(-x, -y)
      default: return .other
      }
    case .binary(let op, let a, let b):
      let (l, r) = (eval(a, env), eval(b, env))
      func apply(_ x: Interval, _ y: Interval) -> Interval {
        switch op {
        case .add: x + y
        case .subtract: x - y
        case .multiply: x * y
        case .divide: x / y
        }
      }
      switch (l, r) {
      case (.scalar(let x), .scalar(let y)): return .scalar(apply(x, y))
      case (.point(let ax, let ay), .point(let bx, let by)) where op == .add || op == .subtract:
        return .point(apply(ax, bx), apply(ay, by))
      case (.point(let ax, let ay), .scalar(let s)): return .point(apply(ax, s), apply(ay, s))
      default: return .other
      }
    case .call(let f, let args): return evalCall(f, args.map { eval($0, env) })
    case .field(let a, let f):
      switch (eval(a, env), f) {
      case (.point(let x, _), .x): return .scalar(x)
      case (.point(_, let y), .y): return .scalar(y)
      case (.rect(let x0, _, _, _, _, _), .x), (.rect(let x0, _, _, _, _, _), .minX): return .scalar(x0)
      case (.rect(_, let y0, _, _, _, _), .y), (.rect(_, let y0, _, _, _, _), .minY): return .scalar(y0)
      case (.rect(_, _, let x1, _, _, _), .maxX): return .scalar(x1)
      case (.rect(_, _, _, let y1, _, _), .maxY): return .scalar(y1)
      case (.rect(_, _, _, _, let w, _), .w): return .scalar(w)
      case (.rect(_, _, _, _, _, let h), .h): return .scalar(h)
      default: return .scalar(.all)
      }
    // Under angleFix the operand is negated, folded into (−90°, 90°] or wrapped into
    // (−180°, 180°]: either value is possible.
    case .verticalDifference(let a):
      let x = eval(a, env).scalar
      return .scalar(x.hull(-x))
    case .directionAngle(let a): return .scalar(eval(a, env).scalar.hull(Interval(lo: -90, hi: 90)))
    case .angleDifference(let a): return .scalar(eval(a, env).scalar.hull(Interval(lo: -180, hi: 180)))
    }
  }
}
