import CanonicalJSON
import JustPhotoEngine
import EngineIO
import Foundation
import JustPhotoIO
import JustPhotoPlugin
import PoseSpec
import Recording
import Replay
import Verify

/// The lab's and the CLI's part of Just Photo's replay glue (`Harness`, in JustPhotoPlugin,
/// which an app's test target links through JPReplayTesting without the lab): recordings as
/// diff sides, explanations.
extension Harness {


  /// Opens a recording for reading events, mapping failures to exit 2. A recording without a
  /// header `engine` is Just Photo's (read with its vocabulary's definitions); another engine's
  /// events are named events, which need none.
  package static func openReader(_ path: String) throws(HarnessFailure) -> any RecordingEventReader {
    do { return try RecordingFiles.open(path, definitions: JustPhotoVocabulary.eventDefinitions) } catch { throw .badInput(error.description) }
  }

  /// Whether `path` names a recording (replayed) rather than a trace file.
  package static func isRecording(_ path: String) -> Bool {
    if path.hasSuffix(".jprec") { return true }
    if path.hasSuffix(".trace.jsonl") || path.hasSuffix(".a13.jsonl") || path.hasSuffix(".new") { return false }
    guard path.hasSuffix(".jsonl") || path.hasSuffix(".jsonl.zst") else { return false }
    // Not a regular file: read as a recording, whose reader refuses it by name (a FIFO would
    // block the sniffing read below).
    guard (try? InputFile.checkRegular(path, what: "recording")) != nil else { return true }
    // A JSONL recording starts with a header that has "format".
    guard let h = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? h.close() }
    let head = String(decoding: h.readData(ofLength: 4096), as: UTF8.self)
    let first = head.split(separator: "\n", maxSplits: 1).first ?? ""
    return first.contains("\"format\"") && !first.contains("\"out\"")
  }

  /// The canonical text of one side of a diff: a trace/A.13 file as is (`records` nil: read
  /// it as a file), a recording replayed (its trace and, in memory, its records).
  package static func traceText(
    of path: String, specPath: String?, overrides: [(name: String, value: String)]
  ) throws(HarnessFailure) -> (text: String, isA13: Bool, records: [TraceRecord]?) {
    if isRecording(path) {
      let d = try driver(specPath: specPath, overrides: overrides)
      do {
        let p = try d.canonicalProducts(URL(fileURLWithPath: path))
        return (p.trace, false, p.records)
      } catch {
        throw HarnessFailure(code: error.exitCode.rawValue, message: error.description)
      }
    }
    do {
      let data = try InputFile.read(path, what: "trace file", bytesMax: GoldenStore.fileBytesMax, bound: "GoldenStore.fileBytesMax")
      return (String(decoding: data, as: UTF8.self), path.contains(".a13.jsonl"), nil)
    } catch { throw .badInput(error.description) }
  }

  /// The explanation of a divergence at `t`: for each cue in `cues`, a table of its metric,
  /// level, hysteresis state and the anti-jitter gate's counters within 500 ms of `t`, under
  /// the thresholds it was judged against (``CueEvalTable``).
  package static func explain(
    recording: String, at t: Millis, cues: [String], specPath: String?,
    overrides: [(name: String, value: String)]
  ) throws(HarnessFailure) -> [String] {
    let d = try driver(specPath: specPath, overrides: overrides, traceMetrics: true)
    do {
      let records = try d.cueEvals(URL(fileURLWithPath: recording), around: t, cues: cues)
      return CueEvalTable.render(records, cues: cues)
    } catch { throw HarnessFailure(code: error.exitCode.rawValue, message: error.description) }
  }

}
