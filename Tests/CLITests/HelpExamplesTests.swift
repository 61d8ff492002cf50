import Foundation
import Testing

/// Every example command line of every `jpreplay … --help` runs, and exits as documented.
///
/// The convention of the help texts: the examples are the indented lines of a help's overview
/// (above `USAGE:`), each a shell command line, run in order with bash from a scratch copy of
/// the committed tree (Recordings/, Golden/, PoseSpec.json, Tests/Fixtures/, docs/), so an example
/// may use the files an earlier one of the same help wrote and nothing in the repository
/// changes. `/tmp/` in an example is a folder of that scratch copy. Every `jpreplay` in an
/// example must exit 0, or N when the line ends with the comment `# exit N` (an example that
/// shows a difference or damage on purpose); a `jpreplay` whose output goes to `head` may end
/// by SIGPIPE. A line ending with `# not run: <reason>` is shown but not run (for what needs a
/// terminal; no example needs it today). An example whose other tool is not installed
/// (`sqlite3`) is skipped with a note.
@Suite("--help examples")
struct HelpExamplesTests {
  /// One help page: the command path (`[]` is `jpreplay` itself) and its example lines.
  struct Page: CustomTestStringConvertible, Sendable {
    var path: [String]
    var examples: [String]
    var testDescription: String { (["jpreplay"] + path).joined(separator: " ") }
  }

  /// The help text of `path`, unwrapped (one line per source line).
  static func help(_ path: [String]) throws -> String {
    let r = try CLI.run(path + ["--help"], env: ["COLUMNS": "1000"])
    try #require(r.code == 0, "jpreplay \(path.joined(separator: " ")) --help: \(r.stderr)")
    return r.stdout
  }

