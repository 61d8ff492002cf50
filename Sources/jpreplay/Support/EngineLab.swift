import EngineIO
import Foundation
import JustPhotoIO
import JustPhotoPlugin
import Lab
import MCAP
import Recording
import Replay

/// What the lab's commands make of one engine's recordings beyond replaying them (issue 36
/// item 1, one route per command): a command routes every recording through
/// ``EngineRegistry/route(_:plugins:)`` and asks the routed engine's lab
/// (``EngineRegistry/lab(of:)``). Lab sits above the plug-ins, so an engine's own lab tools
/// cannot be on its registration; they are here, one entry per engine that has its own (Just
/// Photo's, built on its PoseSpec: ``justPhoto``). Every other engine gets what its vocabulary
/// declares (``vocabulary``).
struct EngineLab: Sendable {
  /// The engine's `coverage` section over its recordings `files` (`spec`: `coverage --spec`).
  var coverage: @Sendable (_ plugin: EnginePlugin, _ files: [URL], _ spec: String?) throws -> CoverageSection
  /// Whether `bisect commits` prints a cue metric table (`replay --trace metrics --cue`) for a
  /// divergence of the engine's recording and can minimize a repro of it between two builds
  /// (`minimize --against`).
  var cueMetrics: Bool
  /// How the HTML report and `plot` draw the timeline of the engine's (configured) plug-in's
  /// recording: under the PoseSpec from its cue evaluations, or its vocabulary's lanes.
  var timeline: @Sendable (_ plugin: EnginePlugin) -> HTMLReportTimelineSource
  /// How `export` replays the engine's (routed) plug-in's recording into an MCAP file.
  var export: @Sendable (_ plugin: EnginePlugin) -> ExportRoute

  /// An engine's lab read through its vocabulary: `SeamCoverage` (its kinds, trace lines and
  /// declared values); no cue metric tables; the HTML report's lanes of its `TraceTimeline`.
  static let vocabulary = EngineLab(
    coverage: { plugin, files, _ in
      let report = try SeamCoverage.run(plugin: plugin, recordings: files)
      return CoverageSection(
        summary: [report.summary] + report.missing.map { "  missing: \($0)" }, markdown: report.markdown,
        missing: report.missing.count, countsKindsAndValues: true)
    }, cueMetrics: false, timeline: { .lanes($0) },
    export: { plugin in
      ExportRoute(
        checkCues: { cues, path in _ = try EngineRegistry.configured(plugin, EngineOptionValues(cues: cues.sorted()), path: path) },
        prepare: { _, _, _ in
          { url, export in
            var trace: any LineSink = ExportLineSink(export: export, a13: false)
            var a13: any LineSink = ExportLineSink(export: export, a13: true)
            _ = try plugin.replay(url, PluginSettings(), &trace, &a13)
          }
        },
        // A plug-in's own channel name, such as Camera Coach's `camera`, is stored in `ui`, as
        // the recorder does.
        kinds: plugin.kinds.map { ($0.name, (Channel(rawValue: $0.name == "label" ? "label" : $0.channel) ?? .ui).rawValue) })
    })

  /// Just Photo's lab: the cue and ENGINE §7 coverage report (`Coverage`), cue metric tables,
  /// the HTML report's displays, metric and gate drawn under the report's PoseSpec.
  static let justPhoto = EngineLab(
    coverage: { _, files, spec in
      let report = try Coverage.run(recordings: files, specPath: spec)
      let cues = report.cues
      let ruled = cues.filter(\.hasNoRef).count + cues.filter(\.hasWithRef).count
      let hit = cues.filter { $0.hasNoRef && !$0.noRef.isEmpty }.count + cues.filter { $0.hasWithRef && !$0.withRef.isEmpty }.count
      let scen = report.scenarios.filter { !$0.recordings.isEmpty }.count
      var summary = [
        "coverage: \(files.count) recordings; ENGINE §7 scenarios \(scen)/\(report.scenarios.count); cue rules exercised \(hit)/\(ruled) (noRef + withRef); cues shown \(cues.filter { !$0.shown.isEmpty }.count)/\(cues.count)"
      ]
      summary += report.missing.map { "  missing: \($0)" }
      // Name the cues no recording shows (the count alone does not say which).
      let unshown = cues.filter { $0.shown.isEmpty }.map(\.id)
      if !unshown.isEmpty { summary.append("  not shown by any recording: " + ConsoleText.safe(unshown.joined(separator: ", "))) }
      return CoverageSection(summary: summary, markdown: report.markdown, missing: report.missing.count, countsKindsAndValues: false)
    }, cueMetrics: true, timeline: { _ in .spec },
    export: { _ in
      ExportRoute(
        checkCues: { _, _ in },
        prepare: { engine, cues, metrics in
          let driver = try Harness.driver(specPath: engine.spec, overrides: engine.parsedOverrides(), traceMetrics: metrics)
          if !cues.isEmpty { try JPReplay.Export.checkCues(cues, spec: engine.spec) }
          return { url, export in
            var out = ExportOutput(export: export, cues: cues)
            _ = try driver.replay(url, into: &out)
          }
        },
        kinds: EventKind.allCases.map { ($0.rawValue, $0.eventChannel.rawValue) })
    })
}

/// One engine's part of `jpreplay coverage`.
struct CoverageSection {
  /// The lines printed without `--markdown`.
  var summary: [String]
  /// The table `--markdown` prints.
  var markdown: String
  /// How many things are not exercised (`--strict`).
  var missing: Int
  /// Whether `missing` counts event kinds and values (an engine's vocabulary), not only cue
  /// rules and scenarios: what `--strict`'s message names.
  var countsKindsAndValues: Bool
}

/// How `export` replays one engine's recording (``EngineLab/export``).
struct ExportRoute {
  /// Exit 2 for `--cue` given for a recording of an engine that has no cues; checked before
  /// the recording is read (`path`: the recording).
  var checkCues: (_ cues: Set<String>, _ path: String) throws -> Void
  /// The replay into an export, made before the MCAP file is (Just Photo's: its PoseSpec
  /// loaded, `--cue` checked against it); `metrics`: with per-evaluation metric channels.
  var prepare: (_ engine: EngineArguments, _ cues: Set<String>, _ metrics: Bool) throws -> (_ url: URL, _ export: MCAPExport) throws -> Void
  /// Every event kind of the engine with the `.jprec` channel that stores it.
  var kinds: [(name: String, channel: String)]
}
