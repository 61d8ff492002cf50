import Foundation
import Recording

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The contract matrix's table and runner (ContractMatrixTests). The rule each cell checks is
/// the one `jpreplay --help` states (docs/ARCHITECTURE.md, "The command-line contract"):
/// exit 0 ok, 1 a behavioural difference or failed check, 2 bad input or output (a failed
/// write to standard output too; a reader that left the pipe is not an error); outputs follow
/// the output rule (a link to a file, a dangling link, a directory, a full device: exit 2; a
/// device or FIFO written through, but never for a database); inputs must be regular files.
enum ContractMatrix {
  // MARK: The registry

  /// One command of the registry: `key` is its words after `jpreplay` ("" for the root).
  struct Node {
    var key: String
    /// Its arguments by name: an option's long (else short) name, a positional's value name.
    var arguments: Set<String>
    /// The arguments that name a file or folder (by name), which the entry must account for.
    var pathArguments: [String]
  }

  /// Argument names that are paths wherever they appear.
  static let pathNames: Set<String> = [
    "output", "o", "out", "a13", "keep-store", "junit", "html", "svg", "study", "studies", "to", "write-golden",
    "minimize-dir", "golden-dir", "recordings-dir", "recording", "scenarios", "source", "path", "spec", "space",
    "decisions", "accept", "state", "reference", "tune-space", "a", "b", "old", "new", "optuna", "mcap",
  ]

