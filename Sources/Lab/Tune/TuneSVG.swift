import CanonicalJSON
import Foundation
import PoseSpec
import Recording

/// `tune report --svg FILE`: the first two objectives against each other, one dot per trial
/// (feasible grey, infeasible red ×), the Pareto front as blue dots joined by a step line.
package enum TuneSVG {
  static let width = 640.0
  static let height = 480.0
  static let margin = 60.0

  package static func render(_ report: TuneReport) -> String {
    let xKey = report.objectives[0]
    let yKey = report.objectives.count > 1 ? report.objectives[1] : report.objectives[0]
    let pts: [(t: TrialResult, x: Double, y: Double)] = report.trials.compactMap { t in
      guard let x = t.objectives[xKey], let y = t.objectives[yKey], x.isFinite, y.isFinite else { return nil }
      return (t, x, y)
    }
    var xs = pts.map(\.x)
    var ys = pts.map(\.y)
    if let sx = report.shipped?[xKey], let sy = report.shipped?[yKey], sx.isFinite, sy.isFinite { (xs, ys) = (xs + [sx], ys + [sy]) }
    let (x0, x1) = bounds(xs)
    let (y0, y1) = bounds(ys)
    func px(_ x: Double) -> Double { margin + (x - x0) / (x1 - x0) * (width - 2 * margin) }
    func py(_ y: Double) -> Double { height - margin - (y - y0) / (y1 - y0) * (height - 2 * margin) }
    func f(_ d: Double) -> String { String(format: "%.1f", d) }
    var s = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
      <title>tune: \(escape(xKey)) vs \(escape(yKey))</title>
      <rect width="100%" height="100%" fill="white"/>
      <line x1="\(f(margin))" y1="\(f(height - margin))" x2="\(f(width - margin))" y2="\(f(height - margin))" stroke="black"/>
      <line x1="\(f(margin))" y1="\(f(margin))" x2="\(f(margin))" y2="\(f(height - margin))" stroke="black"/>
      <text x="\(f(width / 2))" y="\(f(height - 15))" text-anchor="middle">\(escape(xKey)) (lower is better)</text>
      <text x="15" y="\(f(height / 2))" text-anchor="middle" transform="rotate(-90 15 \(f(height / 2)))">\(escape(yKey)) (lower is better)</text>

      """
    s += axes(x: (x0, x1), y: (y0, y1), px: px, py: py)
    let frontSet = Set(report.front)
    for p in pts where !frontSet.contains(p.t.index) {
      if p.t.status == .ok {
        s += "<circle cx=\"\(f(px(p.x)))\" cy=\"\(f(py(p.y)))\" r=\"3\" fill=\"#999\"><title>#\(p.t.index)</title></circle>\n"
      } else {
        let (cx, cy) = (px(p.x), py(p.y))
        s += "<path d=\"M\(f(cx - 3)) \(f(cy - 3))L\(f(cx + 3)) \(f(cy + 3))M\(f(cx - 3)) \(f(cy + 3))L\(f(cx + 3)) \(f(cy - 3))\" stroke=\"#d33\"><title>#\(p.t.index) \(escape(p.t.reason ?? p.t.status.rawValue))</title></path>\n"
      }
    }
    let front = pts.filter { frontSet.contains($0.t.index) }.sorted { ($0.x, $0.y, $0.t.index) < ($1.x, $1.y, $1.t.index) }
    if front.count > 1 {
      var d = "M\(f(px(front[0].x))) \(f(py(front[0].y)))"
      for p in front.dropFirst() { d += "H\(f(px(p.x)))V\(f(py(p.y)))" }
      s += "<path d=\"\(d)\" fill=\"none\" stroke=\"#16c\" stroke-width=\"1.5\"/>\n"
    }
    for p in front {
      s += "<circle cx=\"\(f(px(p.x)))\" cy=\"\(f(py(p.y)))\" r=\"5\" fill=\"#16c\"><title>#\(p.t.index) (Pareto front)</title></circle>\n"
    }
    if let sx = report.shipped?[xKey], let sy = report.shipped?[yKey], sx.isFinite, sy.isFinite, sx >= x0, sx <= x1, sy >= y0, sy <= y1 {
      let (cx, cy) = (px(sx), py(sy))
      s += "<path d=\"M\(f(cx)) \(f(cy - 6))L\(f(cx + 6)) \(f(cy))L\(f(cx)) \(f(cy + 6))L\(f(cx - 6)) \(f(cy))Z\" fill=\"black\"><title>shipped spec: \(escape(xKey)) \(num(sx)), \(escape(yKey)) \(num(sy))</title></path>\n"
    }
    s += "<text x=\"\(f(width - margin))\" y=\"20\" text-anchor=\"end\">\(pts.count) trials, \(front.count) on the Pareto front (blue)\(report.shipped == nil ? "" : ", shipped ◆")</text>\n"
    guard let panel = validationPanel(report) else { return s + "</svg>\n" }
    // A second panel below the first: the SVG grows to twice the height.
    s = s.replacingOccurrences(of: "height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\"", with: "height=\"\(Int(2 * height))\" viewBox=\"0 0 \(Int(width)) \(Int(2 * height))\"")
    s = s.replacingOccurrences(of: "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>", with: "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<g>")
    return s + "</g>\n<g transform=\"translate(0 \(Int(height)))\">\n" + panel + "</g>\n</svg>\n"
  }

  /// Fit against validation value of the study's objective, one dot per front trial (blue:
  /// generalises, orange: does not), the shipped spec as a black diamond and its validation
  /// value as a dashed line. nil without a validation corpus or points.
  static func validationPanel(_ report: TuneReport) -> String? {
    guard !report.validation.isEmpty else { return nil }
    let key = report.objective
    let vkey = TuneRunner.validationPrefix + key
    let byIndex = Dictionary(uniqueKeysWithValues: report.trials.map { ($0.index, $0) })
    let pts: [(index: Int, x: Double, y: Double, ok: Bool)] = report.front.compactMap { i in
      guard let t = byIndex[i], let x = t.objectives[key], let y = t.objectives[vkey], x.isFinite, y.isFinite else { return nil }
      return (i, x, y, report.generalisation(t)?.generalises ?? true)
    }
    var shipped: (x: Double, y: Double)?
    if let x = report.shipped?[key], let y = report.shipped?[vkey], x.isFinite, y.isFinite { shipped = (x, y) }
    guard !pts.isEmpty || shipped != nil else { return nil }
    let (x0, x1) = bounds(pts.map(\.x) + (shipped.map { [$0.x] } ?? []))
    let (y0, y1) = bounds(pts.map(\.y) + (shipped.map { [$0.y] } ?? []))
    func px(_ x: Double) -> Double { margin + (x - x0) / (x1 - x0) * (width - 2 * margin) }
    func py(_ y: Double) -> Double { height - margin - (y - y0) / (y1 - y0) * (height - 2 * margin) }
    func f(_ d: Double) -> String { String(format: "%.1f", d) }
    var s = """
      <line x1="\(f(margin))" y1="\(f(height - margin))" x2="\(f(width - margin))" y2="\(f(height - margin))" stroke="black"/>
      <line x1="\(f(margin))" y1="\(f(margin))" x2="\(f(margin))" y2="\(f(height - margin))" stroke="black"/>
      <text x="\(f(width / 2))" y="\(f(height - 15))" text-anchor="middle">\(escape(key)) on the fit corpus</text>
      <text x="15" y="\(f(height / 2))" text-anchor="middle" transform="rotate(-90 15 \(f(height / 2)))">\(escape(key)) on the validation corpus</text>

      """
    s += axes(x: (x0, x1), y: (y0, y1), px: px, py: py)
    if let shipped {
      let (cx, cy) = (px(shipped.x), py(shipped.y))
      s += "<line x1=\"\(f(margin))\" y1=\"\(f(cy))\" x2=\"\(f(width - margin))\" y2=\"\(f(cy))\" stroke=\"#333\" stroke-dasharray=\"4 4\"/>\n"
      s += "<path d=\"M\(f(cx)) \(f(cy - 6))L\(f(cx + 6)) \(f(cy))L\(f(cx)) \(f(cy + 6))L\(f(cx - 6)) \(f(cy))Z\" fill=\"black\"><title>shipped spec</title></path>\n"
    }
    for p in pts {
      let note = p.ok ? "generalises" : "does not generalise"
      s += "<circle cx=\"\(f(px(p.x)))\" cy=\"\(f(py(p.y)))\" r=\"5\" fill=\"\(p.ok ? "#16c" : "#e80")\"><title>#\(p.index) (\(note))</title></circle>\n"
    }
    let bad = pts.filter { !$0.ok }.count
    s += "<text x=\"\(f(width - margin))\" y=\"20\" text-anchor=\"end\">front: fit vs validation \(escape(key)); \(bad) of \(pts.count) do not generalise (orange); shipped ◆</text>\n"
    return s
  }

  /// Tick marks, light grid lines and labels at "nice" values (1, 2 or 5 × 10^k apart, about
  /// `ticksWanted` per axis) inside [lo, hi] of each axis.
  static func axes(
    x: (Double, Double), y: (Double, Double), px: (Double) -> Double, py: (Double) -> Double
  ) -> String {
    func f(_ d: Double) -> String { String(format: "%.1f", d) }
    var s = ""
    for t in ticks(x.0, x.1) {
      let X = px(t)
      s += "<line x1=\"\(f(X))\" y1=\"\(f(margin))\" x2=\"\(f(X))\" y2=\"\(f(height - margin))\" stroke=\"#eee\"/>\n"
      s += "<line x1=\"\(f(X))\" y1=\"\(f(height - margin))\" x2=\"\(f(X))\" y2=\"\(f(height - margin + 5))\" stroke=\"black\"/>\n"
      s += "<text class=\"xtick\" x=\"\(f(X))\" y=\"\(f(height - margin + 18))\" text-anchor=\"middle\">\(num(t))</text>\n"
    }
    for t in ticks(y.0, y.1) {
      let Y = py(t)
      s += "<line x1=\"\(f(margin))\" y1=\"\(f(Y))\" x2=\"\(f(width - margin))\" y2=\"\(f(Y))\" stroke=\"#eee\"/>\n"
      s += "<line x1=\"\(f(margin - 5))\" y1=\"\(f(Y))\" x2=\"\(f(margin))\" y2=\"\(f(Y))\" stroke=\"black\"/>\n"
      s += "<text class=\"ytick\" x=\"\(f(margin - 8))\" y=\"\(f(Y + 4))\" text-anchor=\"end\">\(num(t))</text>\n"
    }
    return s
  }

  /// About this many ticks per axis.
  static let ticksWanted = 6.0

  /// Values k·step in [lo, hi], step a 1-2-5 number (1, 2 or 5 × 10^k) giving the count of
  /// ticks nearest `ticksWanted` (on a tie, the fewer).
  static func ticks(_ lo: Double, _ hi: Double) -> [Double] {
    guard lo.isFinite, hi.isFinite, hi > lo else { return [] }
    let magnitude = pow(10, log10((hi - lo) / ticksWanted).rounded(.down))
    let steps = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50].map { $0 * magnitude }
    func values(_ step: Double) -> [Double] {
      // Printed with the step's decimals: 0.6000000000000001 is 0.6.
      let decimals = max(0, Int(-log10(step).rounded(.up)) + 1)
      var out: [Double] = []
      var k = (lo / step - 1e-9).rounded(.up)
      while k * step <= hi + step * 1e-9, out.count <= 100 {
        out.append(Double(String(format: "%.\(decimals)f", k * step)) ?? k * step)
        k += 1
      }
      return out.map { $0 == 0 ? 0 : $0 }
    }
    let best = steps.map(values).min { a, b in
      let (da, db) = (abs(Double(a.count) - ticksWanted), abs(Double(b.count) - ticksWanted))
      return da != db ? da < db : a.count < b.count
    }
    return best ?? []
  }

  static func bounds(_ v: [Double]) -> (Double, Double) {
    guard let lo = v.min(), let hi = v.max() else { return (0, 1) }
    if hi - lo < 1e-12 { return (lo - 0.5, hi + 0.5) }
    let pad = (hi - lo) * 0.05
    return (lo - pad, hi + pad)
  }

  static func num(_ d: Double) -> String { JSONWriter.formatNumber((d * 1000).rounded() / 1000) }

  static func escape(_ s: String) -> String { XMLText.escape(s) }
}
