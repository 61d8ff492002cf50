import ArgumentParser
import EngineIO
import Foundation
import JustPhotoPlugin
import Lab
import Recording
import JustPhotoScenarios

extension JPReplay {
  struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "record",
      abstract: "Generate recordings from scenario files (Recordings/<name>.scenario.yaml).",
      discussion: """
        A scenario file is YAML: a parametric subject animated over a timeline of keyframes, \
        ramps and oscillations, seeded landmark noise, and input events (schema: Sources/JustPhotoScenarios/Scenario.swift). \
        The recording is a function of the file: the same file gives the same bytes on every \
        machine. A scenario that declares its intent (`intent:` on timeline steps, or a `truth:` \
        block) gets ground-truth `label` events derived from that declaration alone — which \
        cues should show when — for scoring (docs/SCORING.md); the engine never sees them, and \
        no spec or engine computes them, so a PoseSpec edit never moves them. It is written \
        beside the scenario as <name>.jprec \
        through the same code path as `jpreplay import`; an existing recording is replaced \
        atomically, only once the new one is complete, and left untouched when it already holds \
        what the scenario generates. A bad scenario (exit 2) names the file, the line and the key.

        `jpreplay verify` fails a recording whose scenario means something else now (stale): \
        its header's generator_sha256 (the scenario's parsed content, comments and formatting \
        aside) or its events (labels included) differ. PoseSpec edits never make a recording \
        stale.

        Examples:
          jpreplay record Recordings/s04-frame-left-enter.scenario.yaml
          jpreplay record s04-frame-left-enter s28-capture-happy-path
          jpreplay record --all
          jpreplay record Recordings/s04-frame-left-enter.scenario.yaml -o /tmp/s04.jprec
          jpreplay record s04-frame-left-enter --jsonl | head -3
          jpreplay record Recordings/pixscan/swipe-directions.yaml   # engine: pixscan (docs/PIXSCAN.md)
        """)

    @Argument(help: "Scenario files, or recording names looked up as <recordings-dir>/<name>.scenario.yaml.")
    var scenarios: [String] = []

    @Flag(help: "Record every <recordings-dir>/*.scenario.yaml.")
    var all = false

    @Option(name: .shortAndLong, help: "The .jprec to write (one scenario only; default: <name>.jprec beside the scenario).")
    var output: String?

    @Flag(help: "Print the generated JSONL interchange on stdout instead of writing a .jprec (one scenario only).")
    var jsonl = false

    @Option(name: .customLong("recordings-dir"), help: "Folder of the scenario files and recordings.")
    var recordingsDir = "Recordings"

    func validate() throws {
      if all == !scenarios.isEmpty { throw ValidationError("name the scenario files to record, or pass --all") }
      let single = !all && scenarios.count == 1
      if output != nil && !single { throw ValidationError("-o needs exactly one scenario") }
      if jsonl && !single { throw ValidationError("--jsonl needs exactly one scenario") }
      if jsonl && output != nil { throw ValidationError("--jsonl prints to stdout; leave out -o") }
    }

    func run() throws {
      let files = all
        ? try ScenarioCorpus.scenarioFiles(in: recordingsDir)
        : scenarios.map { ScenarioCorpus.resolve($0, recordingsDir: recordingsDir) }
      if all && files.isEmpty { print("no *.scenario.yaml in \(recordingsDir)") }
      var failures = 0
      for file in files {
        do {
          try record(file)
        } catch let e as ScenarioError {
          printErr("jpreplay: \(e.description)")
          failures += 1
        } catch let e as RecordingError {
          printErr("jpreplay: \(e.description)")
          failures += 1
        } catch let e as CLIError {
          printErr("jpreplay: \(e.message)")
          failures += 1
        }
      }
      if failures > 0 {
        if files.count > 1 { printErr("jpreplay: \(failures) of \(files.count) scenarios failed; their recordings were left as they were") }
        throw ExitCode(2)
      }
    }

    func record(_ file: String) throws {
      // Another engine's scenario file (its top level says `engine: <name>`) goes to that engine.
      if let text = try? String(contentsOfFile: file, encoding: .utf8), let e = EngineRegistry.scenarioEngine(claiming: text) {
        return try EngineScenarioRecord.record(file, text: text, engine: e.engine, scenarios: e.scenarios, output: output, jsonl: jsonl)
      }
      let scenario = try Scenario.load(path: file)
      let out = output ?? ScenarioCorpus.recordingPath(forScenario: file, name: scenario.name)
      let generated = scenario.generate()
      if jsonl {
        // Check it as `import` would (one streaming pass), then print it (a second one).
        let check = try generated.reader()
        while try check.nextEvent() != nil {}
        try printJSONL(generated.reader())
        return
      }
      // The output rule first (a recording is a database: a regular file or a missing path),
      // before the existing file is read to compare: a FIFO would block that read.
      do { _ = try OutputTarget(out, database: true) } catch { throw CLIError.badInput("\(error.path): cannot write (\(error.message))") }
      if FileManager.default.fileExists(atPath: out) {
        let same = generated.compare(withRecordingAt: out)
        if same.difference == nil {
          print("unchanged \(out) (\(same.events) events, from \(file))")
          return
        }
      }
      // Always through a `SafeFile` temporary renamed over OUT: an error never leaves a damaged
      // or half-written recording under the real name.
      let n: Int
      do {
        n = try SafeFile.produce(out, keepOpen: false, sqlite: true) { try generated.writeRecording(to: $0.path) }
      } catch let e as SafeFileError {
        throw CLIError.badInput("\(out): cannot write (\(e.description))")
      } catch let e as RecordingError {
        // The writer names its temporary: name the scenario and the recording instead.
        throw CLIError.badInput("\(file): cannot be recorded into \(out): \(e.withoutFile)")
      }
      print("recorded \(n) events from \(file) into \(out)")
    }

    /// Writes the header and event lines to stdout in 64 KiB blocks.
    func printJSONL(_ reader: GeneratedReader) throws {
      var block: [UInt8] = []
      block.reserveCapacity(1 << 16)
      func put(_ line: String) throws {
        block.append(contentsOf: ConsoleText.json(line).utf8)  // console-safe JSON: the same values
        block.append(0x0A)
        if block.count >= 1 << 16 {
          try StandardOutput.write(block)
          block.removeAll(keepingCapacity: true)
        }
      }
      try put(reader.headerLine)
      while let line = reader.nextLine() { try put(line) }
      try StandardOutput.write(block)
    }
  }
}
