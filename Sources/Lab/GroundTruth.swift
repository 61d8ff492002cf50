import CoachEngine
import Foundation
import PoseSpec
import Recording
import Replay
import Scenarios

/// Ground-truth `label` events for a generated recording (issue 5): for every cue, when its
/// condition truly holds before noise. The scenario is generated again without noise and each
/// of its frames evaluated with the spec's formulas and thresholds (ENGINE §2.9, §3.1): a cue
/// holds while its raw level is warn or hard — before hysteresis, selection and the gate,
/// which are what labels are there to judge. The engine replaying the recording never sees
/// them (`label` is not an engine input).
public enum GroundTruth {
  /// The spec labels are computed with: `PoseSpec.json` beside the scenario's folder (the
  /// repository's), else the current directory's.
  public static func specPath(forScenario file: String) -> String {
    let dir = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
    let beside = dir.appendingPathComponent("PoseSpec.json").path
    return FileManager.default.fileExists(atPath: beside) ? beside : Harness.defaultSpecPath
  }

  /// `generated` with its label lines merged in (after the events of the same t), and
  /// `labels_spec_sha256` in the header. Recordings without frames get no labels.
  public static func labeled(_ generated: GeneratedRecording) throws(HarnessFailure) -> GeneratedRecording {
    let specFile = specPath(forScenario: generated.scenario.file)
    let spec = try Harness.loadSpec(path: specFile)
    var clean = generated.scenario
    clean.noise = Scenario.Noise()
    let truth = clean.generate()
    let labels = try labelEvents(truth, spec: spec)
    guard !labels.isEmpty else { return generated }
    var header = try parse(generated.lines[0], generated.scenario.file)
    header["labels_spec_sha256"] = .string(spec.sha256)
    var lines = [JSONWriter.write(.object(header))]
    var next = 0
    for line in generated.lines.dropFirst() {
      let t = try parse(line, generated.scenario.file)["t"]?.int64Value ?? 0
      while next < labels.count && labels[next].t < t {
        lines.append(labels[next].line)
        next += 1
      }
      lines.append(line)
    }
    lines += labels[next...].map(\.line)
    return GeneratedRecording(scenario: generated.scenario, lines: lines)
  }

  static func parse(_ line: String, _ file: String) throws(HarnessFailure) -> JSONObject {
    guard let o = (try? JSONParser.parse(line))?.objectValue else {
      throw .badInput("\(file): generated line is not a JSON object: \(line.prefix(80))")
    }
    return o
  }

  /// One `label {cue_id, holds}` per change of each cue, in evaluation order; at equal t
  /// after that t's events.
  static func labelEvents(_ truth: GeneratedRecording, spec: PoseSpecDocument) throws(HarnessFailure)
    -> [(t: Int64, line: String)]
  {
    let reader: JSONLReader
    do { reader = try truth.reader() } catch { throw .badInput(error.description) }
    var source = RecordingSource(reader: reader, path: truth.scenario.file)
    let header = RecordingHeader(source.header)
    let config: EngineConfiguration
    do { config = try EngineConfiguration(spec: spec, header: header, traceMetrics: true) } catch {
      throw .badInput("\(truth.scenario.file): \(error)")
    }
    var replayer = Replayer(engine: Engine(configuration: config), options: ReplayOptions(strictEffects: false))
    var output = CollectingOutput { $0.out == "cue_eval" }
    do { _ = try replayer.run(&source, into: &output, recording: truth.scenario.file) } catch {
      throw .badInput("\(truth.scenario.file): labels: \(error)")
    }
    var holds: [String: Bool] = [:]
    var out: [(t: Int64, line: String)] = []
    for r in output.records {
      // Every cue in spec order (cue_eval's members are sorted by id): stable output.
      for m in r.fields["cues"]?.objectValue?.members ?? [] {
        let level = m.value["level"]?.stringValue
        let now = level == "warn" || level == "hard"
        guard holds[m.key] != now, now || holds[m.key] != nil else { continue }
        holds[m.key] = now
        let event: JSONObject = ["t": .number(Double(r.t)), "kind": "label", "cue_id": .string(m.key), "holds": .bool(now)]
        out.append((r.t, JSONWriter.write(.object(event))))
      }
    }
    return out
  }
}
