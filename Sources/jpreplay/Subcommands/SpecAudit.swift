import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab
import Recording

extension JPReplay.Spec {
  /// `jpreplay spec audit`: find PoseSpec hazards by replaying a designed grid (issue 16).
  struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "audit",
      abstract: "Find PoseSpec hazards by systematic replay of the parametric subject.",
      discussion: """
        Replays a designed grid of short generated scenarios (position, scale, head/feet \
        cropped, shoulder/hip/eye tilt, lean, chin, hands, people 0-5, confidence, luma, \
        sensor readings and frame_scalars, cafe and outdoor, noRef and withRef, angleFix off \
        and on), then noisy probes where a cue crossed its warn threshold, through the engine \
        in process, and checks each cue's thresholds without replay. It reports, per cue and \
        level: never-fires, never-displayed (and what outranks it), neutral-fires (also when \
        another cue hides it), inverted-advice, unreachable-level (behind a confidence gate, \
        or outside the range the formula can take), flip-flop (noise breaks the verify \
        --budgets limits), withref-deadlock, overlapping-regions (warn or hard overlapping \
        exit), hard-easier-than-warn and warn-covers-ideal. Each hazard names the angleFix \
        setting that shows it and a repro \
        scenario; --out DIR writes the repros (jpreplay record DIR/NAME.scenario.yaml, then \
        replay). Exit 1 when a hazard is not in the --accept file (lines `KIND CUE_ID[/level]`, \
        `#` comments; without /level every level is accepted), 0 otherwise, 2 bad input.

        Examples:
          jpreplay spec audit PoseSpec.json --json --jobs 2 > /tmp/audit.json    # exit 1: the known hazards (ENGINE §8) are not accepted here
          jpreplay spec audit --accept docs/audit-accepted.txt --out /tmp/audit-repros
        """)

    @Argument(help: "The PoseSpec JSON file (default: ./PoseSpec.json).")
    var path = "PoseSpec.json"

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(help: "Accepted-hazards file: lines `KIND CUE_ID[/level]`.")
    var accept: String?

    @Option(help: "Write each hazard's repro scenario into this folder.")
    var out: String?

    @Option(help: "Parallel replays (default: the number of CPU cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    func run() throws {
      guard (1...256).contains(jobs) else { throw CLIError.badInput("--jobs \(jobs): expected 1…256") }
      let accepted = try accept.map { path throws(HarnessFailure) in try AuditFiles.readAccepted(path) } ?? []
      if let out { try Self.checkOutFolder(out) }
      let started = Date()
      var report = try AuditFiles.audit(specPath: path, jobs: jobs)
      AuditFiles.accept(accepted, in: &report)
      if let out { _ = try AuditFiles.writeRepros(report, to: out) }
      // Through the console writer (JSON escaping, or safe lines), then a checked write.
      try StandardOutput.write(Array((json ? ConsoleText.json(report.json) : ConsoleText.lines(report.text)).utf8))
      if !json { printErr(String(format: "spec audit: %.1f s on %d jobs", Date().timeIntervalSince(started), jobs)) }
      if !report.failures.isEmpty { throw CLIError.badInput("spec audit: \(report.failures.count) grid replay(s) failed") }
      if !report.new.isEmpty { throw ExitCode(1) }
    }

    /// `--out` refused before the audit runs (it takes minutes): a path that exists and is
    /// not a folder (or a link to one), or a link to nothing. A missing folder is created when
    /// the repros are written.
    static func checkOutFolder(_ dir: String) throws {
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: dir, isDirectory: &isFolder) {
        guard isFolder.boolValue else { throw CLIError.badInput("\(dir): exists and is not a folder (--out takes a folder)") }
      } else if (try? FileManager.default.destinationOfSymbolicLink(atPath: dir)) != nil {
        throw CLIError.badInput("\(dir): a symbolic link to nothing (--out takes a folder)")
      }
    }
  }
}