  /// The commands the binary reports (ArgumentParser's `--experimental-dump-help`, built from
  /// `JPReplay.configuration.subcommands` recursively).
  static func registry() throws -> [Node] {
    let r = try CLI.run(["--experimental-dump-help"])
    guard r.code == 0, let json = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any],
      let root = json["command"] as? [String: Any]
    else { throw MatrixError("jpreplay --experimental-dump-help: exit \(r.code): \(r.stderr)") }
    var nodes: [Node] = []
    func walk(_ c: [String: Any], _ words: [String]) {
      var names: Set<String> = []
      for a in (c["arguments"] as? [[String: Any]]) ?? [] {
        let kind = a["kind"] as? String ?? ""
        guard kind != "flag" else { continue }
        let ns = (a["names"] as? [[String: Any]]) ?? []
        let long = ns.first { $0["kind"] as? String == "long" }?["name"] as? String
        let short = ns.first { $0["kind"] as? String == "short" }?["name"] as? String
        guard let name = long ?? short ?? (a["valueName"] as? String) else { continue }
        if ["help", "version", "experimental-dump-help", "generate-completion-script"].contains(name) { continue }
        names.insert(name)
      }
      nodes.append(Node(key: words.joined(separator: " "), arguments: names, pathArguments: names.filter(pathNames.contains).sorted()))
      for s in (c["subcommands"] as? [[String: Any]]) ?? [] {
        walk(s, words + [s["commandName"] as? String ?? "?"])
      }
    }
    walk(root, [])
    return nodes
  }

  // MARK: Cells

  enum Stream: CustomStringConvertible {
    case normal, stdoutFull, stdoutClosed, stdoutReaderLeaves, stderrFull, stderrClosed, stderrHeadOne
    var description: String {
      switch self {
      case .normal: "normal"
      case .stdoutFull: ">/dev/full"
      case .stdoutClosed: ">&-"
      case .stdoutReaderLeaves: "| (reader leaves)"
      case .stderrFull: "2>/dev/full"
      case .stderrClosed: "2>&-"
      case .stderrHeadOne: "2>&1 | head -1"
      }
    }
  }

  enum PathClass: CaseIterable {
    case oneCharacter, dash, name255Bytes, path4000Bytes, linkToFile, danglingLink, directory, fifo, characterDevice,
      readOnlyFolder, fullDevice
  }

  struct Cell {
    var label: String
    var args: [String] = []
    var stream: Stream = .normal
    var expect: Set<Int32> = []
    var slot: Slot? = nil
    var pathClass: PathClass? = nil

    init(label: String, args: [String], stream: Stream, expect: Set<Int32>) {
      self.label = label
      self.args = args
      self.stream = stream
      self.expect = expect
    }
    init(label: String, slot: Slot, pathClass: PathClass) {
      self.label = label
      self.slot = slot
      self.pathClass = pathClass
    }
  }

  struct MatrixError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
  }

  /// Each run is bounded: a cell still running after this many 20 ms polls (at least 6
  /// minutes) is a hang (a failure), and killed.
  static let cellPollsMax = 18_000

  /// Runs `args` with CLI.run, counted in `runs`.
  static func runCounted(_ args: [String], cwd: URL? = nil, runs: Locked<Int>) throws -> CLI.Result {
    runs.update { $0 += 1 }
    return try CLI.run(args, cwd: cwd)
  }

  /// Runs the cells two at a time; returns one line per broken cell. `runs` counts the times
  /// jpreplay ran (cells, baselines, fixtures): the matrix's cost, counted rather than timed.
  static func run(_ cells: [Cell], runs: Locked<Int> = Locked(0)) throws -> [String] {
    let root = try CLI.tempDir("matrix")
    // rm(1): FileManager aborts on the 4,000-byte paths; the read-only folders made writable first.
    defer { _ = try? wait(spawn(["/bin/sh", "-c", "chmod -R u+rwx \"$1\"; rm -rf \"$1\"", "sh", root.path])) }
    let jsonl = root.appendingPathComponent("fixture.jsonl").path
    let r = try runCounted(["cat", recording, "-o", jsonl], runs: runs)
    guard r.code == 0 else { throw MatrixError("cat \(recording): \(r.stderr)") }
    let fixtures = root.appendingPathComponent("fix")
    if cells.contains(where: { $0.slot.map { ($0.args + [$0.fixture ?? ""]).contains { $0.hasPrefix(fix) } } ?? false }) {
      try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
      try makeFixtures(in: fixtures, runs: runs)
    }
    // The baseline exit code of every slot (a normal path), then the cells.
    var slots: [String: Slot] = [:]
    for c in cells { if let s = c.slot { slots[s.argument + " " + s.args.joined(separator: " ")] = s } }
    let slotList = Array(slots)
    let baselineResults = Locked<[String: Int32]>([:])
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: slotList.count) { i in
      let (key, slot) = slotList[i]
      if let only = slot.only {
        baselineResults.update { $0[key] = only.baseline }
        return
      }
      do {
        let o = try runCell(
          Cell(label: "baseline", slot: slot, pathClass: .oneCharacter), baseline: true, root: root, index: -1 - i, jsonl: jsonl, runs: runs)
        if o.code != 0 && o.code != 1 { failures.update { $0.append("baseline of `\(slot.args.joined(separator: " "))`: exit \(o.code): \(o.stderr.prefix(300))") } }
        baselineResults.update { $0[key] = o.code }
      } catch { failures.update { $0.append("baseline of \(key): \(error)") } }
    }
    let baselines = baselineResults.get()
    DispatchQueue.concurrentPerform(iterations: cells.count) { i in
      var cell = cells[i]
      do {
        if let s = cell.slot, let pc = cell.pathClass {
          let b = baselines[s.argument + " " + s.args.joined(separator: " ")] ?? 0
          cell.expect = expected(s, pc, baseline: b)
        }
        let o = try runCell(cell, baseline: false, root: root, index: i, jsonl: jsonl, runs: runs)
        var problems: [String] = []
        if o.timedOut { problems.append("did not finish within \(cellPollsMax) polls (a hang)") }
        if let sig = o.signal { problems.append("died of signal \(sig)") }
        if o.signal == nil && !o.timedOut && !cell.expect.contains(o.code) {
          problems.append("exit \(o.code), expected \(cell.expect.sorted().map(String.init).joined(separator: " or "))")
        }
        if o.code == 2 && o.stderr.isEmpty && o.stderrReadable && !(cell.slot?.reportsOnStdout == true && o.stdoutHasText) {
          problems.append("exit 2 without a message")
        }
        problems += o.damage
        if !problems.isEmpty {
          failures.update { $0.append("\(cell.label): \(problems.joined(separator: "; ")) — stderr ends: \(o.stderr.suffix(240))") }
        }
      } catch { failures.update { $0.append("\(cell.label): \(error)") } }
    }
    return failures.get().sorted()
  }

  /// The exit codes the rule allows for `slot` given a path of class `c`.
  static func expected(_ slot: Slot, _ c: PathClass, baseline b: Int32) -> Set<Int32> {
    switch slot.direction {
    case .folder(let output):
      switch c {
      // A folder named "q", a 255-byte name, a link to a folder (followed), a read-only
      // folder (read; written by root only).
      case .oneCharacter, .name255Bytes, .linkToFile: return [b]
      case .path4000Bytes: return slot.isSQLite ? [b, 2] : [b]
      case .readOnlyFolder: return output && geteuid() != 0 ? [2] : [b]
      // "-" is a folder named "-": an input one does not exist; an output one is made or refused.
      case .dash: return output ? [b, 2] : [2]
      // A regular file, a FIFO, a device, a link to nothing where a folder belongs.
      case .directory, .fifo, .characterDevice, .fullDevice, .danglingLink: return [2]
      }
    case .output(let database):
      switch c {
      // A legal name of any length works: a database's `NAME-journal` (past NAME_MAX) is
      // never needed, since it is made under a temporary's short name.
      case .oneCharacter: return [b]
      case .name255Bytes: return slot.journalAtName ? [2] : [b]
      // SQLite opens at most 512-byte paths: bad output.
      case .path4000Bytes: return slot.isSQLite ? [b, 2] : [b]
      case .dash: return [b, 2]
      case .directory: return slot.folderAllowed ? [b] : [2]
      case .fullDevice: return slot.mayBeEmpty ? [b, 2] : [2]
      case .linkToFile, .danglingLink: return [2]
      case .fifo, .characterDevice: return database ? [2] : [b]
      case .readOnlyFolder: return geteuid() == 0 ? [b] : [2]
      }
    case .input:
      switch c {
      case .linkToFile, .readOnlyFolder: return [b]
      case .name255Bytes: return slot.keepsName ? [b, 2] : [b]
      case .path4000Bytes: return slot.isSQLite ? [b, 2] : [b]
      case .oneCharacter: return [b, 2]
      case .dash: return [0, 1, 2]
      case .directory: return slot.folderAllowed ? [0, 1, 2] : [2]
      case .danglingLink, .fifo, .characterDevice, .fullDevice: return [2]
      }
    }
  }

  struct Outcome {
    var code: Int32
    var signal: Int32?
    var timedOut: Bool
    var stderr: String
    var stderrReadable: Bool
    var stdoutHasText = false
    var damage: [String]
  }

  /// What a cell's setup made: the arguments, the FIFO to read from (an output FIFO), and the
  /// checks that nothing which was there before changed.
  struct Setup {
    var args: [String]
    var fifoReader: String? = nil
    var checks: [() -> String?] = []
    var skip = false
  }

  /// Sets up the cell's folder and path, runs it under /bin/sh with its streams, checks that
  /// nothing that was there before was changed.
  static func runCell(_ cell: Cell, baseline: Bool, root: URL, index: Int, jsonl: String, runs: Locked<Int>) throws -> Outcome {
    let fixtures = root.appendingPathComponent("fix").path
    let dir = root.appendingPathComponent("c\(index)")
    let fm = FileManager.default
    try fm.createDirectory(at: dir, withIntermediateDirectories: true)
    // Commands look for PoseSpec.json in the working folder.
    try fm.copyItem(atPath: repo("PoseSpec.json"), toPath: dir.appendingPathComponent("PoseSpec.json").path)
    var setup = Setup(args: cell.args)
    if let slot = cell.slot, let pc = cell.pathClass {
      setup = try prepare(slot, baseline ? nil : pc, in: dir, jsonl: jsonl, fixtures: fixtures)
      if setup.skip { return Outcome(code: 2, signal: nil, timedOut: false, stderr: "(skipped)", stderrReadable: false, damage: []) }
    }
    runs.update { $0 += 1 }
    let (rc, timedOut) = try execute(setup, stream: cell.stream, in: dir)
    let errPath = dir.appendingPathComponent("err").path
    let stderrReadable = fm.fileExists(atPath: errPath)
    let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    var damage = setup.checks.compactMap { $0() }
    // No temporary left behind in the cell's folder.
    if let left = try? fm.contentsOfDirectory(atPath: dir.path), left.contains(where: { $0.hasPrefix(".jpreplay-tmp-") }) {
      damage.append("left a temporary file: \(left.filter { $0.hasPrefix(".jpreplay-tmp-") })")
    }
    if rc == -1 && !timedOut { damage.append("no exit status recorded") }
    let stdoutSize = (try? fm.attributesOfItem(atPath: dir.appendingPathComponent("out").path)[.size] as? Int) ?? 0
    return Outcome(
      code: rc >= 128 ? -1 : rc, signal: rc >= 128 ? rc - 128 : nil, timedOut: timedOut, stderr: stderr,
      stderrReadable: stderrReadable, stdoutHasText: stdoutSize > 0, damage: damage)
  }

  /// Makes the path of class `pc` (nil: the baseline's normal path) for `slot` in `dir`.
  static func prepare(_ slot: Slot, _ pc: PathClass?, in dir: URL, jsonl: String, fixtures: String) throws -> Setup {
    let fm = FileManager.default
    let isInput = slot.direction == .input
    let fixture = slot.fixture == "jsonl" ? jsonl : slot.fixture?.replacingOccurrences(of: fix, with: fixtures)
    let args = { (p: String) in substitute(slot.args, path: p, jsonl: jsonl, fixtures: fixtures) }
    if case .folder(let output) = slot.direction { return try prepareFolder(slot, pc, output: output, fixture: fixture, in: dir, args: args) }
    var setup = Setup(args: [])
    func at(_ rel: String) -> String { rel.hasPrefix("/") ? rel : dir.appendingPathComponent(rel).path }
    func placeInput(_ rel: String) throws {  // open(2)/write(2): FileManager's copy fails quietly on a 4,000-byte path
      guard isInput, let fixture else { return }
      guard let bytes = fm.contents(atPath: fixture) else { throw MatrixError("cannot read \(fixture)") }
      let fd = open(at(rel), O_WRONLY | O_CREAT | O_EXCL, 0o644)
      guard fd >= 0 else { throw MatrixError("cannot create \(at(rel).suffix(80)): \(String(cString: strerror(errno)))") }
      defer { close(fd) }
      guard bytes.withUnsafeBytes({ SafeFile.writeAll(fd, $0) }) == nil else { throw MatrixError("cannot write \(at(rel).suffix(80))") }
    }
    func keep(_ path: String, _ text: String) throws {
      try text.write(toFile: path, atomically: false, encoding: .utf8)
      setup.checks.append { (try? String(contentsOfFile: path, encoding: .utf8)) == text ? nil : "\(path) was changed or removed" }
    }
    var p: String
    switch pc {
    case nil:
      p = isInput ? (slot.keepsName ? Paths.name(fixture ?? "in") : "in" + slot.ext) : "out" + slot.ext
      try placeInput(p)
    case .oneCharacter?:
      p = isInput ? "b" : "q"
      try placeInput(p)
    case .dash?: p = "-"
    case .name255Bytes?:
      p = String(repeating: "n", count: 255 - slot.ext.utf8.count) + slot.ext
      try placeInput(p)
    case .path4000Bytes?:
      var deep = dir.path
      while deep.utf8.count < 4000 - 201 { deep += "/" + String(repeating: "d", count: 200) }
      try fm.createDirectory(atPath: deep, withIntermediateDirectories: true)
      let name = String(repeating: "f", count: max(1, 4000 - deep.utf8.count - 1 - slot.ext.utf8.count)) + slot.ext
      p = deep + "/" + (slot.keepsName ? Paths.name(fixture ?? name) : name)
      try placeInput(p)
    case .linkToFile?:
      let real = at(slot.keepsName ? "real/" + Paths.name(fixture ?? "in") : "real" + slot.ext)
      if slot.keepsName { try fm.createDirectory(atPath: at("real"), withIntermediateDirectories: true) }
      if isInput {
        try placeInput(real)
        let before = try Data(contentsOf: URL(fileURLWithPath: real))
        setup.checks.append { (try? Data(contentsOf: URL(fileURLWithPath: real))) == before ? nil : "the linked input was changed" }
      } else {
        try keep(real, "keep\n")
      }
      p = slot.keepsName ? Paths.name(fixture ?? "link") : "link" + slot.ext
      let link = at(p)
      try fm.createSymbolicLink(atPath: link, withDestinationPath: real)
      setup.checks.append { kind(link) == S_IFLNK ? nil : "the link \(link) was replaced" }
    case .danglingLink?:
      let nothing = at("nothing" + slot.ext)
      p = "dangling" + slot.ext
      try fm.createSymbolicLink(atPath: at(p), withDestinationPath: nothing)
      setup.checks.append { kind(nothing) == 0 ? nil : "the dangling link's target was created" }
    case .directory?:
      p = "folder" + slot.ext
      try fm.createDirectory(atPath: at(p), withIntermediateDirectories: true)
      try keep(at(p + "/inside.txt"), "keep\n")
    case .fifo?:
      p = "fifo" + slot.ext
      guard mkfifo(at(p), 0o600) == 0 else { throw MatrixError("mkfifo failed") }
      if !isInput { setup.fifoReader = p }
    case .characterDevice?: p = "/dev/null"
    case .readOnlyFolder?:
      try fm.createDirectory(atPath: at("ro"), withIntermediateDirectories: true)
      try keep(at("ro/keep.txt"), "keep\n")
      p = "ro/" + (isInput ? (slot.keepsName ? Paths.name(fixture ?? "in") : "in" + slot.ext) : "out" + slot.ext)
      try placeInput(p)
      chmod(at("ro"), 0o555)
    case .fullDevice?:
      guard fm.fileExists(atPath: "/dev/full") else { return Setup(args: [], skip: true) }
      p = "/dev/full"
    }
    setup.args = args(p)
    return setup
  }

  /// Runs jpreplay under /bin/sh with the cell's streams; returns its exit status (128 + N for
  /// a signal) and whether it ran past `cellPollsMax` polls. "$@" is jpreplay and its arguments,
  /// so no argument is ever read as shell syntax.
  static func execute(_ setup: Setup, stream: Stream, in dir: URL) throws -> (Int32, Bool) {
    let run: String
    switch stream {
    case .normal:
      if let f = setup.fifoReader {
        run = "cat \"\(f)\" >/dev/null & r=$!; \"$@\" >out 2>err; echo $? >rc; kill $r 2>/dev/null; exit 0"
      } else {
        run = "\"$@\" >out 2>err </dev/null; echo $? >rc"
      }
    case .stdoutFull: run = "\"$@\" >/dev/full 2>err; echo $? >rc"
    case .stdoutClosed: run = "\"$@\" >&- 2>err; echo $? >rc"
    case .stdoutReaderLeaves: run = "{ \"$@\" 2>err; echo $? >rc; } | head -c 1 >/dev/null"
    case .stderrFull: run = "\"$@\" >out 2>/dev/full; echo $? >rc"
    case .stderrClosed: run = "\"$@\" >out 2>&-; echo $? >rc"
    case .stderrHeadOne: run = "{ \"$@\" 2>&1; echo $? >rc; } | head -1 >/dev/null"
    }
    let pid = try spawn(["/bin/sh", "-c", "cd \"$1\" || exit 97; shift; " + run, "sh", dir.path, CLI.binary.path] + setup.args)
    // A hang guard counted in polls, not read from a clock (no test compares a duration): a
    // cell is a small command, and a loaded machine only makes each poll's sleep longer.
    var polls = 0
    var timedOut = false
    var status: Int32 = 0
    while true {
      let w = waitpid(pid, &status, WNOHANG)
      if w == pid || (w == -1 && errno != EINTR) { break }
      polls += 1
      if polls > cellPollsMax {
        timedOut = true
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        break
      }
      usleep(20_000)
    }
    let rcText = (try? String(contentsOf: dir.appendingPathComponent("rc"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    return (Int32(rcText ?? "") ?? -1, timedOut)
  }

  /// `argv` started with standard streams on /dev/null (``ChildProcess/start(_:cwd:environment:)``:
  /// posix_spawn, only those three descriptors inherited), for the caller to reap.
  static func spawn(_ argv: [String]) throws -> pid_t {
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    do {
      return try ChildProcess.start(argv, cwd: FileManager.default.currentDirectoryPath, environment: environment)
    } catch let e as ChildProcess.Failure { throw MatrixError(e.description) }
  }

  static func kind(_ path: String) -> mode_t {
    var st = stat()
    guard lstat(path, &st) == 0 else { return 0 }
    return st.st_mode & S_IFMT
  }

  /// Waits for `pid`; returns its wait status.
  @discardableResult
  static func wait(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
  }
}

/// A value shared by the matrix's worker threads.
final class Locked<T>: @unchecked Sendable {
  private var value: T
  private let lock = NSLock()
  init(_ v: T) { value = v }
  func get() -> T {
    lock.lock()
    defer { lock.unlock() }
    return value
  }
  func update(_ f: (inout T) -> Void) {
    lock.lock()
    defer { lock.unlock() }
    f(&value)
  }
}
