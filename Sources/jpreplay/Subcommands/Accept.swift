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
        with `jpreplay reject <name>`. Quoted globs select names ('cov-*').

        Examples:
          jpreplay verify feet-cropped --set bboxRequiresAllListed=true --update new    # exit 1: writes Golden/feet-cropped.trace.jsonl.new
          jpreplay accept feet-cropped
          jpreplay accept --all
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
      let result = try corpus.store.accept(names: all ? nil : recordings)
      try report(result, verb: "accepted", store: corpus.store)
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
