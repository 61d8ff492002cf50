import JustPhotoEngine
import EngineIO
import Foundation
import PoseSpec

/// Renders a `TimelineData` as one standalone SVG (any browser opens it): a lane of the
/// displayed cue, a lane of praise (▲) and prompt (◆) markers, a lane of the gate's reason for
/// keeping its output (hold, frames, cooldown; ENGINE §3.9), a lane of the ranking (the top
/// three candidates, best on top; §3.7), then one panel per cue, under its full name, with
/// its metric value (the error the thresholds judge) against the hard / warn / enter / exit
/// thresholds, its labelled intervals shaded and its display spans as a bar on top. Every
/// mark has a `<title>` tooltip.
package enum SVGTimeline {
  package static let width = 1200.0
  package static let left = 210.0
  package static let right = 20.0
  static let laneHeight = 18.0
  static let panelHeight = 120.0
  static let gap = 14.0
  /// The row above each panel with the cue's full name.
  static let titleHeight = 16.0
  /// The gate reasons drawn (`none` is left blank) and their colours.
  static let gateStyles: [(reason: GateReason, color: String)] = [
    (.hold, "#4e79a7"), (.frames, "#f28e2b"), (.cooldown, "#b07aa1"),
  ]
  /// Ranks drawn in the rank lane.
  static let ranksShown = 3
  static let palette = ["#1f77b4", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#2ca02c"]
  /// Threshold level → colour and dash pattern.
  static let thresholdStyles: [(level: String, color: String, dash: String)] = [
    ("hard", "#d62728", "7,3"), ("warn", "#ff7f0e", "4,3"), ("enter", "#1f77b4", "2,3"), ("exit", "#2ca02c", "8,2,2,2"),
  ]

  package static func render(_ d: TimelineData) -> String {
    var svg = SVGBuilder()
    let plotWidth = width - left - right
    let x = { (t: Millis) -> Double in left + Double(t - d.from) / Double(max(d.to - d.from, 1)) * plotWidth }
    var y = 34.0
    let height = 34 + 4 * (laneHeight + gap) + Double(d.cues.count) * (titleHeight + panelHeight + gap) + 40
    svg.open(width: width, height: height)
    svg.text(x: 8, y: 18, "\(d.name) — t \(d.from)…\(d.to) ms", size: 14, weight: "bold")
    legend(&svg, at: 560)
    let color = { (cue: String) -> String in
      d.cues.firstIndex(of: cue).map { palette[$0 % palette.count] } ?? "#aaaaaa"
    }
    // Lane 1: the displayed cue.
    svg.text(x: 8, y: y + 13, "displayed cue", size: 12)
    svg.rect(x: left, y: y, w: plotWidth, h: laneHeight, fill: "#f4f4f4")
    for s in d.displays.spans where s.interval.end > d.from && s.interval.start < d.to {
      let x0 = x(max(s.interval.start, d.from))
      let x1 = x(min(s.interval.end, d.to))
      svg.rect(x: x0, y: y, w: max(x1 - x0, 0.5), h: laneHeight, fill: color(s.cue), title: "\(s.cue) displayed \(s.interval)")
    }
    y += laneHeight + gap
    // Lane 2: praise and prompts.
    svg.text(x: 8, y: y + 13, "praise ▲  prompts ◆", size: 12)
    svg.rect(x: left, y: y, w: plotWidth, h: laneHeight, fill: "#f4f4f4")
    for m in d.praise { svg.triangle(x: x(m.t), y: y, size: laneHeight, fill: "#2ca02c", title: "t=\(m.t) \(m.text)") }
    for m in d.prompts { svg.diamond(x: x(m.t), y: y, size: laneHeight, fill: "#9467bd", title: "t=\(m.t) \(m.text)") }
    y += laneHeight + gap
    gateLane(&svg, d, top: y, x: x)
    y += laneHeight + gap
    rankLane(&svg, d, top: y, x: x, color: color)
    y += laneHeight + gap
    for (i, cue) in d.cues.enumerated() {
      svg.text(x: left, y: y + 12, cue, size: 12, weight: "bold", fill: palette[i % palette.count])
      panel(&svg, d, cue: cue, color: palette[i % palette.count], top: y + titleHeight, x: x)
      y += titleHeight + panelHeight + gap
    }
    axis(&svg, from: d.from, to: d.to, y: y, x: x)
    svg.close()
    return svg.text
  }

  static func legend(_ svg: inout SVGBuilder, at x0: Double) {
    var x = x0
    for s in thresholdStyles {
      svg.line(x1: x, y1: 14, x2: x + 24, y2: 14, stroke: s.color, width: 1.5, dash: s.dash)
      svg.text(x: x + 28, y: 18, s.level, size: 11)
      x += 70
    }
    svg.rect(x: x, y: 8, w: 20, h: 10, fill: "#ffe08a")
    svg.text(x: x + 24, y: 18, "label holds", size: 11)
    x += 100
    svg.rect(x: x, y: 8, w: 20, h: 4, fill: "#555555")
    svg.text(x: x + 24, y: 18, "cue displayed", size: 11)
  }

  static func panel(
    _ svg: inout SVGBuilder, _ d: TimelineData, cue: String, color: String, top: Double, x: (Millis) -> Double
  ) {
    let pts = d.points[cue] ?? []
    let plotWidth = width - left - right
    var lo = Double.infinity
    var hi = -Double.infinity
    for p in pts {
      if let v = p.value, v.isFinite { (lo, hi) = (min(lo, v), max(hi, v)) }
      for th in thresholdValues(p.thresholds).flatMap(\.values) { (lo, hi) = (min(lo, th), max(hi, th)) }
    }
    if !lo.isFinite || !hi.isFinite { (lo, hi) = (-1, 1) }
    if hi - lo < 1e-9 { (lo, hi) = (lo - 1, hi + 1) }
    let pad = (hi - lo) * 0.08
    (lo, hi) = (lo - pad, hi + pad)
    let y = { (v: Double) -> Double in top + 6 + (hi - v) / (hi - lo) * (panelHeight - 6) }
    svg.text(x: 8, y: top + 16, "metric (error)", size: 11, fill: color)
    svg.text(x: 8, y: top + 32, String(format: "%.3g … %.3g", lo, hi), size: 10, fill: "#666666")
    svg.rect(x: left, y: top, w: plotWidth, h: panelHeight, fill: "#fbfbfb", stroke: "#cccccc")
    for iv in d.labels?.intervals[cue] ?? [] where iv.end > d.from && iv.start < d.to {
      let x0 = x(max(iv.start, d.from))
      svg.rect(x: x0, y: top, w: max(x(min(iv.end, d.to)) - x0, 0.5), h: panelHeight, fill: "#ffe08a", opacity: 0.55, title: "\(cue) label holds \(iv)")
    }
    for s in d.displays.spans(of: cue) where s.end > d.from && s.start < d.to {
      let x0 = x(max(s.start, d.from))
      svg.rect(x: x0, y: top, w: max(x(min(s.end, d.to)) - x0, 0.5), h: 4, fill: "#555555", title: "\(cue) displayed \(s)")
    }
    thresholdLines(&svg, pts, end: d.to, x: x, y: y)
    for run in thinned(pts, columns: Int(plotWidth)) where !run.isEmpty {
      svg.polyline(run.map { (x($0.t), y($0.v)) }, stroke: color)
    }
  }

  /// Runs of equal consecutive samples: each from its first sample's t to the next run's
  /// first t (the last to `end`).
  static func runs<K: Equatable>(_ samples: [(t: Millis, key: K)], end: Millis) -> [(start: Millis, end: Millis, key: K)] {
    var out: [(start: Millis, end: Millis, key: K)] = []
    for s in samples {
      if let last = out.last, last.key == s.key { continue }
      if !out.isEmpty { out[out.count - 1].end = s.t }
      out.append((s.t, end, s.key))
    }
    return out
  }

  /// The gate lane: a bar wherever the gate kept its output back, coloured by the reason.
  static func gateLane(_ svg: inout SVGBuilder, _ d: TimelineData, top: Double, x: (Millis) -> Double) {
    let plotWidth = width - left - right
    svg.text(x: 8, y: top + 13, "gate", size: 12)
    var lx = 44.0
    for g in gateStyles {
      svg.rect(x: lx, y: top + 5, w: 8, h: 8, fill: g.color)
      svg.text(x: lx + 10, y: top + 13, g.reason.rawValue, size: 10)
      lx += 14 + Double(g.reason.rawValue.count) * 6
    }
    svg.rect(x: left, y: top, w: plotWidth, h: laneHeight, fill: "#f4f4f4")
    struct Key: Equatable {
      var reason: GateReason
      var input: String?
      var shown: String?
      /// The run's first sample (its counters go in the tooltip); not part of the equality.
      var first: Int
      static func == (a: Key, b: Key) -> Bool { a.reason == b.reason && a.input == b.input && a.shown == b.shown }
    }
    // Runs by reason, input and shown cue.
    let samples = d.gate.enumerated().map { i, g in (t: g.t, key: Key(reason: g.reason, input: g.input, shown: g.shown, first: i)) }
    for r in runs(samples, end: d.to) where r.key.reason != .none {
      guard let style = gateStyles.first(where: { $0.reason == r.key.reason }) else { continue }
      let x0 = x(max(r.start, d.from))
      let tip = "t \(r.start)…\(r.end) gate \(r.key.reason.rawValue): input \(r.key.input ?? "none"), shown \(r.key.shown ?? "none")"
        + " (\(d.gate[r.key.first].detail))"
      svg.rect(x: x0, y: top, w: max(x(min(r.end, d.to)) - x0, 0.5), h: laneHeight, fill: style.color, title: tip)
    }
  }

  /// The rank lane: the first `ranksShown` candidates, one row each, best on top, in the
  /// cue's colour (grey for a cue without a panel).
  static func rankLane(
    _ svg: inout SVGBuilder, _ d: TimelineData, top: Double, x: (Millis) -> Double, color: (String) -> String
  ) {
    let plotWidth = width - left - right
    svg.text(x: 8, y: top + 13, "ranked (best on top)", size: 12)
    svg.rect(x: left, y: top, w: plotWidth, h: laneHeight, fill: "#f4f4f4")
    let row = laneHeight / Double(ranksShown)
    let all = runs(d.ranks.map { (t: $0.t, key: $0.ranked) }, end: d.to)
    for k in 0..<ranksShown {
      for r in all where r.key.count > k {
        let cue = r.key[k]
        let x0 = x(max(r.start, d.from))
        svg.rect(
          x: x0, y: top + Double(k) * row, w: max(x(min(r.end, d.to)) - x0, 0.5), h: row - 0.5, fill: color(cue),
          title: "t \(r.start)…\(r.end) rank \(k + 1): \(cue) (ranked: \(r.key.joined(separator: " > ")))")
      }
    }
  }

  /// Horizontal segments per run of equal thresholds (the set may change with the mode).
  static func thresholdLines(
    _ svg: inout SVGBuilder, _ pts: [TimelineData.Point], end: Millis, x: (Millis) -> Double, y: (Double) -> Double
  ) {
    var i = 0
    while i < pts.count {
      var j = i
      while j + 1 < pts.count && pts[j + 1].thresholds == pts[i].thresholds { j += 1 }
      let until = j + 1 < pts.count ? pts[j + 1].t : end
      for level in thresholdValues(pts[i].thresholds) {
        let style = thresholdStyles.first { $0.level == level.level }!
        for v in level.values {
          svg.line(
            x1: x(pts[i].t), y1: y(v), x2: x(until), y2: y(v), stroke: style.color, width: 1.2, dash: style.dash,
            title: "\(level.level) \(level.text) (t \(pts[i].t)…\(until))")
        }
      }
      i = j + 1
    }
  }

  /// The lines of each threshold level: `>0.07` → [0.07], `abs<=0.04` → [0.04, -0.04],
  /// `between[a,b]` → [a, b]; a list gives all of its thresholds' lines.
  static func thresholdValues(_ th: ThresholdSet?) -> [(level: String, text: String, values: [Double])] {
    guard let th else { return [] }
    let levels = [("hard", th.hard), ("warn", th.warn), ("enter", th.enter), ("exit", th.exit)]
    return levels.compactMap { level, list in
      var values: [Double] = []
      for t in list {
        switch t.op {
        case .between: values += [t.a] + (t.b.map { [$0] } ?? [])
        case .absGreater, .absGreaterOrEqual, .absLess, .absLessOrEqual: values += [t.a, -t.a]
        case .greater, .greaterOrEqual, .less, .lessOrEqual: values.append(t.a)
        }
      }
      let text = list.map(\.description).joined(separator: "|")
      return values.isEmpty ? nil : (level, text, values.filter(\.isFinite))
    }
  }

  /// The value runs to draw (nil values break a run); at most two points (min and max) per
  /// pixel column when there are more points than `4 × columns`.
  static func thinned(_ pts: [TimelineData.Point], columns: Int) -> [[(t: Millis, v: Double)]] {
    var runs: [[(t: Millis, v: Double)]] = [[]]
    for p in pts {
      if let v = p.value, v.isFinite { runs[runs.count - 1].append((p.t, v)) } else if !runs[runs.count - 1].isEmpty { runs.append([]) }
    }
    let total = runs.reduce(0) { $0 + $1.count }
    guard total > 4 * columns, let first = pts.first?.t, let last = pts.last?.t, last > first else { return runs }
    let span = Double(last - first)
    return runs.map { run in
      var out: [(t: Millis, v: Double)] = []
      var bucket = -1
      var lo: (t: Millis, v: Double)? = nil
      var hi: (t: Millis, v: Double)? = nil
      func flush() {
        guard let l = lo, let h = hi else { return }
        out += l.t <= h.t ? [l, h] : [h, l]
      }
      for p in run {
        let b = Int(Double(p.t - first) / span * Double(columns))
        if b != bucket {
          flush()
          (bucket, lo, hi) = (b, p, p)
        }
        if p.v < lo!.v { lo = p }
        if p.v > hi!.v { hi = p }
      }
      flush()
      return out
    }
  }

  /// The time axis under the plot, from `from` to `to` ms (shared by ``SVGSeriesTimeline``).
  static func axis(_ svg: inout SVGBuilder, from: Millis, to: Millis, y: Double, x: (Millis) -> Double) {
    svg.line(x1: left, y1: y, x2: width - right, y2: y, stroke: "#333333", width: 1)
    let span = Double(to - from)
    let steps: [Millis] = [100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000]
    let step = steps.first { span / Double($0) <= 12 } ?? 1_200_000
    var t = (from + step - 1) / step * step
    while t <= to {
      svg.line(x1: x(t), y1: y, x2: x(t), y2: y + 5, stroke: "#333333", width: 1)
      let label = step >= 1000 ? "\(t / 1000) s" : String(format: "%.1f s", Double(t) / 1000)
      svg.text(x: x(t) - 12, y: y + 18, label, size: 11)
      t += step
    }
  }
}
