import ArgumentParser
import Foundation
import Lab
import Recording

extension JPReplay {
  struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Check every chunk of a recording; optionally salvage a damaged one.",
      discussion: """
        Runs SQLite's integrity check, parses every header (meta) value and checks the meta \
        CRC, verifies each chunk's CRC (which covers its row: channel, times, count, sequence), \
        decompresses and decodes it, checks counts, times, order and the event counts of the \
        header, then reads the whole recording the way `replay` does. Exit 0 when the recording is sound, 1 when something is damaged or missing \
        (each bad chunk is named), 2 when the file cannot be opened at all.

        --recover copies the header and every readable chunk into a new file, re-checks that \
        file, and lists what was lost.

        Examples:
          jpreplay doctor Recordings/feet-cropped.jprec
          head -c 30000 Recordings/feet-cropped.jprec > /tmp/damaged.jprec
          jpreplay doctor /tmp/damaged.jprec    # exit 1: a truncated copy
          jpreplay doctor --recover /tmp/damaged.jprec -o /tmp/salvaged.jprec
        """)

    @Argument(help: "The .jprec recording to check.")
    var recording: String

    @Flag(help: "Salvage readable chunks into OUT (requires -o).")
    var recover = false

    @Option(name: .shortAndLong, help: "Where --recover writes (must not exist).")
    var output: String?

    func validate() throws {
      if recover && output == nil { throw ValidationError("--recover needs -o OUT") }
      if !recover && output != nil { throw ValidationError("-o is only used with --recover") }
    }

    func run() throws {
      guard FileManager.default.fileExists(atPath: recording) else {
        throw CLIError.badInput("\(recording): no such file")
      }
      if recover, let output {
        if FileManager.default.fileExists(atPath: output) {
          throw CLIError.badInput("\(output) exists; choose another name")
        }
        let r = try Recording.Doctor.recover(from: recording, to: output)
        print("recovered \(r.kept) chunk(s) from \(recording) into \(output)")
        if r.lostChunks.isEmpty {
          print("lost: nothing")
        } else {
          print("lost:")
          for l in r.lostChunks { print("  \(l)") }
        }
        print("re-check of \(output):")
        for l in r.verify.lines { print("  \(l)") }
        if !r.verify.ok { throw ExitCode(1) }
        return
      }
      // The exit code comes from the report's status: a file that is no recording at all is
      // bad input (exit 2); damage inside one is exit 1.
      let report = Recording.Doctor.check(path: recording)
      for l in report.lines { print(l) }
      switch report.status {
      case .ok: return
      case .damaged: throw ExitCode(1)
      case .unreadable: throw CLIError.badInput(report.problems.first ?? "\(recording): not a readable recording")
      }
    }
  }
}
