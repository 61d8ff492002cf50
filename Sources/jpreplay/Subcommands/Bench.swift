import ArgumentParser
import Foundation
import Lab
import Recording

extension JPReplay {
  struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
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
        'tune-*'), replayed in process on --jobs threads, reported as trials/s.
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

    @Option(help: "Measure tuning: this many trials of a random study (trials/s).")
    var tuneTrials: Int?

    @Option(help: "Search space for --tune-trials (default: a built-in 3-parameter space).")
    var tuneSpace: String?

    @Option(name: .customLong("corpus"), help: "Recordings for --tune-trials (names or quoted globs; default 'tune-*', else all). Repeatable.")
    var corpus: [String] = []

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
          trials: tuneTrials, spacePath: tuneSpace, specPath: spec, corpus: corpus, recordingsDir: "Recordings", jobs: jobs
        ) { p in if last.due(false) { printErr("bench: \(p.finished)/\(p.total) trials…") } }
        print(json ? report.json : report.render(), terminator: json ? "\n" : "")
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
      print(json ? report.json : report.render(), terminator: json ? "\n" : "")
    }
  }
}
