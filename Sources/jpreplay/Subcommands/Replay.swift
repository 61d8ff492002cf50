import ArgumentParser
import Foundation
import Lab
import Replay

extension JPReplay {
  struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Replay a recording through the engine and print its canonical trace.",
      discussion: """
        Runs the recording on a virtual clock (never paced by the wall clock) and writes the \
        canonical trace (DESIGN §4) to stdout or -o. The same recording, spec and options \
        always give byte-identical output.

        Each replay persists the session to a fresh SQLite store (the app's schema) in a \
        temporary directory, removed afterwards; --keep-store PATH writes it to PATH instead, \
        for inspection with sqlite3 (an existing PATH is refused unless --force).

        --trace metrics adds the per-evaluation cue_eval lines (metric values against \
        thresholds), for debugging and tuning; --trace cue_display,script_card keeps only \
        those output kinds.

        Examples:
          jpreplay replay Recordings/drift-left-and-back.jprec
          jpreplay replay Recordings/drift-left-and-back.jprec --trace metrics | grep FRAME_MOVE
          jpreplay replay Recordings/feet-cropped.jprec --set bboxRequiresAllListed=true -o /tmp/t.jsonl --a13 /tmp/a13.jsonl
          jpreplay record drift-left-and-back --jsonl > /tmp/drift.jsonl
          jpreplay replay /tmp/drift.jsonl --spec Tests/Fixtures/reference-posespec.json
          jpreplay replay Recordings/kill-while-writing.jprec --keep-store /tmp/s.sqlite --force && sqlite3 /tmp/s.sqlite 'SELECT * FROM session_items'
        """)

    @Argument(help: "The recording (.jprec, .jsonl or .jsonl.zst).")
    var recording: String

    @OptionGroup var engine: EngineArguments

    @Option(name: .shortAndLong, help: "Write the trace to this file (atomically) instead of stdout.")
    var output: String?

    @Option(help: "Write the canonical A.13 lines to this file.")
    var a13: String?

    @Option(help: ArgumentHelp("'metrics' adds cue_eval lines; or a comma-separated list of output kinds to keep.", valueName: "metrics|kinds"))
    var trace: String?

    @Flag(help: "Lenient effect correlation (ENGINE §1.6): missing results default to success.")
    var lenient = false

    @Option(name: .customLong("keep-store"), help: ArgumentHelp("Write the replay's SQLite session store to this file and keep it.", valueName: "path"))
    var keepStore: String?

    @Flag(help: "With --keep-store, replace an existing file.")
    var force = false

    func run() throws {
      var overrides = try engine.parsedOverrides()
      if lenient { overrides.append(("strictEffects", "false")) }
      let metrics = trace == "metrics"
      let kinds: Set<String>? = (trace == nil || metrics) ? nil : Set(trace!.split(separator: ",").map(String.init))
      var storePolicy = SessionStorePolicy.temporary
      if let keepStore {
        if FileManager.default.fileExists(atPath: keepStore) {
          guard force else {
            throw CLIError.badInput("\(keepStore): --keep-store file already exists; pass --force to overwrite it")
          }
          for suffix in ["", "-journal", "-wal", "-shm"] where FileManager.default.fileExists(atPath: keepStore + suffix) {
            do { try FileManager.default.removeItem(atPath: keepStore + suffix) } catch {
              throw CLIError.badInput("\(keepStore + suffix): cannot remove (\(error.localizedDescription))")
            }
          }
        }
        storePolicy = .keep(path: keepStore)
      }
      let driver = try Harness.driver(
        specPath: engine.spec, overrides: overrides, traceMetrics: metrics, sessionStore: storePolicy)
      let url = URL(fileURLWithPath: recording)
      let traceTmp = output.map { $0 + ".tmp-\(getpid())" }
      let a13Tmp = a13.map { $0 + ".tmp-\(getpid())" }
      defer {
        for t in [traceTmp, a13Tmp].compactMap({ $0 }) { try? FileManager.default.removeItem(atPath: t) }
      }
      do {
        let traceSink = try traceTmp.map { try FileLineSink(creating: URL(fileURLWithPath: $0)) } ?? FileLineSink(handle: .standardOutput)
        let a13Sink = try a13Tmp.map { try FileLineSink(creating: URL(fileURLWithPath: $0)) }
        if let a13Sink {
          var out = CanonicalOutput(trace: traceSink, a13: a13Sink, traceKinds: kinds)
          _ = try driver.replay(url, into: &out)
          try a13Sink.finish()
        } else {
          var out = CanonicalOutput(trace: traceSink, a13: DiscardLineSink(), traceKinds: kinds)
          _ = try driver.replay(url, into: &out)
        }
        try traceSink.finish()
      } catch let e as ReplayError {
        throw CLIError(code: e.exitCode.rawValue, message: e.description)
      } catch {
        throw CLIError.badInput("cannot write output: \(error)")
      }
      for (tmp, final) in [(traceTmp, output), (a13Tmp, a13)] {
        if let tmp, let final, rename(tmp, final) != 0 {
          throw CLIError.badInput("\(final): cannot write (\(String(cString: strerror(errno))))")
        }
      }
    }
  }
}
