import EngineSeam
import Foundation
import Recording
import Replay

/// The two golden files of a recording.
public enum GoldenKind: String, CaseIterable, Sendable, Comparable {
  case trace
  case a13

  /// `.trace.jsonl` / `.a13.jsonl`.
  public var suffix: String { ".\(rawValue).jsonl" }

  /// Trace before A.13.
  public static func < (a: GoldenKind, b: GoldenKind) -> Bool {
    (a == .trace ? 0 : 1) < (b == .trace ? 0 : 1)
  }
}

extension ReplayProducts {
  /// The replay's text compared with the golden of `kind`; nil for A.13 of an engine that
  /// writes none (it has no such golden).
  public func text(_ kind: GoldenKind) -> String? { kind == .trace ? trace : a13 }
}

/// A `.new` file waiting for review.
public struct PendingGolden: Equatable, Hashable, Sendable, CustomStringConvertible {
  /// The recording's name.
  public var name: String
  /// Which golden of it.
  public var kind: GoldenKind
  /// A pending golden.
  public init(name: String, kind: GoldenKind) {
    self.name = name
    self.kind = kind
  }
  /// Its file name, e.g. `s04.trace.jsonl.new`.
  public var description: String { "\(name)\(kind.suffix).new" }
}

/// What `accept` / `reject` did.
public struct ResolveResult: Equatable, Sendable {
  /// Files resolved, in name order.
  public var resolved: [PendingGolden] = []
  /// Requested names that had no pending file.
  public var unknown: [String] = []
  /// Pending files not accepted because their recording does not exist.
  public var refused: [PendingGolden] = []
  /// `.badInput` when a requested name had nothing pending or a file was refused.
  public var exitCode: ExitDecision { unknown.isEmpty && refused.isEmpty ? .ok : .badInput }
}

/// The corpus on disk (DESIGN §2, §4): `Recordings/<name>.jprec` and, per recording,
/// `Golden/<name>.trace.jsonl` and `Golden/<name>.a13.jsonl`, with pending `<golden>.new`.
///
/// Every write is atomic (temporary file in the same directory, then rename); accepting is a
/// rename of the `.new` over the golden.
public struct GoldenStore: Sendable {
  /// The largest golden (or trace) file read, in bytes: the corpus' largest is about 100 KB;
  /// a golden past this bound is refused, not read into memory.
  public static let fileBytesMax = 256 << 20
  /// The recordings folder.
  public var recordingsDir: URL
  /// The goldens folder.
  public var goldenDir: URL
  /// The extension of recording files (without the dot).
  public var recordingExtension: String
  /// How the goldens' trace lines are read when they are compared (`verify`, `review`,
  /// `accept --group`): the reading of the corpus's engine; plain (no cues) by default.
  public var traceReading: TraceReading = .plain

  /// The golden folder as messages name it: as the user gave it (`Golden`, `Golden/pixscan`),
  /// or its full path when the store was made from one.
  public var goldenLabel: String { goldenDir.relativePath }
  /// The recordings folder as messages name it.
  public var recordingsLabel: String { recordingsDir.relativePath }

  /// A store over two folders.
  ///
  /// - Parameters:
  ///   - recordingsDir: the recordings.
  ///   - goldenDir: the goldens.
  ///   - recordingExtension: the recordings' extension (`jprec`).
  public init(recordingsDir: URL, goldenDir: URL, recordingExtension: String = "jprec") {
    self.recordingsDir = recordingsDir
    self.goldenDir = goldenDir
    self.recordingExtension = recordingExtension
  }

  /// `root/Recordings` and `root/Golden`.
  public init(root: URL) {
    self.init(
      recordingsDir: root.joined("Recordings"),
      goldenDir: root.joined("Golden"))
  }

  /// Recording `name`'s file.
  public func recordingURL(_ name: String) -> URL {
    recordingsDir.joined("\(name).\(recordingExtension)")
  }
  /// Recording `name`'s golden of `kind`.
  public func goldenURL(_ name: String, _ kind: GoldenKind) -> URL {
    Self.resolved(goldenDir, name + kind.suffix)
  }
  /// Recording `name`'s pending golden (`.new`) of `kind`.
  public func pendingURL(_ name: String, _ kind: GoldenKind) -> URL {
    Self.resolved(goldenDir, name + kind.suffix + ".new")
  }

