import Foundation
import Testing

/// `jpreplay --version`: the package version, and the commit of the checkout the binary was
/// built in (this repository, when the tests run from a git checkout).
@Suite("version")
struct VersionTests {
  /// `git rev-parse HEAD` in the repository, or nil without git or outside a checkout.
  static func gitHead() -> String? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["git", "-C", CLI.repoRoot.path, "rev-parse", "HEAD"]
    let out = Pipe()
    p.standardOutput = out
    p.standardError = Pipe()
    guard (try? p.run()) != nil else { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test("--version prints the package version and this checkout's commit")
  func versionNamesTheCommit() throws {
    let r = try CLI.run(["--version"])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("jpreplay 0."), "\(r.stdout)")
    let line = r.stdout.trimmingCharacters(in: .newlines)
    #expect(!line.contains("\n"))
    if let head = Self.gitHead(), CLI.binary.path.contains("/.build/") {
      #expect(line.contains("(git \(head.prefix(12)), checkout at "), "\(line) vs HEAD \(head)")
    }
    // The root help says where the version comes from.
    #expect(try CLI.run(["--help"]).stdout.contains("--version"))
  }
}
