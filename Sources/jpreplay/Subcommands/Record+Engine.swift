import CanonicalJSON
import EngineIO
import Foundation
import Recording
import Verify

/// `jpreplay record` of another engine's scenario file (its top level says `engine: <name>`,
/// e.g. docs/PIXSCAN.md "JustPhotoScenarios"): what the file generates, as the engine's plug-in reads
/// it (``ScenarioSupport``), written beside it as <name>.jprec through a `SafeFile`, or left
/// as it is when the recording already holds it. One route for every registered engine.
enum EngineScenarioRecord {
  /// Records `file` (already read as `text`) of `engine` into `output` or <dir>/<name>.jprec;
  /// with `jsonl`, prints the interchange form instead.
  static func record(
    _ file: String, text: String, engine: EngineRegistration, scenarios: ScenarioSupport, output: String?, jsonl: Bool
  ) throws {
    let generated: ScenarioRecording
    do { generated = try scenarios.recording(file, text) } catch { throw CLIError.badInput(error.description) }
    try checkName(generated.name, file: file, text: text)
    let events = generated.events
    if jsonl {
      var out = JSONWriter.write(.object(generated.header)) + "\n"
      for e in events { out += JSONLEventEncoder.line(e) + "\n" }
      try StandardOutput.write(Array(ConsoleText.json(out).utf8))  // console-safe JSON: the same values
      return
    }
    let dir = Paths.parent(file)
    let out = output ?? (dir.isEmpty ? "" : dir + "/") + generated.name + ".jprec"
    do { _ = try OutputTarget(out, database: true) } catch { throw CLIError.badInput("\(error.path): cannot write (\(error.message))") }
    if FileManager.default.fileExists(atPath: out), scenarios.difference(out, generated) == nil {
      print("unchanged \(out) (\(events.count) events, from \(file))")
      return
    }
    do {
      try SafeFile.produce(out, keepOpen: false, sqlite: true) { f in
        let r = try Recorder(path: f.path, header: generated.header, definitions: engine.plugin.definitions)
        for k in engine.plugin.kinds { r.namedChannels[k.name] = k.channel }
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
    guard !name.isEmpty, name != ".", name != "..",
      name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
    else {
      throw CLIError.badInput("\(file)\(line): name: expected a file-name-safe recording name (letters, digits, - _ .), found \"\(shown)\"")
    }
  }
}
