import ArgumentParser
import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import JustPhotoIO
import JustPhotoPlugin
import Lab
import MCAP
import Recording
import Replay

extension JPReplay {
  struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "export",
      abstract: "Export a recording and its replay as an MCAP file (Foxglove, Rerun, the mcap CLI read it).",
      discussion: """
        Writes one MCAP file (https://mcap.dev/spec; zstd chunks, message and chunk indexes, \
        statistics, summary, CRC-32s) holding, on one time axis (log time = the recording's \
        virtual time, ms as ns): each recording channel's events (/input/landmarks, \
        /input/ui, …, as their JSONL lines), the landmarks again as foxglove.ImageAnnotations \
        on the frame's image (/foxglove/landmarks), the replay's trace, one channel per output \
        kind (/trace/cue_display, /trace/prompt, …; PixScan's and Camera Coach's kinds for \
        their recordings), its A.13 lines (/a13) and, for Just Photo, each cue's metric \
        against its thresholds (/metrics/CUE: value, hard, warn, enter, exit as numbers a plot \
        panel draws). Messages are JSON with a JSON Schema per channel; docs/INTEROP.md lists \
        the channels.

        --golden adds the golden's trace and A.13 lines (GOLDEN_DIR/<name>.trace.jsonl and \
        .a13.jsonl) on /golden/trace/KIND and /golden/a13. --from/--to keep the messages in \
        that range of virtual time (the replay still runs from the start). --cue keeps only \
        those cues' metric channels (Just Photo); --no-metrics leaves the metric channels out \
        (a replay without per-evaluation tracing: about 2.6 times faster on a 60-minute session, docs/INTEROP.md). Several recordings (or a folder of them) \
        need OUT to be a folder (created): one <name>.mcap each; so does one recording with \
        OUT naming an existing folder or ending in "/".

        Output: OUT is written beside itself under a temporary name and renamed into place \
        when complete: a damaged recording (exit 2, naming the file and place) never leaves a \
        partial OUT, and an existing OUT is left as it was. OUT follows the outputs' rule \
        (`jpreplay --help`): a regular file or a missing path is replaced, a FIFO or device \
        is written through, a directory or a symbolic link is refused.

        Examples:
          jpreplay export --mcap /tmp/drift.mcap Recordings/drift-left-and-back.jprec
          jpreplay export --mcap /tmp/drift-golden.mcap Recordings/drift-left-and-back.jprec --golden --cue FRAME_MOVE_LEFT --from 1000 --to 6000
          jpreplay export --mcap /tmp/undo.mcap Recordings/pixscan/undo-edges.jprec --golden --golden-dir Golden/pixscan
          jpreplay export --mcap /tmp/cc-mcap/ Recordings/cameracoach/consent.jprec Recordings/cameracoach/one-shot.jprec

        Exit codes: 0 written; 2 bad input or output (unreadable or damaged recording, a \
        missing golden, --cue with another engine's recording, an empty range, OUT not writable).
        """)

    @Option(name: .customLong("mcap"), help: ArgumentHelp("The MCAP file to write.", valueName: "OUT"))
    var mcap: String

    @Argument(help: "Recordings (.jprec, .jsonl, .jsonl.zst) or folders of them.")
    var recordings: [String]

    @OptionGroup var engine: EngineArguments

    @Flag(help: "Add the golden's trace and A.13 lines on /golden/… channels.")
    var golden = false

    @Option(name: .customLong("golden-dir"), help: ArgumentHelp("Where --golden looks for <name>.trace.jsonl.", valueName: "DIR"))
    var goldenDir = "Golden"

    @Option(help: "Keep messages from this virtual time, ms.")
    var from: Int64?

    @Option(help: "Keep messages up to this virtual time, ms.")
    var to: Int64?

    @Option(name: .long, help: ArgumentHelp("Keep only this cue's metric channel (repeatable, or comma-separated).", valueName: "CUE_ID"))
    var cue: [String] = []

    @Flag(name: .customLong("no-metrics"), help: "Leave out the /metrics channels (Just Photo: a replay without per-evaluation tracing, about 2.6 times faster on long sessions).")
    var noMetrics = false

    func validate() throws {
      if noMetrics && !cue.isEmpty { throw ValidationError("--cue narrows the /metrics channels: leave out --no-metrics") }
      if let from, let to, from > to { throw ValidationError("--from \(from) must not be after --to \(to)") }
      if let from, from < 0 { throw ValidationError("--from \(from): times are ms from the start, 0 or more") }
    }

    func run() throws {
      let cues = Set(cue.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } })
      let paths = try CorpusScorer.recordingPaths(recordings)
      // A folder for several recordings, or when OUT is an existing folder or ends in "/":
      // one <name>.mcap each.
      let many = paths.count > 1 || recordings.count > 1 || Plot.namesFolder(mcap)
      if many {
        do { try FileManager.default.createDirectory(atPath: mcap, withIntermediateDirectories: true) } catch {
          throw CLIError.badInput("\(mcap): cannot create the folder (\(SystemReason.of(error)))")
        }
      }
      // --spec and --set apply to the recordings exported with their cue metrics (EngineLab:
      // under the PoseSpec); with none, they would be ignored.
      if let first = paths.first {
        let routed = try EngineRegistry.route(first)
        if !EngineRegistry.lab(of: routed).cueMetrics,
          try paths.allSatisfy({ p throws(CLIError) in !EngineRegistry.lab(of: try EngineRegistry.route(p)).cueMetrics })
        {
          _ = try EngineRegistry.configured(routed, EngineOptionValues(spec: engine.spec, overrides: try engine.parsedOverrides()), path: first)
        }
      }
      for path in paths {
        let out = many ? Paths.join(mcap, "\(CorpusScorer.recordingName(path)).mcap") : mcap
        try export(path, to: out, cues: cues, listTopics: !many)
      }
    }

    /// Exports `recording` to `mcap`; prints its message and channel counts (and, with
    /// `listTopics`, each channel's).
    func export(_ recording: String, to mcap: String, cues: Set<String>, listTopics: Bool) throws {
      // How the routed engine's recording is replayed into the export (EngineLab.export).
      let routed = try EngineRegistry.route(recording)
      let route = EngineRegistry.lab(of: routed).export(routed)
      try route.checkCues(cues, recording)
      let events: any RecordingEventReader
      do { events = try RecordingFiles.open(recording, definitions: routed.definitions) } catch { throw CLIError.badInput(error.description) }
      var options = MCAPExport.Options(engine: routed.name)
      options.cues = cues
      options.wallStartMs = events.header["wall_start_ms"]?.int64Value ?? 0
      if from != nil || to != nil { options.window = (from ?? 0)...(to ?? .max) }
      let goldenLines = try golden ? GoldenLines.read(dir: goldenDir, recording: recording, wallStartMs: options.wallStartMs) : nil
      let replay = try route.prepare(engine, cues, !noMetrics)
      let kinds = route.kinds
      let counts: [String: Int]
      let messages: UInt64
      do {
        (counts, messages) = try SafeFile.produce(mcap) { tmp in
          guard let fd = tmp.fd else { throw SafeFileError(path: tmp.path, "not open") }
          let writer = try MCAPWriter(library: "jpreplay \(BuildInfo.packageVersion)") { bytes in
            if let code = SafeFile.writeAll(fd, bytes) { throw SafeFileError(path: tmp.path, "cannot write", code) }
          }
          let export = MCAPExport(
            writer: writer, options: options, events: events, channelOf: { Self.channel(of: $0, kinds: kinds) },
            kindsOf: { channel in kinds.filter { $0.channel == channel }.map(\.name) })
          if let goldenLines { export.addGolden(trace: goldenLines.trace, a13: goldenLines.a13) }
          try replay(URL(fileURLWithPath: recording), export)
          try export.finish()
          return (export.counts, writer.messages)
        }
      } catch let e as ReplayError {
        throw CLIError(code: e.exitCode.rawValue, message: e.description)
      } catch let e as RecordingError {
        throw CLIError.badInput(e.description)
      } catch let e as SafeFileError {
        throw CLIError.badInput("\(e.path): cannot write (\(e.message))")
      } catch let e as MCAPError {
        throw CLIError.badInput("\(mcap): \(e.description)")
      } catch let e as CLIError {
        throw e
      }
      print("\(ConsoleText.line(mcap)): \(messages) message(s) on \(counts.count) channel(s)")
      guard listTopics else { return }
      for (topic, n) in counts.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
        print("  \(ConsoleText.line(topic)): \(n)")
      }
    }

    static func channel(of e: InputEvent, kinds: [(name: String, channel: String)]) -> String {
      if let k = e.kind { return k.eventChannel.rawValue }
      let name = e.kindName
      return kinds.first(where: { $0.name == name })?.channel ?? "ui"
    }

    /// `--cue`: each must be a cue of the spec in use.
    static func checkCues(_ cues: Set<String>, spec: String?) throws {
      let doc = try Harness.loadSpec(path: spec ?? Harness.defaultSpecPath)
      let known = Set(doc.cues.map(\.id))
      if let unknown = cues.sorted().first(where: { !known.contains($0) }) {
        throw CLIError.badInput("--cue \(unknown): no such cue in \(doc.fileName)")
      }
    }
  }
}