  /// The one rule for names (issue 23.8): two names are the same when they are canonically
  /// equivalent Unicode (Swift's `==`: NFC and NFD spell one name), wherever they are compared —
  /// and a file is found under either spelling: when `file`'s own bytes name nothing in `dir`,
  /// the entry of `dir` equal to it is used (so a golden written in NFD serves a recording named
  /// in NFC, instead of being neither matched nor orphaned).
  static func resolved(_ dir: URL, _ file: String) -> URL {
    let exact = dir.joined(file)
    var st = stat()
    guard lstat(exact.path, &st) != 0, errno == ENOENT,
      let hit = (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.first(where: { $0 == file && Array($0.utf8) != Array(file.utf8) })
    else { return exact }
    return dir.joined(hit)
  }

  /// The recording name of a path or name (`Recordings/walk.jprec` → `walk`).
  public func name(of argument: String) -> String {
    var last = Paths.name(argument)
    let ext = "." + recordingExtension
    if last.hasSuffix(ext) { last.removeLast(ext.count) }
    for kind in GoldenKind.allCases {
      for suffix in [kind.suffix + ".new", kind.suffix] where last.hasSuffix(suffix) {
        last.removeLast(suffix.count)
        return last
      }
    }
    return last
  }

  /// Names of all recordings, sorted.
  public func recordingNames() throws -> [String] {
    try files(in: recordingsDir).compactMap { $0.strippingSuffix("." + recordingExtension) }
      .sortedByBytes()
  }

  /// Names that have at least one golden file, sorted.
  public func goldenNames() throws -> [String] {
    let files = try files(in: goldenDir)
    var names = Set<String>()
    for f in files {
      for kind in GoldenKind.allCases {
        if let n = f.strippingSuffix(kind.suffix) { names.insert(n) }
      }
    }
    return names.sortedByBytes()
  }

  /// Pending `.new` files, by name then kind (trace before a13).
  public func pending(names: [String]? = nil) throws -> [PendingGolden] {
    var out: [PendingGolden] = []
    for f in try files(in: goldenDir) {
      for kind in GoldenKind.allCases {
        if let n = f.strippingSuffix(kind.suffix + ".new"), names?.contains(n) ?? true {
          out.append(PendingGolden(name: n, kind: kind))
        }
      }
    }
    return out.sorted { a, b in
      a.name == b.name ? a.kind < b.kind : a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
    }
  }

  /// Recording `name`'s golden of `kind`; nil when there is none. Read within `fileBytesMax`.
  public func readGolden(_ name: String, _ kind: GoldenKind) throws -> String? {
    try read(goldenURL(name, kind))
  }
  /// Recording `name`'s pending golden of `kind`; nil when there is none.
  public func readPending(_ name: String, _ kind: GoldenKind) throws -> String? {
    try read(pendingURL(name, kind))
  }

  /// Writes `<golden>.new` atomically (`SafeFile`: exclusive temporary beside it, fsync, rename).
  public func writePending(_ name: String, _ kind: GoldenKind, _ text: String) throws {
    try SafeFile.write(text, to: pendingURL(name, kind).path)
  }

  /// Writes a golden directly (atomically), e.g. when recording a new corpus entry.
  public func writeGolden(_ name: String, _ kind: GoldenKind, _ text: String) throws {
    try SafeFile.write(text, to: goldenURL(name, kind).path)
  }

  /// Removes `<golden>.new`; returns whether there was one.
  @discardableResult
  public func removePending(_ name: String, _ kind: GoldenKind) throws -> Bool {
    let url = pendingURL(name, kind)
    guard FileManager.default.fileExists(atPath: url.path) else { return false }
    try FileManager.default.removeItem(at: url)
    return true
  }

  /// Moves `<golden>.new` over the golden (one rename: atomic).
  public func accept(_ p: PendingGolden) throws {
    try SafeFile.rename(pendingURL(p.name, p.kind).path, to: goldenURL(p.name, p.kind).path)
  }

  /// Deletes `<golden>.new`, keeping the golden.
  public func reject(_ p: PendingGolden) throws {
    try removePending(p.name, p.kind)
  }

  /// Accepts every pending file of `names` (all pending when nil; globs such as `cov-*`
  /// allowed). A pending file whose recording does not exist is refused, not accepted.
  public func accept(names: [String]?) throws -> ResolveResult {
    try resolve(names: names, refuseOrphans: true) { try accept($0) }
  }

  /// Rejects every pending file of `names` (all pending when nil).
  public func reject(names: [String]?) throws -> ResolveResult {
    try resolve(names: names) { try reject($0) }
  }

  private func resolve(
    names: [String]?, refuseOrphans: Bool = false, _ action: (PendingGolden) throws -> Void
  ) throws -> ResolveResult {
    let wanted = names?.map { name(of: $0) }
    var result = ResolveResult()
    let pending = try pending().filter { p in
      wanted?.contains { Self.glob($0, matches: p.name) } ?? true
    }
    for p in pending {
      if refuseOrphans && !hasRecording(p.name) {
        result.refused.append(p)
        continue
      }
      try action(p)
      result.resolved.append(p)
    }
    for n in wanted ?? []
    where !pending.contains(where: { Self.glob(n, matches: $0.name) }) && !result.unknown.contains(n)
    {
      result.unknown.append(n)
    }
    return result
  }

  private func read(_ url: URL) throws -> String? {
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    let data = try InputFile.read(url.path, what: "golden file", bytesMax: Self.fileBytesMax, bound: "GoldenStore.fileBytesMax")
    return String(decoding: data, as: UTF8.self)
  }

  /// Plain file names in `dir` (none when it does not exist), temporary files excluded.
  private func files(in dir: URL) throws -> [String] {
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDir), isDir.boolValue
    else { return [] }
    return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
      !$0.hasPrefix(SafeFile.temporaryPrefix)
    }
  }
}

extension String {
  func strippingSuffix(_ suffix: String) -> String? {
    guard hasSuffix(suffix), count > suffix.count else { return nil }
    return String(dropLast(suffix.count))
  }
}

extension Sequence where Element == String {
  /// Sorted by UTF-8 bytes (locale-independent, the same on every machine).
  func sortedByBytes() -> [String] { sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
}
