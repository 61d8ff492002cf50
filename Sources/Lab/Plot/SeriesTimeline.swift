import CanonicalJSON
import EngineIO
import EngineSeam
import JustPhotoPlugin
import Replay

/// What `jpreplay plot` draws for an engine whose vocabulary declares a ``TraceTimeline``
/// (PixScan: the photo index, the delete queue, the progress counts, swipes and messages): step
/// series and marker lanes read from one replay's trace records.
package struct SeriesTimelineData: Sendable, Equatable {
  /// A series' value from `t` on (until its next step); nil = no value (a gap).
  package struct Step: Sendable, Equatable {
    package var t: Millis
    package var value: Double?
    package init(t: Millis, value: Double?) {
      self.t = t
      self.value = value
    }
  }

  package struct Series: Sendable, Equatable {
    package var name: String
    /// Changes of value in time order; the first one at or after `from` (a value held from
    /// before the range starts at `from`).
    package var steps: [Step]
  }

  package struct Panel: Sendable, Equatable {
    package var title: String
    package var series: [Series]
  }

  package struct Lane: Sendable, Equatable {
    package var name: String
    package var marks: [TimelineData.Marker]
  }

  package var name: String
  package var engine: String
  package var from: Millis
  package var to: Millis
  package var panels: [Panel]
  package var lanes: [Lane]

  /// Draws `records` (one replay's trace lines of `timeline`'s kinds, in trace order) over
  /// `[from, to]` (nil: the whole replay, `durationMs`).
  package static func collect(
    name: String, engine: String, records: [TraceRecord], timeline: TraceTimeline, durationMs: Millis,
    from: Millis? = nil, to: Millis? = nil
  ) throws(HarnessFailure) -> SeriesTimelineData {
    let lo = max(0, from ?? 0)
    let hi = min(to ?? durationMs, durationMs)
    guard lo < hi else { throw .badInput("--from \(lo) --to \(hi): empty range (the replay ends at \(durationMs) ms)") }
    var panels: [Panel] = timeline.panels.map { Panel(title: $0, series: []) }
    for s in timeline.series {
      // Its value after each line up to `hi`; lines before `lo` count from `lo`; of several
      // lines at one instant the latest is the state.
      var steps: [Step] = []
      for r in records where r.out == s.out && r.t <= hi {
        let step = Step(t: max(r.t, lo), value: s.value(r.fields))
        if let last = steps.last, last.t == step.t {
          steps[steps.count - 1] = step
          continue
        }
        guard steps.count < PlotLimits.stepsPerSeriesMax else {
          throw .badInput(
            "\(name): series \(s.name) has more than PlotLimits.stepsPerSeriesMax = \(PlotLimits.stepsPerSeriesMax) steps; narrow it with --from/--to")
        }
        steps.append(step)
      }
      // Changes only.
      var changes: [Step] = []
      for step in steps {
        if let last = changes.last, last.value == step.value { continue }
        changes.append(step)
      }
      let i = panels.firstIndex { $0.title == s.panel }!
      panels[i].series.append(Series(name: s.name, steps: changes))
    }
    var lanes: [Lane] = []
    for m in timeline.markers {
      var marks: [TimelineData.Marker] = []
      for r in records where r.out == m.out && r.t >= lo && r.t <= hi {
        guard marks.count < PlotLimits.marksPerLaneMax else {
          throw .badInput("\(name): lane \(m.lane) has more than PlotLimits.marksPerLaneMax = \(PlotLimits.marksPerLaneMax) marks; narrow it with --from/--to")
        }
        marks.append(TimelineData.Marker(t: r.t, text: m.text(r.fields)))
      }
      lanes.append(Lane(name: m.lane, marks: marks))
    }
    return SeriesTimelineData(name: name, engine: engine, from: lo, to: hi, panels: panels, lanes: lanes)
  }

  /// `v` as trace lines write numbers (shortest form).
  package static func text(_ v: Double?) -> String { v.map { JSONWriter.write(.number($0)) } ?? "none" }
}

