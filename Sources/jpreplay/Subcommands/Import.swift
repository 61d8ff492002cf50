import ArgumentParser
import CanonicalJSON
import Foundation
import EngineIO
import Lab
import Recording

extension JPReplay {
  struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "import",
      abstract: "Convert a JSONL recording (.jsonl or .jsonl.zst) into a .jprec.",
      discussion: """
        Reads the header line and one event per line (docs/FORMAT.md), checks every event \
        against ENGINE §1.5–1.6, and streams them into zstd chunks. Landmark coordinates are \
        stored in fixed point (1/65536). Refuses to overwrite OUT unless --force is given; \
        with --force the new file replaces OUT only once it is complete, so bad input never \
        damages the old file.

        Examples:
          jpreplay record drift-left-and-back --jsonl > /tmp/drift.jsonl
          jpreplay import /tmp/drift.jsonl -o /tmp/drift.jprec --force
          jpreplay cat Recordings/step-too-close.jprec -o /tmp/step.jsonl.zst
          jpreplay import /tmp/step.jsonl.zst -o /tmp/step.jprec --force
        """)

    @Argument(help: "The JSONL recording to read (.jsonl or .jsonl.zst).")
    var source: String

    @Option(name: .shortAndLong, help: "The .jprec to write (default: SOURCE with .jprec).")
    var output: String?

    @Flag(help: "Replace OUT if it exists (atomically, after the import succeeded).")
    var force = false

    func run() throws {
      let out = output ?? Self.defaultOutput(for: source)
      guard JSONLReader.isJSONL(source) else {
        throw CLIError.badInput("\(source): expected a .jsonl or .jsonl.zst file (use `jpreplay cat` to read a .jprec)")
      }
      let exists = FileManager.default.fileExists(atPath: out)
      if exists && !force {
        throw CLIError.badInput("\(out) exists; pass --force to replace it")
      }
      // A new file is written in place (a crash leaves the committed chunks, see `doctor`);
      // a replacement goes to a `SafeFile` temporary renamed over OUT at the end, and so does
      // a new file whose name leaves no room for SQLite's `-journal` beside it (put in place
      // with link(2), so a file that appeared meanwhile is not replaced).
      // The events are checked against the recording's engine's kinds (Just Photo's by its
      // decoder) and by its own check: an event the engine would refuse at replay is bad input
      // here. The header by the engine's check too (Just Photo's options, its catalogue).
      let plugin = try EngineRegistry.route(source)
      let progress = ProgressLine(label: "import")
      func importEvents(to target: String) throws -> Int {
        try RecordingImport.run(
          from: source, to: target, definitions: plugin.definitions, kinds: plugin.kinds, refusal: plugin.refusal,
          headerProblem: plugin.headerProblem
        ) { p in
          progress.update(Int(p.bytesRead >> 20), of: Int(p.totalBytes >> 20), "MiB, \(p.events) events")
        }
      }
      let viaTemporary = exists || !SafeFile.sqliteSideFilesFit(out)
      let n: Int
      do {
        n = viaTemporary
          ? try SafeFile.produce(out, placement: exists ? .replace : .createNew, keepOpen: false, sqlite: true) {
            try importEvents(to: $0.path)
          }
          : try importEvents(to: out)
      } catch {
        progress.finish()
        if let e = error as? SafeFileError { throw CLIError.badInput("\(out): cannot \(exists ? "replace" : "write") (\(e.description))") }
        // An error of the writer names its temporary when OUT is made through one: name OUT.
        if viaTemporary, let e = error as? RecordingError, e.file != source { throw CLIError.badInput("\(out): \(e.withoutFile)") }
        throw error
      }
      progress.finish()
      let size = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
      print("imported \(n) events from \(source) into \(out) (\(Format.bytes(Int64(size))))")
    }

    static func defaultOutput(for source: String) -> String {
      var s = source
      for suffix in [".zst", ".jsonl"] where s.hasSuffix(suffix) { s.removeLast(suffix.count) }
      return s + ".jprec"
    }

  }
}

enum Format {
  static func bytes(_ n: Int64) -> String {
    if n < 10_000 { return "\(n) B" }
    if n < 10_000_000 { return String(format: "%.1f KiB", Double(n) / 1024) }
    return String(format: "%.1f MiB", Double(n) / 1_048_576)
  }
}
