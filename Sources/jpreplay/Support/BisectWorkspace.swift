import EngineIO
import Foundation
import JustPhotoPlugin
import Recording
import Replay
import Verify

/// The state of `jpreplay bisect commits` under `.build/bisect/` of the repository: a separate
/// worktree that `git bisect` moves, one shared build folder, release binaries cached by the
/// git tree of `Package.swift` + `Sources/` (commits that change only data reuse one build),
/// and the reference behaviour the steps compare with.
struct BisectWorkspace {
  /// The repository's top folder.
  var repo: String
  /// `.build/bisect` under `repo`.
  var state: String
  var tree: String { state + "/tree" }
  var scratch: String { state + "/scratch" }
  var reference: String { state + "/reference" }
  /// The reference may be a golden folder given by the user instead of `reference`.
  var referenceOverride: String?
  var referenceDir: String { referenceOverride ?? reference }
  /// The command its messages name: `bisect commits`, or `minimize --against` (which builds
  /// revisions the same way).
  var command = "bisect commits"

  init(repo: String, referenceOverride: String? = nil, command: String = "bisect commits") {
    self.repo = repo
    self.command = command
    self.state = repo + "/.build/bisect"
    self.referenceOverride = referenceOverride
  }

  /// The repository containing the current directory.
  static func current(referenceOverride: String? = nil, command: String = "bisect commits") throws -> BisectWorkspace {
    let top = try Git.run(["rev-parse", "--show-toplevel"])
    guard top.status == 0 else { throw CLIError.badInput("\(command): not inside a git repository (\(top.stderr.trimmed))") }
    return BisectWorkspace(
      repo: String(decoding: top.stdout, as: UTF8.self).trimmed, referenceOverride: referenceOverride, command: command)
  }

  /// Whether `rev` names a commit; its full id.
  func commit(_ rev: String) throws -> String {
    let r = try Git.run(["rev-parse", "--verify", "--quiet", rev + "^{commit}"], in: repo)
    guard r.status == 0 else { throw CLIError.badInput("\(command): '\(rev)' is not a commit of \(repo)") }
    return String(decoding: r.stdout, as: UTF8.self).trimmed
  }

  func subject(_ commit: String) -> String {
    (try? Git.run(["log", "-1", "--format=%s", commit], in: repo)).map { String(decoding: $0.stdout, as: UTF8.self).trimmed } ?? ""
  }

  /// The build key of a commit: the git trees of `Package.swift` and `Sources/`.
  func buildKey(_ commit: String) throws -> String {
    let r = try Git.run(["rev-parse", "\(commit):Package.swift", "\(commit):Sources"], in: repo)
    let ids = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    guard r.status == 0, ids.count == 2 else { return "nosources-" + commit }
    return String(ids[0].prefix(16)) + "-" + String(ids[1].prefix(16))
  }

  func binaryPath(key: String) -> String { state + "/bin/\(key)/jpreplay" }

  /// The checkout's own release build, when it was built from the build inputs of `key`: the
  /// checkout's `Package.swift` and `Sources/` are those of its HEAD (no change, staged or
  /// not, no untracked file), HEAD's key is `key`, and `.build/release/jpreplay` is newer
  /// than every file of them. Copied into the cache (so a later `swift build` in the checkout
  /// cannot change it under a bisection) and its path returned; nil otherwise.
  func checkoutRelease(matching key: String, log: (String) -> Void) -> String? {
    let fm = FileManager.default
    let release = repo + "/.build/release/jpreplay"
    guard fm.isExecutableFile(atPath: release),
      let built = (try? fm.attributesOfItem(atPath: release))?[.modificationDate] as? Date,
      let status = try? Git.run(["status", "--porcelain", "--untracked-files=all", "--", "Package.swift", "Sources"], in: repo),
      status.status == 0, status.stdout.isEmpty,
      let head = try? Git.run(["rev-parse", "HEAD"], in: repo), head.status == 0,
      (try? buildKey(String(decoding: head.stdout, as: UTF8.self).trimmed)) == key
    else { return nil }
    var newest = (try? fm.attributesOfItem(atPath: repo + "/Package.swift"))?[.modificationDate] as? Date ?? .distantFuture
    if let files = fm.enumerator(atPath: repo + "/Sources") {
      for case let f as String in files {
        if let d = (try? fm.attributesOfItem(atPath: repo + "/Sources/" + f))?[.modificationDate] as? Date, d > newest { newest = d }
      }
    }
    guard built >= newest else { return nil }
    let bin = binaryPath(key: key)
    do {
      try fm.createDirectory(atPath: Paths.directory(of: bin), withIntermediateDirectories: true)
      try Self.install(release, at: bin)
    } catch { return nil }
    log("reusing the checkout's .build/release/jpreplay (built from the same Package.swift and Sources/, key \(key))")
    return bin
  }
  /// Puts a copy of the executable `source` at `target` through a close-on-exec temporary
  /// beside it and a rename: a process started meanwhile (a git or swift child of this one,
  /// a parallel bisect) never holds the copy open for writing — running it would fail with
  /// "Text file busy" — and a reader never sees half a binary.
  static func install(_ source: String, at target: String) throws {
    guard let bytes = FileManager.default.contents(atPath: source) else {
      throw CLIError.badInput("\(source): cannot read")
    }
    let t = try SafeFile.Temporary(beside: target)
    do throws(SafeFileError) {
      try t.write(Array(bytes))
      guard let fd = t.fd, fchmod(fd, 0o755) == 0 else { throw SafeFileError(path: t.path, "cannot make it executable", errno) }
      try t.commit(to: target)
    } catch {
      t.discard()
      throw error
    }
  }
  func failurePath(key: String) -> String { state + "/bin/\(key).failed" }

