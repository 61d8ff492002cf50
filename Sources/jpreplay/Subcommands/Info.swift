import ArgumentParser
import CanonicalJSON
import Foundation
import Lab
import Recording

extension JPReplay {
  struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "info",
      abstract: "Show a recording's meta, channels, event counts, duration and sizes.",
      discussion: """
        Reads only the tables' metadata (no chunk is decompressed), so it is instant even on \
        long recordings. A recording whose writer was killed shows `complete: false`.

        Examples:
          jpreplay info Recordings/drift-left-and-back.jprec
          jpreplay info --json Recordings/drift-left-and-back.jprec
        """)

    @Argument(help: "The .jprec recording.")
    var recording: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
      guard !JSONLReader.isJSONL(recording) else {
        throw CLIError.badInput("\(recording): `info` reads .jprec files; import it first (jpreplay import \(recording))")
      }
      let reader = try RecordingReader(path: recording, definitions: EngineRegistry.definitions(ofRecording: recording))
      let s = try reader.stats()
      if json {
        printJSON(JSONWriter.write(s.json(file: recording)))
        return
      }
      let raw = s.rawBytes, stored = s.storedBytes
      let ratio = stored > 0 ? Double(raw) / Double(stored) : 0
      print("file:        \(ConsoleText.line(recording))")
      print("format:      jprec version \(s.formatVersion)\(s.complete ? "" : "   complete: false (writer did not finish; run `jpreplay doctor`)")")
      print("duration:    \(s.durationMs.map { Self.duration($0) } ?? "-")")
      print("events:      \(s.events)")
      print("size:        \(Format.bytes(s.fileBytes)) on disk; chunks \(Format.bytes(stored)) from \(Format.bytes(raw)) raw (compression \(String(format: "%.1f", ratio))×)")
      print("meta:")
      for m in s.meta {
        let v = m.value.count > 100 ? String(m.value.prefix(97)) + "…" : m.value
        print("  \(ConsoleText.line(m.key).padding(toLength: 18, withPad: " ", startingAt: 0)) \(ConsoleText.line(v))")
      }
      print("channels:")
      print("  name        events  chunks        raw     stored  ratio   first..last ms")
      for c in s.channels {
        let r = c.storedBytes > 0 ? String(format: "%5.1f×", Double(c.rawBytes) / Double(c.storedBytes)) : "    -"
        let span = c.firstT.map { "\($0)..\(c.lastT ?? $0)" } ?? "-"
        print("  \(c.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(pad(c.events, 7)) \(pad(c.chunks, 7)) \(padS(Format.bytes(c.rawBytes), 10)) \(padS(Format.bytes(c.storedBytes), 10)) \(r)  \(span)")
      }
      print("events by kind:")
      for k in s.eventsByKind { print("  \(k.kind.padding(toLength: 24, withPad: " ", startingAt: 0)) \(k.count)") }
    }

    static func duration(_ ms: Int64) -> String {
      let s = Double(ms) / 1000
      return s >= 60 ? String(format: "%d ms (%dm %.1fs)", ms, Int(s) / 60, s.truncatingRemainder(dividingBy: 60)) : "\(ms) ms"
    }

    func pad(_ n: Int, _ w: Int) -> String { padS("\(n)", w) }
    func padS(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
  }
}
