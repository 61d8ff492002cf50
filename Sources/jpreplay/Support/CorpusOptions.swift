import ArgumentParser
import EngineIO
import Foundation
import JustPhotoPlugin
import JustPhotoIO
import Verify

/// `--recordings-dir` / `--golden-dir`, shared by verify, review, accept and reject.
struct CorpusOptions: ParsableArguments {
  @Option(name: .customLong("recordings-dir"), help: "Folder of <name>.jprec recordings.")
  var recordingsDir = "Recordings"

  @Option(name: .customLong("golden-dir"), help: "Folder of <name>.trace.jsonl / <name>.a13.jsonl goldens.")
  var goldenDir = "Golden"

  func validate() throws {
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: recordingsDir, isDirectory: &isDir), isDir.boolValue else {
      throw ValidationError("--recordings-dir '\(recordingsDir)' is not a folder (run from the repository root, or pass --recordings-dir)")
    }
    guard FileManager.default.fileExists(atPath: goldenDir, isDirectory: &isDir), isDir.boolValue else {
      throw ValidationError("--golden-dir '\(goldenDir)' is not a folder (create it, or pass --golden-dir)")
    }
  }

  /// The corpus's goldens, read as Just Photo reads its traces (other engines' lines name none
  /// of its cue kinds or fields).
  var store: GoldenStore {
    var store = GoldenStore(
      recordingsDir: URL(fileURLWithPath: recordingsDir, isDirectory: true),
      goldenDir: URL(fileURLWithPath: goldenDir, isDirectory: true))
    store.traceReading = JustPhotoVocabulary.traceReading
    return store
  }
}

/// `--spec` and `--set`, shared by replay, verify and diff.
struct EngineArguments: ParsableArguments {
  @Option(name: .long, help: "PoseSpec file to replay with (default: ./PoseSpec.json; accepts a spec other than the recorded one).")
  var spec: String?

  @Option(name: .customLong("set"), help: ArgumentHelp("Override an engine option (ENGINE §1.8), e.g. --set angleFix=on. Repeatable. The options (default first): \(EngineOptions.catalogueSummary).", valueName: "key=value"))
  var overrides: [String] = []

  func parsedOverrides() throws -> [(name: String, value: String)] {
    try overrides.map { item in
      guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
        throw ValidationError("--set '\(item)': expected key=value, e.g. --set angleFix=on")
      }
      return (String(item[..<eq]), String(item[item.index(after: eq)...]))
    }
  }

  func validate() throws { _ = try parsedOverrides() }
}

/// `--color auto|always|never`; auto colours a terminal unless NO_COLOR is set (no-color.org).
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
  case auto, always, never

  func enabled(isTTY: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
    switch self {
    case .always: true
    case .never: false
    case .auto: isTTY && (environment["NO_COLOR"] ?? "").isEmpty
    }
  }
}