  /// (Re)creates the bisect worktree, detached at `commit`.
  func resetTree(at commit: String) throws {
    let fm = FileManager.default
    if fm.fileExists(atPath: tree) {
      _ = try? Git.run(["bisect", "reset"], in: tree)
      _ = try Git.run(["worktree", "remove", "--force", tree], in: repo)
    }
    _ = try? Git.run(["worktree", "prune"], in: repo)
    try fm.createDirectory(atPath: state, withIntermediateDirectories: true)
    let r = try Git.run(["worktree", "add", "--detach", "--force", tree, commit], in: repo)
    guard r.status == 0 else { throw CLIError.badInput("\(command): git worktree add failed: \(r.stderr.trimmed)") }
  }

  func removeTree() {
    _ = try? Git.run(["bisect", "reset"], in: tree)
    _ = try? Git.run(["worktree", "remove", "--force", tree], in: repo)
    _ = try? Git.run(["worktree", "prune"], in: repo)
  }

  /// The release `jpreplay` of the commit checked out in the tree: from the cache, or built in
  /// the tree with the shared scratch folder. nil when that commit does not build. Says on
  /// `log` whether the build was cached, and how long a build took.
  func binaryForTree(log: (String) -> Void) throws -> String? {
    let head = String(decoding: try Git.run(["rev-parse", "HEAD"], in: tree).stdout, as: UTF8.self).trimmed
    let key = try buildKey(head)
    let bin = binaryPath(key: key)
    let fm = FileManager.default
    if fm.isExecutableFile(atPath: bin) {
      log("\(head.prefix(10)): cached build (key \(key))")
      return bin
    }
    if let reused = checkoutRelease(matching: key, log: log) { return reused }
    if fm.fileExists(atPath: failurePath(key: key)) {
      log("\(head.prefix(10)): cached build failure (key \(key); remove \(failurePath(key: key)) to retry)")
      return nil
    }
    log("building jpreplay for \(head.prefix(10)) (build key \(key), release; the log is \(state)/build-\(key).log) …")
    let started = Date()
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["swift", "build", "-c", "release", "--product", "jpreplay", "--scratch-path", scratch]
    p.currentDirectoryURL = URL(fileURLWithPath: tree)
    let logURL = URL(fileURLWithPath: state + "/build-\(key).log")
    _ = fm.createFile(atPath: logURL.path, contents: nil)  // FileHandle below reports a failure
    let handle = try FileHandle(forWritingTo: logURL)
    p.standardOutput = handle
    p.standardError = handle
    do { try p.run() } catch { throw CLIError.badInput("cannot run swift build: \(SystemReason.message(error))") }
    p.waitUntilExit()
    try? handle.close()
    let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
    try fm.createDirectory(atPath: Paths.directory(of: bin), withIntermediateDirectories: true)
    guard p.terminationStatus == 0, fm.isExecutableFile(atPath: scratch + "/release/jpreplay") else {
      _ = fm.createFile(atPath: failurePath(key: key), contents: Data("see \(logURL.path)\n".utf8))  // a lost marker only costs a rebuild
      log("\(head.prefix(10)) does not build (after \(seconds) s; log: \(logURL.path))")
      return nil
    }
    log("\(head.prefix(10)): built in \(seconds) s")
    try Self.install(scratch + "/release/jpreplay", at: bin)
    return bin
  }

