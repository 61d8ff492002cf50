import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The command-line contract as a matrix (issue 34 item 1; the rule: `jpreplay --help`, and
/// docs/ARCHITECTURE.md "The command-line contract"): every subcommand, enumerated from the
/// command registry the binary itself reports (`--experimental-dump-help`, recursively — a new
/// subcommand without an entry in `ContractMatrix.entries` fails the suite, and so does a new
/// path argument its entry does not account for) × every path class for its path arguments
/// (input and output) × standard output and standard error failing (/dev/full, closed, a reader
/// that left). Every cell: never a signal death, never a hang (each run bounded), the exit code
/// the rule gives, and no pre-existing file deleted or changed.
@Suite("Contract matrix") struct ContractMatrixTests {
  @Test("every subcommand of the registry has a matrix entry, and every path argument is covered")
  func registryIsCovered() throws {
    let nodes = try ContractMatrix.registry()
    #expect(nodes.count >= 30, "the registry lists \(nodes.count) commands")
    var problems: [String] = []
    for n in nodes {
      guard let e = ContractMatrix.entries[n.key] else {
        problems.append("`jpreplay \(n.key)` has no entry in ContractMatrix.entries (add its path slots)")
        continue
      }
      let covered = Set(e.slots.map(\.argument)).union(e.untested.keys)
      for a in n.pathArguments where !covered.contains(a) {
        problems.append("`jpreplay \(n.key)`: path argument \(a) is neither a slot nor listed as untested")
      }
      for a in covered where !n.arguments.contains(a) {
        problems.append("`jpreplay \(n.key)`: the entry names \(a), which the command does not take")
      }
    }
    for k in ContractMatrix.entries.keys where !nodes.contains(where: { $0.key == k }) {
      problems.append("ContractMatrix.entries has `\(k)`, which is not a command")
    }
    #expect(problems == [])
  }

  @Test("every subcommand × standard output and standard error failing: exit codes by the rule, never a signal")
  func streams() throws {
    let nodes = try ContractMatrix.registry()
    var cells: [ContractMatrix.Cell] = []
    for n in nodes {
      let words = n.key.isEmpty ? [] : n.key.split(separator: " ").map(String.init)
      // `--help` writes to standard output; an unknown option writes a usage error to stderr.
      let help = words + ["--help"]
      let usage = words + ["--no-such-option-34"]
      cells.append(.init(label: "\(n.key) --help >/dev/full", args: help, stream: .stdoutFull, expect: [2]))
      cells.append(.init(label: "\(n.key) --help >&-", args: help, stream: .stdoutClosed, expect: [2]))
      cells.append(.init(label: "\(n.key) --help | (reader leaves)", args: help, stream: .stdoutReaderLeaves, expect: [0]))
      cells.append(.init(label: "\(n.key) (usage error) 2>/dev/full", args: usage, stream: .stderrFull, expect: [2]))
      cells.append(.init(label: "\(n.key) (usage error) 2>&-", args: usage, stream: .stderrClosed, expect: [2]))
      cells.append(.init(label: "\(n.key) (usage error) 2>&1 | head -1", args: usage, stream: .stderrHeadOne, expect: [2]))
    }
    // Real work with stderr failing: a command that prints notes and an error there.
    let rec = ContractMatrix.recording
    for s in [ContractMatrix.Stream.stderrFull, .stderrClosed, .stderrHeadOne] {
      cells.append(.init(label: "replay (missing file) \(s)", args: ["replay", "missing.jprec"], stream: s, expect: [2]))
      cells.append(.init(label: "info \(s)", args: ["info", rec], stream: s, expect: [0]))
    }
    for s in [ContractMatrix.Stream.stdoutFull, .stdoutClosed] {
      cells.append(.init(label: "info \(s)", args: ["info", rec], stream: s, expect: [2]))
      // Writers of their own (issue 34: these exited 0): --version, and plot's SVG on standard output.
      cells.append(.init(label: "--version \(s)", args: ["--version"], stream: s, expect: [2]))
      cells.append(.init(label: "plot -o - \(s)", args: ["plot", rec, "-o", "-"], stream: s, expect: [2]))
    }
    let runs = Locked(0)
    let failures = try ContractMatrix.run(cells, runs: runs)
    #expect(failures == [], "\(failures.count) of \(cells.count) cells broke the contract")
    print("contract matrix: the stream cells ran jpreplay \(runs.get()) times")
  }

  @Test("every path argument × every path class: exit codes by the output and input rules, nothing damaged")
  func paths() throws {
    var cells: [ContractMatrix.Cell] = []
    // JPREPLAY_MATRIX_ONLY=KEY runs one command's cells (while mending one).
    let only = ProcessInfo.processInfo.environment["JPREPLAY_MATRIX_ONLY"]
    for (key, e) in ContractMatrix.entries.sorted(by: { $0.key < $1.key }) where only == nil || only == key {
      for slot in e.slots {
        for c in ContractMatrix.PathClass.allCases where slot.only?.classes.contains(c) ?? true {
          cells.append(.init(label: "\(key) \(slot.argument) = \(c)", slot: slot, pathClass: c))
        }
      }
    }
    let counted = Locked(0)
    let failures = try ContractMatrix.run(cells, runs: counted)
    #expect(failures == [], "\(failures.count) of \(cells.count) cells broke the contract")
    let runs = counted.get()
    print("contract matrix: the path cells ran jpreplay \(runs) times")
    #expect(only != nil || runs <= Self.pathRunsMax, "the path cells ran jpreplay \(runs) times (bound \(Self.pathRunsMax)): keep new cells cheap")
  }

  /// The cost of the path cells, counted (each cell and each baseline runs jpreplay once, plus
  /// the fixtures: one `cat`, one `tune run`): 569 runs when set (265 before the tune, spec
  /// audit, minimize, bisect spec, corpus folder, accept --decisions and verify --html slots).
  /// 605 after `export --mcap`'s three slots (recordings, mcap, golden-dir: 36 runs, each
  /// `--no-metrics` on one small recording). A bound, so the matrix cannot grow unnoticed: raise it
  /// with a reason.
  static let pathRunsMax = 620
}