/// Just Photo's replay into an export: each `cue_eval` output as its cue entries (metric
/// messages, read without rendering the record), every other output as its trace record, each
/// A.13 line canonical.
struct ExportOutput: ReplayOutput {
  typealias V = JustPhotoVocabulary
  let export: MCAPExport
  /// `--cue`: outputs narrowed to these cues before they are rendered (empty: all).
  let cues: Set<String>
  private var canonicalizer = A13Canonicalizer()
  private var metrics = CueMetricReader()
  init(export: MCAPExport, cues: Set<String>) {
    self.export = export
    self.cues = cues
  }

  mutating func emit(_ output: V.Output, at t: Millis) throws {
    // The export keeps the `--cue` entries itself (`MCAPExport.metric`).
    let export = self.export
    if try metrics.forEachEntry(of: output, { try export.metric($0, at: t) }) { return }
    var output = output
    if !cues.isEmpty {
      guard let kept = V.narrow(output, toCues: cues) else { return }
      output = kept
    }
    let r = V.traceRecord(output)
    let record = TraceRecord(t: t, out: r.out, fields: r.fields)
    try export.trace(record, line: TraceFormat.line(record))
  }

  mutating func emit(_ line: DiagnosticLine) throws {
    try export.a13(canonicalizer.canonicalize(line), tsMs: line.tsMs)
  }
}

/// A plug-in's replay into an export: each trace record as it is (in its canonical form,
/// beside its canonical line), each canonical A.13 line with its `ts_ms`. Nothing reads a
/// trace line back.
struct ExportLineSink: LineSink {
  let export: MCAPExport
  let a13: Bool
  mutating func write(record: TraceRecord) throws {
    guard !a13 else { throw MCAPError("a trace record of the replay reached the A.13 channel") }
    let canonical = TraceFormat.canonical(record)
    try export.trace(canonical, line: TraceFormat.line(canonical))
  }
  mutating func write(line: String) throws {
    // The replay writes its trace as records (`write(record:)`): text here is A.13.
    guard a13 else { throw MCAPError("a trace line of the replay reached the export as text") }
    let ts = (try? JSONParser.parse(line))?["ts_ms"]?.int64Value
    try export.a13(line, tsMs: ts)
  }
}
