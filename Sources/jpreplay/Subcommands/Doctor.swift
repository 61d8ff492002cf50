import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab
import Recording

extension JPReplay {
  struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "doctor",
      abstract: "Check every chunk of a recording; optionally salvage a damaged one.",
      discussion: """
        Runs SQLite's integrity check, parses every header (meta) value and checks the meta \
        CRC, verifies each chunk's CRC (which covers its row: channel, times, count, sequence), \
        decompresses and decodes it, checks counts, times, order and the event counts of the \
        header, then reads the whole recording the way `replay` does; for another engine's recording \
        (PixScan) every event must be one that engine takes (each refused one is listed). Exit 0 when the recording is sound, 1 when something is damaged or missing \
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
        let r = try Recording.Doctor.recover(
          from: recording, to: output, definitions: EngineRegistry.definitions(ofRecording: recording))
        print("recovered \(r.kept) chunk(s) from \(ConsoleText.line(recording)) into \(ConsoleText.line(output))")
        if r.lostChunks.isEmpty {
          print("lost: nothing")
        } else {
          print("lost:")
          for l in r.lostChunks { print("  \(ConsoleText.line(l))") }
        }
        print("re-check of \(ConsoleText.line(output)):")
        for l in r.verify.lines { print("  \(ConsoleText.line(l))") }
        if !r.verify.ok { throw ExitCode(1) }
        return
      }
      // The exit code comes from the report's status: a file that is no recording at all is
      // bad input (exit 2); damage inside one is exit 1.
      let report = Recording.Doctor.check(path: recording, definitions: EngineRegistry.definitions(ofRecording: recording))
      // Sound as a container, another engine's recording must also hold only events its
      // engine takes; its refusals replace the final "ok".
      let refusals = report.status == .ok ? try engineRefusals() : []
      // Each report line is one line: a newline in a name or message is printed as `\n`.
      for l in report.lines.dropLast(refusals.isEmpty || report.lines.last != "ok" ? 0 : 1) { print(ConsoleText.line(l)) }
      for l in refusals { print(ConsoleText.line(l)) }
      switch report.status {
      case .ok:
        if !refusals.isEmpty { throw ExitCode(1) }
        return
      case .damaged: throw ExitCode(1)
      case .unreadable: throw CLIError.badInput(report.problems.first ?? "\(recording): not a readable recording")
      }
    }

    /// Events of the recording that its engine refuses (`EnginePlugin.refusal`: what it
    /// rejects at replay) as report lines (at most `refusedShownMax` listed); empty when it
    /// takes them all or checks none this way (Just Photo's).
    func engineRefusals() throws -> [String] {
      let plugin = try EngineRegistry.route(recording)
      guard let refusal = plugin.refusal else { return [] }
      let reader = try Harness.openReader(recording)
      var lines: [String] = []
      var refused = 0
      var index = 0
      while let e = try reader.nextEvent() {
        index += 1
        guard let r = refusal(e) else { continue }
        refused += 1
        if refused <= Self.refusedShownMax {
          let field = e.kindName + (r.field.map { ".\($0)" } ?? "")
          lines.append("refused: event \(index) (t=\(e.t) ms) field \"\(field)\": \(r.message)")
        }
      }
      guard refused > 0 else { return [] }
      if refused > Self.refusedShownMax { lines.append("refused: … and \(refused - Self.refusedShownMax) more") }
      lines.append(
        "\(refused) event(s) the \(plugin.name) engine refuses at replay: not a sound recording (re-record it, or fix the JSONL and import it again)")
      return lines
    }

    /// Refused events `doctor` lists one by one.
    static let refusedShownMax = 20
  }
}
