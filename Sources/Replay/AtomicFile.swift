import Foundation
import Recording

/// Atomic file replacement for `GoldenStore`: a thin name for `Recording.SafeFile`, the one
/// helper every writer uses (exclusive, unpredictable temporary beside the target — never
/// following a planted symlink — fsync, rename; temporaries of dead processes are swept).
enum AtomicFile {
  /// The prefix of temporary files; `GoldenStore` ignores such files when listing.
  static let temporaryPrefix = SafeFile.temporaryPrefix

  static func write(_ text: String, to url: URL) throws {
    try SafeFile.write(text, to: url.path)
  }

  /// rename(2): atomic within one file system, replaces the target.
  static func rename(_ from: URL, to: URL) throws {
    try SafeFile.rename(from.path, to: to.path)
  }
}
