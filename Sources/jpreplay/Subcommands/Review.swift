import ArgumentParser
import Foundation
import Lab
import Recording
import Verify

extension JPReplay {
  struct Review: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "review",
      abstract: "Walk pending golden changes (.new files) and accept, reject or skip each.",
      discussion: """
        Shows each pending Golden/<name>.<kind>.jsonl.new as a diff against its golden and \
        asks: [a]ccept, [r]eject, [s]kip, [q]uit. Answers are read line by line from standard \
        input, so a script can drive it without a terminal. Exits 1 while files stay pending. \
        A pending file whose recording does not exist is never offered (restore the \
        recording, or drop the file with `jpreplay reject <name>`). Quoted globs select \
        names ('cov-*'). --color auto colours diffs on a terminal unless NO_COLOR is set. A \
        recording the gate refuses — its recording is stale, or its pending goldens break its \
        scenario's expect: rules — is named with the reasons before its first file, and an \
        accept of it (an answer, --accept-all, a group) is refused, the file left pending \
        (exit 1), as `accept` refuses it; --force accepts it with the warning.

        Examples:
          jpreplay review
          jpreplay review drift-left-and-back
          jpreplay review 's0*'
          printf 'a\\nr\\n' | jpreplay review
          jpreplay review --accept-all

        --group reviews the pending files by group, as verify groups divergences: files whose \
        first divergence has the same cue, record kind and shape (moved, missing, extra, a \
        changed field) are one decision, shown with one example and the other divergences \
        found in the group's files. The groups' keys work with accept --group and reject --group.

          jpreplay verify feet-cropped --set bboxRequiresAllListed=true --update new    # exit 1: writes .new files
          printf 's\\n' | jpreplay review --group    # exit 1: lists the groups, skips
          jpreplay reject --all
        """)

    @Argument(help: "Only these recordings (names or paths); default: everything pending.")
    var recordings: [String] = []

    @OptionGroup var corpus: CorpusOptions

    @Flag(help: "Accept every pending file without asking.")
    var acceptAll = false

    @Flag(help: "Reject every pending file without asking.")
    var rejectAll = false

    @Flag(help: "Accept files the gate refuses (a stale recording, broken expect: rules), with a warning.")
    var force = false

    @Flag(help: "One decision per group of files with the same first divergence (cue, kind, shape).")
    var group = false

    @Option(help: "Lines of context in diffs.")
    var context = 3

    @Option(help: "Colour: auto (a terminal without NO_COLOR), always or never.")
    var color: ColorChoice = .auto

    func validate() throws {
      if acceptAll && rejectAll { throw ValidationError("--accept-all and --reject-all are mutually exclusive") }
      guard (0...CLILimits.contextLinesMax).contains(context) else {
        throw ValidationError("--context: expected 0…\(CLILimits.contextLinesMax) lines (CLILimits.contextLinesMax), found \(context)")
      }
    }

    func run() throws {
      let mode: ReviewSession.Mode = acceptAll ? .acceptAll : rejectAll ? .rejectAll : .ask
      let painted = color.enabled(isTTY: stdoutIsTTY)
      var session = ReviewSession(
        store: corpus.store, mode: mode, names: recordings.isEmpty ? nil : recordings,
        color: painted, context: context,
        readLine: { Swift.readLine(strippingNewline: true) },
        write: { text in
          // Names, rules and diff lines come from files: through the console writer's rule
          // (ConsoleText.lines, the diff's colours kept). A write that fails ends the run with
          // exit 2 (StandardOutput), never a trap.
          let safe = ConsoleText.lines(text, colours: painted)
          do { try StandardOutput.write(Array(safe.utf8)) } catch { StandardOutput.fail(error) }
        })
      let store = corpus.store
      let engines = EngineRegistry.scenarioChecksOrNone(recordingsDir: store.recordingsDir.path)
      let gate = GoldenGate(store: store, engines: engines)
      session.gate = { gate.check([$0]) }
      session.force = force
      session.grouped = group
      let outcome = try session.run()
      if outcome.exitCode != .ok { throw ExitCode(outcome.exitCode.rawValue) }
    }
  }
}
