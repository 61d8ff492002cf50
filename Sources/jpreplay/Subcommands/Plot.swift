import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab
import Recording
import Replay

extension JPReplay {
  struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "plot",
      abstract: "Draw a recording's timeline as SVG: metrics against thresholds, labels, displays, praise, prompts (PixScan: index, queue, counts).",
      discussion: """
        Replays the recording with per-evaluation tracing and writes one SVG (any browser \
        opens it): a lane of the displayed cue, a lane of praise (▲) and prompt (◆) markers, \
        a lane of the gate's reason for keeping its output (hold: the shown cue's minimum \
        hold, frames: the new input not yet stable for persistFrames, cooldown: the input \
        cue shown too recently; ENGINE §3.9), a lane of the ranking (the top three \
        candidates, best on top; §3.7), and per cue, under its full name, a panel with its metric value (the error its thresholds judge) against \
        the hard / warn / enter / exit thresholds of the mode in use, the intervals its \
        ground-truth label holds (shaded) and the spans it was displayed (bar on top). Hover \
        a mark for its times. Without --cue the cues labelled or displayed in the range are \
        drawn (at most 12). Times are ms from the start of the recording.

        A recording of another engine (its header's `engine`) is drawn from what that \
        engine's vocabulary declares, read from its replay's trace lines: for PixScan a lane \
        each of swipes, undos, launches and kills, messages and ignored inputs, and panels of \
        the current photo's index, the delete queue's length and the progress counts \
        (processed, kept, deleted, pending = total − processed, ocr), each a step line with a \
        tooltip per value (docs/PIXSCAN.md). --cue, --spec and --set are Just Photo's.

        Output: -o FILE (default <name>.timeline.svg in the current folder; - for standard \
        output). Several recordings need -o FOLDER (created), one <name>.timeline.svg each; \
        so does one recording with -o naming an existing folder or ending in "/".

        Examples:
          jpreplay plot Recordings/drift-left-and-back.jprec -o /tmp/drift.svg
          jpreplay plot Recordings/drift-left-and-back.jprec --cue FRAME_MOVE_LEFT --from 1000 --to 6000 -o /tmp/left.svg
          jpreplay plot Recordings/drift-left-and-back.jprec Recordings/cafe-shoot-2min.jprec -o /tmp/plots
          jpreplay plot Recordings/drift-left-and-back.jprec -o - | head -3
          jpreplay plot Recordings/gate-probe-hold-vs-frames.jprec -o /tmp/gate.svg    # frames at 0–200, hold from 800
          jpreplay plot Recordings/pixscan/undo-edges.jprec -o /tmp/undo.svg
          jpreplay plot Recordings/pixscan/long-session-5000.jprec --from 0 --to 60000 -o /tmp/long.svg

        Exit codes: 0 written; 2 bad input (unreadable recording or spec, unknown cue, --cue with \
        another engine's recording, empty range).
        """)

    @Argument(help: "Recordings (.jprec, .jsonl, .jsonl.zst).")
    var recordings: [String]

    @OptionGroup var engine: EngineArguments

    @Option(name: .long, help: ArgumentHelp("A cue to draw (repeatable, or comma-separated).", valueName: "CUE_ID"))
    var cue: [String] = []

    @Option(help: "Start of the range, ms.")
    var from: Int64?

    @Option(help: "End of the range, ms (default: the end of the recording).")
    var to: Int64?

    @Option(name: .shortAndLong, help: "Output file, folder (several recordings) or - (standard output).")
    var output: String?

    func validate() throws {
      if recordings.isEmpty { throw ValidationError("name a recording") }
      if let from, let to, from >= to { throw ValidationError("--from \(from) must be before --to \(to)") }
    }

    func run() throws {
      let cues = cue.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
      let paths = try CorpusScorer.recordingPaths(recordings)
      // Each recording is drawn as its routed engine's lab says (EngineLab.timeline): from its
      // cue evaluations under the PoseSpec (Just Photo's), or from its vocabulary's timeline
      // (series and marks read from the trace), replayed by its plug-in.
      var plugins: [String: EnginePlugin] = [:]
      for p in paths {
        let routed = try EngineRegistry.route(p)
        guard case .lanes(let drawn) = EngineRegistry.lab(of: routed).timeline(routed) else { continue }
        guard !drawn.timeline.isEmpty else {
          throw CLIError.badInput("\(p): header: \"engine\": a \(drawn.name) recording; its engine declares nothing for `jpreplay plot` to draw")
        }
        _ = try EngineRegistry.configured(drawn, EngineOptionValues(cues: cues), path: p)
        plugins[p] = drawn
      }
      let overrides = try engine.parsedOverrides()
      // --spec and --set apply to the recordings drawn under the PoseSpec; with none, they would be ignored.
      if let first = paths.first, let drawn = plugins[first], plugins.count == paths.count {
        _ = try EngineRegistry.configured(drawn, EngineOptionValues(spec: engine.spec, overrides: overrides), path: first)
      }
      // The PoseSpec only when a recording is drawn under it.
      let spec = try plugins.count < paths.count ? Harness.loadSpec(path: engine.spec ?? Harness.defaultSpecPath) : nil
      // A folder when several recordings are drawn, or when -o names an existing folder or ends
      // in "/" (one <name>.timeline.svg inside, as for several).
      let many = paths.count > 1 || output.map(Self.namesFolder) == true
      if many && (output == nil || output == "-") { throw CLIError.badInput("several recordings need -o FOLDER") }
      let scorer = try CorpusScorer(paths: paths)
      if many, let output {
        do { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) } catch {
          throw CLIError.badInput("\(output): cannot create the folder (\(SystemReason.of(error)))")
        }
      }
      for rec in scorer.recordings {
        let svg: String
        let summary: String
        if let drawn = plugins[rec.path] {
          let records: [TraceRecord]
          do {
            records = try drawn.records(
              rec.header, rec.events, TraceSelection(window: 0...rec.durationMs, kinds: Set(drawn.timeline.kinds)), PluginSettings(),
              rec.path)
          } catch { throw CLIError(code: error.exitCode.rawValue, message: error.description) }
          let data = try SeriesTimelineData.collect(
            name: rec.name, engine: drawn.name, records: records, timeline: drawn.timeline, durationMs: rec.durationMs, from: from,
            to: to)
          svg = SVGSeriesTimeline.render(data)
          summary = "\(data.panels.count) panel(s), \(data.lanes.count) lane(s), t \(data.from)…\(data.to) ms"
        } else {
          let data = try TimelineData.collect(rec, spec: spec!, overrides: overrides, cues: cues, from: from, to: to)
          svg = SVGTimeline.render(data)
          summary = "\(data.cues.count) cue panel(s), t \(data.from)…\(data.to) ms"
        }
        let file = "\(rec.name).timeline.svg"
        let target: String
        if many {
          target = URL(fileURLWithPath: output!).joined(file).path
        } else if output == "-" {
          try StandardOutput.write(Array(svg.utf8))  // SVG: its text went through XMLText
          continue
        } else {
          target = output ?? file
        }
        do { try SafeFile.write(svg, to: target) } catch {
          throw CLIError.badInput("\(target): cannot write (\(error.message))")
        }
        print("\(ConsoleText.line(target)): \(summary)")
      }
    }

    /// Whether `-o PATH` means a folder: it ends in "/" or is an existing directory.
    static func namesFolder(_ path: String) -> Bool {
      if path.hasSuffix("/") { return true }
      var isDirectory: ObjCBool = false
      return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
  }
}
