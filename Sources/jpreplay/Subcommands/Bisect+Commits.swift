import ArgumentParser
import Foundation
import Lab
import Recording
import Verify

extension JPReplay.Bisect {
  struct Commits: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "commits",
      abstract: "Find the first commit whose replays differ from the behaviour at GOOD.",
      discussion: """
        Wraps `git bisect run` in a separate worktree (.build/bisect/tree; your working tree \
        is not touched). First the watched recordings (default: all of GOOD's Recordings/ and \
        of its folders one level down, named with the folder: pixscan/undo-edges is \
        Recordings/pixscan/undo-edges.jprec, a PixScan recording; one of those that GOOD's \
        jpreplay cannot replay, an engine it does not know yet, is left unwatched) are \
        replayed at GOOD: that is the reference behaviour (or --golden-dir, a folder of \
        <name>.trace.jsonl / .a13.jsonl to compare with instead). Then at each bisection step \
        jpreplay is built for that commit (release, cached under .build/bisect/bin by the git \
        trees of Package.swift and Sources/, so commits that change only data — PoseSpec, \
        recordings, goldens — reuse one build; the checkout's own .build/release/jpreplay is \
        reused when it was built from the same Package.swift and Sources/: a clean checkout \
        whose HEAD has that key, the binary newer than every source file), the commit's own \
        recordings are replayed with \
        its own PoseSpec.json and compared with the reference: 0 same, 1 differs, 125 the \
        commit does not build or a recording is unreadable there. Recordings that do not \
        exist at a commit are skipped. Goldens re-blessed after the culprit do not hide it. \
        Every recording that differs at BAD gets its first bad commit: when some of them \
        still behave like GOOD at the culprit, the range from the culprit to BAD is bisected \
        again for those (as often as needed), and the end lists each recording with its \
        culprit.

        Progress goes to standard error: each step, its commit, whether its build was cached \
        (or how long it took), its verdict and the time since the start. Prints the first bad \
        commit, its subject and diffstat, the first divergence with (for a Just Photo \
        recording) its metric table at the culprit and at its parent (as `diff` prints it), and — when the culprit changed only \
        data files (PoseSpec, scenarios, JSON, YAML; no .swift) — the `bisect spec` command to \
        run next. With --minimize, the first differing recording (Just Photo) is then shrunk while the \
        parent's and the culprit's builds keep differing the same way (`minimize --against`), \
        and written with the parent's goldens under --minimize-dir (Recordings/ and Golden/), \
        ready for `verify`.

        Exits 0 when a first bad commit was found, 1 when BAD behaves like GOOD (or only \
        skipped commits remain), 2 on bad input.

        The plain recipe without this command (goldens must not have been re-blessed in the \
        range; see verify --help for --bisect):
          git bisect start BAD GOOD   # not run: the recipe, for a git checkout
          git bisect run sh -c 'swift build -c release --product jpreplay || exit 125; .build/release/jpreplay verify --bisect s04-frame-left-enter'   # not run: the recipe

        Examples (they need the repository's git history, and build jpreplay per commit):
          jpreplay bisect commits --good HEAD~1 --bad HEAD s04-frame-left-enter   # not run: builds a release jpreplay per commit
          jpreplay bisect commits --good v1.0 --golden-dir /tmp/golden-v1.0   # not run: needs a tag v1.0
          jpreplay bisect commits --good HEAD~3 --minimize gate-probe-hold-vs-frames   # not run: builds a release jpreplay per commit
          jpreplay bisect commits --good HEAD~3 pixscan/undo-edges pixscan/completion   # not run: builds a release jpreplay per commit
        """)

    @Option(help: "A commit whose behaviour is right.")
    var good: String
    @Option(help: "A commit whose behaviour is wrong (default HEAD).")
    var bad = "HEAD"
    @Argument(help: "Recording names to watch, e.g. s04-frame-left-enter or pixscan/undo-edges (default: every recording of GOOD).")
    var recordings: [String] = []
    @Option(name: .customLong("golden-dir"), help: "Compare with these goldens instead of GOOD's replays.")
    var goldenDir: String?
    @Flag(help: "Shrink the first differing recording to a repro of the culprit's regression.")
    var minimize = false
    @Option(name: .customLong("minimize-dir"), help: "Where --minimize writes Recordings/<name>-min.jprec and Golden/ (default .build/bisect/repro).")
    var minimizeDir: String?

    func run() throws {
      var ws = try BisectWorkspace.current(
        referenceOverride: goldenDir.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
      let goodID = try ws.commit(good)
      let badID = try ws.commit(bad)
      let log: (String) -> Void = { printErr("bisect: " + $0) }
      try ws.resetTree(at: goodID)
      defer { ws.removeTree() }
      var names = recordings.isEmpty ? ws.recordingNames(in: ws.tree) : recordings.map { Self.name(of: $0) }
      guard !names.isEmpty else { throw CLIError.badInput("bisect commits: no recordings to watch at \(good)") }
      if !recordings.isEmpty {
        // A named recording that is at neither end cannot be watched: bad input, not "no difference".
        let nowhere = names.filter { n in
          !FileManager.default.fileExists(atPath: ws.tree + "/Recordings/\(n).jprec")
            && ((try? Git.run(["cat-file", "-e", "\(badID):Recordings/\(n).jprec"], in: ws.tree).status) ?? 1) != 0
        }
        guard nowhere.isEmpty else {
          throw CLIError.badInput(
            "bisect commits: no recording \(nowhere.map { "Recordings/\($0).jprec" }.joined(separator: ", ")) at GOOD \(good) or at BAD \(bad); name a recording of the corpus (jpreplay verify lists them)")
        }
      }
      if ws.referenceOverride == nil {
        log("reference: replaying \(names.count) recording(s) at GOOD \(goodID.prefix(10)) \(ws.subject(goodID))")
        guard let bin = try ws.binaryForTree(log: log) else {
          throw CLIError.badInput("bisect commits: GOOD \(good) does not build; choose another GOOD")
        }
        try? FileManager.default.removeItem(atPath: ws.reference)
        for (n, r) in try ws.replay(names, binary: bin, into: ws.reference) {
          guard case .failure(let e)? = r else { continue }
          // A recording of a folder (another engine's corpus) that GOOD's jpreplay cannot
          // replay yet is left unwatched when no names were given; a named one is bad input.
          guard recordings.isEmpty, n.contains("/") else { throw CLIError.badInput("bisect commits: \(n) is unreadable at GOOD: \(e.message)") }
          log("\(n) is unreadable at GOOD (\(e.message.split(separator: "\n").first ?? "")); not watched")
          names.removeAll { $0 == n }
        }
        guard !names.isEmpty else { throw CLIError.badInput("bisect commits: no recording is readable at GOOD \(good)") }
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
      try bisectEach(ws: ws, names: names, good: goodID, bad: badID, atBad: atBad, log: log)
    }

    /// Bisects GOOD..BAD for `names`, then again from each culprit for the recordings that
    /// differ at BAD but behave like GOOD there, until every one has its first bad commit.
    func bisectEach(
      ws: BisectWorkspace, names: [String], good goodID: String, bad badID: String, atBad: BisectWorkspace.Judgement,
      log: (String) -> Void
    ) throws {
      // Every recording differing at BAD gets its culprit: a recording that still behaves
      // like GOOD at one culprit is bisected again from there to BAD.
      var from = goodID
      var watched = names
      var culprits: [(commit: String, recordings: [String])] = []
      while true {
        _ = try Git.run(["bisect", "reset", "--quiet"], in: ws.tree)
        let start = try Git.run(["bisect", "start", badID, from], in: ws.tree)
        guard start.status == 0 else { throw CLIError.badInput("bisect commits: git bisect start: \(start.stderr.trimmed)") }
        try StepProgress.start(state: ws.state)
        let me = SelfExecutable.path
        var stepArgs = ["bisect", "run", me, "bisect", "step", "--state", ws.state, "--reference", ws.referenceDir]
        stepArgs += watched
        // The steps' progress reaches standard error as it happens.
        let run = try Git.run(stepArgs, in: ws.tree, passStderr: true)
        let output = String(decoding: run.stdout, as: UTF8.self)
        // The culprit comes from git's own bisect state, never from free text a commit subject
        // could imitate: the log's "# first bad commit: [<sha>]" line, checked against refs/bisect/bad.
        guard let culprit = try JPReplay.Bisect.firstBadCommit(in: ws.tree) else {
          print(output)
          print("bisect commits: no single first bad commit (only skipped commits left, or git bisect failed)")
          if culprits.isEmpty { throw ExitCode(1) }
          print("  still without a culprit: \(watched.joined(separator: ", "))")
          break
        }
        let differing = try report(
          culprit: culprit, ws: ws, names: watched, log: log, minimize: minimize && culprits.isEmpty,
          heading: culprits.isEmpty ? "first bad commit" : "first bad commit of \(watched.joined(separator: ", "))")
        let blamed = watched.filter { differing.contains($0) && atBad.differing.contains($0) }
        culprits.append((culprit, blamed))
        let rest = watched.filter { atBad.differing.contains($0) && !differing.contains($0) }
        guard !rest.isEmpty, culprit != badID else { break }
        print("\n\(rest.joined(separator: ", ")) differ\(rest.count == 1 ? "s" : "") at BAD but behave\(rest.count == 1 ? "s" : "") like GOOD at \(culprit.prefix(12)): bisecting \(culprit.prefix(12))..BAD again for \(rest.count == 1 ? "it" : "them")\n")
        from = culprit
        watched = rest
      }
      if culprits.count > 1 {
        print("\nevery recording that differs at BAD, with its first bad commit:")
        for c in culprits {
          for n in c.recordings { print("  \(n): \(c.commit.prefix(12)) \(ws.subject(c.commit))") }
        }
      }
    }

    /// What `bisect commits` prints about one culprit (and the repro of `--minimize`); the
    /// recordings of `names` that differ from the reference at the culprit.
    func report(
      culprit: String, ws: BisectWorkspace, names: [String], log: (String) -> Void, minimize: Bool, heading: String
    ) throws -> [String] {
      print("\(heading): \(culprit.prefix(12)) \(ws.subject(culprit))")
      let parent = try? ws.commit(culprit + "^")
      let stat = try Git.run(["show", "--stat", "--format=", "--no-color", culprit], in: ws.repo)
      for l in String(decoding: stat.stdout, as: UTF8.self).split(separator: "\n") { print("  " + l.trimmingCharacters(in: .whitespaces)) }
      _ = try Git.run(["bisect", "reset", "--quiet"], in: ws.tree)
      _ = try Git.run(["checkout", "--detach", "--quiet", culprit], in: ws.tree)
      let j = try ws.judge(names, log: log)
      for l in j.lines where !l.hasSuffix(": same") { print("  " + l) }
      if let e = j.explanation { print("\n" + e, terminator: e.hasSuffix("\n") ? "" : "\n") }
      guard let first = j.first else { return j.differing }
      let badBin = try ws.binaryForTree(log: { _ in })  // judged just above: already reported
      // The recording as the culprit has it, read before the tree moves to the parent.
      if minimize, !ws.hasCueMetrics(first.recording) {
        print("\nbisect commits --minimize: \(first.recording) is not a Just Photo recording; a repro between two builds (minimize --against) is Just Photo's only (nothing minimized; `jpreplay minimize RECORDING --expect …` shrinks it against a trace line)")
      }
      let original = minimize && ws.hasCueMetrics(first.recording) ? try MinimizeFiles.read(URL(fileURLWithPath: ws.tree + "/Recordings/\(first.recording).jprec")) : nil
      if let badBin, ws.hasCueMetrics(first.recording) {
        print("")
        for l in try ws.why(binary: badBin, recording: first.recording, divergence: first.divergence, side: "at the culprit \(culprit.prefix(10))") { print(l) }
      }
      var goodBin: String?
      if let parent {
        _ = try Git.run(["checkout", "--detach", "--quiet", parent], in: ws.tree)
        goodBin = try ws.binaryForTree(log: log)
        if let goodBin, FileManager.default.fileExists(atPath: ws.tree + "/Recordings/\(first.recording).jprec"), ws.hasCueMetrics(first.recording) {
          print("")
          for l in try ws.why(binary: goodBin, recording: first.recording, divergence: first.divergence, side: "at its parent \(parent.prefix(10))") { print(l) }
        }
        let next = try Self.nextStep(ws: ws, parent: parent, culprit: culprit, recordings: j.lines.compactMap { l in
          l.contains(": differs") ? String(l.prefix { $0 != ":" }) : nil
        })
        if !next.isEmpty { print("") }
        for l in next { print(l) }
      }
      if minimize, let original {
        guard let parent, let goodBin, let badBin else {
          throw CLIError.badInput("bisect commits --minimize: the culprit's parent or the culprit does not build; nothing to compare")
        }
        try minimizeRepro(ws: ws, original: original, name: first.recording, good: (parent, goodBin), bad: (culprit, badBin))
      }
      return j.differing
    }

    /// When the culprit changed only data files: what to run next.
    static func nextStep(ws: BisectWorkspace, parent: String, culprit: String, recordings: [String]) throws -> [String] {
      let r = try Git.run(["diff", "--name-only", "--no-renames", parent, culprit], in: ws.repo)
      let files = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
      let code = files.filter { f in
        [".swift", ".c", ".h", ".m"].contains { f.hasSuffix($0) } || f == "Package.swift" || f == "Package.resolved"
      }
      guard r.status == 0, !files.isEmpty, code.isEmpty else { return [] }
      var lines = ["the culprit changed only data files (\(files.prefix(5).joined(separator: ", "))\(files.count > 5 ? ", …" : "")), no code."]
      if files.contains("PoseSpec.json") {
        lines.append("next, to name the PoseSpec edits that changed behaviour:")
        let names = recordings.isEmpty ? "" : " " + recordings.joined(separator: " ")
        lines.append("  jpreplay bisect spec \(parent.prefix(12)):PoseSpec.json \(culprit.prefix(12)):PoseSpec.json\(names)")
      }
      return lines
    }

    /// `--minimize`: the first differing recording, shrunk while the parent's and the culprit's
    /// builds (each with its own PoseSpec) keep differing the same way.
    func minimizeRepro(
      ws: BisectWorkspace, original: Minimizer.Candidate, name: String, good: (commit: String, binary: String), bad: (commit: String, binary: String)
    ) throws {
      guard let goodSpec = try ws.specFile(forCommit: good.commit), let badSpec = try ws.specFile(forCommit: bad.commit) else {
        throw CLIError.badInput("bisect commits --minimize: a commit has no PoseSpec.json")
      }
      let dir = minimizeDir ?? ws.state + "/repro"
      let scratch = URL(fileURLWithPath: ws.state + "/minimize-scratch")
      defer { try? FileManager.default.removeItem(at: scratch) }
      let reference = RegressionRepro.external(
        binary: good.binary, spec: goodSpec, overrides: [], label: "commit \(good.commit.prefix(12)) \(ws.subject(good.commit))", name: name,
        scratch: scratch, tag: "good")
      let tested = RegressionRepro.external(
        binary: bad.binary, spec: badSpec, overrides: [], label: "commit \(bad.commit.prefix(12)) \(ws.subject(bad.commit))", name: name,
        scratch: scratch, tag: "bad")
      try FileManager.default.createDirectory(atPath: dir + "/Recordings", withIntermediateDirectories: true)
      let out = dir + "/Recordings/\(name)-min.jprec"
      let r = try RegressionRepro.run(
        original: original, name: name, reference: reference, tested: tested, output: out, force: true,
        goldenDir: dir + "/Golden", windowMs: 1000, progressLabel: "bisect commits: minimize:")
      print("\nminimized \(name) to a repro of the regression (parent \(good.commit.prefix(10)) vs culprit \(bad.commit.prefix(10))):")
      print("  " + r.first.divergence.explanation.replacingOccurrences(of: "golden", with: "parent").replacingOccurrences(of: "replay", with: "culprit"))
      JPReplay.Minimize.printSizes(r.outcome)
      for l in r.lines { print("  " + l) }
      print("  check: jpreplay verify --recordings-dir \(dir)/Recordings --golden-dir \(dir)/Golden   (the parent passes, the culprit fails)")
    }

    /// A watched recording's name: `s04-frame-left-enter`, or with its folder under
    /// Recordings/ (`pixscan/undo-edges`); a path `…/Recordings/pixscan/undo-edges.jprec` gives
    /// the same, another path to a .jprec its file name.
    static func name(of argument: String) -> String {
      var n = argument
      if let r = n.range(of: "Recordings/", options: .backwards), r.lowerBound == n.startIndex || n[n.index(before: r.lowerBound)] == "/" {
        n = String(n[r.upperBound...])
      } else if n.hasSuffix(".jprec") {
        n = Paths.name(n)
      }
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
      commandName: "step",
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
      let step = StepProgress.next(state: state, tree: tree)
      printErr("bisect: \(step.label): \(head)")
      let started = Date()
      let j: BisectWorkspace.Judgement
      do { j = try ws.judge(recordings, log: { printErr("bisect:   " + $0) }) } catch {
        printErr("bisect: \(step.label): skip (\(error))")
        throw ExitCode(BisectVerdict.skip.rawValue)
      }
      let took = String(format: "%.1f", Date().timeIntervalSince(started))
      printErr("bisect: \(step.label): \(j.verdict) (\(took) s; \(StepProgress.elapsed(state: state)) since the start)")
      for l in j.lines where !l.hasSuffix(": same") { printErr("  " + l) }
      throw ExitCode(j.verdict.rawValue)
    }
  }
}

