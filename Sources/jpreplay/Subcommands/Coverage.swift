import ArgumentParser
import Foundation
import Lab
import Recording
import Replay

extension JPReplay {
  struct CoverageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "coverage",
      abstract: "Show what a corpus exercises: ENGINE §7 scenarios and cues, or another engine's event kinds, trace lines and values.",
      discussion: """
        Replays every recording with per-evaluation cue lines and reports, per cue of the \
        spec, the recordings in which it reached warn or hard in noRef and in withRef, and \
        where the gate displayed it; and per ENGINE §7 scenario the recordings named after it \
        (s01-…, s44-…). --markdown prints the table docs/CORPUS.md carries; --strict exits 1 \
        when something is not covered.

        Another engine's recordings (header `engine`, e.g. PixScan's in Recordings/pixscan) \
        are read through that engine's vocabulary: per input event kind and per trace line \
        kind, the recordings that show it, and per declared field value (a swipe's direction, \
        an `ignored` line's reason, a message key) the recordings in which it occurs; a value \
        the engine does not declare is reported too. A folder with recordings of several \
        engines gets one report per engine.

        Examples:
          jpreplay coverage --markdown > /tmp/coverage.md
          jpreplay coverage --spec Tests/Fixtures/reference-posespec.json --strict    # exit 1: two G-48 cues never fire
          jpreplay coverage --recordings Recordings/pixscan --strict
        """)

    @Option(help: "Directory of recordings (its .jprec files, not its subfolders; default: Recordings).")
    var recordings = "Recordings"

    @Option(help: "PoseSpec file (default: ./PoseSpec.json).")
    var spec: String?

    @Flag(help: "Print the markdown coverage table.")
    var markdown = false

    @Flag(help: "Exit 1 when a §7 scenario or a cue rule (another engine: a kind or a value) is not exercised.")
    var strict = false

    func run() throws {
      let dir = URL(fileURLWithPath: recordings)
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDirectory) else {
        throw CLIError.badInput("\(recordings): no such folder (expected a folder of .jprec recordings)")
      }
      guard isDirectory.boolValue else {
        throw CLIError.badInput("\(recordings): not a folder (expected a folder of .jprec recordings; --recordings takes the folder)")
      }
      let files: [URL]
      do {
        files = try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
          .filter { $0.fileExtension == "jprec" }.sorted { $0.fileName < $1.fileName }
      } catch {
        throw CLIError.badInput("\(recordings): cannot list recordings (\(SystemReason.of(error)))")
      }
      // One section per engine (its lab's report, EngineLab): the default engine's first (a
      // header without `engine`; an empty folder gets its report), then the others by name.
      var groups: [String: (plugin: EnginePlugin, files: [URL])] = [:]
      for url in files {
        let plugin = try EngineRegistry.route(url.path)
        groups[plugin.name, default: (plugin, [])].files.append(url)
      }
      let first = EngineRegistry.defaultEngine
      if groups.isEmpty { groups[first.name] = (first.plugin, []) }
      let names = groups.keys.sorted { a, b in a != b && (a == first.name || (b != first.name && a < b)) }
      var missing = 0
      var kindsAndValues = false
      for (i, name) in names.enumerated() {
        let group = groups[name]!
        let section = try EngineRegistry.lab(of: group.plugin).coverage(group.plugin, group.files, spec)
        if markdown {
          if i > 0 { print("") }
          print(section.markdown, terminator: "")
        } else {
          for line in section.summary { print(line) }
        }
        missing += section.missing
        kindsAndValues = kindsAndValues || section.countsKindsAndValues
      }
      if strict && missing > 0 {
        throw CLIError.failed(
          kindsAndValues
            ? "coverage: \(missing) rule(s), scenario(s), kind(s) or value(s) not exercised"
            : "coverage: \(missing) rule(s) or scenario(s) not exercised")
      }
    }
  }
}