  /// The release `jpreplay` of any commit: from the cache, or built in the bisect tree
  /// (checked out there, or created for the build and removed after). nil when it does not build.
  func binary(forCommit commit: String, log: (String) -> Void) throws -> String? {
    let fm = FileManager.default
    let key = try buildKey(commit)
    if fm.isExecutableFile(atPath: binaryPath(key: key)) {
      log("\(commit.prefix(10)): cached build (key \(key))")
      return binaryPath(key: key)
    }
    if let reused = checkoutRelease(matching: key, log: log) { return reused }
    if fm.fileExists(atPath: tree) {
      _ = try Git.run(["checkout", "--detach", "--quiet", commit], in: tree)
      return try binaryForTree(log: log)
    }
    try resetTree(at: commit)
    defer { removeTree() }
    return try binaryForTree(log: log)
  }

  /// The commit's PoseSpec.json, written to `.build/bisect/specs/<commit>.json`; nil when the
  /// commit has none.
  func specFile(forCommit commit: String) throws -> String? {
    let r = try Git.run(["show", "\(commit):PoseSpec.json"], in: repo)
    guard r.status == 0 else { return nil }
    let dir = state + "/specs"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let path = dir + "/\(commit).json"
    try r.stdout.write(to: URL(fileURLWithPath: path), options: .atomic)
    return path
  }

  /// Recording names of the tree's `Recordings/` and of its folders one level down, named
  /// with that folder (`pixscan/undo-edges` for Recordings/pixscan/undo-edges.jprec: another
  /// engine's corpus, whose goldens sit in the same folder under Golden/).
  func recordingNames(in dir: String) -> [String] {
    let fm = FileManager.default
    let top = dir + "/Recordings"
    var names: [String] = []
    for entry in ((try? fm.contentsOfDirectory(atPath: top)) ?? []).sorted() {
      if entry.hasSuffix(".jprec") {
        names.append(String(entry.dropLast(6)))
        continue
      }
      var isDir: ObjCBool = false
      guard !entry.hasPrefix("."), fm.fileExists(atPath: top + "/" + entry, isDirectory: &isDir), isDir.boolValue else { continue }
      for f in ((try? fm.contentsOfDirectory(atPath: top + "/" + entry)) ?? []) where f.hasSuffix(".jprec") {
        names.append(entry + "/" + String(f.dropLast(6)))
      }
    }
    return names.sorted()
  }

  /// Whether the tree's recording `name` is of an engine with cue metric tables and a repro
  /// between two builds (`EngineLab.cueMetrics`: Just Photo's); false for a recording this
  /// jpreplay cannot route (an unknown `engine`: its replays report it).
  func hasCueMetrics(_ name: String) -> Bool {
    let routed = try? EngineRegistry.route(tree + "/Recordings/\(name).jprec")
    return routed.map { EngineRegistry.lab(of: $0).cueMetrics } ?? false
  }

  /// What one commit's replays showed against the reference.
  struct Judgement {
    var verdict: BisectVerdict
    var lines: [String]
    var explanation: String?
    /// The first differing recording and its first divergence from the reference.
    var first: (recording: String, divergence: Divergence)?
    /// Every recording that differs from the reference, in the order judged.
    var differing: [String] = []
  }

  /// Replays `names` (those the tree has) with `binary` in the tree, writing traces into
  /// `outDir`; nil for a name the tree lacks; throws nothing: an unreadable recording is
  /// reported as `.failure`.
  func replay(_ names: [String], binary: String, into outDir: String) throws -> [(String, Result<Void, CLIError>?)] {
    try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
    var out: [(String, Result<Void, CLIError>?)] = []
    for n in names {
      guard FileManager.default.fileExists(atPath: tree + "/Recordings/\(n).jprec") else {
        out.append((n, nil))
        continue
      }
      if n.contains("/") {
        try FileManager.default.createDirectory(atPath: Paths.join(outDir, Paths.parent(n)), withIntermediateDirectories: true)
      }
      let p = Process()
      p.executableURL = URL(fileURLWithPath: binary)
      p.arguments = ["replay", "Recordings/\(n).jprec", "-o", outDir + "/\(n).trace.jsonl", "--a13", outDir + "/\(n).a13.jsonl"]
      p.currentDirectoryURL = URL(fileURLWithPath: tree)
      let err = Pipe()
      p.standardError = err
      p.standardOutput = FileHandle.nullDevice
      do { try p.run() } catch { throw CLIError.badInput("cannot run \(binary): \(SystemReason.message(error))") }
      let e = err.fileHandleForReading.readDataToEndOfFile()
      p.waitUntilExit()
      out.append((n, p.terminationStatus == 0 ? .success(()) : .failure(.badInput(String(decoding: e, as: UTF8.self).trimmed))))
    }
    return out
  }

