import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab
import Recording
import Replay
import Verify

/// Writes the HTML report of `verify --html`, `diff --html` and `report` (the page is built by
/// Lab's `HTMLReportBuilder` / `HTMLReportPage`; the CLI only names the file).
enum HTMLReportFile {
  /// `plugins`: the engines verify replayed with (`--plant-fault`'s included): another
  /// engine's recording gets its vocabulary's lanes.
  static func writeVerify(
    _ report: VerifyReport, to path: String, store: GoldenStore, engine: EngineArguments, title: String,
    plugins: [String: EnginePlugin] = EngineRegistry.plugins, jobs: Int = 1
  ) throws {
    let specPath = engine.spec ?? Harness.defaultSpecPath
    var builder = HTMLReportBuilder(spec: try Harness.loadSpec(path: specPath), overrides: try engine.parsedOverrides())
    builder.jobs = jobs
    builder.timelineSource = { path in EngineRegistry.timelineSource(path, plugins: plugins) }
    builder.goldenSpec = { name in
      SpecHistory.reportGoldenSpec(golden: store.goldenURL(name, .trace).path, currentSpec: specPath)
    }
    try write(builder.document(verify: report, store: store, title: title), to: path)
  }

  static func writeDiff(
    _ result: DiffResult, golden: (text: String, isA13: Bool, records: [TraceRecord]?), replay: (text: String, isA13: Bool, records: [TraceRecord]?), sides: (a: String, b: String),
    engine: EngineArguments, to path: String
  ) throws {
    let specPath = engine.spec ?? Harness.defaultSpecPath
    var builder = HTMLReportBuilder(spec: try Harness.loadSpec(path: specPath), overrides: try engine.parsedOverrides())
    builder.timelineSource = { path in EngineRegistry.timelineSource(path) }
    let goldenSide = sides.a
    builder.goldenSpec = { _ in
      Harness.isRecording(goldenSide)
        ? HTMLReportGoldenSpec(spec: nil, note: "golden side: a recording replayed as given; its metric and gate are not drawn")
        : SpecHistory.reportGoldenSpec(golden: goldenSide, currentSpec: specPath)
    }
    let name = Harness.isRecording(sides.b) ? CorpusScorer.recordingName(sides.b) : Paths.name(sides.b)
    let doc = builder.document(
      diff: result, golden: golden.records.map(HTMLReportTrace.records) ?? .file(golden.text),
      replay: replay.records.map(HTMLReportTrace.records) ?? .file(replay.text), isA13: golden.isA13 || replay.isA13, name: name,
      replayRecording: Harness.isRecording(sides.b) ? sides.b : nil, title: "jpreplay diff \(sides.a) \(sides.b)")
    try write(doc, to: path)
  }

  /// The page at `path` (its folder created), written part by part as it is made (a lazy
  /// page's series blocks one at a time); prints where it went and its size on stderr.
  static func write(_ doc: HTMLReportDocument, to path: String) throws {
    let folder = URL(fileURLWithPath: path).folder
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var bytes = 0
    do {
      try SafeFile.produce(path) { file in
        try HTMLReportPage.write(doc) { (part: String) throws(SafeFileError) in
          bytes += part.utf8.count
          try file.write(Array(part.utf8))
        }
      }
    } catch let error as SafeFileError {
      throw CLIError.badInput("\(path): cannot write (\(error.message))")
    }
    printErr("html: wrote \(ConsoleText.line(path)) (\(bytes) bytes, \(doc.rows.count) divergence rows, \(doc.timelines.count) timelines)")
  }
}
