import ArgumentParser
import Foundation
import Lab
import Recording

extension JPReplay {
  struct CoverageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "coverage",
      abstract: "Show which ENGINE §7 scenarios and which cues the corpus exercises.",
      discussion: """
        Replays every recording with per-evaluation cue lines and reports, per cue of the \
        spec, the recordings in which it reached warn or hard in noRef and in withRef, and \
        where the gate displayed it; and per ENGINE §7 scenario the recordings named after it \
        (s01-…, s44-…). --markdown prints the table docs/CORPUS.md carries; --strict exits 1 \
        when something is not covered.

        Examples:
          jpreplay coverage
          jpreplay coverage --markdown > /tmp/coverage.md
          jpreplay coverage --spec Tests/Fixtures/reference-posespec.json --strict    # exit 1: two G-48 cues never fire
        """)

    @Option(help: "Directory of recordings (default: Recordings).")
    var recordings = "Recordings"

    @Option(help: "PoseSpec file (default: ./PoseSpec.json).")
    var spec: String?

    @Flag(help: "Print the markdown coverage table.")
    var markdown = false

    @Flag(help: "Exit 1 when a §7 scenario or a cue rule is not exercised.")
    var strict = false

    func run() throws {
      let dir = URL(fileURLWithPath: recordings)
      let files: [URL]
      do {
        files = try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
          .filter { $0.pathExtension == "jprec" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
      } catch {
        throw CLIError.badInput("\(recordings): cannot list recordings (\(SystemReason.of(error)))")
      }
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
      }
      if strict && !report.missing.isEmpty {
        throw CLIError.failed("coverage: \(report.missing.count) rule(s) or scenario(s) not exercised")
      }
    }
  }
}