  /// Judges the commit checked out in the tree against the reference.
  func judge(_ names: [String], log: (String) -> Void) throws -> Judgement {
    guard let bin = try binaryForTree(log: log) else {
      return Judgement(verdict: .skip, lines: ["does not build"], explanation: nil)
    }
    let out = state + "/step"
    try? FileManager.default.removeItem(atPath: out)
    var lines: [String] = []
    var verdict = BisectVerdict.good
    var explanation: String?
    var first: (recording: String, divergence: Divergence)?
    var differing: [String] = []
    var judged = 0
    for (n, r) in try replay(names, binary: bin, into: out) {
      guard let r else {
        lines.append("\(n): not at this commit (skipped)")
        continue
      }
      if case .failure(let e) = r {
        lines.append("\(n): unreadable here: \(e.message)")
        return Judgement(verdict: .skip, lines: lines, explanation: nil)
      }
      let fm = FileManager.default
      guard let refTrace = fm.contents(atPath: referenceDir + "/\(n).trace.jsonl") else {
        lines.append("\(n): no reference behaviour (skipped)")
        continue
      }
      judged += 1
      let differ = TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading))
      let got = String(decoding: fm.contents(atPath: out + "/\(n).trace.jsonl") ?? Data(), as: UTF8.self)
      var result = try differ.diffTraceFiles(golden: String(decoding: refTrace, as: UTF8.self), replay: got)
      if result.divergence == nil, let refA13 = fm.contents(atPath: referenceDir + "/\(n).a13.jsonl") {
        let gotA13 = String(decoding: fm.contents(atPath: out + "/\(n).a13.jsonl") ?? Data(), as: UTF8.self)
        result = try differ.diffA13(golden: String(decoding: refA13, as: UTF8.self), replay: gotA13)
      }
      if let d = result.divergence {
        verdict = .bad
        differing.append(n)
        lines.append("\(n): differs — " + ("\(d)".split(separator: "\n").first.map(String.init) ?? ""))
        if explanation == nil {
          explanation = "\(n):\n" + result.render()
          first = (n, d)
        }
      } else {
        lines.append("\(n): same")
      }
    }
    if judged == 0 { verdict = .skip }
    return Judgement(verdict: verdict, lines: lines, explanation: explanation, first: first, differing: differing)
  }

  /// The metric table of `d` (as `diff` prints it) from `binary` replaying the tree's
  /// recording `name` with `--trace metrics` for the cues that explain it.
  func why(binary: String, recording name: String, divergence d: Divergence, side: String) throws -> [String] {
    let why = DivergenceWhy(d)
    guard hasCueMetrics(name) else { return [] }  // cue metric tables are Just Photo's
    var lines = [why.heading(side)]
    guard !why.cues.isEmpty else { return lines }
    let out = state + "/why.trace.jsonl"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: binary)
    p.arguments = ["replay", "Recordings/\(name).jprec", "--trace", "metrics", "-o", out] + why.cues.flatMap { ["--cue", $0] }
    p.currentDirectoryURL = URL(fileURLWithPath: tree)
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { throw CLIError.badInput("cannot run \(binary): \(SystemReason.message(error))") }
    p.waitUntilExit()
    // The child's trace file crosses a process boundary: it is read like a golden, by the one
    // reader.
    guard p.terminationStatus == 0, let data = FileManager.default.contents(atPath: out),
      let read = try? GoldenTrace.records(String(decoding: data, as: UTF8.self))
    else { return lines + ["  (no table: this commit's jpreplay cannot replay \(name) with --trace metrics)"] }
    let records = read.filter { $0.kind == .cue_eval && abs($0.t - d.t) <= 500 }
    lines += CueEvalTable.render(records, cues: why.cues).map { "  " + $0 }
    return lines
  }
}

extension String {
  var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
