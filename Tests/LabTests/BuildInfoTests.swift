import Foundation
import Testing

@testable import Lab

/// `jpreplay --version`'s line, and the BuildStamp plugin's script (`Plugins/BuildStamp/stamp.sh`)
/// run as the plugin runs it before a build: in a git checkout it stamps HEAD (the commit the
/// binary is built from), marks a tree whose Package.swift or Sources/ differ from it, and
/// says "unknown" outside a checkout or for a package inside another repository.
@Suite("build info")
struct BuildInfoTests {
  static let a = String(repeating: "a", count: 40)
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  @Test("the version line names the stamped commit, a changed tree, or an unknown commit")
  func versionLine() {
    let v = BuildInfo.packageVersion
    #expect(BuildInfo.versionLine(commit: Self.a, treeChanged: false) == "jpreplay \(v) (built from git \(Self.a.prefix(12)))")
    #expect(
      BuildInfo.versionLine(commit: Self.a, treeChanged: true)
        == "jpreplay \(v) (built from git \(Self.a.prefix(12)), Package.swift or Sources/ changed since)")
    for bad in ["unknown", "", "ABC", String(repeating: "g", count: 40)] {
      #expect(BuildInfo.versionLine(commit: bad, treeChanged: false) == "jpreplay \(v) (built from an unknown commit: not a git checkout)")
    }
  }

  @discardableResult
  static func run(_ exe: String, _ args: [String], in dir: URL) throws -> (code: Int32, out: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: exe)
    p.arguments = args
    p.currentDirectoryURL = dir
    var env = ProcessInfo.processInfo.environment
    env["GIT_AUTHOR_NAME"] = "t"
    env["GIT_AUTHOR_EMAIL"] = "t@example.invalid"
    env["GIT_COMMITTER_NAME"] = "t"
    env["GIT_COMMITTER_EMAIL"] = "t@example.invalid"
    p.environment = env
    let out = Pipe()
    p.standardOutput = out
    p.standardError = Pipe()
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
  }

  static func git(_ args: [String], in dir: URL) throws -> String {
    let r = try run("/usr/bin/env", ["git"] + args, in: dir)
    try #require(r.code == 0, "git \(args.joined(separator: " ")) failed")
    return r.out
  }

  /// Runs stamp.sh for the package at `pkg` into `out` and returns (commit, changed).
  static func stamp(_ pkg: URL, _ out: URL) throws -> (commit: String, changed: Bool) {
    let script = root.appendingPathComponent("Plugins/BuildStamp/stamp.sh").path
    #expect(try run("/bin/sh", [script, pkg.path, out.path], in: pkg).code == 0)
    let text = try String(contentsOf: out.appendingPathComponent("BuildStamp.swift"), encoding: .utf8)
    let commit = text.split(separator: "\n").first { $0.hasPrefix("let buildCommit = ") }.map { $0.dropFirst(19).dropLast() } ?? ""
    return (String(commit), text.contains("let buildTreeChanged = true"))
  }

  @Test("stamp.sh: HEAD at build time, a changed tree marked, unknown outside a checkout; an unchanged stamp is not rewritten")
  func stampScript() throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("buildstamp-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: base) }
    let pkg = base.appendingPathComponent("pkg")
    let out = base.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: pkg.appendingPathComponent("Sources/X"), withIntermediateDirectories: true)
    try "// a\n".write(to: pkg.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    try "let x = 1\n".write(to: pkg.appendingPathComponent("Sources/X/x.swift"), atomically: true, encoding: .utf8)

    // Not a git checkout (a source archive): unknown.
    #expect(try Self.stamp(pkg, out) == ("unknown", false))

    guard (try? Self.run("/usr/bin/env", ["git", "--version"], in: pkg).code) == 0 else { return }
    _ = try Self.git(["init", "-q"], in: pkg)
    _ = try Self.git(["add", "-A"], in: pkg)
    _ = try Self.git(["commit", "-qm", "A"], in: pkg)
    let commitA = try Self.git(["rev-parse", "HEAD"], in: pkg)
    #expect(try Self.stamp(pkg, out) == (commitA, false))
    // Unchanged: the file is not replaced (the same inode; nothing recompiles). A change
    // replaces it.
    let file = out.appendingPathComponent("BuildStamp.swift").path
    let inode = { try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? UInt64 }
    let first = try #require(try inode())
    _ = try Self.stamp(pkg, out)
    #expect(try inode() == first)

    // A source edited but not committed: A, changed. A data file edited: not a build input.
    try "let x = 2\n".write(to: pkg.appendingPathComponent("Sources/X/x.swift"), atomically: true, encoding: .utf8)
    #expect(try Self.stamp(pkg, out) == (commitA, true))
    #expect(try inode() != first)
    _ = try Self.git(["commit", "-qam", "B"], in: pkg)
    let commitB = try Self.git(["rev-parse", "HEAD"], in: pkg)
    try "notes\n".write(to: pkg.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
    #expect(try Self.stamp(pkg, out) == (commitB, false))

    // A package inside another project's repository is not that repository's commit.
    let inner = pkg.appendingPathComponent("Vendor/inner")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
    #expect(try Self.stamp(inner, base.appendingPathComponent("out2")) == ("unknown", false))
  }
}
