import CanonicalJSON
import JustPhotoEngine
import EngineIO
import EngineSeam
import Foundation
import JustPhotoPlugin
import PoseSpec
import Recording
import Replay
import Verify

/// Builds the HTML report's document from a `verify` run or a `diff`: one row per divergence
/// (the differ's explanation, and the metric table `diff` prints as its "why"), and per
/// divergent recording one replay with metric tracing for its timeline.
package struct HTMLReportBuilder: Sendable {
  package var spec: PoseSpecDocument
  package var overrides: [(name: String, value: String)]
  /// A display shorter than this in the new run that the golden lacks is a "new flicker"
  /// (the guidance budget's minimum hold, `verify --budgets`).
  package var minHoldMs: Millis = BudgetLimits().minHoldMs
  /// The half width of the window of `cue_eval` records a row's cause is built from (as `diff`).
  package static let causeWindowMs: Millis = 500
  /// The spec each recording's golden side is replayed under (by recording name): the spec
  /// the golden was made with, found by the caller; by default none (the page says so).
  package var goldenSpec: @Sendable (String) -> HTMLReportGoldenSpec = { _ in
    HTMLReportGoldenSpec(spec: nil, note: "golden side: the spec the golden was made with was not given; its series are not drawn")
  }

  /// How a recording's (by path) timeline is drawn, as its routed engine says (the CLI's
  /// `EngineLab`): under ``spec`` with metric tracing (``HTMLReportTimelineSource/spec``, the
  /// default), or an engine's vocabulary's ``TraceTimeline/pageLanes`` of the golden's trace
  /// and of a replay (``HTMLReportTimelineSource/lanes(_:)``).
  package var timelineSource: @Sendable (String) -> HTMLReportTimelineSource = { _ in .spec }
  /// Recordings whose timelines are built at once (`verify --jobs`): each its own replays.
  package var jobs = 1

  package init(spec: PoseSpecDocument, overrides: [(name: String, value: String)] = []) {
    self.spec = spec
    self.overrides = overrides
  }

  /// The document of a `verify` run: every divergence of every failed recording, in the
  /// report's order (`VerifyCase.divergences`: trace first, then A.13).
  package func document(verify report: VerifyReport, store: GoldenStore, title: String) -> HTMLReportDocument {
    var doc = HTMLReportDocument(kind: "verify", title: title)
    for cat in VerifyCategory.allCases {
      let n = report.cases.filter { $0.category == cat }.count
      if n > 0 { doc.counts.append((cat.rawValue, n)) }
    }
    let failed = report.cases.filter { !$0.divergences.isEmpty }
    var next = 0
    while next < failed.count {
      // The next recordings that may still get a timeline, built `jobs` at a time (packed as
      // each is done); in the report's order, as one at a time would.
      let room = HTMLReportLimits.timelinesMax - doc.timelines.count
      let batch = room > 0 ? Array(failed[next..<min(failed.count, next + room)]) : []
      let built = ParallelMap.run(batch, jobs: jobs) { c in self.caseTimeline(c, store: store) }
      for (k, c) in failed[next..<(next + max(1, batch.count))].enumerated() {
        var timeline: HTMLReportTimeline?
        var causes: [TraceRecord] = []
        if k < built.count {
          switch built[k] {
          case .success(let b):
            timeline = b.timeline
            causes = b.causes
          case .failure(let why): doc.withoutTimeline.append((c.name, why.message))
          }
        } else {
          doc.withoutTimeline.append((c.name, "more than HTMLReportLimits.timelinesMax = \(HTMLReportLimits.timelinesMax) timelines"))
        }
        for fd in c.divergences {
          addRow(&doc, recording: c.name, file: fd.file.rawValue, fd.divergence, timeline: timeline, causes: causes)
        }
        if let timeline { doc.timelines.append(timeline) }
      }
      next += max(1, batch.count)
    }
    return doc
  }

  /// One failed case's timeline (packed) and the causes of its rows.
  func caseTimeline(_ c: VerifyCase, store: GoldenStore) -> Result<(timeline: HTMLReportTimeline, causes: [TraceRecord]), HarnessFailure> {
    let ds = c.divergences
    do throws(HarnessFailure) {
      let golden = (try? store.readGolden(c.name, .trace)) ?? nil
      let path = store.recordingURL(c.name).path
      let at = ds.map(\.divergence.t)
      var timeline: HTMLReportTimeline
      var causes: [TraceRecord] = []
      switch timelineSource(path) {
      case .lanes(let engine):
        timeline = try engineTimeline(engine, recording: path, name: c.name, golden: golden.map(HTMLReportTrace.file), new: nil, at: at)
      case .spec:
        let built = try self.timeline(
          recording: path, name: c.name, golden: golden.map(HTMLReportTrace.file), new: nil, at: at,
          cues: ds.flatMap { DivergenceWhy($0.divergence).cues })
        timeline = built.timeline
        causes = built.causes
      }
      timeline.pending = Self.pendingHashes(c.name, store: store)
      timeline.pack()
      return .success((timeline, causes))
    } catch {
      return .failure(error)
    }
  }

  /// The document of a `diff`: `golden` and `replay` are its two sides (a trace file's text,
  /// or a replay's records; unused for A.13); when the replay side is a recording
  /// (`replayRecording`), it is replayed again with metric tracing for the series and the causes.
  package func document(
    diff result: DiffResult, golden: HTMLReportTrace, replay: HTMLReportTrace, isA13: Bool, name: String, replayRecording: String?,
    title: String
  ) -> HTMLReportDocument {
    var doc = HTMLReportDocument(kind: "diff", title: title)
    doc.counts = [(result.isMatch ? "equivalent" : "divergent hunks", result.isMatch ? 1 : result.hunkCount)]
    var timeline = HTMLReportTimeline(name: name, durationMs: 0)
    var causes: [TraceRecord] = []
    if let path = replayRecording, case .lanes(let engine) = timelineSource(path) {
      do {
        timeline = try engineTimeline(
          engine, recording: path, name: name, golden: isA13 ? nil : golden, new: isA13 ? nil : replay,
          at: result.divergences.map(\.t))
      } catch {
        doc.withoutTimeline.append((name, error.message))
      }
    } else if let path = replayRecording {
      do {
        let built = try self.timeline(
          recording: path, name: name, golden: isA13 ? nil : golden, new: isA13 ? nil : replay,
          at: result.divergences.map(\.t), cues: result.divergences.flatMap { DivergenceWhy($0).cues })
        timeline = built.timeline
        causes = built.causes
      } catch {
        doc.withoutTimeline.append((name, error.message))
      }
    } else if !isA13 {
      timeline.golden = Self.lanes(of: golden.records)
      timeline.new = Self.lanes(of: replay.records)
      let last = (timeline.golden.displays.map(\.t) + timeline.new.displays.map(\.t) + result.divergences.map(\.t)).max()
      timeline.durationMs = (last ?? 0) + 1_000
    }
    for d in result.divergences {
      addRow(&doc, recording: name, file: isA13 ? "a13" : "trace", d, timeline: timeline, causes: causes)
    }
    if doc.withoutTimeline.isEmpty {
      timeline.pack()
      doc.timelines.append(timeline)
    }
    doc.rowsOmitted += max(0, result.hunkCount - result.divergences.count)
    return doc
  }

  func addRow(
    _ doc: inout HTMLReportDocument, recording: String, file: String, _ d: Divergence, timeline: HTMLReportTimeline?,
    causes: [TraceRecord]
  ) {
    guard doc.rows.count < HTMLReportLimits.rowsMax else {
      doc.rowsOmitted += 1
      return
    }
    let lanes = timeline?.new
    let kind = HTMLReportRow.kind(
      of: d, newDisplayEnd: { lanes?.displayEnd(startingAt: $0) }, minHoldMs: minHoldMs)
    var delta: Millis?
    if case .moved(let ms) = d.kind { delta = ms }
    let near = causes.filter { abs($0.t - d.t) <= Self.causeWindowMs }
    let why = DivergenceWhy(d).cues
    let cause = why.isEmpty || file != "trace" ? [] : CueEvalTable.render(near, cues: why)
    doc.rows.append(
      HTMLReportRow(
        recording: recording, file: file, t: d.t, cue: d.cueIDs.first ?? "", kind: kind,
        detail: DivergenceGroup.signature(d).2, deltaMs: delta, explanation: d.explanation,
        cause: Array(cause.prefix(HTMLReportLimits.causeLinesMax))))
  }

  /// The SHA-256 of each pending `.new` of `name` now on disk (what a decision accepts).
  static func pendingHashes(_ name: String, store: GoldenStore) -> [(kind: String, sha256: String)] {
    GoldenKind.allCases.compactMap { k in
      guard let data = FileManager.default.contents(atPath: store.pendingURL(name, k).path) else { return nil }
      return (k.rawValue, SHA256.hex([UInt8](data)))
    }
  }

  /// The lanes of a trace file (a golden, a `.new`, a file given to `diff`), read by the one
  /// reader; a text that does not parse has no lanes (the golden was already diffed, and a
  /// report shows what it can).
  package static func lanes(ofTrace text: String) -> HTMLReportLanes {
    lanes(of: HTMLReportTrace.file(text).records)
  }

  /// The lanes of a trace's records.
  package static func lanes(of records: [TraceRecord]) -> HTMLReportLanes {
    var lanes = HTMLReportLanes()
    for r in records { lanes.add(t: r.t, kind: r.out, fields: r.fields) }
    return lanes
  }

  /// Replays `recording` once with metric tracing: the new lanes (unless `new` gives
  /// them), the focus cues' series, the gate's counters, the landmarks, and the `cue_eval`
  /// records within ``causeWindowMs`` of the times in `at`. Each replay streams the file
  /// (``HTMLReportEventSource``) and the series are kept in page form
  /// (``HTMLReportColumns``): a long recording is never held (issue 38 item 5).
  func timeline(
    recording path: String, name: String, golden goldenTrace: HTMLReportTrace?, new newTrace: HTMLReportTrace?, at times: [Millis],
    cues: [String]
  ) throws(HarnessFailure) -> (timeline: HTMLReportTimeline, causes: [TraceRecord])
  {
    var timeline = HTMLReportTimeline(name: name, durationMs: 0)
    if let goldenTrace { timeline.golden = Self.lanes(of: goldenTrace.records) }
    // The focus cues are known before the replay (the divergences' cues, then the golden's
    // displayed ones), so one replay per side keeps their series alone.
    let focus = Self.focusCues(cues, golden: timeline.golden, known: Set(spec.cues.map(\.id)))
    let windows = times.map { ($0 - Self.causeWindowMs)...($0 + Self.causeWindowMs) }
    // The new side's replay also keeps the landmark frames as they pass.
    let (output, source) = try Self.replay(path, spec: spec, overrides: overrides, focus: focus, windows: windows, keepLandmarks: true)
    timeline.durationMs = source.durationMs
    timeline.new = newTrace.map { Self.lanes(of: $0.records) } ?? output.lanes
    var series = output.series
    if var landmarks = source.landmarks { series.takeLandmarks(from: &landmarks) }
    // The golden side under the golden's spec (no overrides: a golden is blessed without).
    let golden = goldenSpec(name)
    timeline.goldenNote = golden.note
    if let g = golden.spec {
      if g.sha256 == spec.sha256 && overrides.isEmpty {
        timeline.goldenColumns = output.series
      } else {
        timeline.goldenColumns = try Self.replay(path, spec: g, overrides: [], focus: focus, windows: [], keepLandmarks: false).output.series
      }
    }
    timeline.columns = series
    return (timeline, output.causes)
  }

  /// Another engine's timeline: its page lanes (``TraceTimeline/pageLanes``) of the golden's
  /// trace (none when there is no golden) and of the new trace (`new`, else one replay of
  /// the recording by `plugin`), on an axis to the last line or divergence of either.
  func engineTimeline(
    _ plugin: EnginePlugin, recording path: String, name: String, golden goldenTrace: HTMLReportTrace?, new newTrace: HTMLReportTrace?,
    at times: [Millis]
  ) throws(HarnessFailure) -> HTMLReportTimeline {
    // The golden side (and a new trace given as a file) through the one reader; a replay here
    // hands its records.
    let new: [StructuredLine]
    if let newTrace {
      new = newTrace.lines
    } else {
      do { new = StructuredLine.lines(of: try plugin.products(URL(fileURLWithPath: path)).records) } catch {
        throw HarnessFailure(code: error.exitCode.rawValue, message: error.description)
      }
    }
    let lanes = plugin.timeline.pageLanes
    let golden = goldenTrace?.lines ?? []
    var timeline = HTMLReportTimeline(name: name, durationMs: 0)
    timeline.engine = plugin.name
    timeline.laneNames = lanes.map(\.lane)
    timeline.golden = HTMLReportLanes.marks(of: golden, lanes: lanes)
    timeline.new = HTMLReportLanes.marks(of: new, lanes: lanes)
    let last = (golden.map(\.t) + new.map(\.t) + times).max() ?? 0
    timeline.durationMs = last + max(500, last / 50)
    timeline.goldenNote =
      goldenTrace == nil
      ? "golden side: no golden trace; the \(plugin.name) lanes show the new run only"
      : "\(plugin.name) recording: its lanes, golden above new (a mark per trace line; hover for the line)"
    return timeline
  }

  /// One replay of the recording at `path`, streamed, under `spec` with metric tracing,
  /// keeping the `focus` cues' series (and the landmark frames: `keepLandmarks`). A recording
  /// the source stops fails with the source's reason (``HTMLReportEventSource/failure``).
  static func replay(
    _ path: String, spec: PoseSpecDocument, overrides: [(name: String, value: String)], focus: [String],
    windows: [ClosedRange<Millis>], keepLandmarks: Bool
  ) throws(HarnessFailure) -> (output: HTMLReportOutput, source: HTMLReportEventSource) {
    var source = try HTMLReportEventSource(path: path, keepLandmarks: keepLandmarks)
    let output: HTMLReportOutput
    do throws(HarnessFailure) {
      output = try replay(
        &source, path: path, spec: spec, overrides: overrides, focus: focus, windows: windows, reserve: source.declaredEvents ?? 0)
    } catch {
      throw source.failure ?? error
    }
    if let failure = source.failure { throw failure }
    return (output, source)
  }

  /// One replay of `source` (the recording at `path`) under `spec` with metric tracing,
  /// keeping the `focus` cues' series (room for `reserve` evaluations).
  static func replay<S: EventSource>(
    _ source: inout S, path: String, spec: PoseSpecDocument, overrides: [(name: String, value: String)], focus: [String],
    windows: [ClosedRange<Millis>], reserve: Int = 0
  ) throws(HarnessFailure) -> HTMLReportOutput {
    let config: EngineConfiguration
    do {
      config = try EngineConfiguration(spec: spec, header: RecordingHeader(source.header), overrides: overrides, traceMetrics: true)
    } catch { throw .badInput("\(path): \(error.description)") }
    var output = HTMLReportOutput(windows: windows, focus: focus)
    output.series.reserve(evaluations: reserve, frames: 0)
    var replayer = Replayer(engine: Engine(configuration: config), options: ReplayOptions(), sessionStore: MemorySessionStore())
    do { _ = try replayer.run(&source, into: &output, recording: path) } catch {
      throw HarnessFailure(code: error.exitCode.rawValue, message: error.description)
    }
    return output
  }

  /// The divergences' cues, then the cues the golden displays (first shown first), those of
  /// the spec only, at most `focusCuesMax`.
  static func focusCues(_ cues: [String], golden: HTMLReportLanes, known: Set<String>) -> [String] {
    var out: [String] = []
    for c in cues + golden.displays.compactMap(\.cue) where known.contains(c) && !out.contains(c) {
      if out.count < HTMLReportLimits.focusCuesMax { out.append(c) }
    }
    return out
  }
}

/// One side of a report's timeline: a trace file's text (a golden, a `.new`, a file given to
/// `diff`), read by the one reader when drawn, or a replay's records in memory.
package enum HTMLReportTrace: Sendable {
  /// A trace file's text.
  case file(String)
  /// A replay's records (``ReplayProducts/records``).
  case records([TraceRecord])

  /// The records (a file that does not parse has none: it was already diffed, and a report
  /// shows what it can).
  package var records: [TraceRecord] {
    switch self {
    case .file(let text): (try? GoldenTrace.records(text)) ?? []
    case .records(let r): r
    }
  }

  /// The lines, each with its text (for the marks' hover).
  var lines: [StructuredLine] {
    switch self {
    case .file(let text): (try? StructuredLine.parseTrace(text)) ?? []
    case .records(let r): StructuredLine.lines(of: r)
    }
  }
}

/// How the HTML report draws a recording's timeline (``HTMLReportBuilder/timelineSource``).
package enum HTMLReportTimelineSource: Sendable {
  /// Replayed under the builder's PoseSpec with metric tracing: displays, metric and gate.
  case spec
  /// The engine's vocabulary's ``TraceTimeline/pageLanes``: golden marks above a replay's.
  case lanes(EnginePlugin)
}
