import Foundation
import Testing

/// Issue 38 item 4: every `jpreplay` command names itself. A `CommandConfiguration` without a
/// `commandName` makes the argument parser derive the name from the type at every start-up
/// (`String(describing:)` of the type: a scan of the binary's protocol conformances per command,
/// ~47 M of the 795 M instructions of a 5,000-photo PixScan replay with 32 unnamed commands).
/// The names given are the derived ones, so the help text is unchanged (HelpExamplesTests).
@Suite("jpreplay command names")
struct CommandNameTests {
  /// The command types of `text` (structs conforming to `ParsableCommand`) and its
  /// `CommandConfiguration(…)` calls, with the `commandName` each gives first (nil: none).
  static func scan(_ text: String) -> (commands: [String], configurations: [String?]) {
    let code = text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.components(separatedBy: "//").first ?? "" }.joined(separator: "\n")
    func matches(_ pattern: String) -> [[String?]] {
      let re = try! NSRegularExpression(pattern: pattern)
      let ns = code as NSString
      return re.matches(in: code, range: NSRange(location: 0, length: ns.length)).map { m in
        (1..<m.numberOfRanges).map { m.range(at: $0).location == NSNotFound ? nil : ns.substring(with: m.range(at: $0)) }
      }
    }
    let commands = matches(#"struct\s+(\w+)\s*:[^{]*\b(?:Async)?ParsableCommand\b"#).compactMap { $0[0] }
    let configurations = matches(#"CommandConfiguration\(\s*(?:commandName:\s*"([^"]*)")?"#).map { $0[0] }
    return (commands, configurations)
  }

  @Test("every CommandConfiguration in Sources/jpreplay gives its commandName first; every command has one")
  func everyCommandIsNamed() throws {
    let files = SourceRulesTests.swiftFiles(under: "Sources/jpreplay")
    #expect(files.count > 20, "the scan found \(files.count) files; is the repository root right?")
    var commands: [String] = []
    var unnamed: [String] = []
    var names = 0
    for f in files {
      let text = try String(contentsOf: SourceRulesTests.repoRoot.appendingPathComponent(f), encoding: .utf8)
      let (c, configurations) = Self.scan(text)
      commands += c
      for name in configurations {
        if let name, !name.isEmpty { names += 1 } else { unnamed.append(f) }
      }
    }
    #expect(unnamed == [], "CommandConfiguration without a commandName in \(unnamed)")
    // Every command type has a configuration (a type without one would have its name derived).
    #expect(commands.count == names + unnamed.count, "\(commands.count) commands, \(names + unnamed.count) configurations")
    #expect(commands.count >= 35)
  }

  @Test("the scan sees an unnamed configuration and a command without one")
  func theScanSees() {
    let named = Self.scan(
      """
      struct Root: ParsableCommand {
        static let configuration = CommandConfiguration(
          commandName: "root", subcommands: [A.self])
      }
      """)
    #expect(named.commands == ["Root"] && named.configurations == ["root"])
    let unnamed = Self.scan(
      """
      struct A: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "x")  // commandName: "a"
      }
      struct B: ParsableCommand {}
      """)
    #expect(unnamed.commands == ["A", "B"] && unnamed.configurations == [nil])
  }
}
