import ArgumentParser
import EngineIO
import Foundation
import JustPhotoPlugin
import Lab
import Recording
import Replay

extension JPReplay {
  struct Minimize: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "minimize",
      abstract: "Shrink a recording to a small repro that still shows a behaviour.",
      discussion: """
        Shrinks the recording while a property still holds: drops label events; cuts the end \
        (a binary search for the shortest duration that still shows it); cuts the head (the \
        launch events and up to 4 setup events stay, e.g. PixScan's library snapshot, and the \
        shortest tail that still shows it is searched from the end: the last 1…8 events, \
        then twice as many each step, then a binary search); then delta-debugs whole event \
        kinds, whole time windows (--window-ms) and single events, so no single event of the \
        result can go; and moves the rest to start at t = 0 when the behaviour allows. The \
        cuts take O(log n) checks, so a long recording whose behaviour needs a short stretch \
        is cut to it before delta debugging (6,255 events to 6 in 65 checks on \
        Recordings/pixscan/long-session-5000.jprec with the long-session example below). The result \
        is a new .jprec whose header states its real duration and counts. Same input, same \
        output bytes. On a terminal, standard error shows the stage, the events kept and the \
        checks so far; the summary line counts the property checks (replays, or runs of \
        --test).

        The property kept is, by default, that the replay still diverges from \
        Golden/<name>.trace.jsonl in the same way (the trace lines within ±500 ms of the first \
        divergence are unchanged); with --expect M, that some trace line matches M (KIND \
        [ID][/LEVEL] [key=value]…); with --test CMD, that CMD exits 0 (run with sh -c; {} stands \
        for the candidate's path, which is passed as the shell's "$1" and as $JPREPLAY_CANDIDATE, \
        never pasted into the command text).

        With --against REV|BINARY the property is that two engines' replays differ in the same \
        way: the first difference between the reference (REV: a git revision, built and cached \
        under .build/bisect/bin as `bisect commits` does — a revision whose Package.swift \
        and Sources/ equal an existing build's, the checkout's .build/release included, \
        builds nothing — and run with that revision's PoseSpec.json; or BINARY: a jpreplay executable, run with this command's --spec) and \
        this jpreplay stays the same — same file, kind and records. The result is a regression \
        repro by construction: the reference's replay of it is the golden, this build departs \
        from it. Its header gets `regression` with both engines' verdicts (what each shows at \
        the difference); --write-golden DIR writes the reference's <out-name>.trace.jsonl and \
        .a13.jsonl there, so the repro can join Recordings/ and Golden/.

        A recording of another engine (its header's `engine`, e.g. PixScan's `engine: pixscan`) \
        is replayed by that engine: the default property, --expect (KIND [key=value]…, with \
        its trace kinds; docs/PIXSCAN.md for PixScan's) and --test work on it the same way, \
        and the result keeps its header's `engine`. --spec and --set are Just Photo's; \
        --against refuses another engine's recording (exit 2).

        Exits 0 when a minimized recording was written, 2 on bad input or when the property \
        does not hold on the input.

        Examples:
          jpreplay minimize Recordings/s04-frame-left-enter.jprec --expect 'cue_display FRAME_MOVE_LEFT/hard' -o /tmp/left-min.jprec --force
          jpreplay minimize Recordings/kill-while-writing.jprec --expect 'prompt key=write_failed_block op=shown' -o /tmp/wf.jprec --force
          jpreplay minimize Recordings/s04-frame-left-enter.jprec --test 'test -s {}' -o /tmp/t.jprec --force
          jpreplay minimize Recordings/pixscan/undo-edges.jprec --expect 'ignored input=undo reason=nothing_to_undo' -o /tmp/undo-min.jprec --force
          jpreplay minimize Recordings/pixscan/long-session-5000.jprec --expect 'message key=deleted' -o /tmp/deleted-min.jprec --force   # the delete at the end of 1,010 s: launch, snapshot, one swipe and the delete stay
          mkdir -p /tmp/pixgold && sed 's/"action":"ocr_keep"/"action":"keep"/' Golden/pixscan/swipe-directions.trace.jsonl > /tmp/pixgold/swipe-directions.trace.jsonl
          jpreplay minimize Recordings/pixscan/swipe-directions.jprec --golden-dir /tmp/pixgold -o /tmp/swipe-min.jprec --force   # a golden that says down keeps without reading
          jpreplay minimize Recordings/gate-probe-hold-vs-frames.jprec --against HEAD~1 -o /tmp/gate-min.jprec --write-golden /tmp/gate-golden   # not run: builds a release jpreplay for HEAD~1
        """)

    @Argument(help: "The recording to shrink (.jprec or JSONL).")
    var recording: String

    @Option(name: .shortAndLong, help: "Where to write the result (default: <name>-min.jprec here).")
    var output: String?
    @Flag(help: "Replace the output file if it exists.")
    var force = false
    @Option(help: ArgumentHelp("Keep a trace line matching this.", valueName: "KIND [ID][/LEVEL] [key=value]…"))
    var expect: String?
    @Option(help: ArgumentHelp("Keep what makes this shell command exit 0 ({} = the candidate).", valueName: "CMD"))
    var test: String?
    @Option(name: .customLong("window-ms"), help: "Width of the time windows removed as a whole.")
    var windowMs: Int64 = 1000
    @Option(name: .customLong("golden-dir"), help: "Where the golden of the default property is.")
    var goldenDir = "Golden"
    @Option(help: ArgumentHelp("Keep the difference between this engine and REV's (built and cached) or BINARY's.", valueName: "REV|BINARY"))
    var against: String?
    @Option(name: .customLong("write-golden"), help: ArgumentHelp("With --against: write the reference engine's goldens of the result here.", valueName: "DIR"))
    var writeGolden: String?
    @OptionGroup var engine: EngineArguments

    func validate() throws {
      if [expect != nil, test != nil, against != nil].filter({ $0 }).count > 1 {
        throw ValidationError("--expect, --test and --against are mutually exclusive")
      }
      if writeGolden != nil, against == nil { throw ValidationError("--write-golden needs --against (the reference engine writes the goldens)") }
      if windowMs < 1 { throw ValidationError("--window-ms must be ≥ 1") }
    }

    func run() throws {
      // The recording replays through its engine's plug-in (the registry's, by the header's
      // `engine`), configured with --spec/--set (an engine that takes none refuses them);
      // --against builds and runs a Just Photo engine with a PoseSpec.
      let plugin = try EngineRegistry.route(recording)
      let options = EngineOptionValues(spec: engine.spec, overrides: try engine.parsedOverrides())
      let configured = Result { () throws(EngineOptionError) -> EnginePlugin in try plugin.configured(options) }
      if case .failure(let e) = configured, case .notAccepted = e { throw EngineRegistry.refusal(e, plugin: plugin, path: recording) }
      if against != nil {
        try EngineRegistry.requireJustPhoto(recording, command: "minimize --against", why: "it runs another jpreplay with a PoseSpec")
      }
      // Bad input is exit 2 here too (issue 23.6): an unreadable, missing or special file.
      do { try minimize(plugin, configured) } catch let e as MinimizeError { throw CLIError.badInput("\(recording): \(e)") } catch let e as BadInputError {
        throw CLIError.badInput(e.description)
      } catch let e as RecordingError { throw CLIError.badInput(e.description) }
    }

    /// Minimizes with the engine's in-process replays: `plugin`'s, `configured` with the
    /// command's engine options (or why it could not be).
    func minimize(_ plugin: EnginePlugin, _ configured: Result<EnginePlugin, EngineOptionError>) throws {
      let url = URL(fileURLWithPath: recording)
      let name = url.fileStem
      let original = try MinimizeFiles.read(url)
      if let against {
        // Just Photo's only (`run` refused another engine's recording).
        let driver = try Harness.driver(specPath: engine.spec, overrides: try engine.parsedOverrides(), sessionStore: .temporary)
        let spec = engine.spec ?? Harness.defaultSpecPath
        try regression(against: against, original: original, name: name, tested: RegressionProperty.inProcess(driver, label: "this jpreplay with \(spec)", name: name))
        return
      }
      let engine: EnginePlugin
      do { engine = try configured.get() } catch { throw EngineRegistry.refusal(error, plugin: plugin, path: recording) }
      let replay = CandidateReplay { c, selection in
        try engine.records(c.header, c.events, selection, PluginSettings(), "minimize candidate")
      }
      let grammar = TraceMatcher.Grammar.of(plugin)
      var channels: [String: String] = [:]
      for k in plugin.kinds { channels[k.name] = k.channel }
      let definitions = plugin.definitions
      let property: (Minimizer.Candidate) throws -> Bool
      let what: String
      if let expect {
        let matcher = try TraceMatcher(parsing: expect, grammar: grammar)
        property = MinimizeProperty.expects(replay: replay, matcher)
        what = "a trace line matching '\(expect)'"
      } else if let test {
        property = { c in try Self.runTest(test, on: c, name: name, channels: channels, definitions: definitions) }
        what = "`\(test)` exits 0"
      } else {
        let goldenPath = Paths.join(goldenDir, name + ".trace.jsonl")
        guard let golden = FileManager.default.contents(atPath: goldenPath) else {
          throw CLIError.badInput("\(goldenPath): no golden to compare with (give --expect or --test, or --golden-dir)")
        }
        let keep = try MinimizeProperty.keepsDivergence(
          replay: replay, name: name, golden: String(decoding: golden, as: UTF8.self), original: original)
        property = keep.property
        what = "the divergence from the golden at t=\(keep.at)"
      }
      let progress = ProgressLine(label: "minimize:")
      let launchKinds = Set(plugin.kinds.filter(\.launches).map(\.name))
      let minimizer = Minimizer(
        windowMs: windowMs, launches: { launchKinds.contains($0.kindName) }, progress: Self.progressLine(progress, of: original),
        property: property)
      let outcome = try minimizer.run(original)
      progress.finish()
      let out = output ?? "\(name)-min.jprec"
      try MinimizeFiles.write(
        outcome.minimized, from: name, to: out, force: force, channels: channels, definitions: definitions)
      let before = outcome.original
      let after = outcome.minimized
      print("minimize \(recording): keeping \(what)")
      print("  before: \(before.events.count) events, \(before.durationMs) ms  \(Self.counts(before.events))")
      print("  after:  \(after.events.count) events, \(after.durationMs) ms  \(Self.counts(after.events))")
      let pct = before.events.isEmpty ? 100 : Double(after.events.count) * 100 / Double(before.events.count)
      print("  \(String(format: "%.1f", pct)) % of the events, \(outcome.tests) property checks; wrote \(out)")
      Self.printLimit(outcome)
    }

    /// `--against`: keep the difference between the reference engine and this one.
    func regression(against: String, original: Minimizer.Candidate, name: String, tested: RegressionProperty.Side) throws {
      let spec = engine.spec ?? Harness.defaultSpecPath
      let scratch = try SafeFile.temporaryDirectory("minimize")
      defer { try? FileManager.default.removeItem(at: scratch) }
      let reference = try RegressionRepro.reference(against, spec: spec, overrides: engine.overrides, name: name, scratch: scratch)
      let out = output ?? "\(name)-min.jprec"
      let r = try RegressionRepro.run(
        original: original, name: name, reference: reference, tested: tested, output: out, force: force,
        goldenDir: writeGolden, windowMs: windowMs, progressLabel: "minimize:")
      print("minimize \(recording): keeping the difference between \(reference.label) (reference) and \(tested.label)")
      print("  " + r.first.divergence.explanation.replacingOccurrences(of: "golden", with: "reference").replacingOccurrences(of: "replay", with: "this build"))
      Self.printSizes(r.outcome)
      for l in r.lines { print("  " + l) }
    }

    /// A terminal's progress line: the stage, the property checks so far and the smallest
    /// candidate found (of the input's events).
    static func progressLine(_ line: ProgressLine, of original: Minimizer.Candidate) -> (Minimizer.Progress) -> Void {
      { p in line.update(p.events, of: original.events.count, "events kept, \(p.tests) checks (\(p.stage))") }
    }

    static func printSizes(_ outcome: Minimizer.Outcome) {
      let before = outcome.original
      let after = outcome.minimized
      print("  before: \(before.events.count) events, \(before.durationMs) ms  \(Self.counts(before.events))")
      print("  after:  \(after.events.count) events, \(after.durationMs) ms  \(Self.counts(after.events))")
      let pct = before.events.isEmpty ? 100 : Double(after.events.count) * 100 / Double(before.events.count)
      print("  \(String(format: "%.1f", pct)) % of the events, \(outcome.tests) property checks")
      printLimit(outcome)
    }

    /// Says when a ddmin stage stopped at its check limit (the result may not be 1-minimal).
    static func printLimit(_ outcome: Minimizer.Outcome) {
      guard !outcome.stagesAtLimit.isEmpty else { return }
      print(
        "  stopped at \(Minimizer.Limits.testsPerStageMax) checks in the \(outcome.stagesAtLimit.joined(separator: ", ")) stage(s): "
          + "the result still shows the behaviour but some of its events may not be needed; a --expect or --test that needs fewer events shrinks further")
    }

    static func counts(_ events: [InputEvent]) -> String {
      var order: [String] = []
      var n: [String: Int] = [:]
      for e in events {
        let k = e.kindName
        if n[k] == nil { order.append(k) }
        n[k, default: 0] += 1
      }
      return "(" + order.map { "\($0) \(n[$0]!)" }.joined(separator: ", ") + ")"
    }

    /// The `--test` text run by `sh -c`: each `{}` (bare or quoted) becomes "$1"; without one
    /// (and without $JPREPLAY_CANDIDATE), "$1" is appended.
    static func shellCommand(_ command: String) -> String {
      guard command.contains("{}") else { return command.contains("JPREPLAY_CANDIDATE") ? command : command + " \"$1\"" }
      return command.replacingOccurrences(of: "'{}'", with: "\"$1\"").replacingOccurrences(of: "\"{}\"", with: "\"$1\"")
        .replacingOccurrences(of: "{}", with: "\"$1\"")
    }

    /// Writes the candidate to a temporary recording and runs the user's command on it.
    static func runTest(
      _ command: String, on c: Minimizer.Candidate, name: String, channels: [String: String] = [:],
      definitions: any EventDefinitions.Type = EngineRegistry.definitions(of: nil)
    ) throws -> Bool {
      let dir = try SafeFile.temporaryDirectory("minimize")
      defer { try? FileManager.default.removeItem(at: dir) }
      let path = dir.joined("\(name)-candidate.jprec").path
      try MinimizeFiles.write(c, from: name, to: path, force: true, channels: channels, definitions: definitions)
      // The candidate's path never enters the command text: `{}` becomes "$1" and the path is
      // the shell's first positional argument (and $JPREPLAY_CANDIDATE), so no character of a
      // recording's name can be read as shell syntax.
      let p = Process()
      p.executableURL = URL(fileURLWithPath: "/bin/sh")
      p.arguments = ["-c", Self.shellCommand(command), "jpreplay-minimize-test", path]
      p.environment = ProcessInfo.processInfo.environment.merging(["JPREPLAY_CANDIDATE": path]) { $1 }
      p.standardOutput = FileHandle.nullDevice
      p.standardError = FileHandle.nullDevice
      do { try p.run() } catch { throw CLIError.badInput("cannot run /bin/sh for --test: \(SystemReason.message(error))") }
      p.waitUntilExit()
      return p.terminationStatus == 0
    }
  }
}
