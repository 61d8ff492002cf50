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
      // Just Photo's recordings get the cue and §7 report; every other engine's its vocabulary's.
      var justPhoto: [URL] = []
      var others: [String: (plugin: EnginePlugin, files: [URL])] = [:]
      for url in files {
        if let plugin = try EngineRegistry.legacyRoute(url.path) {
          others[plugin.name, default: (plugin, [])].files.append(url)
        } else {
          justPhoto.append(url)
        }
      }
      var missing = 0
      var sections = 0
      if !justPhoto.isEmpty || others.isEmpty {
        missing += try justPhotoReport(justPhoto)
        sections += 1
      }
      for name in others.keys.sorted() {
        let group = others[name]!
        let report = try SeamCoverage.run(plugin: group.plugin, recordings: group.files)
        sections += 1
        if markdown {
          if sections > 1 { print("") }
          print(report.markdown, terminator: "")
        } else {
          print(report.summary)
          for m in report.missing { print("  missing: \(m)") }
        }
        missing += report.missing.count
      }
      if strict && missing > 0 {
        throw CLIError.failed(
          others.isEmpty
            ? "coverage: \(missing) rule(s) or scenario(s) not exercised"
            : "coverage: \(missing) rule(s), scenario(s), kind(s) or value(s) not exercised")
      }
    }

    /// The cue and §7 report of Just Photo's recordings; returns how many things are missing.
    func justPhotoReport(_ files: [URL]) throws -> Int {
      let report = try Coverage.run(recordings: files, specPath: spec)
      if markdown {
        print(report.markdown, terminator: "")
      } else {
        let cues = report.cues
        let ruled = cues.filter(\.hasNoRef).count + cues.filter(\.hasWithRef).count
        let hit = cues.filter { $0.hasNoRef && !$0.noRef.isEmpty }.count + cues.filter { $0.hasWithRef && !$0.withRef.isEmpty }.count
        let scen = report.scenarios.filter { !$0.recordings.isEmpty }.count
        print("coverage: \(files.count) recordings; ENGINE §7 scenarios \(scen)/\(report.scenarios.count); cue rules exercised \(hit)/\(ruled) (noRef + withRef); cues shown \(cues.filter { !$0.shown.isEmpty }.count)/\(cues.count)")
        for m in report.missing { print("  missing: \(m)") }
        // Name the cues no recording shows (the count alone does not say which).
        let unshown = cues.filter { $0.shown.isEmpty }.map(\.id)
        if !unshown.isEmpty { print("  not shown by any recording: " + ConsoleText.safe(unshown.joined(separator: ", "))) }
      }
      return report.missing.count
    }
  }
}
