import Recording
import Replay

/// `review`: walks the pending `.new` files, shows each as a diff against its golden and asks
/// whether to accept it, reject it or skip it.
///
/// Input and output are injected: the CLI passes a line reader over standard input and a
/// writer to standard output, so review works the same with a person at a terminal and with a
/// script piping answers (one per line). End of input skips whatever is left.
public struct ReviewSession {
  /// How pending goldens are decided.
  public enum Mode: Sendable {
    /// Ask for each file.
    case ask
    /// Accept everything pending without asking (`--accept-all`).
    case acceptAll
    /// Reject everything pending without asking (`--reject-all`).
    case rejectAll
  }

  /// The goldens reviewed.
  public var store: GoldenStore
  /// How each is decided.
  public var mode: Mode
  /// Only these recordings (names or paths); nil = all pending.
  public var names: [String]?
  /// ANSI colour in diffs (only when writing to a terminal).
  public var color: Bool
  /// Lines of context in diffs.
  public var context: Int
  /// Reads one answer line; nil at end of input.
  public var readLine: () -> String?
  /// Writes text as is (the session adds the newlines).
  public var write: (String) -> Void
  /// The one gate (`GoldenGate.check`, set by the CLI): what it finds against accepting a
  /// recording's pending goldens (stale recording, broken expect: rules) is shown as a warning
  /// before the recording's first pending file, and an accept of them is refused (the file
  /// stays pending) unless `force`.
  public var gate: ((PendingGolden) -> [GoldenGate.Finding])?
  /// `review --force`: the gate's overridable findings warn, and accepting goes ahead.
  public var force = false
  /// One decision per group of pending files (`PendingGroup`: cue, record kind and shape of
  /// the first divergence), shown with its first file as the example (`review --group`).
  public var grouped = false

  /// A review session.
  public init(
    store: GoldenStore, mode: Mode = .ask, names: [String]? = nil, color: Bool = false,
    context: Int = 3,
    readLine: @escaping () -> String?, write: @escaping (String) -> Void
  ) {
    self.store = store
    self.mode = mode
    self.names = names
    self.color = color
    self.context = context
    self.readLine = readLine
    self.write = write
  }

  /// What the review decided.
  public struct Outcome: Equatable, Sendable {
    /// Pending goldens accepted (now goldens).
    public var accepted: [PendingGolden] = []
    /// Pending goldens rejected (removed).
    public var rejected: [PendingGolden] = []
    /// Pending goldens left as they are.
    public var skipped: [PendingGolden] = []
    /// Pending files not offered because their recording does not exist.
    public var refused: [PendingGolden] = []
    /// Pending files answered "accept" that the gate refused (still pending).
    public var blocked: [PendingGolden] = []
    /// 0; 1 when files are still pending (skipped or refused), so a script can tell.
    public var exitCode: ExitDecision { skipped.isEmpty && refused.isEmpty && blocked.isEmpty ? .ok : .difference }
  }

  enum Answer { case accept, reject, skip, quit }

  /// Decides every pending golden of the store.
  ///
  /// - Returns: what was accepted, rejected and skipped.
  /// - Throws: a file that cannot be read, moved or removed.
  public func run() throws -> Outcome {
    let wanted = names?.map { store.name(of: $0) }
    var pending = try store.pending().filter { p in
      wanted?.contains { GoldenStore.glob($0, matches: p.name) } ?? true
    }
    var outcome = Outcome()
    if pending.isEmpty {
      write("nothing to review: no pending .new files in \(store.goldenDir.path)\n")
      return outcome
    }
    // A .new whose recording is gone cannot be verified again: never offer it for accepting.
    if mode != .rejectAll {
      outcome.refused = pending.filter { !store.hasRecording($0.name) }
      pending.removeAll { !store.hasRecording($0.name) }
      for p in outcome.refused { write(ConsoleText.line(store.refusal(p)) + "\n") }
    }
    if grouped { return try runGrouped(pending, outcome) }
    var quitting = false
    var warned = Set<String>()
    for (i, p) in pending.enumerated() {
      if !quitting, mode != .rejectAll, warned.insert(p.name).inserted { warnBrokenRules(p.name, p) }
      if quitting {
        outcome.skipped.append(p)
        continue
      }
      let answer: Answer
      switch mode {
      case .acceptAll: answer = .accept
      case .rejectAll: answer = .reject
      case .ask:
        write(try show(p, position: i + 1, of: pending.count))
        answer = ask()
      }
      try apply(answer, to: p, &outcome)
      if answer == .quit { quitting = true }
    }
    writeTotals(outcome)
    return outcome
  }

