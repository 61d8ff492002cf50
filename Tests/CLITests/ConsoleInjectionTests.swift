import Foundation
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Issue 23 item 3 through the CLI: a recording whose name holds a newline and a forged
/// `::error` workflow command, an ESC and U+FFFE, verified into the console and JUnit.
@Suite struct ConsoleInjectionTests {
  @Test("verify's console never lets a recording name start a line; its JUnit stays well-formed XML")
  func hostileRecordingName() throws {
    let dir = try CLI.tempDir("console")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    try fm.createDirectory(at: dir.appendingPathComponent("Recordings"), withIntermediateDirectories: true)
    try fm.createDirectory(at: dir.appendingPathComponent("Golden"), withIntermediateDirectories: true)
    try fm.copyItem(at: CLI.repoRoot.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    let name = "x\n ::error file=README.md,line=1::forged ##[error]old\u{1B}[2J\u{FFFE}"
    try fm.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"),
      to: dir.appendingPathComponent("Recordings/\(name).jprec"))
    // No golden: the case is "missing", reported with its name.
    let r = try CLI.run(["verify", "--update", "no", "--junit", "j.xml"], cwd: dir, env: ["CI": "true", "GITHUB_ACTIONS": "true"])
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    for line in (r.stdout + "\n" + r.stderr).split(separator: "\n") {
      // The runner trims leading white space before looking for `::`; `##[` counts anywhere.
      #expect(!line.drop(while: \.isWhitespace).hasPrefix("::error file=README.md"), "forged: \(line)")
      #expect(!line.contains("##[error]"), "forged: \(line)")
      #expect(!line.contains("\u{1B}"), "terminal escape: \(line)")
    }
    let xml = try Data(contentsOf: dir.appendingPathComponent("j.xml"))
    #expect(XMLParser(data: xml).parse(), "JUnit is well-formed XML")
  }
}
