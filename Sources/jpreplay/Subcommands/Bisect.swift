import ArgumentParser
import CanonicalJSON
import Foundation
import Recording
import Lab
import Verify

extension JPReplay {
  /// `jpreplay bisect`: find the change that altered behaviour.
  struct Bisect: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "bisect",
      abstract: "Find what changed behaviour: the commit, or the PoseSpec edits.",
      discussion: """
        `bisect commits --good REV` finds the first commit whose replays differ from the \
        behaviour at GOOD (git bisect run in a separate worktree, builds cached by source \
        tree). `bisect spec OLD NEW` names the smallest set of PoseSpec edits (JSON paths, \
        old → new) that reproduces each behaviour change between two specs, grouped by \
        recording.

        Examples:
          jpreplay bisect spec PoseSpec.json PoseSpec.json s04-frame-left-enter
          jpreplay bisect commits --good HEAD~1 s04-frame-left-enter   # not run: builds a release jpreplay per commit
        """,
      subcommands: [SpecEdits.self, Commits.self, Step.self])
  }
}

extension JPReplay.Bisect {
  struct SpecEdits: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "spec",
      abstract: "The smallest set of PoseSpec edits that explains each behaviour change.",
      discussion: """
        OLD and NEW are PoseSpec files, or REV:PATH to read a spec from git (e.g. \
        HEAD~3:PoseSpec.json). The leaf-level edits between them are listed (cues keyed by \
        id, not index). Every recording is replayed in-process with both specs; for each one \
        whose trace or A.13 lines differ, delta debugging (ddmin) finds the smallest set of \
        edits that, applied to OLD, gives exactly NEW's behaviour on that recording. \
        Recordings are grouped by that edit set. When OLD is REV:PATH, the text report \
        ends with the commit each edit came from: the first commit after REV (up to NEW's \
        revision, or HEAD when NEW is a file) whose PATH holds the edit's new value, or \
        "not committed" for an edit only NEW's file has.

        Exits 0 when the bisection ran (changed or not), 2 on bad input (a spec that does not \
        load, an unreadable recording).

        Examples:
          jpreplay bisect spec Tests/Fixtures/reference-posespec.json PoseSpec.json s04-frame-left-enter s05-head-level-flicker
          jpreplay bisect spec PoseSpec.json PoseSpec.json Recordings/drift-left-and-back.jprec --json
          jpreplay bisect spec HEAD~3:PoseSpec.json PoseSpec.json   # not run: needs the repository's git history
        """)

    @Argument(help: "The old spec: a file, or REV:PATH.")
    var old: String
    @Argument(help: "The new spec: a file, or REV:PATH.")
    var new: String
    @Argument(help: "Recordings to replay (default: every Recordings/*.jprec).")
    var recordings: [String] = []

    @Option(name: .customLong("recordings-dir"), help: "Folder of <name>.jprec recordings.")
    var recordingsDir = "Recordings"
    @Option(name: .customLong("set"), help: ArgumentHelp("Override an engine option for both sides. Repeatable.", valueName: "key=value"))
    var overrides: [String] = []
    @Option(help: "Parallel replays (default: the number of cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount
    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() throws {
      let oldSide = try SpecSource.load(old)
      let newSide = try SpecSource.load(new)
      let urls = try RecordingList.resolve(recordings, recordingsDir: recordingsDir)
      for url in urls {
        try EngineRegistry.requireJustPhoto(url.path, command: "bisect spec", why: "it has no spec file to bisect")
      }
      let parsed = try EngineArguments.parse(overrides.flatMap { ["--set", $0] }).parsedOverrides()
      let bisect = SpecBisect(old: oldSide, new: newSide, overrides: parsed, jobs: max(1, jobs))
      let progress = ProgressLine(label: "bisect spec: recordings")
      let report = try bisect.run(recordings: urls) { done, total in progress.update(done, of: total) }
      progress.finish()
      if json { printJSON(report.json(), terminator: "") } else {
        print(report.render(), terminator: "")
        for l in try SpecSource.origins(of: report.edits, old: old, new: new) { print(l) }
      }
    }
  }
}

/// A PoseSpec named on the command line: a file, or `REV:PATH` read through `git show`.
enum SpecSource {
  /// Commits walked to find where edits came from.
  static let originCommitsMax = 500

