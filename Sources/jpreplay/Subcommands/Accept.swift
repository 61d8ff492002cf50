import ArgumentParser
import Foundation
import Lab
import Recording
import Verify

extension JPReplay {
  struct Accept: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "accept",
      abstract: "Accept pending golden changes: Golden/<name>.*.jsonl.new replaces the golden.",
      discussion: """
        The replacement is atomic (write to a temporary file, then rename). Naming a recording \
        with nothing pending is an error (exit 2). A pending file whose recording does not \
        exist is refused (exit 2): restore the recording and verify again, or drop the file \
        with `jpreplay reject <name>`. Quoted globs select names ('cov-*'). Every file goes \
        through one gate, the same for accept, review and tune promote: a pending golden of \
        a stale recording (not what its scenario generates) or whose replay breaks its \
        scenario's expect: rules (docs/FORMAT.md) is refused with the check and the rules \
        named, and nothing is accepted (exit 1; 2 when the scenario cannot be judged, e.g. a \
        rule naming an unknown cue); --force accepts it with a warning.

        Examples:
          jpreplay verify feet-cropped --set bboxRequiresAllListed=true --update new    # exit 1: writes Golden/feet-cropped.trace.jsonl.new
          jpreplay accept feet-cropped
          jpreplay accept --all
          jpreplay accept --all --force    # also goldens that break their scenario's expect: rules
          jpreplay verify feet-cropped --update new --html /tmp/feet.html    # exit 1: the golden accepted above differs from the shipped spec's replay
          jpreplay accept --decisions docs/decisions.example.json    # the page's export: reject feet-cropped's .new

        --decisions FILE applies the accept/reject decisions exported from an HTML report \
        (`jpreplay report`, `verify --html`) through the same gate, plus: names are exact, and a \
        pending file whose bytes changed since the report, or that an accept decision carries \
        no SHA-256 of (the report did not see it), is refused (exit 2). Every decision is \
        checked first; one refusal applies nothing.

        --group KEY accepts every pending file of a group that `jpreplay review --group` lists \
        (the cue, record kind and shape of the file's first divergence, e.g. \
        FRAME_MOVE_LEFT:cue_display:moved-+1-frame-15-Hz); a quoted glob selects several \
        ('FRAME_MOVE_LEFT:*'). Repeatable; with names, only those recordings' files.

          jpreplay verify feet-cropped --update new    # exit 1: the golden accepted above differs from the shipped spec's replay
          jpreplay review --group --reject-all
          jpreplay verify feet-cropped --update new    # exit 1
          jpreplay accept --group '*'
        """)

    @Argument(help: "Recordings whose pending files to accept (names or paths).")
    var recordings: [String] = []

    @Flag(help: "Accept everything pending.")
    var all = false

    @Option(help: ArgumentHelp("Apply the decisions exported from an HTML report.", valueName: "FILE"))
    var decisions: String?

    @Flag(help: "Accept pending goldens the gate refuses (a stale recording, broken expect: rules, a decision whose SHA-256 does not match), with a warning.")
    var force = false

    @Option(help: ArgumentHelp("Accept a group of `review --group` (a key or a quoted glob). Repeatable.", valueName: "KEY"))
    var group: [String] = []

    @OptionGroup var corpus: CorpusOptions

    func validate() throws {
      if decisions != nil {
        if all || !recordings.isEmpty || !group.isEmpty { throw ValidationError("--decisions takes no names, no --all and no --group") }
        return
      }
      if !group.isEmpty {
        if all { throw ValidationError("--group takes no --all (--group '*' is every group)") }
        return
      }
      if all == !recordings.isEmpty { throw ValidationError("name the recordings to accept, or pass --all") }
    }

    func run() throws {
      if let decisions { return try applyDecisions(decisions) }
      let store = corpus.store
      if !group.isEmpty {
        return try resolveGroups(
          group, names: recordings, verb: "accepted", store: store,
          precheck: { files in try enforceGate(files.filter { store.hasRecording($0.name) }) }
        ) { try store.accept($0) }
      }
      let wanted = all ? nil : recordings.map { store.name(of: $0) }
      let files = try store.pending().filter { p in wanted?.contains { GoldenStore.glob($0, matches: p.name) } ?? true }
      // A file whose recording is gone is refused by `store.accept` below (exit 2), the others
      // go through the gate.
      try enforceGate(files.filter { store.hasRecording($0.name) })
      let result = try store.accept(names: all ? nil : recordings)
      try report(result, verb: "accepted", store: store)
    }

    /// The gate (`GoldenGate`: stale recording, unmet expect: rules) over the files about to
    /// be accepted: refuses (nothing accepted; exit 1, or 2 for bad input) naming each check,
    /// unless --force, which warns.
    func enforceGate(_ files: [PendingGolden]) throws {
      let store = corpus.store
      let gate = GoldenGate(store: store, engines: EngineRegistry.scenarioChecksOrNone(recordingsDir: store.recordingsDir.path))
      let verdict = GoldenGate.verdict(gate.check(files), force: force)
      for f in verdict.warned { for (i, l) in f.lines.enumerated() { printErr(i == 0 ? "jpreplay: warning: \(l)" : l) } }
      for f in verdict.refused { for (i, l) in f.lines.enumerated() { printErr(i == 0 ? "jpreplay: \(l)" : l) } }
      guard let code = verdict.exitCode else { return }
      printErr(
        "jpreplay: "
          + GoldenGate.closing(
            verdict, nothing: "nothing accepted",
            override: "fix the engine, the rule or the recording, or pass --force to accept anyway"))
      throw ExitCode(code)
    }

    func applyDecisions(_ file: String) throws {
      let store = corpus.store
      let gate = GoldenGate(store: store, engines: EngineRegistry.scenarioChecksOrNone(recordingsDir: store.recordingsDir.path))
      let outcome = try ReportDecisions.apply(ReportDecisions.read(file), gate: gate, force: force)
      for w in outcome.warnings { printErr("jpreplay: warning: \(ConsoleText.line(file)): \(w)") }
      for r in outcome.refused { printErr("jpreplay: \(ConsoleText.line(file)): \(r)") }
      if let code = outcome.exitCode {
        if let closing = outcome.closing { printErr("jpreplay: \(ConsoleText.line(file)): \(closing)") }
        throw ExitCode(code)
      }
      for a in outcome.applied { print("\(a.verb) \(ConsoleText.line(a.file.description))") }
      if outcome.applied.isEmpty { print("nothing decided") }
    }
  }

  struct Reject: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reject",
      abstract: "Reject pending golden changes: delete Golden/<name>.*.jsonl.new.",
      discussion: """
        Examples:
          jpreplay verify feet-cropped --set bboxRequiresAllListed=true --update new    # exit 1
          jpreplay reject feet-cropped
          jpreplay reject --all

        --group KEY rejects every pending file of a group of `jpreplay review --group` (a key \
        or a quoted glob; repeatable).

          jpreplay verify feet-cropped --set bboxRequiresAllListed=true --update new    # exit 1
          jpreplay reject --group '*'
        """)

    @Argument(help: "Recordings whose pending files to reject (names or paths).")
    var recordings: [String] = []

    @Flag(help: "Reject everything pending.")
    var all = false

    @Option(help: ArgumentHelp("Reject a group of `review --group` (a key or a quoted glob). Repeatable.", valueName: "KEY"))
    var group: [String] = []

    @OptionGroup var corpus: CorpusOptions

    func validate() throws {
      if !group.isEmpty {
        if all { throw ValidationError("--group takes no --all (--group '*' is every group)") }
        return
      }
      if all == !recordings.isEmpty { throw ValidationError("name the recordings to reject, or pass --all") }
    }

    func run() throws {
      if !group.isEmpty {
        return try resolveGroups(group, names: recordings, verb: "rejected", store: corpus.store) { try corpus.store.reject($0) }
      }
      let result = try corpus.store.reject(names: all ? nil : recordings)
      try report(result, verb: "rejected", store: corpus.store)
    }
  }
}

