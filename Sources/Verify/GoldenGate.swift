import CanonicalJSON
import Foundation
import Recording

/// The one gate (issue 34.3): every path that blesses a golden or promotes a configuration —
/// `accept NAME`, `accept --all`, `accept --group`, `accept --decisions`, interactive
/// `review` and `review --group`, `tune promote` — asks ``check(_:seen:trial:)`` and gets the
/// same findings for the same files, so a check one path skips cannot exist:
///
/// - **recording**: the pending file's recording exists (never overridable: without it the
///   file can never be verified again);
/// - **stale**: the recording is what its scenario generates (each engine's scenario hook,
///   `ScenarioChecks.staleness`), so the pending golden is a replay of the scenario as it is;
/// - **rules**: the pending golden keeps its scenario's `expect:` rules (each engine's hook,
///   `GoldenStore.unmetRules(ofPending:engines:)`);
/// - **seen**: for a decision made elsewhere (an HTML report page), the SHA-256 of the pending
///   file the decider saw equals the file's bytes now; a decision that carries no SHA for a
///   file is refused;
/// - **feasible**: the trial a promote writes kept the study's constraints;
/// - **generalises**: the trial a promote writes is not worse than the shipped spec beyond
///   noise on any objective (`TuneReport.worseThanShipped`: the paired difference on the
///   same detector draws, issue 35 item 2) and keeps the study's `generalise:` budgets.
///
/// Each finding but **recording** is refused unless the caller passes `--force`, which turns
/// it into a warning; every message names the check and the way out.
public struct GoldenGate: Sendable {
  /// The checks, in the order findings are listed.
  public enum Check: String, Sendable, CaseIterable {
    case recording, stale, rules, seen, feasible, generalises
  }

  /// One reason not to bless a file (or promote a trial).
  public struct Finding: Sendable, Equatable {
    /// Which check found it.
    public var check: Check
    /// The first line (names the recording or file and what is wrong), without a prefix.
    public var message: String
    /// Further lines (the broken rules), shown indented.
    public var details: [String]
    /// Exit code when refused: 1 a behavioural check (stale, rules, feasible), 2 bad input
    /// (no recording, an unreadable scenario, a decision that does not match the file) and a
    /// trial that does not generalise (as `tune promote` has always refused it).
    public var exitCode: Int32
    /// Whether `--force` turns the refusal into a warning.
    public var overridable: Bool { check != .recording }

    /// A finding.
    ///
    /// - Parameters:
    ///   - check: the check.
    ///   - message: the first line.
    ///   - details: further lines.
    ///   - exitCode: the exit code when refused.
    public init(check: Check, message: String, details: [String] = [], exitCode: Int32) {
      self.check = check
      self.message = message
      self.details = details
      self.exitCode = exitCode
    }

    /// The finding as printed: the message, then each detail indented.
    public var lines: [String] { [message] + details.map { "  " + $0 } }
  }

  /// The trial a promote writes, as the gate judges it.
  public struct Trial: Sendable, Equatable {
    /// The trial's number in the study.
    public var index: Int
    /// nil when it kept every constraint; else what it is and why
    /// (`infeasible (expectation_failures 9 > 0)`).
    public var infeasibility: String?
    /// Why it is worse than the shipped spec beyond noise (one line each); empty: it is not.
    public var worse: [String]
    /// A trial as the gate judges it.
    public init(index: Int, infeasibility: String?, worse: [String] = []) {
      self.index = index
      self.infeasibility = infeasibility
      self.worse = worse
    }
  }

  /// The goldens and recordings judged.
  public var store: GoldenStore
  /// Every engine's scenario hooks for the store's recordings folder.
  public var engines: [ScenarioChecks]

  /// A gate over `store`, judging scenarios with every engine's hooks (`engines`).
  public init(store: GoldenStore, engines: [ScenarioChecks]) {
    self.store = store
    self.engines = engines
  }

