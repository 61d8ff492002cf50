import ArgumentParser
import Foundation
import Lab
import Recording
import Replay

extension JPReplay {
  struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "replay",
      abstract: "Replay a recording through the engine and print its canonical trace.",
      discussion: """
        Runs the recording on a virtual clock (never paced by the wall clock) and writes the \
        canonical trace (DESIGN §4) to stdout or -o. The same recording, spec and options \
        always give byte-identical output.

        Each replay persists the session to a fresh SQLite store (the app's schema) in a \
        temporary directory, created when the session is first saved and removed afterwards; \
        --keep-store PATH writes it to PATH instead (always created), for inspection with \
        sqlite3 (an existing PATH is refused unless --force).

        --trace metrics adds the per-evaluation cue_eval lines (each cue's metric value, level, \
        hysteresis state and the thresholds it was judged against; the anti-jitter gate's \
        input, stable_frames/persist_frames, held_ms/min_hold_ms and cooldown), for debugging \
        and tuning; --cue ID (repeatable) narrows them to those cues. --trace \
        cue_display,script_card keeps only those output kinds (an unknown kind is an error).

        --set NAME=VALUE overrides an engine option of the recording's header (the list is \
        under --set below). --set landmarkFilter=oneEuro runs a PROPOSED app change, a causal \
        One Euro filter on every landmark coordinate before the metrics, tuned by \
        oneEuroMinCutoff (Hz), oneEuroBeta and oneEuroDCutoff (Hz); docs/TUNING.md has its lag.

        Examples:
          jpreplay replay Recordings/drift-left-and-back.jprec
          jpreplay replay Recordings/drift-left-and-back.jprec --trace metrics --cue FRAME_MOVE_LEFT
          jpreplay replay Recordings/feet-cropped.jprec --set bboxRequiresAllListed=true -o /tmp/t.jsonl --a13 /tmp/a13.jsonl
          jpreplay replay Recordings/drift-left-and-back.jprec --set landmarkFilter=oneEuro --set oneEuroBeta=5 --trace metrics --cue FRAME_MOVE_LEFT
          jpreplay record drift-left-and-back --jsonl > /tmp/drift.jsonl
          jpreplay replay /tmp/drift.jsonl --spec Tests/Fixtures/reference-posespec.json
          jpreplay replay Recordings/kill-while-writing.jprec --keep-store /tmp/s.sqlite --force && sqlite3 /tmp/s.sqlite 'SELECT * FROM session_items'
        """)

    @Argument(help: "The recording (.jprec, .jsonl or .jsonl.zst).")
    var recording: String

    @OptionGroup var engine: EngineArguments
    @OptionGroup var planted: PlantFaultOption

    @Option(name: .shortAndLong, help: "Write the trace to this file (atomically) instead of stdout.")
    var output: String?

    @Option(help: "Write the canonical A.13 lines to this file.")
    var a13: String?

    @Option(help: ArgumentHelp("'metrics' adds cue_eval lines; or a comma-separated list of output kinds to keep.", valueName: "metrics|kinds"))
    var trace: String?

    @Option(help: ArgumentHelp("With --trace metrics: keep only this cue in cue_eval lines. Repeatable.", valueName: "ID"))
    var cue: [String] = []

    @Flag(help: "Lenient effect correlation (ENGINE §1.6): missing results default to success.")
    var lenient = false

    @Option(name: .customLong("keep-store"), help: ArgumentHelp("Write the replay's SQLite session store to this file and keep it.", valueName: "path"))
    var keepStore: String?

    @Flag(help: "With --keep-store, replace an existing file.")
    var force = false

    func run() throws {
      planted.warn()
      let routed = try EngineRegistry.route(recording, plugins: planted.plugins())
      try planted.requireEngineRecording(routed, path: recording)
      // The engine's options (Just Photo's `--spec`, `--set`, `--trace metrics`, `--cue`; an
      // engine that takes none refuses them, and its `--trace` names its own `out` kinds).
      let options = EngineOptionValues(spec: engine.spec, overrides: try engine.parsedOverrides(), trace: trace, cues: cue)
      let plugin = try EngineRegistry.configured(routed, options, path: recording)
      let kept = try keptStore()
      let settings = PluginSettings(strictEffects: lenient ? false : nil, sessionStore: kept?.policy ?? .temporary)
      let url = URL(fileURLWithPath: recording)
      // Outputs go to `SafeFile` temporaries (created exclusively, never through a symlink),
      // renamed over OUT only when the replay succeeded.
      let standardOutput = FileLineSink(handle: .standardOutput, console: true)
      try KeptStore.putting(kept) {
        do {
          try Self.producing(output) { traceFile in
            try Self.producing(a13) { a13File in
              var traceSink: any LineSink = traceFile ?? standardOutput
              var a13Sink: any LineSink = a13File ?? DiscardLineSink()
              _ = try plugin.replay(url, settings, &traceSink, &a13Sink)
              try a13File?.finish()
              try (traceFile ?? standardOutput).finish()
            }
          }
        } catch let e as ReplayError {
          // The reader closed the pipe (`| head`): it has what it wanted.
          if standardOutput.readerClosed { KeptStore.exitPutting(kept) }
          throw CLIError(code: e.exitCode.rawValue, message: e.description)
        } catch let e as SafeFileError {
          throw CLIError.badInput("\(e.path): cannot write (\(e.message))")
        } catch {
          if StandardOutput.isBrokenPipe(error) { KeptStore.exitPutting(kept) }
          throw CLIError.badInput("cannot write the output (\(StandardOutput.reason(error)))")
        }
      }
    }

    /// `--keep-store PATH`: the store is made under a `SafeFile` temporary's short name beside
    /// PATH (the output rule; a PATH name of 248–255 bytes leaves no room for SQLite's
    /// `-journal` beside it) and put at PATH when the replay is over, whatever its outcome.
    final class KeptStore {
      let temporary: SafeFile.Temporary
      let target: String
      let replace: Bool
      var policy: SessionStorePolicy { .keep(path: temporary.path) }

      init(temporary: SafeFile.Temporary, target: String, replace: Bool) {
        self.temporary = temporary
        self.target = target
        self.replace = replace
      }

      /// Runs `body` (the replay), then puts the store at its path (also when `body` failed:
      /// its error is the one reported).
      static func putting(_ kept: KeptStore?, _ body: () throws -> Void) throws {
        guard let kept else { return try body() }
        do { try body() } catch {
          try? kept.put()
          throw error
        }
        do { try kept.put() } catch { throw CLIError.badInput("\(kept.target): cannot write (\(error.message))") }
      }

      /// Exit 0 (the reader left the pipe: it has what it wanted), the store put at its path
      /// first: `exit` runs no deinit, so the temporary would stay.
      static func exitPutting(_ kept: KeptStore?) -> Never {
        try? kept?.put()
        Foundation.exit(0)
      }

      /// rename(2) over PATH with --force, else link(2) (a file that appeared meanwhile is kept).
      func put() throws(SafeFileError) {
        if replace { try temporary.commit(to: target) } else { try temporary.commitNew(to: target) }
      }
    }

    /// nil (a fresh temporary store per replay), or `--keep-store PATH`'s store (an existing
    /// PATH only with --force: replaced when the replay is over, its SQLite side files removed).
    func keptStore() throws -> KeptStore? {
      guard let asked = keepStore else { return nil }
      // The output rule (OutputTarget): a database needs a regular file or a missing path; a
      // symbolic link is followed, a device, FIFO or directory refused before anything is removed.
      let keepStore: String
      do {
        guard case .replace(let real) = try OutputTarget(asked, database: true) else { return nil }
        keepStore = real
      } catch { throw CLIError.badInput("\(error.path): cannot write (\(error.message))") }
      let exists = FileManager.default.fileExists(atPath: keepStore)
      if exists {
        guard force else {
          throw CLIError.badInput("\(keepStore): --keep-store file already exists; pass --force to overwrite it")
        }
        // SQLite would apply the old store's journal to the new one put at its name.
        for suffix in ["-journal", "-wal", "-shm"] where FileManager.default.fileExists(atPath: keepStore + suffix) {
          do { try FileManager.default.removeItem(atPath: keepStore + suffix) } catch {
            throw CLIError.badInput("\(keepStore + suffix): cannot remove (\(SystemReason.of(error)))")
          }
        }
      }
      let temporary: SafeFile.Temporary
      do { temporary = try SafeFile.Temporary(beside: keepStore, keepOpen: false) } catch {
        throw CLIError.badInput("\(keepStore): cannot write (\(error.message))")
      }
      return KeptStore(temporary: temporary, target: keepStore, replace: exists)
    }

    /// Runs `body` with a sink into a `SafeFile` temporary for `path` (committed over it when
    /// `body` returns), or with nil when there is no `path`.
    static func producing(_ path: String?, _ body: (FileLineSink?) throws -> Void) throws {
      guard let path else { return try body(nil) }
      try SafeFile.produce(path) { t in
        try body(FileLineSink(handle: FileHandle(fileDescriptor: t.fd!, closeOnDealloc: false)))
      }
    }
  }
}
