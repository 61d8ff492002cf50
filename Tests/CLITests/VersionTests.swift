import Foundation
import Testing

/// `jpreplay --version`: the package version and the commit the binary was built from,
/// stamped at build time (the BuildStamp plugin), so a copy of the binary outside the checkout
/// says the same and a checkout that moves on does not change it.
@Suite("version")
struct VersionTests {
  /// `git rev-parse HEAD` in the repository, or nil without git or outside a checkout.
  static func gitHead() -> String? { git(["rev-parse", "HEAD"]) }

  /// `git ARGS` in the repository: its output, or nil when it fails or git is missing.
  static func git(_ args: [String]) -> String? {
    guard
      let r = try? ChildProcess.run(
        ["/usr/bin/env", "git", "-C", CLI.repoRoot.path] + args, cwd: CLI.repoRoot.path,
        environment: ProcessInfo.processInfo.environment, stdin: Data()),
      r.status == 0
    else { return nil }
    return String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test("--version prints the package version and the commit the binary was built from, wherever the binary is")
  func versionNamesTheCommit() throws {
    let r = try CLI.run(["--version"])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("jpreplay 0."), "\(r.stdout)")
    let line = r.stdout.trimmingCharacters(in: .newlines)
    #expect(!line.contains("\n"))
    // A copy outside any checkout says the same: nothing is read from the checkout at run time.
    let dir = try CLI.tempDir("version")
    defer { try? FileManager.default.removeItem(at: dir) }
    let copy = dir.appendingPathComponent("jpreplay")
    try CLI.copyBinary(to: copy)
    let p = Process()
    p.executableURL = copy
    p.arguments = ["--version"]
    p.currentDirectoryURL = dir
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let copied = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    #expect(copied.trimmingCharacters(in: .newlines) == line)
    // Built in this checkout: the stamp is a commit of its history (HEAD, or an older one when
    // the checkout moved on after the build).
    if Self.gitHead() != nil {
      let prefix = "(built from git "
      let start = try #require(line.range(of: prefix), "\(line)")
      let commit = String(line[start.upperBound...].prefix(12))
      #expect(commit.count == 12 && commit.allSatisfy(\.isHexDigit), "\(line)")
      #expect(Self.git(["merge-base", "--is-ancestor", commit, "HEAD"]) != nil, "\(commit) is not in HEAD's history")
    }
    // The root help says where the version comes from.
    #expect(try CLI.run(["--help"]).stdout.contains("--version"))
  }
}
