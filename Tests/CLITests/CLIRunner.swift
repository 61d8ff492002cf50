import Foundation
import Recording
import Testing

/// Runs the `jpreplay` binary built beside this test bundle (scripts/test and `swift test`
/// build it with the tests), found the way swift-argument-parser's test helpers find theirs:
/// never by a path inside the repository, so a stale binary can never run.
enum CLI {
  static let repoRoot: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  /// Fixtures shared by the test targets (`Tests/Fixtures`).
  static let fixtures = repoRoot.appendingPathComponent("Tests/Fixtures")

  /// The build products folder: the folder of the `.xctest` bundle (macOS, and Linux where
  /// the test runner is the `.xctest` executable), else the main bundle's folder.
  static let productsDirectory: URL = {
    #if os(macOS)
      if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
        return bundle.bundleURL.deletingLastPathComponent()
      }
    #endif
    let url = Bundle.main.bundleURL
    return url.lastPathComponent.hasSuffix(".xctest") ? url.deletingLastPathComponent() : url
  }()

  static let binary = productsDirectory.appendingPathComponent("jpreplay")

  struct MissingBinary: Error, CustomStringConvertible {
    var description: String {
      "no jpreplay at \(binary.path): build it with the tests (swift build --build-tests, or scripts/test)"
    }
  }

  struct Result {
    var code: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data
  }

  /// Runs jpreplay (or `executable`) with `args` in `cwd` (default: the repo root), with extra
  /// environment.
  @discardableResult
  static func run(
    _ args: [String], cwd: URL? = nil, env: [String: String] = [:], removeEnv: [String] = [],
    stdin: String? = nil, executable: URL? = nil
  ) throws -> Result {
    guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw MissingBinary() }
    var environment = ProcessInfo.processInfo.environment
    for k in removeEnv { environment[k] = nil }
    for (k, v) in env { environment[k] = v }
    let r = try ChildProcess.run(
      [(executable ?? binary).path] + args, cwd: (cwd ?? repoRoot).path, environment: environment,
      stdin: Data((stdin ?? "").utf8))
    if let log = ProcessInfo.processInfo.environment["JPREPLAY_TEST_CPU_LOG"] {
      CPULog.append(log, String(format: "%.3f\t%@\n", r.cpuSeconds, args.joined(separator: " ")))
    }
    return Result(
      code: r.status, stdout: String(decoding: r.stdout, as: UTF8.self),
      stderr: String(decoding: r.stderr, as: UTF8.self), stdoutData: r.stdout)
  }

  /// Copies this build's jpreplay to `target`; see `writeExecutable`.
  static func copyBinary(to target: URL) throws {
    try writeExecutable(try Data(contentsOf: binary), to: target)
  }

  /// Writes an executable (a binary, a shell script) to `target` through a close-on-exec
  /// descriptor and a rename, so no child process started meanwhile by another test keeps it
  /// open for writing (running it would then fail with "Text file busy").
  static func writeExecutable(_ bytes: Data, to target: URL) throws {
    let t = try SafeFile.Temporary(beside: target.path)
    do {
      try t.write(Array(bytes))
      guard let fd = t.fd, fchmod(fd, 0o755) == 0 else { throw SafeFileError(path: t.path, "cannot make it executable", errno) }
      try t.commit(to: target.path)
    } catch {
      t.discard()
      throw error
    }
  }

  /// The JSONL interchange of corpus recording `name`, generated from its scenario file
  /// (`jpreplay record NAME --jsonl`), written into `dir`.
  static func corpusJSONL(_ name: String, in dir: URL) throws -> URL {
    let r = try run(["record", name, "--jsonl"])
    try #require(r.code == 0, "jpreplay record \(name) --jsonl: \(r.stderr)")
    let url = dir.appendingPathComponent("\(name).jsonl")
    try r.stdoutData.write(to: url)
    return url
  }

  /// A fresh temporary folder, removed by the caller's `defer`.
  static func tempDir(_ label: String = "cli") throws -> URL {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("jpreplay-\(label)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }
}

/// `JPREPLAY_TEST_CPU_LOG=FILE scripts/test` appends one line per jpreplay run (CPU seconds, then
/// its arguments): where the suite's time goes, read with `sort -rn FILE | head`. A profile,
/// never an assertion.
enum CPULog {
  private static let lock = NSLock()
  static func append(_ path: String, _ line: String) {
    lock.lock()
    defer { lock.unlock() }
    guard let h = FileHandle(forWritingAtPath: path) ?? {
      _ = FileManager.default.createFile(atPath: path, contents: nil)
      return FileHandle(forWritingAtPath: path)
    }() else { return }
    h.seekToEndOfFile()
    h.write(Data(line.utf8))
    try? h.close()
  }
}
