import CanonicalJSON
import CoachEngine
import EngineIO
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

  /// The recording `scenario` generates, with its label lines merged in (after the events of
  /// the same t) and `labels_spec_sha256` in the header. Recordings without frames get no
  /// labels. The labels come from one streaming replay of the noise-free scenario; only the
  /// label lines (one per change of a cue) are kept.
  public static func labeled(_ scenario: Scenario) throws(HarnessFailure) -> GeneratedRecording {
    let spec = try Harness.loadSpec(path: specPath(forScenario: scenario.file))
    let clean = scenario.noiseFree
    var labels = try labelEvents(clean, spec: spec)
    guard !labels.marks.isEmpty else { return GeneratedRecording(scenario: scenario) }
    // The spec the recording declares: its launch spec (header `initial.posespec`, which the
    // engine loads at t = 0 in place of the harness's) when it has one, else the file's.
    labels.specSHA256 = scenario.initial["posespec"].map { SHA256.hex(JSONWriter.write($0)) } ?? spec.sha256
    return GeneratedRecording(scenario: scenario, labels: labels)
  }

  /// The labels a committed recording holds (its `label` events and `labels_spec_sha256`),
  /// to write them again unchanged: labels are computed once, at record time, and kept until
  /// `record --relabel` (DESIGN §8). nil when it has none.
  public static func committedLabels(ofRecordingAt path: String) throws(HarnessFailure) -> GeneratedLabels? {
    let reader: RecordingReader
    do { reader = try RecordingReader(path: path) } catch { throw .badInput(error.description) }
    var labels = GeneratedLabels(specSHA256: reader.header["labels_spec_sha256"]?.stringValue ?? "", cueIDs: [], marks: [])
    var index: [String: Int32] = [:]
    do {
      while let e = try reader.next() {
        guard e.kind == .label else { continue }
        guard labels.marks.count < ScenarioLimits.labelsMax else {
          throw HarnessFailure.badInput("\(path): more than \(ScenarioLimits.labelsMax) labels (ScenarioLimits.labelsMax)")
        }
        guard let (cue, holds) = e.labelMark else {
          throw HarnessFailure.badInput("\(path): label at t=\(e.t) without cue_id and holds")
        }
        let i = index[cue] ?? Int32(labels.cueIDs.count)
        if index[cue] == nil {
          index[cue] = i
          labels.cueIDs.append(cue)
        }
        labels.marks.append(GeneratedLabels.Mark(t: e.t, cue: i, holds: holds))
      }
    } catch let e as HarnessFailure {
      throw e
    } catch {
      throw .badInput("\(path): \(error)")
    }
    return labels.marks.isEmpty ? nil : labels
  }

  /// One `label {cue_id, holds}` per change of each cue, in evaluation order; at equal t
  /// after that t's events.
  static func labelEvents(_ truth: Scenario, spec: PoseSpecDocument) throws(HarnessFailure) -> GeneratedLabels {
    let reader: GeneratedReader
    do { reader = try GeneratedReader(scenario: truth) } catch { throw .badInput(error.description) }
    var source = reader
    let header = RecordingHeader(source.header)
    let config: EngineConfiguration
    do { config = try EngineConfiguration(spec: spec, header: header, traceMetrics: true) } catch {
      throw .badInput("\(truth.file): \(error)")
    }
    var replayer = Replayer(engine: Engine(configuration: config), options: ReplayOptions(strictEffects: false))
    var output = LabelOutput()
    do { _ = try replayer.run(&source, into: &output, recording: truth.file) } catch {
      if output.full {
        throw .badInput(
          "\(truth.file): the ground-truth labels change more than \(ScenarioLimits.labelsMax) times (ScenarioLimits.labelsMax); the subject flickers across a threshold on almost every frame — shorten the scenario or smooth its timeline")
      }
      throw .badInput("\(truth.file): labels: \(error)")
    }
    return output.labels
  }
}

/// Turns the replay's `cue_eval` records into labels as they come (nothing else kept):
/// one per change of a cue's raw level between "holds" (warn/hard) and not.
struct LabelOutput: ReplayOutput {
  /// Per cue id that has held: its index in `labels.cueIDs` and whether it holds now.
  var cues: [String: (index: Int32, holds: Bool)] = [:]
  var labels = GeneratedLabels(specSHA256: "", cueIDs: [], marks: [])
  /// Set when `labelsMax` was reached (the replay is stopped by the thrown error).
  var full = false

  struct TooMany: Error {}

  mutating func emit(_ output: EngineOutput, at t: Millis) throws {
    guard case .cueEval(let evaluation) = output else { return }
    // Every cue in spec order: stable output.
    for entry in evaluation.entries {
      let now = entry.level == .warn || entry.level == .hard
      let cue = cues[entry.id]
      guard cue?.holds != now, now || cue?.holds != nil else { continue }
      guard labels.marks.count < ScenarioLimits.labelsMax else {
        full = true
        throw TooMany()
      }
      let index = cue?.index ?? Int32(labels.cueIDs.count)
      if cue == nil { labels.cueIDs.append(entry.id) }
      cues[entry.id] = (index, now)
      labels.marks.append(GeneratedLabels.Mark(t: t, cue: index, holds: now))
    }
  }

  mutating func emit(_ line: DiagnosticLine) {}
}

extension InputEvent {
  /// A `label {cue_id, holds}` event's fields (docs/FORMAT.md); nil for any other event or a
  /// label without both.
  var labelMark: (cue: String, holds: Bool)? {
    guard case .generic(let g) = payload, g.kind == .label,
      let cue = g.fields["cue_id"]?.stringValue, let holds = g.fields["holds"]?.boolValue
    else { return nil }
    return (cue, holds)
  }
}