  /// Findings against blessing `files` (pending goldens) and promoting `trial`, in file order:
  /// per recording its recording, stale and rules findings (once per recording), per file its
  /// seen finding. `seen`: for a decision made on a report, the SHA-256 (hex) of each pending
  /// file as the report saw it — nil when the decider is looking at the files themselves
  /// (`accept`, `review`), where there is nothing to compare.
  public func check(_ files: [PendingGolden], seen: [PendingGolden: String]? = nil, trial: Trial? = nil) -> [Finding] {
    var out: [Finding] = []
    if let trial, let why = trial.infeasibility {
      out.append(Finding(check: .feasible, message: "trial #\(trial.index) is \(ConsoleText.line(why))", exitCode: 1))
    }
    if let trial, !trial.worse.isEmpty {
      out.append(
        Finding(
          check: .generalises,
          message: "trial #\(trial.index) does not generalise: \(ConsoleText.line(trial.worse.joined(separator: "; ")))", exitCode: 2))
    }
    var judged = Set<String>()
    for p in files {
      let name = ConsoleText.line(p.name)
      if judged.insert(p.name).inserted {
        if !store.hasRecording(p.name) {
          out.append(Finding(check: .recording, message: ConsoleText.line(store.refusal(p)), exitCode: 2))
        } else {
          out += scenarioFindings(p.name, shown: name)
        }
      }
      if let seen {
        let file = "\(ConsoleText.line(store.goldenLabel))/\(ConsoleText.line(p.description))"
        if let expected = seen[p] {
          let now = FileManager.default.contents(atPath: store.pendingURL(p.name, p.kind).path).map { SHA256.hex([UInt8]($0)) }
          if now != expected {
            out.append(
              Finding(
                check: .seen,
                message:
                  "\(file): changed since the report (SHA-256 \(now?.prefix(12) ?? "none")… ≠ \(expected.prefix(12))…); verify again and decide anew",
                exitCode: 2))
          }
        } else {
          out.append(
            Finding(
              check: .seen,
              message: "\(file): the decision carries no SHA-256 of this file (the report did not see it); verify again and decide anew",
              exitCode: 2))
        }
      }
    }
    return out
  }

  /// Stale and rules findings of recording `name` (which exists).
  func scenarioFindings(_ name: String, shown: String) -> [Finding] {
    let owners = engines.filter { $0.names.contains(name) }
    guard !owners.isEmpty else { return [] }
    guard owners.count == 1, let owner = owners.first else {
      let both = owners.map(\.engine).joined(separator: " and ")
      return [Finding(check: .stale, message: "\(shown): scenario files of \(both) both name this recording; keep one", exitCode: 2)]
    }
    if let finding = owner.staleness(name) {
      let what = finding.unreadable ? "its scenario cannot be judged" : "stale recording"
      return [
        Finding(
          check: .stale, message: "\(shown): \(what): \(ConsoleText.line(finding.message))",
          exitCode: finding.unreadable ? 2 : 1)
      ]
    }
    let unmet = store.unmetRules(ofPending: name, engines: [owner])
    guard !unmet.isEmpty else { return [] }
    return [
      Finding(
        check: .rules,
        message: "\(shown): the pending golden breaks \(unmet.count) expect: rule\(unmet.count == 1 ? "" : "s") of its scenario:",
        details: unmet.map { ConsoleText.line($0) }, exitCode: 1)
    ]
  }

  /// What a path does with `findings`: with `force`, the overridable ones are warnings; the
  /// rest refuse. `exitCode` is the most severe refusal's (nil: go ahead).
  public struct Verdict: Sendable, Equatable {
    /// The findings that stop the path.
    public var refused: [Finding]
    /// The findings shown as warnings (with `--force`).
    public var warned: [Finding]
    /// The exit code of the most severe refusal; nil when nothing refused.
    public var exitCode: Int32? { refused.map(\.exitCode).max() }
    /// The checks that refused, by name, for the closing line.
    public var refusedChecks: String {
      var seen: [String] = []
      for f in refused where !seen.contains(f.check.rawValue) { seen.append(f.check.rawValue) }
      return seen.joined(separator: ", ")
    }
    /// Whether `--force` would let everything refused through.
    public var forceWouldPass: Bool { refused.allSatisfy(\.overridable) }
  }

  /// The verdict on `findings`.
  ///
  /// - Parameters:
  ///   - findings: what the checks found.
  ///   - force: whether `--force` was given.
  /// - Returns: the refused and warned findings.
  public static func verdict(_ findings: [Finding], force: Bool) -> Verdict {
    Verdict(
      refused: findings.filter { !force || !$0.overridable },
      warned: force ? findings.filter(\.overridable) : [])
  }

  /// The closing line of a refusal: which checks refused and how to override.
  public static func closing(_ v: Verdict, nothing: String, override: String) -> String {
    let how = v.forceWouldPass ? "; \(override)" : ""
    return "\(nothing): refused by the gate's check\(v.refused.count == 1 ? "" : "s") (\(v.refusedChecks))\(how)"
  }
}
