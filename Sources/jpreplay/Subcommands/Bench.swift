import ArgumentParser
import Foundation
import JustPhotoPlugin
import Lab
import Recording

extension JPReplay {
  struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "bench",
      abstract: "Measure decode and replay speed and recording size, as ratios to a JSONL baseline.",
      discussion: """
        In one run, on the same frames: decode-only frames/s of the .jprec, end-to-end replay \
        frames/s (decode + engine + trace formatting), the same two with the frames read from \
        JSONL by Foundation's JSONDecoder, and the .jprec size against the JSONL compressed \
        with zstd -3. Without a recording it generates a 10-minute, 30 fps, one-person \
        session. Build with -c release for meaningful numbers (scripts/bench does).

        Examples:
          jpreplay bench --minutes 1
          jpreplay bench Recordings/drift-left-and-back.jprec
          jpreplay bench --minutes 0.5 --json
          jpreplay bench --tune-trials 4 --corpus drift-left-and-back --jobs 2

        --tune-trials N measures tuning instead: N trials of a random study (--tune-space, \
        default a 3-parameter anti-jitter space) over the tune corpus (--corpus, default \
        'tune-*'), replayed in process on --jobs threads, reported as trials/s. With \
        --validation every trial is scored on the validation corpus too (the space's \
        validation:, else the val-* recordings), as tune run does by default.

        Every figure with a target (docs/PERFORMANCE.md) is printed under "targets:" marked \
        ok or MISSED, and listed in --json as "targets". With --require a missed target makes \
        the exit code 1 (the figures are still printed); without it bench reports and exits 0. \
        Compare builds in alternating runs on one machine; a busy machine lowers every figure.
        """)

    @Argument(help: "A .jprec to measure (default: a generated session).")
    var recording: String?

    @Option(help: "Length of the generated session in minutes.")
    var minutes = 10.0

    @Option(help: "Frame rate of the generated session.")
    var fps = 30

    @Option(help: "PoseSpec to replay with (default ./PoseSpec.json).")
    var spec: String?

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    @Flag(help: "Exit 1 when a figure misses its target (after printing every figure).")
    var require = false

    @Option(help: "Measure tuning: this many trials of a random study (trials/s).")
    var tuneTrials: Int?

    @Option(help: "Search space for --tune-trials (default: a built-in 3-parameter space).")
    var tuneSpace: String?

    @Option(name: .customLong("corpus"), help: "Recordings for --tune-trials (names or quoted globs; default 'tune-*', else all). Repeatable.")
    var corpus: [String] = []

    @Flag(help: "With --tune-trials: score every trial on the validation corpus too (as tune run does).")
    var validation = false

    @Option(help: "Parallel trials for --tune-trials.")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
      guard minutes > 0, minutes <= 120 else { throw ValidationError("--minutes must be in (0, 120]") }
      guard fps >= 1, fps <= 240 else { throw ValidationError("--fps must be 1…240") }
      if let tuneTrials, tuneTrials < 1 || tuneTrials > 1_000_000 { throw ValidationError("--tune-trials must be 1…1000000") }
      guard jobs >= 1, jobs <= 256 else { throw ValidationError("--jobs must be 1…256") }
    }

    func run() throws {
      if let tuneTrials {
        let last = LastPrint()
        let report = try TuneBench.run(
          trials: tuneTrials, spacePath: tuneSpace, specPath: spec, corpus: corpus, recordingsDir: "Recordings", jobs: jobs,
          validation: validation
        ) { p in if last.due(false) { printErr("bench: \(p.finished)/\(p.total) trials…") } }
        if json { printJSON(report.json) } else { print(report.render(), terminator: "") }
        try requireTargets(report.targets)
        return
      }
      var path = recording
      var tmpDir: URL?
      defer { if let tmpDir { try? FileManager.default.removeItem(at: tmpDir) } }
      if path == nil {
        let dir = try SafeFile.temporaryDirectory("bench")
        tmpDir = dir
        let p = dir.joined("synthetic.jprec").path
        let specSHA = try Harness.loadSpec(path: spec ?? Harness.defaultSpecPath).sha256
        printErr("bench: generating a \(minutes)-minute \(fps) fps session")
        try Lab.Bench.generate(to: p, minutes: minutes, fps: fps, seed: 1, specSHA: specSHA)
        path = p
      }
      let report = try Lab.Bench.run(recording: path!, specPath: spec) { printErr("bench: \($0)…") }
      if json { printJSON(report.json) } else { print(report.render(), terminator: "") }
      try requireTargets(report.targets)
    }

    /// With `--require`, a missed target is a failed check (exit 1) naming the figures.
    func requireTargets(_ targets: [BenchTarget]) throws {
      let missed = targets.filter { !$0.met }
      guard require, !missed.isEmpty else { return }
      throw CLIError.failed(
        "bench: \(missed.count) of \(targets.count) targets missed: "
          + missed.map { "\($0.figure) \(BenchTarget.number($0.measured)) (target \($0.direction.rawValue) \(BenchTarget.number($0.bound)))" }
          .joined(separator: ", "))
    }
  }
}
