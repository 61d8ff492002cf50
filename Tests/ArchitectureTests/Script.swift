import Foundation

/// Runs `scripts/check-imports` of this repository.
enum Script {
  struct Result {
    var code: Int32
    var stdout: String
    var stderr: String
  }

  static func checkImports(_ arguments: [String]) throws -> Result {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/bash")
    p.arguments = [ImportGraphTests.root.appendingPathComponent("scripts/check-imports").path] + arguments
    p.currentDirectoryURL = ImportGraphTests.root
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    // Read before waiting: a full pipe would otherwise block the script.
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return Result(
      code: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
      stderr: String(decoding: e, as: UTF8.self))
  }
}

/// A throw-away package tree (Swift files only) checked against a hand-written manifest in
/// the shape `swift package dump-package` prints.
struct ScratchPackage {
  let dir: URL

  init(files: [String: String]) throws {
    dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("check-imports-\(UUID().uuidString)")
    for (path, text) in files {
      let url = dir.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
  }

  /// Checks the tree with regular targets named with their by-name dependencies.
  func check(targets: [(name: String, dependencies: [String])]) throws -> Script.Result {
    let manifest: [String: Any] = [
      "name": "scratch",
      "targets": targets.map { t in
        [
          "name": t.name, "type": "regular", "path": NSNull(),
          "dependencies": t.dependencies.map { ["byName": [$0, NSNull()]] },
        ] as [String: Any]
      },
    ]
    let dump = dir.appendingPathComponent("manifest.json")
    try JSONSerialization.data(withJSONObject: manifest).write(to: dump)
    return try Script.checkImports(["--root", dir.path, "--dump", dump.path])
  }

  func remove() { try? FileManager.default.removeItem(at: dir) }
}