  /// The example lines of a help text: indented lines above `USAGE:`.
  static func examples(inHelp text: String) -> [String] {
    var out: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("USAGE:") { break }
      if line.first == " " { out.append(line.trimmingCharacters(in: .whitespaces)) }
    }
    return out
  }

  /// The subcommand names listed under `SUBCOMMANDS:`.
  static func subcommands(inHelp text: String) -> [String] {
    guard let range = text.range(of: "SUBCOMMANDS:\n") else { return [] }
    var names: [String] = []
    for line in text[range.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
      guard line.hasPrefix("  "), let name = line.split(separator: " ").first else { break }
      names.append(String(name))
    }
    return names
  }

  /// Every help page, depth first from `jpreplay --help`.
  static let pages: [Page] = {
    var pages: [Page] = []
    func visit(_ path: [String]) throws {
      let text = try help(path)
      pages.append(Page(path: path, examples: examples(inHelp: text)))
      for sub in subcommands(inHelp: text) where sub != "help" { try visit(path + [sub]) }
    }
    do { try visit([]) } catch { pages.append(Page(path: ["<help failed: \(error)>"], examples: [])) }
    return pages
  }()

  @Test func theHelpPagesAreFoundAndEveryCommandHasExamples() {
    let names = Self.pages.map(\.testDescription)
    #expect(names.count >= 15, "\(names)")
    #expect(names.contains("jpreplay spec validate"))
    for page in Self.pages where page.path != ["spec"] {
      #expect(!page.examples.isEmpty, "\(page.testDescription) --help shows no example")
    }
  }

  @Test func theAnnotationsAreRead() {
    #expect(Annotation(line: "jpreplay diff a b    # exit 1") == .exit(1))
    #expect(Annotation(line: "jpreplay verify x   # exit 1: writes .new files") == .exit(1))
    #expect(Annotation(line: "jpreplay review   # not run: needs a terminal") == .notRun)
    #expect(Annotation(line: "printf 'a\\n# exit 3' | jpreplay review") == .exit(0))
  }

  /// Examples whose work another test of the suite already does — the same command over the
  /// committed corpus or spec, with the same exit code asserted — so it is not done twice (each
  /// is minutes of debug replays): the example line → the test file and the words of the
  /// command it runs there. `theSharedExamplesAreRunElsewhere` keeps the table true: each line
  /// is still an example of some help page, and its file still runs that command.
  static let runElsewhere: [String: (file: String, runs: String)] = [
    "jpreplay verify": ("CorpusTests.swift", #"["verify", "--determinism", "--jobs", "2"]"#),
    "jpreplay coverage --markdown > /tmp/coverage.md": ("CorpusTests.swift", #"["coverage", "--markdown"]"#),
    "jpreplay record --all": ("GroundTruthLabelTests.swift", #"["record", "--all", "--recordings-dir""#),
    "jpreplay spec audit PoseSpec.json --json --jobs 2 > /tmp/audit.json    # exit 1: the known hazards (ENGINE §8) are not accepted here":
      ("SpecAuditCLITests.swift", #"["spec", "audit", "PoseSpec.json", "--json", "--jobs", "2", "--accept""#),
    // The same audit read against docs/audit-accepted.txt less two lines: exactly their
    // hazards are not accepted, so the whole file accepts every one (this example's exit 0).
    "jpreplay spec audit --accept docs/audit-accepted.txt --out /tmp/audit-repros":
      ("SpecAuditCLITests.swift", #"docs/audit-accepted.txt"#),
  ]

  @Test func theSharedExamplesAreRunElsewhere() throws {
    let all = Set(Self.pages.flatMap(\.examples))
    for (line, other) in Self.runElsewhere {
      #expect(all.contains(line), "no help page shows `\(line)` any more: drop it from runElsewhere")
      let source = try String(
        contentsOf: CLI.repoRoot.appendingPathComponent("Tests/CLITests").appendingPathComponent(other.file), encoding: .utf8)
      #expect(source.contains(other.runs), "\(other.file) no longer runs \(other.runs): run `\(line)` here again")
    }
  }

  @Test(arguments: pages)
  func everyExampleRuns(page: Page) throws {
    let scratch = try ScratchTree()
    defer { scratch.remove() }
    for line in page.examples {
      let annotation = Annotation(line: line)
      guard case .exit(let expected) = annotation else {
        print("not run (\(page.testDescription)): \(line)")
        continue
      }
      if let other = Self.runElsewhere[line] {
        print("run by \(other.file), not again here (\(page.testDescription)): \(line)")
        continue
      }
      let command = line.replacingOccurrences(of: "/tmp/", with: scratch.tmp.path + "/")
      let before = scratch.invocations()
      let r = try CLI.run(
        ["-c", command], cwd: scratch.root, env: ["PATH": scratch.bin.path + ":" + Self.path],
        removeEnv: ["CI", "GITHUB_ACTIONS", "JPREPLAY_UPDATE", "NO_COLOR"], executable: Self.bash)
      if r.code == 127, r.stderr.contains("command not found"), !r.stderr.contains("jpreplay: command not found") {
        print("skipped (a tool is not installed): \(line)\n\(r.stderr)")
        continue
      }
      let codes = Array(scratch.invocations().dropFirst(before.count))
      let context = "\(page.testDescription) --help example:\n  \(line)\nexit \(r.code)\n\(r.stderr)"
      #expect(!codes.isEmpty || !line.contains("jpreplay"), "no jpreplay ran: \(context)")
      for code in codes {
        let sigpipe = code == 141 && line.contains("| head")
        #expect(code == expected || sigpipe, "jpreplay exited \(code), expected \(expected): \(context)")
      }
      #expect(r.code == expected, "the example exited \(r.code), expected \(expected): \(context)")
    }
  }

  static let bash = URL(fileURLWithPath: "/bin/bash")
  static let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
}

/// What an example line's trailing comment says about running it.
enum Annotation: Equatable {
  /// Run it; every jpreplay in it exits with this code.
  case exit(Int32)
  case notRun

  init(line: String) {
    guard let hash = line.range(of: "  # ", options: .backwards) else {
      self = .exit(0)
      return
    }
    let comment = line[hash.upperBound...]
    if comment.hasPrefix("not run") {
      self = .notRun
    } else if comment.hasPrefix("exit "), let n = Int32(comment.dropFirst(5).prefix { $0.isNumber }) {
      self = .exit(n)
    } else {
      self = .exit(0)
    }
  }
}

/// A scratch copy of the committed tree, with a `jpreplay` on PATH that logs its exit codes.
struct ScratchTree {
  let root: URL
  let tmp: URL
  let bin: URL
  let log: URL

  init() throws {
    let dir = try CLI.tempDir("help")
    root = dir.appendingPathComponent("repo")
    tmp = root.appendingPathComponent("tmp")
    bin = dir.appendingPathComponent("bin")
    log = dir.appendingPathComponent("exit-codes")
    let fm = FileManager.default
    for d in [root, tmp, bin, root.appendingPathComponent("Tests")] {
      try fm.createDirectory(at: d, withIntermediateDirectories: true)
    }
    for item in ["Recordings", "Golden", "PoseSpec.json", "Tests/Fixtures", "docs"] {
      try fm.copyItem(at: CLI.repoRoot.appendingPathComponent(item), to: root.appendingPathComponent(item))
    }
    try Data().write(to: log)
    let wrapper = bin.appendingPathComponent("jpreplay")
    let script = """
      #!/bin/sh
      '\(CLI.binary.path)' "$@"
      status=$?
      echo "$status" >> '\(log.path)'
      exit $status

      """
    try CLI.writeExecutable(Data(script.utf8), to: wrapper)
  }

  /// The exit codes of the jpreplay runs so far, in order.
  func invocations() -> [Int32] {
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { Int32($0) }
  }

  func remove() { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
}
