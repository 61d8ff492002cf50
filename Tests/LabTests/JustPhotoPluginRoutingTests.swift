import CanonicalJSON
import Foundation
import Replay
import JustPhotoPlugin
import Testing
import Verify

/// Just Photo on the seam (issue 36 item 1): `Harness.registration` is an engine registration
/// like PixScan's, and its plug-in, configured with a command line's engine options, replays a
/// Just Photo recording to its goldens.
@Suite("Just Photo plug-in routing")
struct JustPhotoPluginRoutingTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let spec = root.appendingPathComponent("PoseSpec.json").path
  static let recording = root.appendingPathComponent("Recordings/drift-left-and-back.jprec")

  static func golden(_ suffix: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent("Golden/drift-left-and-back.\(suffix)"), encoding: .utf8)
  }

  @Test func theRegistrationNamesJustPhotoAndItsCorpus() {
    let r = Harness.registration
    #expect(r.name == "justphoto" && r.title == "Just Photo")
    #expect(r.corpus == CorpusFolders(recordings: "Recordings", golden: "Golden"))
    #expect(r.plantableFaults.isEmpty && r.scenarios == nil)
    #expect(r.plugin.writesDiagnostics && r.plugin.outputKinds.contains("cue_display"))
    // Its events are checked by its decoder and its step: `doctor` does not read them again.
    #expect(r.plugin.refusal == nil && (try? Harness.plugin.configured(EngineOptionValues(spec: Self.spec)))?.refusal == nil)
  }

  @Test func configuredWithASpecItReplaysToTheGoldens() throws {
    let plugin = try Harness.plugin.configured(EngineOptionValues(spec: Self.spec))
    let products = try plugin.products(Self.recording)
    #expect(products.trace == (try Self.golden("trace.jsonl")))
    #expect(products.a13 == (try Self.golden("a13.jsonl")))
  }

  @Test func traceKindsAndCuesNarrowItsReplays() throws {
    let kinds = try Harness.plugin.configured(EngineOptionValues(spec: Self.spec, trace: "cue_display"))
    let kept = try kinds.products(Self.recording).records
    #expect(!kept.isEmpty && kept.allSatisfy { $0.out == "cue_display" })
    let metrics = try Harness.plugin.configured(EngineOptionValues(spec: Self.spec, trace: "metrics", cues: ["FRAME_MOVE_LEFT"]))
    let evals = try metrics.products(Self.recording).records.filter { $0.out == "cue_eval" }
    #expect(!evals.isEmpty)
  }

  /// `import` checks a header through the plug-in: Just Photo's options against its
  /// catalogue, kept by a configured plug-in.
  @Test func itJudgesAHeadersOptions() throws {
    let good: JSONObject = ["options": .object(["angleFix": "on"])]
    let bad: JSONObject = ["options": .object(["nosuch": 1])]
    let configured = try Harness.plugin.configured(EngineOptionValues(spec: Self.spec))
    for plugin in [Harness.plugin, configured] {
      #expect(plugin.headerProblem(good) == nil)
      #expect(plugin.headerProblem(bad)?.contains("nosuch") == true, "\(plugin.headerProblem(bad) ?? "nil")")
    }
  }

  @Test func badOptionsAreItsOwnComplaints() {
    func message(_ o: EngineOptionValues) -> String? {
      do {
        _ = try Harness.plugin.configured(o)
        return nil
      } catch {
        if case .badInput(let m, let code) = error, code == 2 { return m }
        return "\(error)"
      }
    }
    #expect(message(EngineOptionValues(spec: Self.spec, cues: ["X"])) == "--cue narrows cue_eval lines: use it with --trace metrics")
    #expect(message(EngineOptionValues(spec: Self.spec, trace: "bogus"))?.hasPrefix("--trace: unknown trace kind 'bogus'") == true)
    #expect(message(EngineOptionValues(spec: Self.spec, overrides: [("nosuch", "1")]))?.hasPrefix("--set: ") == true)
  }

  /// What an engine without options does (PixScan's and Camera Coach's default).
  @Test func anEngineWithoutOptionsRefusesThem() {
    func refusal(_ o: EngineOptionValues) -> String {
      do {
        _ = try Harness.plugin.acceptingNoOptions(o)
        return "accepted"
      } catch {
        switch error {
        case .notAccepted(let flag): return flag
        case .unknownTraceKind(let k, _): return "trace \(k)"
        default: return "\(error)"
        }
      }
    }
    #expect(refusal(EngineOptionValues(spec: "x.json", overrides: [("a", "b")])) == "--spec")
    #expect(refusal(EngineOptionValues(overrides: [("a", "b")], cues: ["C"])) == "--set")
    #expect(refusal(EngineOptionValues(cues: ["C"])) == "--cue")
    #expect(refusal(EngineOptionValues(trace: "metrics")) == "trace metrics")
    #expect(refusal(EngineOptionValues(trace: "cue_display")) == "accepted")
  }
}
