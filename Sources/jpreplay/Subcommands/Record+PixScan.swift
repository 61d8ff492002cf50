import CanonicalJSON
import EngineIO
import Foundation
import PixScanPlugin
import PixScanScenarios
import Recording

/// `jpreplay record` of a PixScan scenario (`engine: pixscan`, docs/PIXSCAN.md "Scenarios"):
/// the scenario's header and events as named events, written beside it as <name>.jprec
/// through a `SafeFile`, or left as it is when the recording already holds them.
enum PixScanRecord {
  /// True for a scenario file whose top level says `engine: pixscan`.
  static func isPixScan(_ text: String) -> Bool { PixScanScenarioChecks.isScenario(text) }

  static func events(_ s: PixScenario) -> [InputEvent] { PixScanScenarioChecks.events(of: s) }

  /// Records `file` (already read as `text`) into `output` or <dir>/<name>.jprec; with
  /// `jsonl`, prints the interchange form instead.
  static func record(_ file: String, text: String, output: String?, jsonl: Bool) throws {
    let scenario: PixScenario
    do { scenario = try PixScenario.parse(yaml: text, file: file) } catch { throw CLIError.badInput(error.description) }
    try checkName(scenario, file: file, text: text)
    let events = events(scenario)
    if jsonl {
      var out = JSONWriter.write(.object(scenario.header)) + "\n"
      for e in events { out += JSONLEventEncoder.line(e) + "\n" }
      try StandardOutput.write(Array(ConsoleText.json(out).utf8))  // console-safe JSON: the same values
      return
    }
    let dir = Paths.parent(file)
    let out = output ?? (dir.isEmpty ? "" : dir + "/") + scenario.name + ".jprec"
    do { _ = try OutputTarget(out, database: true) } catch { throw CLIError.badInput("\(error.path): cannot write (\(error.message))") }
    if FileManager.default.fileExists(atPath: out), holds(out, header: scenario.header, events: events) {
      print("unchanged \(out) (\(events.count) events, from \(file))")
      return
    }
    do {
      try SafeFile.produce(out, keepOpen: false, sqlite: true) { f in
        let r = try Recorder(path: f.path, header: scenario.header)
        for k in PixScanVocabulary.kinds { r.namedChannels[k.name] = k.channel }
        for e in events { try r.append(e) }
        try r.finish()
      }
    } catch let e as SafeFileError {
      throw CLIError.badInput("\(out): cannot write (\(e.description))")
    } catch let e as RecordingError {
      // The writer names its temporary: name the scenario and the recording instead.
      throw CLIError.badInput("\(file): cannot be recorded into \(out): \(e.withoutFile)")
    }
    print("recorded \(events.count) events from \(file) into \(out)")
  }

  /// The rule Just Photo's scenarios follow (and `verify` pairs by): `name:` is the file's name
  /// without `.yaml` — the recording is written as `<name>.jprec` beside it — and a file-name-safe
  /// name (letters, digits, - _ .) in any case, so it can never write elsewhere.
  static func checkName(_ s: PixScenario, file: String, text: String) throws {
    let base = file.split(separator: "/").last.map(String.init) ?? file
    let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("name:") }.map { ":\($0 + 1)" } ?? ""
    let name = ConsoleText.line(Excerpt.short(s.name))
    if base.hasSuffix(".yaml"), base.count > ".yaml".count {
      let expected = String(base.dropLast(".yaml".count))
      guard s.name == expected else {
        throw CLIError.badInput(
          "\(file)\(line): name: \"\(name)\" does not match the file name \(ConsoleText.line(base)) (expected \"\(ConsoleText.line(expected))\"; jpreplay record writes <name>.jprec and verify pairs it with <name>.yaml); rename one")
      }
    }
    guard !s.name.isEmpty, s.name != ".", s.name != "..",
      s.name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
    else {
      throw CLIError.badInput("\(file)\(line): name: expected a file-name-safe recording name (letters, digits, - _ .), found \"\(name)\"")
    }
  }

  /// Whether the recording at `path` has exactly this header and these events (what `verify`
  /// calls up to date).
  static func holds(_ path: String, header: JSONObject, events: [InputEvent]) -> Bool {
    PixScanScenarioChecks.difference(path, header: header, events: events) == nil
  }
}
