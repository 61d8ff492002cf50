import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab
import Replay
import Verify

extension JPReplay {
  struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "diff",
      abstract: "Structural diff of two traces (or recordings): first divergence and why.",
      discussion: """
        Each side is a trace file (.trace.jsonl, or any trace JSONL), an A.13 file \
        (.a13.jsonl), or a recording (.jprec / .jsonl recording), which is replayed first. \
        Events are aligned, optionally within a timing tolerance; the first divergence is \
        reported with context. A divergence is missing, extra, changed (same kind and time, \
        other fields) or moved (the same record at another time); a record found again more \
        than 10 frames away (667 ms, TraceDiffer.movedFramesMax) is a different behaviour and \
        is reported as changed (its time), not moved. When the second side is a recording, the \
        divergence is explained with the engine's metric trace (cue values against thresholds) \
        around it — for every kind: a clear (cue_id null) is explained with the cue it \
        cleared, a level change with its cue, and a record about no cue (shutter, praise, \
        prompt) with the cue on screen at that time. When the first side is a golden \
        committed in git, the PoseSpec edits since the commit that last changed it are \
        listed: those of every divergent cue (and those outside the cues), behavioural edits \
        first, prose (meaning, notes, qa, … no output reads them) folded into one line.

        Exits 0 when equivalent, 1 when they differ, 2 on bad input.

        Examples:
          jpreplay diff Golden/drift-left-and-back.trace.jsonl Recordings/drift-left-and-back.jprec
          jpreplay diff Golden/feet-cropped.trace.jsonl Recordings/feet-cropped.jprec --set bboxRequiresAllListed=true    # exit 1
          jpreplay replay Recordings/step-too-close.jprec -o /tmp/step.trace.jsonl
          jpreplay diff Golden/step-too-close.trace.jsonl /tmp/step.trace.jsonl --time-tolerance 67
        """)

    @Argument(help: "The reference side (golden).")
    var a: String
    @Argument(help: "The other side (replay).")
    var b: String

    @OptionGroup var engine: EngineArguments

    @Option(name: .customLong("time-tolerance"), help: "Treat events shifted by up to N ms as equal.")
    var timeToleranceMs: Int64 = 0

    @Option(name: .customLong("tolerance"), help: ArgumentHelp("Numeric tolerance for a field, e.g. severity=0.01. Repeatable.", valueName: "field=eps"))
    var tolerances: [String] = []

    @Option(help: ArgumentHelp("Also write the diff as one self-contained HTML page (rows, timeline of golden and new).", valueName: "FILE"))
    var html: String?

    @Option(help: "Lines of context.")
    var context = 3

    func validate() throws {
      guard (0...CLILimits.contextLinesMax).contains(context) else {
        throw ValidationError("--context: expected 0…\(CLILimits.contextLinesMax) lines (CLILimits.contextLinesMax), found \(context)")
      }
    }

    func run() throws {
      // Just Photo's reading: other engines' lines name none of its cue kinds or fields.
      var options = DiffOptions(reading: JustPhotoVocabulary.traceReading)
      options.timingToleranceMs = timeToleranceMs
      options.contextLines = context
      for t in tolerances {
        let parts = t.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let eps = Double(parts[1]), eps >= 0 else {
          throw CLIError.badInput("--tolerance '\(t)': expected field=eps with eps ≥ 0, e.g. severity=0.01")
        }
        options.numericTolerance[String(parts[0])] = eps
      }
      let overrides = try engine.parsedOverrides()
      // Each recording side replays with its engine's plug-in configured with --spec/--set;
      // an engine that takes none replays as it is, unless no side's engine takes them (they
      // would be ignored: exit 2).
      let engineOptions = EngineOptionValues(spec: engine.spec, overrides: overrides)
      var sides: [String: (plugin: EnginePlugin, configured: Result<EnginePlugin, EngineOptionError>)] = [:]
      var refused: (error: EngineOptionError, plugin: EnginePlugin, path: String)? = nil
      var accepted = false
      for p in [a, b] where Harness.isRecording(p) {
        let plugin = try EngineRegistry.route(p)
        let configured = Result { () throws(EngineOptionError) -> EnginePlugin in try plugin.configured(engineOptions) }
        if case .failure(let e) = configured, case .notAccepted = e {
          refused = refused ?? (e, plugin, p)
          sides[p] = (plugin, .success(plugin))
        } else {
          accepted = true
          sides[p] = (plugin, configured)
        }
      }
      if let refused, !accepted { throw EngineRegistry.refusal(refused.error, plugin: refused.plugin, path: refused.path) }
      let left = try Self.traceText(of: a, plugin: sides[a])
      let right = try Self.traceText(of: b, plugin: sides[b])
      let differ = TraceDiffer(options: options)
      let result: DiffResult
      do {
        if left.isA13 || right.isA13 {
          result = try differ.diffA13(golden: left.text, replay: right.text)
        } else {
          // A replayed side hands its records; a trace file is read by the one reader.
          result = differ.diff(golden: try Self.lines(left, file: "golden"), replay: try Self.lines(right, file: "replay"))
        }
      } catch { throw CLIError.badInput(error.description) }
      print(result.render(), terminator: "")
      if let html {
        try HTMLReportFile.writeDiff(result, golden: left, replay: right, sides: (a, b), engine: engine, to: html)
      }
      if let d = result.divergence {
        for (label, side) in [("golden side", a), ("replay side", b)] where Harness.isRecording(side) {
          let why = DivergenceWhy(d)
          print("\n" + why.heading(label + " " + side))
          guard !why.cues.isEmpty else { continue }
          let lines = try Harness.explain(
            recording: side, at: d.t, cues: why.cues, specPath: engine.spec, overrides: overrides)
          for l in lines { print("  " + l) }
        }
        if !Harness.isRecording(a), Harness.isRecording(b) {
          // Every divergent cue, not the first divergence's alone: an edit to a cue that
          // stopped showing can be the cause of a divergence that names another.
          var cues: [String] = []
          for x in result.divergences {
            for c in x.cueIDs + DivergenceWhy(x).cues where !cues.contains(c) { cues.append(c) }
          }
          for l in SpecHistory.editsInPlay(golden: a, currentSpec: engine.spec ?? Harness.defaultSpecPath, cues: cues) {
            print(l)
          }
        }
        throw ExitCode(1)
      }
    }

    /// A side's trace lines: a replay's records in memory, a trace file through the one reader.
    static func lines(_ side: (text: String, isA13: Bool, records: [TraceRecord]?), file: String) throws(BadInputError)
      -> [StructuredLine]
    {
      if let records = side.records { return StructuredLine.lines(of: records) }
      return try StructuredLine.parseTrace(side.text, file: file)
    }

    /// A side's trace: a recording replayed by its engine's plug-in (`plugin`, configured, or
    /// why it could not be), a trace or A.13 file as it is.
    static func traceText(
      of path: String, plugin side: (plugin: EnginePlugin, configured: Result<EnginePlugin, EngineOptionError>)?
    ) throws -> (text: String, isA13: Bool, records: [TraceRecord]?) {
      guard let side else { return try Harness.traceText(of: path, specPath: nil, overrides: []) }
      let configured: EnginePlugin
      do { configured = try side.configured.get() } catch { throw EngineRegistry.refusal(error, plugin: side.plugin, path: path) }
      do {
        let p = try configured.products(URL(fileURLWithPath: path))
        return (p.trace, false, p.records)
      } catch {
        throw CLIError(code: error.exitCode.rawValue, message: error.description)
      }
    }
  }
}
