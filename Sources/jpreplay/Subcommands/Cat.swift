import ArgumentParser
import EngineIO
import Foundation
import JustPhotoPlugin
import Lab
import Recording
import Replay

extension JPReplay {
  struct Cat: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "cat",
      abstract: "Print a recording as JSONL (header line, then one event per line).",
      discussion: """
        The inverse of `import`: `jpreplay import x.jsonl -o x.jprec && jpreplay cat x.jprec` \
        gives the same events, with landmark numbers at the stored 1/65536 fixed point.

        Examples:
          jpreplay cat Recordings/step-too-close.jprec | head
          jpreplay cat Recordings/step-too-close.jprec --kind ui_scene --kind shutter_tap
          jpreplay cat Recordings/step-too-close.jprec -o /tmp/step.jsonl.zst
        """)

    @Argument(help: "The recording (.jprec, .jsonl or .jsonl.zst).")
    var recording: String

    @Option(name: .shortAndLong, help: "Write to this file instead of stdout (.zst compresses).")
    var output: String?

    @Option(help: "Only events of this kind, one of the recording's engine's kinds (repeatable).")
    var kind: [String] = []

    @Flag(help: "Omit the header line.")
    var noHeader = false

    func run() throws {
      // The recording's engine decides which kinds `--kind` may name and which header check
      // applies (Just Photo's options catalogue, as `import` applies it). A recording of an
      // engine this jpreplay does not know is still printed, its kinds unchecked.
      let routed: EnginePlugin?
      do { routed = try EngineRegistry.route(recording) } catch { routed = nil }
      let reader = try Harness.openReader(recording)
      guard let engine = routed else { return try write(reader) }
      if let problem = engine.headerProblem(reader.header) {
        throw CLIError.badInput("\(recording)\(recording.hasSuffix(".jprec") ? "" : ":1"): \(problem)")
      }
      let known = EngineRegistry.kindNames(of: engine)
      for k in kind where !known.contains(k) {
        throw CLIError.badInput(
          "--kind '\(k)': not an event kind of \(recording)'s engine, \(EngineRegistry.title(of: engine)) "
            + "(expected one of \(known.joined(separator: ", ")); see docs/FORMAT.md)")
      }
      try write(reader)
    }

    /// Writes `reader`'s header and events to `-o` or standard output.
    func write(_ reader: any RecordingEventReader) throws {
      // An existing file is never replaced; a device or FIFO is written through (the output rule).
      if let output, case .replace(let real)? = try? OutputTarget(output), FileManager.default.fileExists(atPath: real) {
        throw CLIError.badInput("\(output) exists; choose another name")
      }
      // OUT is written through a `SafeFile` temporary (never through a symlink), linked to its
      // name only when complete and only if nothing appeared there meanwhile.
      guard let output else { return try write(reader, to: .standardOutput, compressed: false, console: true) }
      do {
        try SafeFile.produce(output, placement: .createNew) { t in
          try write(reader, to: FileHandle(fileDescriptor: t.fd!, closeOnDealloc: false), compressed: output.hasSuffix(".zst"))
        }
      } catch let e as SafeFileError { throw CLIError.badInput(e.description) }
    }

    /// The header (unless --no-header) and the events of the kinds asked for, as JSONL.
    func write(_ reader: any RecordingEventReader, to handle: FileHandle, compressed: Bool, console: Bool = false) throws {
      // On standard output the lines are console-safe JSON (ConsoleText.json): the same values.
      let writer = JSONLWriter(handle: handle, compressed: compressed, console: console)
      let kinds = Set(kind)
      do {
        if !noHeader { try writer.writeHeader(reader.header) }
        while let e = try reader.nextEvent() {
          if !kinds.isEmpty && !kinds.contains(e.kindName) { continue }
          try writer.write(e)
        }
        try writer.finish()
      } catch let e as RecordingError {
        try? writer.finish()
        throw e
      }
    }
  }
}
