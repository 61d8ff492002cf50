import Foundation
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
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

/// Issue 34 item 5: the one console writer, held by every command. A corpus whose file names
/// and text fields carry a forged workflow command (`\n::error file=x::forged`), a terminal
/// escape (ESC[2J), a bidi override (U+202E) and a zero-width space (U+200B) — a recording, a
/// Just Photo and a PixScan scenario, a pending golden, a decisions file, a tune space, a spec,
/// a JSONL file and a folder holding a name that is not valid UTF-8 — is given to every
/// subcommand (enumerated from the command tree, so a new command is covered without editing
/// this test). Nothing printed on standard output or standard error may hold a raw control
/// character (but newline and tab), ESC, a bidi or zero-width character, or a line a CI runner
/// reads as a command.
@Suite struct EveryCommandConsoleTests {
  /// The hostile text: a newline and a forged `::error`, ESC[2J, U+202E, U+200B.
  static let hostile = "x\n::error file=x::forged\u{1B}[2J\u{202E}evil\u{200B}"

  /// Every leaf command path (`["spec", "validate"]`), from the command tree jpreplay dumps
  /// (swift-argument-parser's `--experimental-dump-help`: the registry itself).
  static func leafCommands() throws -> [[String]] {
    let r = try CLI.run(["--experimental-dump-help"])
    try #require(r.code == 0, "\(r.stderr)")
    let root = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
    var out: [[String]] = []
    func visit(_ c: [String: Any], _ path: [String]) {
      let subs = (c["subcommands"] as? [[String: Any]] ?? []).filter { ($0["commandName"] as? String) != "help" }
      if subs.isEmpty, !path.isEmpty { out.append(path) }
      for s in subs { visit(s, path + [s["commandName"] as? String ?? "?"]) }
    }
    visit(try #require(root["command"] as? [String: Any]), [])
    return out
  }

  /// Why `text` (one stream) is unsafe on a console or CI log, or nil.
  static func problem(_ text: String, annotations: Bool = false) -> String? {
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      for u in line.unicodeScalars {
        let v = u.value
        if (v < 0x20 && v != 0x09) || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029
          || u.properties.generalCategory == .format
        {
          return "raw U+\(String(v, radix: 16, uppercase: true)) in: \(line.debugDescription)"
        }
      }
      let start = line.drop(while: \.isWhitespace)
      // With annotations on, verify's own `::error file=…` lines are the tool's (their data
      // escaped by GitHubAnnotations); a line the hostile text starts never is.
      let own = annotations && start.hasPrefix("::error file=") && !start.hasPrefix("::error file=x::")
      if start.hasPrefix("::") && !own { return "a line a runner reads as a command: \(line.debugDescription)" }
      if line.contains("##[") { return "a runner command (##[): \(line.debugDescription)" }
      // The sink's net caught it, but the newline from the file reached the console raw: the
      // text should have been printed as one line (ConsoleText.line).
      if start.hasPrefix("\\u{3A}:error file=x") { return "a newline from a file printed raw before: \(line.debugDescription)" }
    }
    return nil
  }

