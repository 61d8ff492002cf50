import Replay

/// One golden file that does not hold.
public struct GoldenProblem: Equatable, Sendable {
  /// What is wrong with it.
  public enum Kind: Equatable, Sendable {
    /// No golden file yet.
    case missing
    /// The replay differs; `divergence` is nil when only the formatting differs (or the golden
    /// could not be parsed — see `message`).
    case mismatch(Divergence?)
  }
  /// Which golden.
  public var file: GoldenKind
  /// What is wrong with it.
  public var kind: Kind
  /// One line: the first divergence or what is missing.
  public var message: String
  /// Every divergent hunk (the first with context), at most `TraceDiffer.divergencesMax`.
  public var divergences: [Divergence] = []
  /// Divergent hunks in all.
  public var hunkCount = 0

  /// A problem of `file`.
  public init(file: GoldenKind, kind: Kind, message: String) {
    self.file = file
    self.kind = kind
    self.message = message
  }
}

/// A recording whose scenario file says it is out of date (or cannot be read).
public struct ScenarioFinding: Equatable, Sendable {
  /// One line naming the files and what to run.
  public var message: String
  /// The scenario itself cannot be read or generated (bad input, exit 2) rather than the
  /// recording being stale (exit 1).
  public var unreadable: Bool
  /// A finding.
  public init(message: String, unreadable: Bool = false) {
    self.message = message
    self.unreadable = unreadable
  }
}

/// The verdict on one recording's replay.
public enum VerifyStatus: Equatable, Sendable {
  case passed
  /// Golden mismatch or missing golden (exit 1).
  case failed([GoldenProblem])
  /// A golden without a recording, `--unreferenced fail` (exit 1).
  case orphanGolden
  /// A golden without a recording, `--unreferenced ignore` (listed, exit 0).
  case orphanIgnored
  /// A golden without a recording, deleted by `--unreferenced delete` (these files; exit 0).
  case orphanDeleted([String])
  /// Strict effect correlation failed (exit 1, reported apart from diffs).
  case harnessError(HarnessError)
  /// The recording cannot be replayed (exit 2).
  case badInput(BadInputError)
}

/// The category a recording is counted in; every case is in exactly one.
public enum VerifyCategory: String, CaseIterable, Sendable {
  /// `unmet`: the goldens hold but a rule of the scenario's `expect:` block does not (exit 1).
  case passed, updated, failed, missing, stale, orphan, unmet, error

  /// The tag at the start of a console line.
  public var tag: String {
    switch self {
    case .passed: "ok"
    case .updated: "UPDATED"
    case .failed: "FAIL"
    case .missing: "MISSING"
    case .stale: "STALE"
    case .orphan: "ORPHAN"
    case .unmet: "UNMET"
    case .error: "ERROR"
    }
  }
}

/// A divergence and the golden file it is in.
public struct FileDivergence: Equatable, Sendable {
  /// Which golden.
  public var file: GoldenKind
  /// Its first divergence.
  public var divergence: Divergence
}

/// A measured duration that never makes two results differ: two runs of the same
/// verification are equal (`==`) whatever their timings.
public struct Elapsed: Equatable, Sendable {
  /// Seconds; nil when not measured.
  public var seconds: Double?
  /// A duration of `seconds`.
  public init(seconds: Double? = nil) { self.seconds = seconds }
  /// Always equal: timings never make two results differ.
  public static func == (a: Elapsed, b: Elapsed) -> Bool { true }
}

/// The result for one recording.
public struct VerifyCase: Equatable, Sendable {
  /// The recording's name.
  public var name: String
  /// Its outcome.
  public var status: VerifyStatus
  /// The golden folder as messages name it (``GoldenStore/goldenLabel``).
  public var goldenDir = "Golden"
  /// The recordings folder as messages name it (``GoldenStore/recordingsLabel``).
  public var recordingsDir = "Recordings"
  /// Files written (`.new`), relative to the golden directory.
  public var written: [String] = []
  /// Goldens overwritten by `--update always`, with what they differed in.
  public var updated: [GoldenProblem] = []
  /// Stale `.new` files removed because the golden matches.
  public var removedStale: [String] = []
  /// Replay statistics, when the replay ran.
  public var summary: ReplaySummary?
  /// The scenario check, when the recording has a scenario and it does not hold.
  public var scenario: ScenarioFinding?
  /// The scenario's `expect:` rules the replay breaks, one line each (file, line, rule and
  /// what was seen); judged apart from the goldens.
  public var unmet: [String] = []
  /// The scenario's rules that miss on this replay as their `known:` marker says they do, one
  /// line each: reported, never a failure (a marked rule that holds is in `unmet`).
  public var knownMisses: [String] = []
  /// Wall time of the replay and comparison (JUnit `time`); never part of the verdict.
  public var elapsed = Elapsed()

