import Foundation
import Replay

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

  init(repo: String, referenceOverride: String? = nil) {
    self.repo = repo
    self.state = repo + "/.build/bisect"
    self.referenceOverride = referenceOverride
  }

  /// The repository containing the current directory.
  static func current(referenceOverride: String? = nil) throws -> BisectWorkspace {
    let top = try Git.run(["rev-parse", "--show-toplevel"])
    guard top.status == 0 else { throw CLIError.badInput("bisect commits: not inside a git repository (\(top.stderr.trimmed))") }
    return BisectWorkspace(repo: String(decoding: top.stdout, as: UTF8.self).trimmed, referenceOverride: referenceOverride)
  }

  /// Whether `rev` names a commit; its full id.
  func commit(_ rev: String) throws -> String {
    let r = try Git.run(["rev-parse", "--verify", "--quiet", rev + "^{commit}"], in: repo)
    guard r.status == 0 else { throw CLIError.badInput("bisect commits: '\(rev)' is not a commit of \(repo)") }
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
    guard r.status == 0 else { throw CLIError.badInput("bisect commits: git worktree add failed: \(r.stderr.trimmed)") }
  }

  func removeTree() {
    _ = try? Git.run(["bisect", "reset"], in: tree)
    _ = try? Git.run(["worktree", "remove", "--force", tree], in: repo)
    _ = try? Git.run(["worktree", "prune"], in: repo)
  }

  /// The release `jpreplay` of the commit checked out in the tree: from the cache, or built in
  /// the tree with the shared scratch folder. nil when that commit does not build.
  func binaryForTree(log: (String) -> Void) throws -> String? {
    let head = String(decoding: try Git.run(["rev-parse", "HEAD"], in: tree).stdout, as: UTF8.self).trimmed
    let key = try buildKey(head)
    let bin = binaryPath(key: key)
    let fm = FileManager.default
    if fm.isExecutableFile(atPath: bin) { return bin }
    if fm.fileExists(atPath: failurePath(key: key)) { return nil }
    log("building jpreplay for \(head.prefix(10)) (build key \(key)) …")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["swift", "build", "-c", "release", "--product", "jpreplay", "--scratch-path", scratch]
    p.currentDirectoryURL = URL(fileURLWithPath: tree)
    let logURL = URL(fileURLWithPath: state + "/build-\(key).log")
    _ = fm.createFile(atPath: logURL.path, contents: nil)  // FileHandle below reports a failure
    let handle = try FileHandle(forWritingTo: logURL)
    p.standardOutput = handle
    p.standardError = handle
    try p.run()
    p.waitUntilExit()
    try? handle.close()
    try fm.createDirectory(atPath: (bin as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    guard p.terminationStatus == 0, fm.isExecutableFile(atPath: scratch + "/release/jpreplay") else {
      _ = fm.createFile(atPath: failurePath(key: key), contents: Data("see \(logURL.path)\n".utf8))  // a lost marker only costs a rebuild
      log("\(head.prefix(10)) does not build (log: \(logURL.path))")
      return nil
    }
    try? fm.removeItem(atPath: bin)
    try fm.copyItem(atPath: scratch + "/release/jpreplay", toPath: bin)
    return bin
  }

  /// Recording names of the tree's `Recordings/`.
  func recordingNames(in dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir + "/Recordings")) ?? [])
      .filter { $0.hasSuffix(".jprec") }.map { String($0.dropLast(6)) }.sorted()
  }

  /// What one commit's replays showed against the reference.
  struct Judgement {
    var verdict: BisectVerdict
    var lines: [String]
    var explanation: String?
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
      let p = Process()
      p.executableURL = URL(fileURLWithPath: binary)
      p.arguments = ["replay", "Recordings/\(n).jprec", "-o", outDir + "/\(n).trace.jsonl", "--a13", outDir + "/\(n).a13.jsonl"]
      p.currentDirectoryURL = URL(fileURLWithPath: tree)
      let err = Pipe()
      p.standardError = err
      p.standardOutput = FileHandle.nullDevice
      try p.run()
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
      let differ = TraceDiffer()
      let got = String(decoding: fm.contents(atPath: out + "/\(n).trace.jsonl") ?? Data(), as: UTF8.self)
      var result = try differ.diffTraces(golden: String(decoding: refTrace, as: UTF8.self), replay: got)
      if result.divergence == nil, let refA13 = fm.contents(atPath: referenceDir + "/\(n).a13.jsonl") {
        let gotA13 = String(decoding: fm.contents(atPath: out + "/\(n).a13.jsonl") ?? Data(), as: UTF8.self)
        result = try differ.diffA13(golden: String(decoding: refA13, as: UTF8.self), replay: gotA13)
      }
      if let d = result.divergence {
        verdict = .bad
        lines.append("\(n): differs — " + ("\(d)".split(separator: "\n").first.map(String.init) ?? ""))
        if explanation == nil { explanation = "\(n):\n" + result.render() }
      } else {
        lines.append("\(n): same")
      }
    }
    if judged == 0 { verdict = .skip }
    return Judgement(verdict: verdict, lines: lines, explanation: explanation)
  }
}

extension String {
  var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