  /// The hostile corpus in `dir`; returns the files to give the commands.
  static func corpus(in dir: URL) throws -> [String] {
    let fm = FileManager.default
    let h = hostile
    for sub in ["Recordings", "Golden", "bad"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    let root = CLI.repoRoot
    try fm.copyItem(at: root.appendingPathComponent("PoseSpec.json"), to: dir.appendingPathComponent("PoseSpec.json"))
    func write(_ text: String, _ name: String) throws { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
    // A recording with a hostile name, its golden and a pending golden with hostile lines.
    let rec = "Recordings/\(h).jprec"
    try fm.copyItem(at: root.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"), to: dir.appendingPathComponent(rec))
    for kind in ["trace", "a13"] {
      try fm.copyItem(
        at: root.appendingPathComponent("Golden/s04-frame-left-enter.\(kind).jsonl"), to: dir.appendingPathComponent("Golden/\(h).\(kind).jsonl"))
    }
    let golden = try String(contentsOf: root.appendingPathComponent("Golden/s04-frame-left-enter.trace.jsonl"), encoding: .utf8)
    try write(
      golden + "{\"t\":1,\"out\":\"cue_display\",\"cue\":\"\(h.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\u{1B}", with: "\\u001b"))\"}\n",
      "Golden/\(h).trace.jsonl.new")
    // A PixScan scenario whose ids, text and notes are hostile (YAML escapes), with a rule it
    // breaks, and its recording.
    let y = "x\\n::error file=x::forged\\e[2J\\u202Eevil\\u200B"
    try write(
      """
      engine: pixscan
      name: hostile
      notes: "\(y)"
      library:
        count: 0
        assets:
          - {id: "A\(y)", created: 2026-06-10, screenshot: true, bytes: 3000}
          - {id: "B\(y)", created: 2026-06-09, screenshot: false, bytes: 3000}
      script:
        - {at: 0, do: app_launch, permission: authorized, store: {onboarding_completed: true}}
        - {at: 100, do: library_snapshot}
        - {at: 1000, do: swipe, direction: down}
        - {at: 1100, do: ocr_result, photo: "A\(y)", ok: true, text: "T\(y)"}
        - {at: 1500, do: swipe, direction: left}
      expect:
        - {saw: action, with: {photo: "B\(y)", action: "ocr_keep"}, at: 1000}

      """, "Recordings/hostile.yaml")
    try #require(try CLI.run(["record", "Recordings/hostile.yaml"], cwd: dir).code == 0)
    // A Just Photo scenario with hostile notes and a rule naming a hostile cue id.
    var s04 = try String(contentsOf: root.appendingPathComponent("Recordings/s04-frame-left-enter.scenario.yaml"), encoding: .utf8)
    s04 = s04.replacingOccurrences(of: "name: s04-frame-left-enter", with: "name: jp")
    s04 = s04.replacingOccurrences(of: "expect:\n", with: "expect:\n  - {not_displayed: \"CUE\(y)\", from: 0, to: 100}\n")
    try write(s04 + "\n", "jp.scenario.yaml")
    // A decisions file, a tune space, a spec and a JSONL file carrying it.
    let j = "x\\n::error file=x::forged\\u001b[2J\u{202E}evil\u{200B}"
    try write(
      "{\"format\":\"jpreplay-decisions\",\"version\":1,\"decisions\":[{\"recording\":\"\(j)\",\"decision\":\"accept\",\"pending\":{\"trace\":\"\(j)\"}}]}\n",
      "decisions.json")
    try write("parameters:\n  \"\(y)\": {values: [1, 2]}\n\"\(y)\": 1\n", "space.yaml")
    // A valid spec whose cue id carries it (for spec validate: it prints the cues) and one
    // refused at once (for everything else: an audit of a valid spec takes minutes).
    let spec = try String(contentsOf: root.appendingPathComponent("PoseSpec.json"), encoding: .utf8)
    try write(spec.replacingOccurrences(of: "\"FRAME_MOVE_LEFT\"", with: "\"\(j)\""), "spec.json")
    let persist = try #require(spec.range(of: "\"persistFrames\": "))
    try write(spec[..<persist.upperBound] + "\"\(j)\"" + spec[persist.upperBound...].drop { $0.isNumber }, "badspec.json")
    let jsonl = try CLI.run(["record", "Recordings/hostile.yaml", "--jsonl"], cwd: dir)
    try #require(jsonl.code == 0, "\(jsonl.stderr)")
    try write(jsonl.stdout.replacingOccurrences(of: "\"swipe\"", with: "\"swipe\(j)\""), "hostile.jsonl")
    // A folder holding a recording whose name is not valid UTF-8 ("a\xFFb.jprec").
    let path = Array(dir.appendingPathComponent("bad").path.utf8) + Array("/a".utf8) + [0xFF] + Array("\u{1B}[2Jb.jprec".utf8) + [0]
    let fd = path.withUnsafeBufferPointer { p in p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: path.count) { open($0, O_CREAT | O_WRONLY, 0o644) } }
    if fd >= 0 { close(fd) }
    return [
      rec, "Recordings/hostile.jprec", "Recordings/hostile.yaml", "jp.scenario.yaml", "decisions.json", "space.yaml", "badspec.json",
      "hostile.jsonl", "Golden/\(h).trace.jsonl.new", "bad", "missing-\(h).jprec",
    ]
  }