  /// A result.
  public init(name: String, status: VerifyStatus, summary: ReplaySummary? = nil) {
    self.name = name
    self.status = status
    self.summary = summary
  }

  /// Whether the replay matched and the recording is up to date.
  public var passed: Bool { status == .passed && scenario == nil && unmet.isEmpty }

  /// How the console and the JSON report count it.
  public var category: VerifyCategory {
    if case .badInput = status { return .error }
    if let scenario { return scenario.unreadable ? .error : .stale }
    switch status {
    case .passed: return !unmet.isEmpty ? .unmet : updated.isEmpty ? .passed : .updated
    case .failed(let problems):
      return problems.allSatisfy { $0.kind == .missing } ? .missing : .failed
    case .harnessError, .badInput: return .failed
    case .orphanGolden, .orphanIgnored, .orphanDeleted: return .orphan
    }
  }

  /// Its share of verify's exit code.
  public var exitCode: ExitDecision {
    switch category {
    case .passed, .updated: return .ok
    case .error: return .badInput
    case .failed, .missing, .stale, .unmet: return .difference
    case .orphan: return status == .orphanGolden ? .difference : .ok
    }
  }

  /// One line for reports: "ok", the scenario finding, or the problems.
  public var message: String {
    var parts: [String] = []
    if let scenario { parts.append(scenario.message) }
    switch status {
    case .passed:
      if parts.isEmpty && unmet.isEmpty {
        parts.append(updated.isEmpty ? "ok" : "updated: " + updated.map(\.message).joined(separator: "; "))
      }
    case .failed(let problems): parts += problems.map(\.message)
    case .orphanGolden:
      parts.append(
        "golden without recording: restore \(recordingsDir)/\(name).* or delete \(goldenDir)/\(name).*.jsonl (--unreferenced delete)")
    case .orphanIgnored: parts.append("golden without recording (ignored: --unreferenced ignore)")
    case .orphanDeleted(let files):
      parts.append("golden without recording: deleted \(files.map { "\(goldenDir)/\($0)" }.joined(separator: ", "))")
    case .harnessError(let e): parts.append(e.description)
    case .badInput(let e): parts.append(e.description)
    }
    if !unmet.isEmpty {
      parts.append("\(unmet.count) expectation\(unmet.count == 1 ? "" : "s") not met (expect:)")
    }
    return parts.joined(separator: "; ")
  }

  /// Every divergence of the failed goldens, trace first.
  public var divergences: [FileDivergence] {
    guard case .failed(let problems) = status else { return [] }
    return problems.flatMap { p in p.divergences.map { FileDivergence(file: p.file, divergence: $0) } }
  }

  /// The explanation lines: per failed golden the first divergence's context, then one
  /// headline per further divergent hunk (at most `headlinesShownMax`).
  public var details: [String] {
    let expectations = unmet.map { "expect: \($0)" }
    guard case .failed(let problems) = status else { return expectations }
    return expectations + problems.flatMap { p -> [String] in
      guard case .mismatch(let d?) = p.kind else { return [] }
      var out = ["\(p.file.rawValue):"] + d.context
      let more = p.divergences.dropFirst()
      if !more.isEmpty {
        out.append("\(p.hunkCount) divergent hunks in \(p.file.rawValue); the others:")
      }
      for (n, other) in more.prefix(Self.headlinesShownMax).enumerated() {
        out.append("  #\(n + 2) \(other.explanation)")
      }
      let hidden = p.hunkCount - 1 - min(more.count, Self.headlinesShownMax)
      if hidden > 0 { out.append("  … and \(hidden) more (see --format json or jpreplay diff)") }
      return out
    }
  }

  /// Headlines of further divergent hunks shown per golden file in the console and JUnit.
  public static let headlinesShownMax = 20
}

/// Progress of a long `verify` (the CLI shows it on a TTY only).
public struct VerifyProgress: Sendable {
  /// Recordings done.
  public var completed: Int
  /// Recordings in all.
  public var total: Int
  /// The one just done.
  public var name: String
  /// Whether it passed.
  public var passed: Bool
}