private func report(_ result: ResolveResult, verb: String, store: GoldenStore) throws {
  for p in result.resolved { print("\(verb) \(p)") }
  if result.resolved.isEmpty && result.unknown.isEmpty && result.refused.isEmpty { print("nothing pending") }
  if !result.refused.isEmpty {
    for p in result.refused { printErr("jpreplay: " + store.refusal(p)) }
    if result.unknown.isEmpty { throw ExitCode(2) }
  }
  if !result.unknown.isEmpty {
    throw CLIError.badInput("nothing pending for: \(result.unknown.joined(separator: ", ")) (see `jpreplay verify`)")
  }
}

/// `accept --group` / `reject --group`: the pending files (of `names`, or all) grouped as
/// `review --group` groups them; every file of the selected groups resolved. A pattern that
/// selects no group is bad input (exit 2) listing the keys; accepting refuses a file whose
/// recording is gone, as `accept NAME` does.
private func resolveGroups(
  _ patterns: [String], names: [String], verb: String, store: GoldenStore, precheck: ([PendingGolden]) throws -> Void = { _ in },
  _ action: (PendingGolden) throws -> Void
) throws {
  let wanted = names.map { store.name(of: $0) }
  let pending = try store.pending().filter { p in wanted.isEmpty || wanted.contains { GoldenStore.glob($0, matches: p.name) } }
  let groups = try PendingGroup.groups(pending, store: store)
  let (selected, unknown) = PendingGroup.select(groups, patterns: patterns)
  if !unknown.isEmpty {
    let keys = groups.isEmpty ? "nothing is pending" : "the groups: " + groups.map(\.key).joined(separator: ", ")
    throw CLIError.badInput("no pending group matches \(unknown.joined(separator: ", ")) (\(keys); see `jpreplay review --group`)")
  }
  try precheck(selected.flatMap(\.files))
  var refused: [PendingGolden] = []
  for g in selected {
    for p in g.files {
      if verb == "accepted" && !store.hasRecording(p.name) {
        refused.append(p)
        continue
      }
      try action(p)
      print("\(verb) \(p)")
    }
  }
  for p in refused { printErr("jpreplay: " + store.refusal(p)) }
  if !refused.isEmpty { throw ExitCode(2) }
}
