import CameraCoachEngine
import CameraCoachScenarios
import CanonicalJSON
import EngineIO
import Foundation
import Recording
import Replay
import Verify

/// Camera Coach's hook for `verify`'s scenario checks (docs/CAMERACOACH.md "JustPhotoScenarios"): its
/// scenario files are the `<name>.yaml` files of a folder whose top level says
/// `engine: cameracoach`; `<name>.jprec` is stale unless it holds exactly the header and events
/// the scenario generates; each replay's trace is judged by the scenario's `expect:` rules and
/// by the budget invariants.
public enum CameraCoachScenarioChecks {
  /// The hook for the folder `dir`.
  public static func checks(recordingsDir dir: String) throws(BadInputError) -> ScenarioChecks {
    let files: [String]
    do { files = try FileManager.default.contentsOfDirectory(atPath: dir) } catch {
      throw BadInputError(recording: dir, message: "cannot list the folder (\(SystemReason.of(error)))")
    }
    var names = Set<String>()
    for f in files where f.hasSuffix(yamlSuffix) && f.count > yamlSuffix.count && !f.hasPrefix(".") {
      guard let text = try? text(Paths.join(dir, f)), isScenario(text) else { continue }
      names.insert(String(f.dropLast(yamlSuffix.count)))
    }
    return ScenarioChecks(
      engine: CameraCoachVocabulary.engineName, names: names,
      staleness: { name in staleness(of: name, dir: dir) },
      expectations: { name, products in broken(name, dir: dir, records: products.records) })
  }

  /// True for a scenario file whose top level says `engine: cameracoach`.
  public static func isScenario(_ text: String) -> Bool {
    text.split(separator: "\n").contains { $0.hasPrefix("engine:") && $0.dropFirst(7).trimmingCharacters(in: .whitespaces) == "cameracoach" }
  }

  /// A scenario's events as a recording holds them (named events).
  public static func events(of s: CCScenario) -> [InputEvent] {
    s.events.map { InputEvent(t: $0.t, payload: .named(NamedEvent(kind: $0.kind, fields: $0.fields))) }
  }

  /// How the recording at `path` differs from `header` and `events`; nil when it holds exactly them.
  public static func difference(_ path: String, header: JSONObject, events: [InputEvent]) -> String? {
    RecordingFiles.difference(path, header: header, events: events, definitions: CameraCoachVocabulary.eventDefinitions) { e, _ in "(t=\(e.t) \(e.kindName)) differs" }
  }

  static let yamlSuffix = ".yaml"

  static func text(_ path: String) throws(RecordingError) -> String {
    let bytes = try InputFile.read(
      path, what: "scenario", bytesMax: CCScenarioLimits.documentBytesMax, bound: "CCScenarioLimits.documentBytesMax")
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Scenario `name` of `dir`, or why it cannot be judged.
  public static func scenario(_ name: String, dir: String) -> (scenario: CCScenario?, problem: ScenarioFinding?) {
    let file = Paths.join(dir, name + yamlSuffix)
    let s: CCScenario
    do { s = try CCScenario.parse(yaml: try text(file), file: file) } catch let e as RecordingError {
      return (nil, ScenarioFinding(message: e.description, unreadable: true))
    } catch {
      return (nil, ScenarioFinding(message: "\(error)", unreadable: true))
    }
    guard s.name == name else {
      let message = "\(file): name: \"\(s.name)\" is not the file's name \"\(name)\" (jpreplay record writes \(s.name).jprec); rename one"
      return (nil, ScenarioFinding(message: message, unreadable: true))
    }
    return (s, nil)
  }

  static func staleness(of name: String, dir: String) -> ScenarioFinding? {
    let (parsed, problem) = scenario(name, dir: dir)
    guard let s = parsed else { return problem }
    let rec = Paths.join(dir, name + ".jprec")
    guard let diff = difference(rec, header: s.header, events: events(of: s)) else { return nil }
    return ScenarioFinding(message: "stale: \(rec) is not what \(s.file) generates; run jpreplay record \(s.file) (\(diff))")
  }

  /// The `expect:` rules and budget invariants the replay's trace records break (in memory,
  /// as their lines read back: ``ReplayProducts/records``).
  static func broken(_ name: String, dir: String, records: [TraceRecord]) -> [String] {
    guard let s = scenario(name, dir: dir).scenario else { return [] }
    let cc = records.map { CCTraceRecord(t: $0.t, kind: $0.out, fields: $0.fields) }
    return CCExpectations.judge(s.expectations, records: cc).map(\.description)
  }
}