  /// Arguments besides "each hostile file alone" for commands whose inputs are options.
  static let extra: [String: [[String]]] = [
    "verify": [[], ["--recordings-dir", "bad"], ["--format", "json"]],
    "review": [[], ["--group"]],
    "accept": [["--decisions", "decisions.json"], ["--all"]],
    "reject": [["--all"]],
    "tune run": [["--space", "space.yaml", "--trials", "1"]],
    "spec validate": [["spec.json"]],
    "faults": [["--recordings", "Recordings"]],
    "coverage": [["Recordings"]],
    "score": [["Recordings"]],
    "minimize": [["Recordings/hostile.jprec", "--expect", "action"]],
    "diff": [["Golden/\(hostile).trace.jsonl", "Golden/\(hostile).trace.jsonl.new"]],
    "record": [["jp.scenario.yaml", "--jsonl"]],
  ]

  @Test("every command over a hostile corpus prints no raw control, bidi or zero-width character and forges no CI line")
  func everyCommand() throws {
    let dir = try CLI.tempDir("hostile-console")
    defer { try? FileManager.default.removeItem(at: dir) }
    let files = try Self.corpus(in: dir)
    let commands = try Self.leafCommands()
    #expect(commands.count >= 20, "\(commands)")
    var runs = 0
    for path in commands {
      let name = path.joined(separator: " ")
      // Long-running work with valid input is not what this test is about.
      var argSets = files.map { [$0] } + (Self.extra[name] ?? [])
      if name == "bench" { argSets = files.filter { !$0.hasSuffix(".jprec") }.map { [$0] } }
      for args in argSets {
        let r = try CLI.run(path + args, cwd: dir, removeEnv: ["GITHUB_ACTIONS", "CI"], stdin: "")
        runs += 1
        #expect(r.code >= 0 && r.code <= 2, "jpreplay \(name) \(args.debugDescription): exit \(r.code)\n\(r.stderr)")
        if let p = Self.problem(r.stdout) { Issue.record("jpreplay \(name) \(args.debugDescription): stdout: \(p)") }
        if let p = Self.problem(r.stderr) { Issue.record("jpreplay \(name) \(args.debugDescription): stderr: \(p)") }
      }
    }
    // verify on a CI runner: its own annotations, no forged one.
    let ci = try CLI.run(["verify"], cwd: dir, env: ["CI": "true", "GITHUB_ACTIONS": "true"])
    #expect(Self.problem(ci.stdout, annotations: true) == nil, "\(Self.problem(ci.stdout, annotations: true) ?? "")")
    #expect(Self.problem(ci.stderr, annotations: true) == nil, "\(Self.problem(ci.stderr, annotations: true) ?? "")")
    #expect(runs >= commands.count * files.count)
  }

  @Test("the check itself catches each hostile character")
  func checkCatches() {
    for bad in ["a\u{1B}[2J", "a\rb", "\u{202E}x", "x\u{200B}", "x\u{2066}", "x\u{9B}", "::error file=x::forged", "  ::warning::x", "a ##[error]b"] {
      #expect(Self.problem(bad) != nil, "\(bad.debugDescription)")
    }
    #expect(Self.problem("plain\ttext\nnext line: a::b\n") == nil)
  }
}