/// `bisect commits`' progress across its `bisect step` processes: a step counter and the start
/// time in files of the bisect state folder.
enum StepProgress {
  static func start(state: String) throws {
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    try Data("0\n".utf8).write(to: URL(fileURLWithPath: state + "/steps"))
    try Data("\(Date().timeIntervalSince1970)\n".utf8).write(to: URL(fileURLWithPath: state + "/started"))
  }

  static func read(_ path: String) -> Double? {
    FileManager.default.contents(atPath: path).flatMap { Double(String(decoding: $0, as: UTF8.self).trimmed) }
  }

  /// The next step's number, and about how many steps remain after it (log2 of the commits
  /// between refs/bisect/bad and the good refs).
  static func next(state: String, tree: String) -> (number: Int, label: String) {
    let n = Int(read(state + "/steps") ?? 0) + 1
    try? Data("\(n)\n".utf8).write(to: URL(fileURLWithPath: state + "/steps"))
    var label = "step \(n)"
    let goods = (try? Git.run(["for-each-ref", "--format=%(refname)", "refs/bisect/"], in: tree))
      .map { String(decoding: $0.stdout, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("refs/bisect/good") }.map { "^" + $0 } } ?? []
    if let r = try? Git.run(["rev-list", "--count", "refs/bisect/bad"] + goods, in: tree), r.status == 0,
      let count = Int(String(decoding: r.stdout, as: UTF8.self).trimmed), count > 1
    {
      let left = Int(log2(Double(count)).rounded(.up)) - 1
      label += left > 0 ? " (about \(left) more after this)" : " (likely the last)"
    }
    return (n, label)
  }

  /// "12 s" or "3 min 4 s" since `start`.
  static func elapsed(state: String) -> String {
    guard let t0 = read(state + "/started") else { return "?" }
    let s = Int(Date().timeIntervalSince1970 - t0)
    return s < 60 ? "\(s) s" : "\(s / 60) min \(s % 60) s"
  }
}
