import ArgumentParser
import Foundation
import Replay

extension JPReplay.Bisect {
  struct Commits: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Find the first commit whose replays differ from the behaviour at GOOD.",
      discussion: """
        Wraps `git bisect run` in a separate worktree (.build/bisect/tree; your working tree \
        is not touched). First the watched recordings (default: all of GOOD's Recordings/) are \
        replayed at GOOD: that is the reference behaviour (or --golden-dir, a folder of \
        <name>.trace.jsonl / .a13.jsonl to compare with instead). Then at each bisection step \
        jpreplay is built for that commit (release, cached under .build/bisect/bin by the git \
        trees of Package.swift and Sources/, so commits that change only data — PoseSpec, \
        recordings, goldens — reuse one build), the commit's own recordings are replayed with \
        its own PoseSpec.json and compared with the reference: 0 same, 1 differs, 125 the \
        commit does not build or a recording is unreadable there. Recordings that do not \
        exist at a commit are skipped. Goldens re-blessed after the culprit do not hide it.

        Prints the first bad commit, its subject and the explained divergence. Exits 0 when \
        a first bad commit was found, 1 when BAD behaves like GOOD (or only skipped commits \
        remain), 2 on bad input.

        The plain recipe without this command (goldens must not have been re-blessed in the \
        range; see verify --help for --bisect):
          git bisect start BAD GOOD   # not run: the recipe, for a git checkout
          git bisect run sh -c 'swift build -c release --product jpreplay || exit 125; .build/release/jpreplay verify --bisect s04-frame-left-enter'   # not run: the recipe

        Examples (they need the repository's git history, and build jpreplay per commit):
          jpreplay bisect commits --good HEAD~1 --bad HEAD s04-frame-left-enter   # not run: builds a release jpreplay per commit
          jpreplay bisect commits --good v1.0 --golden-dir /tmp/golden-v1.0   # not run: needs a tag v1.0
        """)

    @Option(help: "A commit whose behaviour is right.")
    var good: String
    @Option(help: "A commit whose behaviour is wrong (default HEAD).")
    var bad = "HEAD"
    @Argument(help: "Recording names to watch (default: every recording of GOOD).")
    var recordings: [String] = []
    @Option(name: .customLong("golden-dir"), help: "Compare with these goldens instead of GOOD's replays.")
    var goldenDir: String?

    func run() throws {
      var ws = try BisectWorkspace.current(
        referenceOverride: goldenDir.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
      let goodID = try ws.commit(good)
      let badID = try ws.commit(bad)
      let log: (String) -> Void = { printErr("bisect: " + $0) }
      try ws.resetTree(at: goodID)
      defer { ws.removeTree() }
      let names = recordings.isEmpty ? ws.recordingNames(in: ws.tree) : recordings.map { Self.name(of: $0) }
      guard !names.isEmpty else { throw CLIError.badInput("bisect commits: no recordings to watch at \(good)") }
      if ws.referenceOverride == nil {
        log("reference: replaying \(names.count) recording(s) at GOOD \(goodID.prefix(10)) \(ws.subject(goodID))")
        guard let bin = try ws.binaryForTree(log: log) else {
          throw CLIError.badInput("bisect commits: GOOD \(good) does not build; choose another GOOD")
        }
        try? FileManager.default.removeItem(atPath: ws.reference)
        for (n, r) in try ws.replay(names, binary: bin, into: ws.reference) {
          if case .failure(let e)? = r { throw CLIError.badInput("bisect commits: \(n) is unreadable at GOOD: \(e.message)") }
        }
      }
      ws.referenceOverride = ws.referenceOverride ?? ws.reference
      // BAD must differ, or there is nothing to find.
      _ = try Git.run(["checkout", "--detach", "--quiet", badID], in: ws.tree)
      let atBad = try ws.judge(names, log: log)
      guard atBad.verdict == .bad else {
        for l in atBad.lines { print("  " + l) }
        print("bisect commits: BAD \(bad) is \(atBad.verdict == .good ? "the same as the reference" : "not judgeable (skip)"); nothing to find")
        throw ExitCode(1)
      }
      _ = try Git.run(["bisect", "reset", "--quiet"], in: ws.tree)
      let start = try Git.run(["bisect", "start", badID, goodID], in: ws.tree)
      guard start.status == 0 else { throw CLIError.badInput("bisect commits: git bisect start: \(start.stderr.trimmed)") }
      let me = SelfExecutable.path
      var stepArgs = ["bisect", "run", me, "bisect", "step", "--state", ws.state, "--reference", ws.referenceDir]
      stepArgs += names
      let run = try Git.run(stepArgs, in: ws.tree)
      let output = String(decoding: run.stdout, as: UTF8.self)
      FileHandle.standardError.write(Data(run.stderr.utf8))
      // The culprit comes from git's own bisect state, never from free text a commit subject
      // could imitate: the log's "# first bad commit: [<sha>]" line, checked against refs/bisect/bad.
      guard let culprit = try JPReplay.Bisect.firstBadCommit(in: ws.tree) else {
        print(output)
        print("bisect commits: no single first bad commit (only skipped commits left, or git bisect failed)")
        throw ExitCode(1)
      }
      print("first bad commit: \(culprit.prefix(12)) \(ws.subject(culprit))")
      _ = try Git.run(["bisect", "reset", "--quiet"], in: ws.tree)
      _ = try Git.run(["checkout", "--detach", "--quiet", culprit], in: ws.tree)
      let j = try ws.judge(names, log: log)
      for l in j.lines where !l.hasSuffix(": same") { print("  " + l) }
      if let e = j.explanation { print("\n" + e, terminator: e.hasSuffix("\n") ? "" : "\n") }
    }

    static func name(of argument: String) -> String {
      var n = (argument as NSString).lastPathComponent
      if n.hasSuffix(".jprec") { n.removeLast(6) }
      return n
    }
  }

  /// The first bad commit of a finished bisection in `tree`: the hash on the line of `git bisect
  /// log` that starts with "# first bad commit: [" (a subject follows the hash on its own line, so
  /// it cannot start one), equal to `refs/bisect/bad`; nil when the bisection found none.
  static func firstBadCommit(in tree: String) throws -> String? {
    let log = String(decoding: try Git.run(["bisect", "log"], in: tree).stdout, as: UTF8.self)
    let marker = "# first bad commit: ["
    guard let line = log.split(separator: "\n").last(where: { $0.hasPrefix(marker) }) else { return nil }
    let hash = String(line.dropFirst(marker.count).prefix { $0.isHexDigit })
    guard hash.count >= 40 else { return nil }
    let bad = String(decoding: try Git.run(["rev-parse", "--verify", "--quiet", "refs/bisect/bad"], in: tree).stdout, as: UTF8.self)
    return bad.trimmingCharacters(in: .whitespacesAndNewlines) == hash ? hash : nil
  }
}

