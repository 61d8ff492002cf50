import ArgumentParser
import Foundation
import Lab
import Recording
import Replay

extension JPReplay {
  struct Accept: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Accept pending golden changes: Golden/<name>.*.jsonl.new replaces the golden.",
      discussion: """
        The replacement is atomic (write to a temporary file, then rename). Naming a recording \
        with nothing pending is an error (exit 2). A pending file whose recording does not \
        exist is refused (exit 2): restore the recording and verify again, or drop the file \
        with `jpreplay reject <name>`. Quoted globs select names ('cov-*'). A pending \
        golden whose replay breaks its scenario's expect: rules (docs/FORMAT.md) is refused \
        with the rules named, and nothing is accepted (exit 1); --force accepts it with a \
        warning.

        Examples:
          jpreplay verify feet-cropped --set bboxRequiresAllListed=true --update new    # exit 1: writes Golden/feet-cropped.trace.jsonl.new
          jpreplay accept feet-cropped
          jpreplay accept --all
          jpreplay accept --all --force    # also goldens that break their scenario's expect: rules
          jpreplay verify feet-cropped --update new --html /tmp/feet.html    # exit 1: the golden accepted above differs from the shipped spec's replay
          jpreplay accept --decisions docs/decisions.example.json    # the page's export: reject feet-cropped's .new

        --decisions FILE applies the accept/reject decisions exported from an HTML report \
        (`jpreplay report`, `verify --html`) with the same checks, plus: names are exact, and a \
        pending file whose bytes changed since the report (or that the report did not see) \
        is refused. Every decision is checked first; one refusal applies nothing (exit 2).
        """)

    @Argument(help: "Recordings whose pending files to accept (names or paths).")
    var recordings: [String] = []

    @Flag(help: "Accept everything pending.")
    var all = false

    @Option(help: ArgumentHelp("Apply the decisions exported from an HTML report.", valueName: "FILE"))
    var decisions: String?

    @Flag(help: "Accept pending goldens even when their replay breaks the scenario's expect: rules.")
    var force = false

    @OptionGroup var corpus: CorpusOptions

    func validate() throws {
      if decisions != nil {
        if all || !recordings.isEmpty { throw ValidationError("--decisions takes no names and no --all") }
        return
      }
      if all == !recordings.isEmpty { throw ValidationError("name the recordings to accept, or pass --all") }
    }

    func run() throws {
      if let decisions { return try applyDecisions(decisions) }
      try checkRules()
      let result = try corpus.store.accept(names: all ? nil : recordings)
      try report(result, verb: "accepted", store: corpus.store)
    }

    /// A golden whose replay breaks its recording's `expect:` rules is refused (exit 1,
    /// nothing accepted) unless --force, which warns.
    func checkRules() throws {
      let store = corpus.store
      let wanted = all ? nil : recordings.map { store.name(of: $0) }
      let names = Set(
        try store.pending().map(\.name).filter { n in wanted?.contains { GoldenStore.glob($0, matches: n) } ?? true })
      var refused = 0
      for name in names.sorted() {
        let unmet = ScenarioCorpus.unmetRules(ofPending: name, store: store)
        guard !unmet.isEmpty else { continue }
        refused += 1
        printErr(
          "jpreplay: \(force ? "warning: " : "")\(ConsoleText.line(name)): the pending golden breaks \(unmet.count) expect: rule\(unmet.count == 1 ? "" : "s") of its scenario:")
        for u in unmet { printErr("  " + ConsoleText.line(u)) }
      }
      if refused > 0 && !force {
        printErr("jpreplay: nothing accepted: fix the engine or the rule, or pass --force to accept anyway")
        throw ExitCode(1)
      }
    }

    func applyDecisions(_ file: String) throws {
      let outcome = try ReportDecisions.apply(ReportDecisions.read(file), store: corpus.store)
      for r in outcome.refused { printErr("jpreplay: \(ConsoleText.line(file)): \(r)") }
      if !outcome.refused.isEmpty { throw ExitCode(2) }
      for a in outcome.applied { print("\(a.verb) \(ConsoleText.line(a.file.description))") }
      if outcome.applied.isEmpty { print("nothing decided") }
    }
  }

  struct Reject: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Reject pending golden changes: delete Golden/<name>.*.jsonl.new.",
      discussion: """
        Examples:
          jpreplay verify feet-cropped --set bboxRequiresAllListed=true --update new    # exit 1
          jpreplay reject feet-cropped
          jpreplay reject --all
        """)

    @Argument(help: "Recordings whose pending files to reject (names or paths).")
    var recordings: [String] = []

    @Flag(help: "Reject everything pending.")
    var all = false

    @OptionGroup var corpus: CorpusOptions

    func validate() throws {
      if all == !recordings.isEmpty { throw ValidationError("name the recordings to reject, or pass --all") }
    }

    func run() throws {
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