  /// Where each edit came from, when `old` is `REV:PATH`: the first commit of REV..NEWREV
  /// (NEW's revision, or HEAD when NEW is a file) touching PATH whose spec holds the edit's
  /// new side; "not committed" when none does. Empty when `old` is a file or git cannot say.
  static func origins(of edits: [SpecEdit], old: String, new: String) throws -> [String] {
    guard !edits.isEmpty, !FileManager.default.fileExists(atPath: old), let colon = old.firstIndex(of: ":") else { return [] }
    let rev = String(old[..<colon])
    let path = String(old[old.index(after: colon)...])
    var newRev = "HEAD"
    if !FileManager.default.fileExists(atPath: new), let c = new.firstIndex(of: ":") { newRev = String(new[..<c]) }
    let list = try Git.run(["rev-list", "--reverse", "--end-of-options", "\(rev)..\(newRev)", "--", path])
    guard list.status == 0 else { return [] }
    let commits = String(decoding: list.stdout, as: UTF8.self).split(separator: "\n").map(String.init).prefix(originCommitsMax)
    var found = [String?](repeating: nil, count: edits.count)
    for c in commits where found.contains(where: { $0 == nil }) {
      let shown = try Git.run(["show", "--end-of-options", "\(c):\(path)"])
      guard shown.status == 0, let doc = try? JSONParser.parse(bytes: [UInt8](shown.stdout)) else { continue }
      for (i, e) in edits.enumerated() where found[i] == nil && value(at: e.path, in: doc) == e.new {
        let subject = String(decoding: try Git.run(["log", "-1", "--format=%s", c]).stdout, as: UTF8.self).trimmed
        found[i] = "\(c.prefix(12)) \(ConsoleText.line(subject))"
      }
    }
    var lines = ["\nwhere each edit came from (commits of \(rev)..\(newRev) that change \(path)):"]
    for (i, f) in found.enumerated() {
      lines.append("  [\(i + 1)] " + (f ?? "not committed (only \(new) has it)"))
    }
    return lines
  }

  /// The value at `path` in `doc` (nil: absent), steps as ``SpecEdit`` names them.
  static func value(at path: [SpecEdit.Step], in doc: JSONValue) -> JSONValue? {
    var cur = doc
    for step in path {
      switch step {
      case .key(let k):
        guard case .object(let o) = cur, let next = o[k] else { return nil }
        cur = next
      case .id(let id):
        guard case .array(let a) = cur, let next = a.first(where: { $0["id"]?.stringValue == id }) else { return nil }
        cur = next
      case .index(let i):
        guard case .array(let a) = cur, a.indices.contains(i) else { return nil }
        cur = a[i]
      }
    }
    return cur
  }

  static func load(_ argument: String) throws -> SpecBisect.Side {
    if FileManager.default.fileExists(atPath: argument) {
      guard let data = FileManager.default.contents(atPath: argument) else {
        throw CLIError.badInput("\(argument): cannot read the PoseSpec")
      }
      return SpecBisect.Side(name: argument, bytes: [UInt8](data))
    }
    guard let colon = argument.firstIndex(of: ":"), colon != argument.startIndex else {
      throw CLIError.badInput("\(argument): no such file (give a PoseSpec file or REV:PATH, e.g. HEAD~1:PoseSpec.json)")
    }
    // Never an option to git: a leading '-' is refused, and --end-of-options ends them anyway.
    guard !argument.hasPrefix("-") else {
      throw CLIError.badInput("\(argument): starts with '-'; give a PoseSpec file or REV:PATH, e.g. HEAD~1:PoseSpec.json")
    }
    let result = try Git.run(["show", "--end-of-options", argument])
    guard result.status == 0 else {
      throw CLIError.badInput("\(argument): git show failed: \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
    }
    return SpecBisect.Side(name: argument, bytes: [UInt8](result.stdout))
  }
}

/// Recording arguments (names, paths) or every `*.jprec` of the recordings folder.
enum RecordingList {
  static func resolve(_ arguments: [String], recordingsDir: String) throws -> [URL] {
    let store = GoldenStore(
      recordingsDir: URL(fileURLWithPath: recordingsDir, isDirectory: true), goldenDir: URL(fileURLWithPath: "Golden"))
    if arguments.isEmpty {
      let names: [String]
      do { names = try store.recordingNames() } catch {
        throw CLIError.badInput("\(recordingsDir): cannot list recordings (\(SystemReason.message(error))); run from the repository root or pass --recordings-dir")
      }
      return names.map { store.recordingURL($0) }
    }
    return try arguments.map { a in
      let url = FileManager.default.fileExists(atPath: a) ? URL(fileURLWithPath: a) : store.recordingURL(store.name(of: a))
      guard FileManager.default.fileExists(atPath: url.path) else {
        throw CLIError.badInput("\(a): no such recording (looked for \(url.path))")
      }
      return url
    }
  }
}

/// Runs git (process spawning stays in the CLI).
enum Git {
  struct Output {
    var status: Int32
    var stdout: Data
    var stderr: String
  }

  /// Runs git; with `passStderr` its standard error (and its children's, e.g. `git bisect
  /// run`'s steps) goes straight to ours, as it happens, and `stderr` is empty.
  static func run(_ arguments: [String], in directory: String? = nil, passStderr: Bool = false) throws -> Output {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["git"] + arguments
    if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = passStderr ? FileHandle.standardError : err
    do { try p.run() } catch { throw CLIError.badInput("cannot run git: \(SystemReason.message(error))") }
    nonisolated(unsafe) var errData = Data()
    let t = Thread { if !passStderr { errData = err.fileHandleForReading.readDataToEndOfFile() } }
    t.start()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    while !t.isFinished { usleep(1000) }
    return Output(status: p.terminationStatus, stdout: data, stderr: String(decoding: errData, as: UTF8.self))
  }
}
