/// One golden file that does not hold.
public struct GoldenProblem: Equatable, Sendable {
  public enum Kind: Equatable, Sendable {
    /// No golden file yet.
    case missing
    /// The replay differs; `divergence` is nil when only the formatting differs (or the golden
    /// could not be parsed — see `message`).
    case mismatch(Divergence?)
  }
  public var file: GoldenKind
  public var kind: Kind
  /// One line: the first divergence or what is missing.
  public var message: String
}

/// The verdict on one recording.
public enum VerifyStatus: Equatable, Sendable {
  case passed
  /// Golden mismatch or missing golden (exit 1).
  case failed([GoldenProblem])
  /// A golden without a recording (exit 1).
  case orphanGolden
  /// Strict effect correlation failed (exit 1, reported apart from diffs).
  case harnessError(HarnessError)
  /// The recording cannot be replayed (exit 2).
  case badInput(BadInputError)
}

/// The result for one recording.
public struct VerifyCase: Equatable, Sendable {
  public var name: String
  public var status: VerifyStatus
  /// Files written (`.new`), relative to the golden directory.
  public var written: [String] = []
  /// Stale `.new` files removed because the golden matches.
  public var removedStale: [String] = []
  /// Replay statistics, when the replay ran.
  public var summary: ReplaySummary?

  public var passed: Bool { status == .passed }

  public var exitCode: ExitDecision {
    switch status {
    case .passed: .ok
    case .failed, .orphanGolden, .harnessError: .difference
    case .badInput: .badInput
    }
  }

  /// One line for reports: "ok" or the first problem.
  public var message: String {
    switch status {
    case .passed: return "ok"
    case .failed(let problems): return problems.map(\.message).joined(separator: "; ")
    case .orphanGolden:
      return
        "golden without recording: restore Recordings/\(name).* or delete Golden/\(name).*.jsonl"
    case .harnessError(let e): return e.description
    case .badInput(let e): return e.description
    }
  }

  /// The context lines of the first divergence, if any.
  public var details: [String] {
    guard case .failed(let problems) = status else { return [] }
    return problems.flatMap { p -> [String] in
      if case .mismatch(let d?) = p.kind { return ["\(p.file.rawValue):"] + d.context }
      return []
    }
  }
}

/// Progress of a long `verify` (the CLI shows it on a TTY only).
public struct VerifyProgress: Sendable {
  public var completed: Int
  public var total: Int
  public var name: String
  public var passed: Bool
}

/// The result of `verify`, cases in name order.
public struct VerifyReport: Equatable, Sendable {
  public var cases: [VerifyCase]
  /// The most severe case: 2 bad input > 1 difference > 0 ok.
  public var exitCode: ExitDecision { cases.map(\.exitCode).max() ?? .ok }
  public var failures: [VerifyCase] { cases.filter { !$0.passed } }

  /// A plain-text report: one line per failing case (with context) and a closing count.
  public func render(verbose: Bool = false) -> String {
    var out = ""
    for c in cases where verbose || !c.passed {
      out += "\(c.passed ? "ok  " : "FAIL") \(c.name): \(c.message)\n"
      for line in c.details { out += "     \(line)\n" }
      for w in c.written { out += "     wrote Golden/\(w)\n" }
    }
    let failed = failures.count
    out += "\(cases.count - failed) passed, \(failed) failed\n"
    if cases.contains(where: { !$0.written.isEmpty }) {
      out += "review the pending goldens with `jpreplay review` (or `jpreplay accept <name>`)\n"
    }
    return out
  }
}
