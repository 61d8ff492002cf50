import ArgumentParser
import Foundation
import Lab
import Replay

extension JPReplay {
  struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Replay a recording through the engine and print its canonical trace.",
      discussion: """
        Runs the recording on a virtual clock (never paced by the wall clock) and writes the \
        canonical trace (DESIGN §4) to stdout or -o. The same recording, spec and options \
        always give byte-identical output.

        --trace metrics adds the per-evaluation cue_eval lines (metric values against \
        thresholds), for debugging and tuning; --trace cue_display,script_card keeps only \
        those output kinds.

        Examples:
          jpreplay replay Recordings/drift-left-and-back.jprec
          jpreplay replay Recordings/drift-left-and-back.jprec --trace metrics | grep FRAME_MOVE
          jpreplay replay Recordings/feet-cropped.jprec --set bboxRequiresAllListed=true -o /tmp/t.jsonl --a13 /tmp/a13.jsonl
          jpreplay replay device.jsonl --spec ../shared/reference/PoseSpec.json
        """)

    @Argument(help: "The recording (.jprec, .jsonl or .jsonl.zst).")
    var recording: String

    @OptionGroup var engine: EngineArguments

    @Option(name: .shortAndLong, help: "Write the trace to this file (atomically) instead of stdout.")
    var output: String?

    @Option(help: "Write the canonical A.13 lines to this file.")
    var a13: String?

    @Option(help: ArgumentHelp("'metrics' adds cue_eval lines; or a comma-separated list of output kinds to keep.", valueName: "metrics|kinds"))
    var trace: String?

    @Flag(help: "Lenient effect correlation (ENGINE §1.6): missing results default to success.")
    var lenient = false

    func run() throws {
      var overrides = try engine.parsedOverrides()
      if lenient { overrides.append(("strictEffects", "false")) }
      let metrics = trace == "metrics"
      let kinds: Set<String>? = (trace == nil || metrics) ? nil : Set(trace!.split(separator: ",").map(String.init))
      let driver = try Harness.driver(specPath: engine.spec, overrides: overrides, traceMetrics: metrics)
      let url = URL(fileURLWithPath: recording)
      let traceTmp = output.map { $0 + ".tmp-\(getpid())" }
      let a13Tmp = a13.map { $0 + ".tmp-\(getpid())" }
      defer {
        for t in [traceTmp, a13Tmp].compactMap({ $0 }) { try? FileManager.default.removeItem(atPath: t) }
      }
      do {
        let traceSink = try traceTmp.map { try FileLineSink(creating: URL(fileURLWithPath: $0)) } ?? FileLineSink(handle: .standardOutput)
        let a13Sink = try a13Tmp.map { try FileLineSink(creating: URL(fileURLWithPath: $0)) }
        if let a13Sink {
          var out = CanonicalOutput(trace: traceSink, a13: a13Sink, traceKinds: kinds)
          _ = try driver.replay(url, into: &out)
          try a13Sink.finish()
        } else {
          var out = CanonicalOutput(trace: traceSink, a13: DiscardLineSink(), traceKinds: kinds)
          _ = try driver.replay(url, into: &out)
        }
        try traceSink.finish()
      } catch let e as ReplayError {
        throw CLIError(code: e.exitCode.rawValue, message: e.description)
      } catch {
        throw CLIError.badInput("cannot write output: \(error)")
      }
      for (tmp, final) in [(traceTmp, output), (a13Tmp, a13)] {
        if let tmp, let final, rename(tmp, final) != 0 {
          throw CLIError.badInput("\(final): cannot write (\(String(cString: strerror(errno))))")
        }
      }
    }
  }
}
