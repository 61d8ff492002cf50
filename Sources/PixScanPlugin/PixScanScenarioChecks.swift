import CanonicalJSON
import EngineIO
import Foundation
import PixScanScenarios
import Recording
import Replay
import Verify

/// PixScan's hook for `verify`'s scenario checks (`ScenarioChecks`, docs/PIXSCAN.md
/// "JustPhotoScenarios"): the scenario files of a recordings folder are its `<name>.yaml` files whose
/// top level says `engine: pixscan`; recording `<name>.jprec` is stale unless it holds exactly
/// the header (its `generator_sha256` is the scenario's meaning) and the events the scenario
/// generates, and each replay's trace is judged by the scenario's `expect:` rules.
public enum PixScanScenarioChecks {
  /// The hook for the folder `dir`.
  public static func checks(recordingsDir dir: String) throws(BadInputError) -> ScenarioChecks {
    let files: [String]
    do { files = try FileManager.default.contentsOfDirectory(atPath: dir) } catch {
      throw BadInputError(recording: dir, message: "cannot list the folder (\(SystemReason.of(error)))")
    }
    var names = Set<String>()
    for f in files where f.hasSuffix(yamlSuffix) && f.count > yamlSuffix.count && !f.hasPrefix(".") {
      // A file that cannot be read here is not known to be PixScan's: another engine's hook
      // (or none) judges it.
      guard let text = try? text(join(dir, f)), isScenario(text) else { continue }
      names.insert(String(f.dropLast(yamlSuffix.count)))
    }
    return ScenarioChecks(
      engine: PixScanVocabulary.engineName, names: names,
      staleness: { name in staleness(of: name, dir: dir) },
      expectations: { name, products in broken(name, dir: dir, records: products.records) })
  }

  /// True for a scenario file whose top level says `engine: pixscan`.
  public static func isScenario(_ text: String) -> Bool {
    text.split(separator: "\n").contains { $0.hasPrefix("engine:") && $0.dropFirst(7).trimmingCharacters(in: .whitespaces) == "pixscan" }
  }

  /// A scenario's events as a recording holds them (named events).
  public static func events(of s: PixScenario) -> [InputEvent] {
    s.events.map { InputEvent(t: $0.t, payload: .named(NamedEvent(kind: $0.kind, fields: $0.fields))) }
  }

  /// How the recording at `path` differs from `header` and `events` (events first, then the
  /// header), in words; nil when it holds exactly them.
  public static func difference(_ path: String, header: JSONObject, events: [InputEvent]) -> String? {
    RecordingFiles.difference(path, header: header, events: events, definitions: PixScanVocabulary.eventDefinitions) { e, got in
      "differs (\(contrast(scenario: e, recording: got)))"
    }
  }

  /// `t=200 swipe: direction is "left" in the recording, "right" in the scenario`, or, when
  /// time or kind differ, `t=200 swipe vs t=300 undo` (the scenario's first).
  static func contrast(scenario a: InputEvent, recording b: InputEvent) -> String {
    guard a.t == b.t, case .named(let x) = a.payload, case .named(let y) = b.payload, x.kind == y.kind else {
      return "t=\(a.t) \(a.kindName) vs t=\(b.t) \(b.kindName)"
    }
    func text(_ v: JSONValue?) -> String { v.map { JSONWriter.write($0) } ?? "absent" }
    let keys = Set(x.fields.keys).union(y.fields.keys).sorted().filter { x.fields[$0] != y.fields[$0] }
    let fields = keys.map { "\($0) is \(text(y.fields[$0])) in the recording, \(text(x.fields[$0])) in the scenario" }
    return "t=\(a.t) \(a.kindName): " + (fields.isEmpty ? "same fields in another order" : fields.joined(separator: "; "))
  }

  static let yamlSuffix = ".yaml"

  static func join(_ dir: String, _ file: String) -> String { dir.hasSuffix("/") ? dir + file : "\(dir)/\(file)" }

  static func text(_ path: String) throws(RecordingError) -> String {
    let bytes = try InputFile.read(
      path, what: "scenario", bytesMax: PixScenarioLimits.documentBytesMax, bound: "PixScenarioLimits.documentBytesMax")
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Recording `name`'s scenario in `dir`, or why it cannot be judged (bad input).
  static func scenario(_ name: String, dir: String) -> (scenario: PixScenario?, problem: ScenarioFinding?) {
    let file = join(dir, name + yamlSuffix)
    let s: PixScenario
    do { s = try PixScenario.parse(yaml: try text(file), file: file) } catch let e as RecordingError {
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

  /// nil when `<dir>/<name>.jprec` is what its scenario generates.
  static func staleness(of name: String, dir: String) -> ScenarioFinding? {
    let (parsed, problem) = scenario(name, dir: dir)
    guard let s = parsed else { return problem }
    let rec = join(dir, name + ".jprec")
    guard let diff = difference(rec, header: s.header, events: events(of: s)) else { return nil }
    return ScenarioFinding(message: "stale: \(rec) is not what \(s.file) generates; run jpreplay record \(s.file) (\(diff))")
  }

  /// The scenario's `expect:` rules the replay's trace records break (in memory, as their
  /// lines read back: ``ReplayProducts/records``). A scenario that cannot be read has no rules
  /// here (the staleness check reports it as bad input).
  static func broken(_ name: String, dir: String, records: [TraceRecord]) -> [String] {
    guard let s = scenario(name, dir: dir).scenario, !s.expectations.isEmpty else { return [] }
    let pix = records.map { PixTraceRecord(t: $0.t, kind: $0.out, fields: $0.fields) }
    return PixExpectations.check(s.expectations, records: pix).map(\.description)
  }
}
