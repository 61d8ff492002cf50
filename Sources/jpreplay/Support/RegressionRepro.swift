import CanonicalJSON
import Foundation
import Recording
import Lab
import Recording
import Replay

/// `minimize --against` and `bisect commits --minimize`: shrink a recording while two engines
/// keep differing in the same way, write it with both engines' verdicts in its header and,
/// when asked, the reference engine's goldens beside it. Process spawning stays in the CLI.
enum RegressionRepro {
  /// Another jpreplay executable as an engine: `BINARY replay CANDIDATE -o … --a13 … --spec
  /// SPEC [--set …]`, run in the current directory on a temporary copy of the candidate.
  /// Each side runs in its own folder under `scratch` (`tag`), so two sides can run at once.
  static func external(binary: String, spec: String, overrides: [String], label: String, name: String, scratch: URL, tag: String)
    -> RegressionProperty.Side
  {
    var runs = 0
    return RegressionProperty.Side(label: label) { c in
      runs += 1
      let dir = scratch.joined("\(tag)-\(runs)")
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: dir) }
      let candidate = dir.joined("\(name).jprec").path
      try MinimizeFiles.write(c, from: name, to: candidate, force: true)
      let trace = dir.joined("trace.jsonl").path
      let a13 = dir.joined("a13.jsonl").path
      guard try replay(binary: binary, recording: candidate, spec: spec, overrides: overrides, trace: trace, a13: a13) else { return nil }
      guard let t = FileManager.default.contents(atPath: trace), let a = FileManager.default.contents(atPath: a13) else { return nil }
      return RegressionProperty.Products(trace: String(decoding: t, as: UTF8.self), a13: String(decoding: a, as: UTF8.self))
    }
  }

  /// Runs `binary replay`; whether it exited 0.
  static func replay(binary: String, recording: String, spec: String, overrides: [String], trace: String, a13: String) throws -> Bool {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: binary)
    p.arguments = ["replay", recording, "-o", trace, "--a13", a13, "--spec", spec] + overrides.flatMap { ["--set", $0] }
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { throw CLIError.badInput("cannot run \(binary): \(SystemReason.message(error))") }
    p.waitUntilExit()
    return p.terminationStatus == 0
  }

  /// `--against REV|BINARY`: an executable file is run as is with this command's spec; anything
  /// else is a git revision, built (or taken from the cache) as `bisect commits` does and run
  /// with that revision's PoseSpec.json.
  static func reference(_ against: String, spec: String, overrides: [String], name: String, scratch: URL) throws
    -> RegressionProperty.Side
  {
    var isDir: ObjCBool = false
    if FileManager.default.fileExists(atPath: against, isDirectory: &isDir), !isDir.boolValue {
      guard FileManager.default.isExecutableFile(atPath: against) else {
        throw CLIError.badInput("--against \(against): not executable (give a jpreplay executable or a git revision, e.g. HEAD~1)")
      }
      return external(binary: against, spec: spec, overrides: overrides, label: "\(against) with \(spec)", name: name, scratch: scratch, tag: "reference")
    }
    guard !against.hasPrefix("-") else { throw CLIError.badInput("--against \(against): starts with '-'; give a jpreplay executable or a git revision") }
    let ws = try BisectWorkspace.current(command: "minimize --against")
    let commit = try ws.commit(against)
    guard let bin = try ws.binary(forCommit: commit, log: { printErr("minimize: " + $0) }) else {
      throw CLIError.badInput("--against \(against): commit \(commit.prefix(10)) does not build (see \(ws.state)/build-*.log)")
    }
    guard let revSpec = try ws.specFile(forCommit: commit) else {
      throw CLIError.badInput("--against \(against): commit \(commit.prefix(10)) has no PoseSpec.json")
    }
    return external(
      binary: bin, spec: revSpec, overrides: overrides, label: "commit \(commit.prefix(12)) \(ws.subject(commit))", name: name, scratch: scratch,
      tag: "reference")
  }

  struct Result {
    var outcome: Minimizer.Outcome
    var first: RegressionProperty.Difference
    var lines: [String]
  }

  /// Minimizes `original` (read from `recording`, named `name`) while `reference` and `tested`
  /// differ as they do on it; writes `output` with both verdicts in its header, and the
  /// reference's trace and A.13 goldens into `goldenDir` when given.
  static func run(
    original: Minimizer.Candidate, name: String, reference: RegressionProperty.Side, tested: RegressionProperty.Side,
    output: String, force: Bool, goldenDir: String?, windowMs: Int64, progressLabel: String
  ) throws -> Result {
    let setup = try RegressionProperty.make(original: original, reference: reference, tested: tested)
    let progress = ProgressLine(label: progressLabel)
    let minimizer = Minimizer(
      windowMs: windowMs, progress: JPReplay.Minimize.progressLine(progress, of: original), property: setup.property)
    var outcome = try minimizer.run(original)
    progress.finish()
    outcome.minimized.header["regression"] = RegressionProperty.verdicts(setup.first, reference: reference.label, tested: tested.label)
    // What the written file shows, with its final header: the reference's products are its
    // golden; the tested engine must still differ the same way.
    guard let products = try reference.run(outcome.minimized), let mine = try tested.run(outcome.minimized),
      let d = RegressionProperty.difference(reference: products, tested: mine), d.sameAs(setup.first)
    else { throw CLIError.badInput("\(name): the minimized recording no longer shows the difference once written (please report)") }
    try MinimizeFiles.write(outcome.minimized, from: name, to: output, force: force)
    var lines = ["wrote \(output)"]
    if let goldenDir {
      let base = Paths.stem(output)
      try FileManager.default.createDirectory(atPath: goldenDir, withIntermediateDirectories: true)
      for (ext, text) in [("trace", products.trace), ("a13", products.a13)] {
        let path = Paths.join(goldenDir, "\(base).\(ext).jsonl")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        lines.append("wrote \(path) (the reference's replay: its golden)")
      }
    }
    return Result(outcome: outcome, first: setup.first, lines: lines)
  }
}
