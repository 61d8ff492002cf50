import JustPhotoEngine
import Foundation
import JustPhotoPlugin
import Recording
import Replay
import Verify

/// Asserts that replaying `recording` gives the goldens in `goldenDir`
/// (`<name>.trace.jsonl`, `<name>.a13.jsonl`), the way `jpreplay verify` checks the corpus —
/// through the same `Verifier` path: when a scenario file sits beside the recording
/// (`<name>.scenario.yaml`), a stale recording fails, and so does a replay that breaks the
/// scenario's `expect:` rules even when the goldens match.
///
/// Works from XCTest and Swift Testing: a failure is reported with `Issue.record` when a Swift
/// Testing test is running, otherwise with `XCTFail` (looked up at run time, so this library
/// does not load XCTest). The failure text is the one `verify` prints: the first divergence
/// explained with context, one headline per further divergent hunk, and the files written.
///
/// - Parameters:
///   - spec: the PoseSpec to replay with; nil = `PoseSpec.json` in the working directory.
///   - settings: engine options as `key=value` (like `jpreplay verify --set`).
///   - update: what to write on a difference; nil = `JPREPLAY_UPDATE`, else `no` on CI, else
///     `new` (a `<golden>.new` beside the golden, for `jpreplay review`).
public func assertReplay(
  recording: URL, matchesGoldenIn goldenDir: URL, spec: URL? = nil, settings: [String] = [],
  update: UpdateMode? = nil,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) {
  guard
    let message = verifyReplay(
      recording: recording, matchesGoldenIn: goldenDir, spec: spec, settings: settings,
      update: update)
  else { return }
  IssueReporter.fail(message, fileID: fileID, filePath: filePath, line: line, column: column)
}

/// The check behind ``assertReplay(recording:matchesGoldenIn:spec:settings:update:fileID:filePath:line:column:)``:
/// nil when the replay matches (or its goldens were updated with `.always`), else the failure
/// text. Writes `.new` files or goldens per the update mode, exactly as `verify` does.
public func verifyReplay(
  recording: URL, matchesGoldenIn goldenDir: URL, spec: URL? = nil, settings: [String] = [],
  update: UpdateMode? = nil,
  environment: [String: String] = ProcessInfo.processInfo.environment
) -> String? {
  let mode: UpdateMode
  do { mode = try UpdateMode.resolve(flag: update, exploring: false, environment: environment) } catch {
    return error.description
  }
  var overrides: [(name: String, value: String)] = []
  for item in settings {
    guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
      return "setting '\(item)': expected key=value, e.g. angleFix=on"
    }
    overrides.append((String(item[..<eq]), String(item[item.index(after: eq)...])))
  }
  let driver: ReplayDriver<Engine>
  do { driver = try Harness.driver(specPath: spec?.path, overrides: overrides) } catch {
    return error.message
  }
  let file = recording.fileName
  let ext = file.hasSuffix(".jsonl.zst") ? "jsonl.zst" : recording.fileExtension
  var store = GoldenStore(
    recordingsDir: recording.folder, goldenDir: goldenDir,
    recordingExtension: ext)
  store.traceReading = JustPhotoVocabulary.traceReading
  guard store.hasRecording(store.name(of: file)) else {
    return "no recording at \(recording.path)"
  }
  if mode != .no {
    try? FileManager.default.createDirectory(at: goldenDir, withIntermediateDirectories: true)
  }
  var verifier = Verifier(
    store: store, options: VerifyOptions(names: [store.name(of: file)], jobs: 1, update: mode), driver: driver)
  // The scenario checks `verify` makes (staleness, `expect:` rules), by the same code.
  do { try ScenarioCorpus.addChecks(to: &verifier, recordingsDir: recording.folder.path) } catch {
    return error.message
  }
  let report: VerifyReport
  do { report = try verifier.run() } catch { return "\(error)" }
  guard let result = report.cases.first, report.exitCode != .ok else { return nil }
  return report.block(result)
    + report.hints(updateHint: "pass update: .new to assertReplay (or set JPREPLAY_UPDATE=new) to write .new files")
    .map { $0 + "\n" }.joined()
}
