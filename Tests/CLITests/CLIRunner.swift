import Foundation
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
    let p = Process()
    p.executableURL = executable ?? binary
    p.arguments = args
    p.currentDirectoryURL = cwd ?? repoRoot
    var environment = ProcessInfo.processInfo.environment
    for k in removeEnv { environment[k] = nil }
    for (k, v) in env { environment[k] = v }
    p.environment = environment
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    let input = Pipe()
    p.standardInput = input
    try p.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    // Read both pipes concurrently so a full pipe never blocks the child.
    nonisolated(unsafe) var errData = Data()
    let errThread = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
    errThread.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    while !errThread.isFinished { usleep(1000) }
    return Result(
      code: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData)
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
