import Foundation
import Recording

/// A PoseSpec's engine options file: `options.txt` in the spec's folder (`PoseSpec.json` →
/// `options.txt`; `docs/tuned/PoseSpec.json` → `docs/tuned/options.txt`), one `name=value` per
/// line as `--set` takes it. `tune promote` writes it (in place beside `--spec`, or into
/// `--to DIR`), and every replay with that spec through ``Harness/driver(specPath:overrides:traceMetrics:strictEffects:sessionStore:)``
/// — `verify` and CI included — applies it after the recording's header and before `--set`,
/// so the goldens a reviewer walks after a promote are of the configuration that was scored.
/// No file: no options (the engine's defaults).
public enum SpecOptionsFile {
  public static let fileName = "options.txt"
  /// Bytes of an options file read at most.
  public static let fileBytesMax = 64 << 10
  /// Lines (options) of an options file.
  public static let linesMax = 1_000

  /// The options file of the spec at `specPath`.
  public static func path(forSpec specPath: String) -> String {
    guard let slash = specPath.lastIndex(of: "/") else { return fileName }
    return String(specPath[...slash]) + fileName
  }

  /// The options in the file beside `specPath`, in file order; none when there is no file.
  /// A line that is not `name=value` is bad input naming the file and line.
  public static func options(forSpec specPath: String) throws(HarnessFailure) -> [(name: String, value: String)] {
    let path = path(forSpec: specPath)
    var st = stat()
    guard lstat(path, &st) == 0 else { return [] }
    let bytes: [UInt8]
    do { bytes = try InputFile.read(path, what: "engine options file", bytesMax: fileBytesMax, bound: "SpecOptionsFile.fileBytesMax") } catch {
      throw .badInput(error.description)
    }
    return try parse(String(decoding: bytes, as: UTF8.self), file: path)
  }

  public static func parse(_ text: String, file: String) throws(HarnessFailure) -> [(name: String, value: String)] {
    var out: [(name: String, value: String)] = []
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count <= linesMax + 1 else {
      throw .badInput("\(file): \(lines.count) lines, more than SpecOptionsFile.linesMax = \(linesMax)")
    }
    for (i, line) in lines.enumerated() where !line.isEmpty {
      guard let eq = line.firstIndex(of: "="), eq != line.startIndex else {
        throw .badInput(
          "\(file): line \(i + 1): expected name=value (an engine option, as --set takes it), found \(ConsoleText.line(Excerpt.short(String(line))))")
      }
      out.append((String(line[..<eq]), String(line[line.index(after: eq)...])))
    }
    return out
  }

  /// The file's text for `options` (one `name=value` per line; empty when none).
  public static func text(_ options: [(name: String, value: String)]) -> String {
    options.map { "\($0.name)=\($0.value)\n" }.joined()
  }
}