  /// Accepts or rejects `p` as answered (skip and quit leave it pending), noting it in `outcome`.
  func apply(_ answer: Answer, to p: PendingGolden, _ outcome: inout Outcome) throws {
    switch answer {
    case .accept:
      let refusing = findings(p.name, p).filter { !force || !$0.overridable }
      if !refusing.isEmpty {
        outcome.blocked.append(p)
        let checks = Array(Set(refusing.map(\.check.rawValue))).sorted().joined(separator: ", ")
        let how = refusing.allSatisfy(\.overridable) ? "; fix the engine, the rule or the recording, or pass --force to accept anyway" : ""
        write("refusing \(ConsoleText.line(p.description)): the gate's check\(refusing.count == 1 ? "" : "s") (\(checks)) refused it\(how)\n")
        return
      }
      try store.accept(p)
      outcome.accepted.append(p)
      write("accepted \(ConsoleText.line(p.description))\n")
    case .reject:
      try store.reject(p)
      outcome.rejected.append(p)
      write("rejected \(ConsoleText.line(p.description))\n")
    case .skip, .quit:
      outcome.skipped.append(p)
    }
  }

  /// The gate's findings against recording `name`'s pending goldens (`p`: one of them), asked
  /// once per recording.
  func findings(_ name: String, _ p: PendingGolden) -> [GoldenGate.Finding] {
    if let known = gateCache.value[name] { return known }
    let found = gate?(p) ?? []
    gateCache.value[name] = found
    return found
  }
  let gateCache = Cache()
  final class Cache { var value: [String: [GoldenGate.Finding]] = [:] }

  /// Warns (before the question) when the gate finds something against recording `name`'s
  /// pending goldens (stale recording, broken expect: rules): accepting them would bless a
  /// wrong engine, so `review` refuses it unless --force.
  func warnBrokenRules(_ name: String, _ p: PendingGolden) {
    let found = findings(name, p)
    guard !found.isEmpty else { return }
    var text = ""
    for f in found { text += "warning: " + f.lines.map { ConsoleText.line($0) }.joined(separator: "\n") + "\n" }
    text +=
      force
      ? "  (accepting it blesses a golden the gate refuses; --force lets it through)\n"
      : "  (accepting it would bless a wrong engine: an accept is refused; `jpreplay review --force` accepts anyway)\n"
    write(text)
  }

  func writeTotals(_ outcome: Outcome) {
    write(
      "\n\(outcome.accepted.count) accepted, \(outcome.rejected.count) rejected, \(outcome.skipped.count) skipped"
        + (outcome.refused.isEmpty ? "" : ", \(outcome.refused.count) refused (no recording)")
        + (outcome.blocked.isEmpty ? "" : ", \(outcome.blocked.count) refused by the gate") + "\n"
    )
  }

  /// `review --group`: the groups listed, then one question per group over all its files.
  func runGrouped(_ pending: [PendingGolden], _ start: Outcome) throws -> Outcome {
    var outcome = start
    let groups = try PendingGroup.groups(pending, store: store)
    write("\(pending.count) pending file\(pending.count == 1 ? "" : "s") in \(groups.count) group\(groups.count == 1 ? "" : "s"):\n")
    for g in groups { write(g.line + "\n") }
    var quitting = false
    for (i, g) in groups.enumerated() {
      if quitting {
        outcome.skipped += g.files
        continue
      }
      let answer: Answer
      if mode == .ask { write(showGroup(g, position: i + 1, of: groups.count)) }
      if mode != .rejectAll {
        for name in Set(g.files.map(\.name)).sorted() { warnBrokenRules(name, g.files.first { $0.name == name }!) }
      }
      switch mode {
      case .acceptAll: answer = .accept
      case .rejectAll: answer = .reject
      case .ask:
        write(try show(g.files[0], position: 1, of: g.files.count))
        answer = ask()
      }
      for p in g.files { try apply(answer, to: p, &outcome) }
      if answer == .quit { quitting = true }
    }
    writeTotals(outcome)
    return outcome
  }

