import Foundation
import Recording

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Corpus questions `verify`, `review` and `accept` ask of the store: globs over names,
/// whether a recording exists, and removing an orphan's goldens.
extension GoldenStore {
  /// Whether a name argument is a glob (`cov-*`, `s0?-*`, `[ab]*`).
  public static func isGlob(_ name: String) -> Bool {
    name.contains { $0 == "*" || $0 == "?" || $0 == "[" }
  }

  /// Whether `name` matches `pattern` (fnmatch rules; a plain name matches only itself).
  public static func glob(_ pattern: String, matches name: String) -> Bool {
    guard isGlob(pattern) else { return pattern == name }
    return fnmatch(pattern, name, 0) == 0
  }

  /// Whether `Recordings/<name>.<ext>` exists.
  public func hasRecording(_ name: String) -> Bool {
    FileManager.default.fileExists(atPath: recordingURL(name).path)
  }

  /// Deletes the goldens and pending files of `name` (an orphan); returns the file names
  /// removed, relative to the golden directory, trace before a13, golden before `.new`.
  public func deleteGoldens(_ name: String) throws -> [String] {
    var removed: [String] = []
    for kind in GoldenKind.allCases {
      for url in [goldenURL(name, kind), pendingURL(name, kind)]
      where FileManager.default.fileExists(atPath: url.path) {
        try FileManager.default.removeItem(at: url)
        removed.append(url.fileName)
      }
    }
    return removed
  }

  /// What to do about a pending file whose recording is gone (for review and accept).
  public func refusal(_ p: PendingGolden) -> String {
    "refusing \(goldenLabel)/\(p): no recording \(recordingURL(p.name).fileName) in "
      + "\(recordingsLabel)/; restore the recording and run jpreplay verify, "
      + "or drop the file with `jpreplay reject \(p.name)`"
  }
}