/// Renders a ``SeriesTimelineData`` as one standalone SVG with the shared writer and time axis
/// of ``SVGTimeline``: a lane per marker kind (each mark titled with its time and line), then a
/// panel per series group, each series a step line in its colour; every step of a series of at
/// most `PlotLimits.titledStepsMax` steps has a tooltip `NAME = VALUE (t A…B)`.
package enum SVGSeriesTimeline {
  package static func render(_ d: SeriesTimelineData) -> String {
    let width = SVGTimeline.width
    let left = SVGTimeline.left
    let right = SVGTimeline.right
    let laneHeight = SVGTimeline.laneHeight
    let gap = SVGTimeline.gap
    let titleHeight = SVGTimeline.titleHeight
    let panelHeight = SVGTimeline.panelHeight
    let palette = SVGTimeline.palette
    var svg = SVGBuilder()
    let plotWidth = width - left - right
    let x = { (t: Millis) -> Double in left + Double(t - d.from) / Double(max(d.to - d.from, 1)) * plotWidth }
    var y = 34.0
    let height = 34 + Double(d.lanes.count) * (laneHeight + gap) + Double(d.panels.count) * (titleHeight + panelHeight + gap) + 40
    svg.open(width: width, height: height)
    svg.text(x: 8, y: 18, "\(d.name) (\(d.engine)) — t \(d.from)…\(d.to) ms", size: 14, weight: "bold")
    for (i, lane) in d.lanes.enumerated() {
      let color = palette[i % palette.count]
      svg.text(x: 8, y: y + 13, lane.name, size: 12)
      svg.rect(x: left, y: y, w: plotWidth, h: laneHeight, fill: "#f4f4f4")
      for m in lane.marks {
        svg.rect(x: x(m.t) - 1, y: y, w: 2, h: laneHeight, fill: color, title: "t=\(m.t) \(m.text)")
      }
      y += laneHeight + gap
    }
    for p in d.panels {
      svg.text(x: left, y: y + 12, p.title, size: 12, weight: "bold")
      panel(&svg, d, p, top: y + titleHeight, x: x)
      y += titleHeight + panelHeight + gap
    }
    SVGTimeline.axis(&svg, from: d.from, to: d.to, y: y, x: x)
    svg.close()
    return svg.text
  }

  static func panel(
    _ svg: inout SVGBuilder, _ d: SeriesTimelineData, _ p: SeriesTimelineData.Panel, top: Double, x: (Millis) -> Double
  ) {
    let left = SVGTimeline.left
    let panelHeight = SVGTimeline.panelHeight
    let plotWidth = SVGTimeline.width - left - SVGTimeline.right
    // The scale: 0 up to the largest value (a count never hides below the panel's floor).
    var lo = 0.0
    var hi = -Double.infinity
    for s in p.series {
      for v in s.steps.compactMap(\.value) where v.isFinite { (lo, hi) = (min(lo, v), max(hi, v)) }
    }
    if !hi.isFinite || hi - lo < 1e-9 { hi = lo + 1 }
    let y = { (v: Double) -> Double in top + 6 + (hi - v) / (hi - lo) * (panelHeight - 12) }
    svg.rect(x: left, y: top, w: plotWidth, h: panelHeight, fill: "#fbfbfb", stroke: "#cccccc")
    svg.text(x: 8, y: top + 16, "\(SeriesTimelineData.text(lo)) … \(SeriesTimelineData.text(hi))", size: 10, fill: "#666666")
    for (i, s) in p.series.enumerated() {
      let color = SVGTimeline.palette[i % SVGTimeline.palette.count]
      svg.text(x: 8, y: top + 32 + Double(i) * 14, s.name, size: 11, fill: color)
      let titled = s.steps.count <= PlotLimits.titledStepsMax
      var run: [(Double, Double)] = []
      for (k, step) in s.steps.enumerated() {
        let end = k + 1 < s.steps.count ? s.steps[k + 1].t : d.to
        guard let v = step.value, v.isFinite else {
          if !run.isEmpty { svg.polyline(run, stroke: color) }
          run = []
          continue
        }
        // Rises and falls are vertical: each step starts where the previous ended. A value
        // set at the range's last instant gets a short stub past it, so it shows.
        let x1 = step.t == end ? x(end) + 3 : x(end)
        run.append((x(step.t), y(v)))
        run.append((x1, y(v)))
        if titled {
          svg.line(
            x1: x(step.t), y1: y(v), x2: x1, y2: y(v), stroke: color, width: 4, opacity: 0,
            title: "\(s.name) = \(SeriesTimelineData.text(v)) (t \(step.t)…\(end))")
        }
      }
      if !run.isEmpty { svg.polyline(run, stroke: color) }
    }
  }
}