extension JPReplay.Bisect {
  /// One `git bisect run` step (run by `bisect commits`, in its worktree).
  struct Step: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "One bisection step: 0 same as the reference, 1 differs, 125 skip.", shouldDisplay: false)

    @Option var state: String
    @Option var reference: String
    @Argument var recordings: [String] = []

    func run() throws {
      let top = try Git.run(["rev-parse", "--show-toplevel"])
      let tree = String(decoding: top.stdout, as: UTF8.self).trimmed
      var ws = BisectWorkspace(repo: tree, referenceOverride: reference)
      ws.state = state
      // The step runs inside the bisect worktree: that is the tree it judges.
      guard URL(fileURLWithPath: tree).standardizedFileURL.path == URL(fileURLWithPath: ws.tree).standardizedFileURL.path
      else { throw ExitCode(BisectVerdict.skip.rawValue) }
      let head = String(decoding: try Git.run(["log", "-1", "--format=%h %s"], in: tree).stdout, as: UTF8.self).trimmed
      let j: BisectWorkspace.Judgement
      do { j = try ws.judge(recordings, log: { printErr("bisect: " + $0) }) } catch {
        printErr("bisect: \(head): skip (\(error))")
        throw ExitCode(BisectVerdict.skip.rawValue)
      }
      printErr("bisect: \(head): \(j.verdict)")
      for l in j.lines where !l.hasSuffix(": same") { printErr("  " + l) }
      throw ExitCode(j.verdict.rawValue)
    }
  }
}
