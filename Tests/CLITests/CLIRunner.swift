import Foundation
import Testing

/// Runs the freshly built `jpreplay` binary (scripts/test builds it before the tests).
enum CLI {
  static let repoRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let sharedDir = repoRoot.deletingLastPathComponent().appendingPathComponent("shared")

  static var binary: URL {
    let candidates = [".build/debug/jpreplay", ".build/release/jpreplay"].map {
      repoRoot.appendingPathComponent($0)
    }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
  }

  struct Result {
    var code: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data
  }

  /// Runs jpreplay with `args` in `cwd` (default: the repo root), with extra environment.
  @discardableResult
  static func run(
    _ args: [String], cwd: URL? = nil, env: [String: String] = [:], removeEnv: [String] = [],
    stdin: String? = nil
  ) throws -> Result {
    let p = Process()
    p.executableURL = binary
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
