import CameraCoachPlugin
import CameraCoachScenarios
import CanonicalJSON
import EngineIO
import Foundation
import Recording

/// `jpreplay record` of a Camera Coach scenario (`engine: cameracoach`, docs/CAMERACOACH.md
/// "Scenarios"): the scenario's header and events as named events, written beside it as
/// <name>.jprec through a `SafeFile`, or left as it is when the recording already holds them.
enum CameraCoachRecord {
  /// True for a scenario file whose top level says `engine: cameracoach`.
  static func isCameraCoach(_ text: String) -> Bool { CameraCoachScenarioChecks.isScenario(text) }

  /// Records `file` (already read as `text`) into `output` or <dir>/<name>.jprec; with
  /// `jsonl`, prints the interchange form instead.
  static func record(_ file: String, text: String, output: String?, jsonl: Bool) throws {
    let scenario: CCScenario
    do { scenario = try CCScenario.parse(yaml: text, file: file) } catch { throw CLIError.badInput(error.description) }
    try checkName(scenario.name, file: file, text: text)
    let events = CameraCoachScenarioChecks.events(of: scenario)
    if jsonl {
      var out = JSONWriter.write(.object(scenario.header)) + "\n"
      for e in events { out += JSONLEventEncoder.line(e) + "\n" }
      try StandardOutput.write(Array(ConsoleText.json(out).utf8))
      return
    }
    let dir = Paths.parent(file)
    let out = output ?? (dir.isEmpty ? "" : dir + "/") + scenario.name + ".jprec"
    do { _ = try OutputTarget(out, database: true) } catch { throw CLIError.badInput("\(error.path): cannot write (\(error.message))") }
    if FileManager.default.fileExists(atPath: out),
      CameraCoachScenarioChecks.difference(out, header: scenario.header, events: events) == nil
    {
      print("unchanged \(out) (\(events.count) events, from \(file))")
      return
    }
    do {
      try SafeFile.produce(out, keepOpen: false, sqlite: true) { f in
        let r = try Recorder(path: f.path, header: scenario.header)
        for k in CameraCoachVocabulary.kinds { r.namedChannels[k.name] = k.channel }
        for e in events { try r.append(e) }
        try r.finish()
      }
    } catch let e as SafeFileError {
      throw CLIError.badInput("\(out): cannot write (\(e.description))")
    } catch let e as RecordingError {
      throw CLIError.badInput("\(file): cannot be recorded into \(out): \(e.withoutFile)")
    }
    print("recorded \(events.count) events from \(file) into \(out)")
  }

  /// The scenarios' naming rule: `name:` is the file's name without `.yaml`, file-name-safe.
  static func checkName(_ name: String, file: String, text: String) throws {
    let base = file.split(separator: "/").last.map(String.init) ?? file
    let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("name:") }.map { ":\($0 + 1)" } ?? ""
    let shown = ConsoleText.line(Excerpt.short(name))
    if base.hasSuffix(".yaml"), base.count > ".yaml".count {
      let expected = String(base.dropLast(".yaml".count))
      guard name == expected else {
        throw CLIError.badInput(
          "\(file)\(line): name: \"\(shown)\" does not match the file name \(ConsoleText.line(base)) (expected \"\(ConsoleText.line(expected))\"; jpreplay record writes <name>.jprec and verify pairs it with <name>.yaml); rename one")
      }
    }
    guard !name.isEmpty, name != ".", name != "..", name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
      throw CLIError.badInput("\(file)\(line): name: expected a file-name-safe recording name (letters, digits, - _ .), found \"\(shown)\"")
    }
  }
}
