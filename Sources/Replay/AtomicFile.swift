import Foundation

/// Atomic file replacement: write a temporary file in the same directory, then rename it over
/// the target, so readers see the old or the new content, never a part.
enum AtomicFile {
  private final class Counter: @unchecked Sendable {
    let lock = NSLock()
    var value = 0
    func next() -> Int {
      lock.lock()
      defer { lock.unlock() }
      value += 1
      return value
    }
  }
  private static let counter = Counter()

  /// The prefix of temporary files; `GoldenStore` ignores such files when listing.
  static let temporaryPrefix = ".jpreplay-tmp-"

  static func write(_ text: String, to url: URL) throws {
    let dir = url.deletingLastPathComponent()
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let tmp = dir.appendingPathComponent(
      "\(temporaryPrefix)\(ProcessInfo.processInfo.processIdentifier)-\(counter.next())-\(url.lastPathComponent)"
    )
    do {
      try Data(text.utf8).write(to: tmp)
      try rename(tmp, to: url)
    } catch {
      try? FileManager.default.removeItem(at: tmp)
      throw error
    }
  }

  /// rename(2): atomic within one file system, replaces the target.
  static func rename(_ from: URL, to: URL) throws {
    if Foundation.rename(from.path, to.path) != 0 {
      let code = errno
      throw CocoaError(
        .fileWriteUnknown,
        userInfo: [
          NSFilePathErrorKey: to.path,
          NSLocalizedDescriptionKey: "rename failed: \(String(cString: strerror(code)))",
        ])
    }
  }
}