  /// The group's header: key, title, files, the other divergences in them, the example.
  func showGroup(_ g: PendingGroup, position: Int, of total: Int) -> String {
    var out = "\n=== group \(position)/\(total): \(g.key)\n\(g.title)\n"
    let shown = g.files.prefix(Self.groupFilesShownMax).map(\.description).joined(separator: ", ")
    let more = g.files.count > Self.groupFilesShownMax ? ", … (\(g.files.count - Self.groupFilesShownMax) more)" : ""
    out += "\(g.files.count) file\(g.files.count == 1 ? "" : "s"): \(shown)\(more)\n"
    if !g.others.isEmpty {
      out += "these files also differ in:\n"
      for o in g.others.prefix(VerifyCase.headlinesShownMax) { out += "  \(o.title) (×\(o.count))\n" }
      if g.others.count > VerifyCase.headlinesShownMax {
        out += "  … and \(g.others.count - VerifyCase.headlinesShownMax) more kinds\n"
      }
    }
    out += "the answer applies to all \(g.files.count); the example, \(g.files[0]):\n"
    out += "(or decide later: jpreplay accept --group '\(g.key)' / jpreplay reject --group '\(g.key)')\n"
    return out
  }

  /// Files named in a group's header.
  public static let groupFilesShownMax = 10

  /// The header, first divergence and diff of one pending file.
  func show(_ p: PendingGolden, position: Int, of total: Int) throws -> String {
    let golden = try store.readGolden(p.name, p.kind)
    let fresh = try store.readPending(p.name, p.kind) ?? ""
    var out = "\n[\(position)/\(total)] \(ConsoleText.line(p.name)) — \(p.kind.rawValue)\n"
    if let golden {
      if let problem = Verifier.compare(
        golden: golden, fresh: fresh, kind: p.kind, name: p.name, diff: DiffOptions(reading: store.traceReading))
      {
        out += "first divergence: \(ConsoleText.line(problem.message))\n"
        if p.kind == .trace, let t = problem.divergences.first?.t {
          // The timeline around it: metrics, thresholds, labels, displays (`jpreplay plot`).
          out +=
            "timeline: jpreplay plot \(store.recordingURL(p.name).path) --from \(max(0, t - 3000)) --to \(t + 3000) -o \(p.name).timeline.svg\n"
        }
        if problem.hunkCount > 1 {
          out += "\(problem.hunkCount) divergent hunks in all:\n"
          for (n, d) in problem.divergences.prefix(VerifyCase.headlinesShownMax).enumerated() {
            out += "  #\(n + 1) \(ConsoleText.line(d.explanation))\n"
          }
        }
      } else {
        out += "the .new equals the golden\n"
      }
    } else {
      out += "new golden (no \(store.goldenLabel)/\(p.name)\(p.kind.suffix) yet)\n"
    }
    out += UnifiedDiff.render(
      old: Self.lines(golden ?? ""), new: Self.lines(fresh),
      oldName: "\(store.goldenLabel)/\(p.name)\(p.kind.suffix)",
      newName: "\(store.goldenLabel)/\(p)", context: context, color: color)
    return out
  }

  /// Asks until it gets a valid answer; end of input means skip everything left.
  func ask() -> Answer {
    while true {
      write("accept, reject or skip? [a/r/s/q] ")
      guard let line = readLine() else {
        write("\n(end of input: skipping the rest)\n")
        return .quit
      }
      switch line.trimmingSpaces.lowercased() {
      case "a", "accept", "y", "yes": return .accept
      case "r", "reject", "n", "no": return .reject
      case "s", "skip", "": return .skip
      case "q", "quit": return .quit
      default: write("please answer a (accept), r (reject), s (skip) or q (quit)\n")
      }
    }
  }

  static func lines(_ text: String) -> [String] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
  }
}
