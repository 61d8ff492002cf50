import Foundation
import Recording
import Replay
import ScenarioYAML
import JustPhotoScenarios
import Verify

/// Scenario files of the corpus (`Recordings/<name>.scenario.yaml`) and their recordings:
/// `jpreplay record` writes them, `jpreplay verify` checks they are not stale.
public enum ScenarioCorpus {
  /// `<dir>/<name>.scenario.yaml` paths in `dir`, sorted by name.
  public static func scenarioFiles(in dir: String) throws(HarnessFailure) -> [String] {
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: dir) } catch {
      throw .badInput("\(dir): cannot list the folder (\(SystemReason.of(error)))")
    }
    return names.filter { Scenario.recordingName(ofFile: $0) != nil && !$0.hasPrefix(".") }
      .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      .map { join(dir, $0) }
  }

  /// The scenario path for a `record` argument: a path as given, or a bare recording name
  /// (`s04-frame-left-enter`) looked up as `<dir>/<name>.scenario.yaml`.
  public static func resolve(_ argument: String, recordingsDir: String) -> String {
    if argument.hasSuffix(".yaml") || argument.hasSuffix(".yml") || argument.contains("/") { return argument }
    if argument.hasSuffix(".jprec") { return join(recordingsDir, String(argument.dropLast(6)) + Scenario.suffix) }
    return join(recordingsDir, argument + Scenario.suffix)
  }

  /// The `.jprec` a scenario file generates: beside it, `<name>.jprec`.
  public static func recordingPath(forScenario path: String, name: String) -> String {
    let dir = Paths.parent(path)
    return dir.isEmpty ? "\(name).jprec" : join(dir, "\(name).jprec")
  }

  package static func join(_ dir: String, _ file: String) -> String {
    dir.hasSuffix("/") ? dir + file : "\(dir)/\(file)"
  }

  /// `Verifier.expectationCheck` for the corpus in `recordingsDir`: the `expect:` rules of
  /// recording NAME's scenario checked against the replay's trace records and A.13 text (issue 15),
  /// one line per broken rule. A scenario that cannot be read has no rules here (the scenario
  /// check reports it as bad input).
  public static func expectationCheck(recordingsDir: String) -> @Sendable (String, ReplayProducts) -> [String] {
    expectationCheck { name in (try? expectations(of: name, recordingsDir: recordingsDir)) ?? [] }
  }

  /// The same check with each recording's rules from `rules` (empty: nothing to check).
  static func expectationCheck(
    _ rules: @escaping @Sendable (String) -> [ScenarioExpectation]
  ) -> @Sendable (String, ReplayProducts) -> [String] {
    { name, products in
      let rules = rules(name)
      return rules.isEmpty ? [] : check(rules, products)
    }
  }

  /// `rules` judged on one replay: its trace records in memory (``ReplayProducts/records``, as
  /// their lines read back) and its A.13 text.
  public static func check(_ rules: [ScenarioExpectation], _ products: ReplayProducts) -> [String] {
    judge(rules, products).failures.map(\.description)
  }

  /// `rules` judged with their `known:` markers on one replay (the committed draw, 0).
  public static func judge(_ rules: [ScenarioExpectation], _ products: ReplayProducts) -> ExpectationVerdict {
    let keep = Expectations.needRecords(rules)
    var trace = ExpectationTrace()
    for r in products.records { trace.add(t: r.t, out: r.out, fields: r.fields, keep: keep) }
    if keep { trace.addA13(text: products.a13 ?? "") }
    return Expectations.judge(rules, trace: trace)
  }

  /// The `expect:` rules of recording `name`'s scenario (`<dir>/<name>.scenario.yaml`); empty
  /// when it has no scenario file or no rules. For `tune`: check a trial's replay
  /// (`ExpectationOutput`) with `Expectations.check(_:trace:)`.
  public static func expectations(of name: String, recordingsDir: String) throws(ScenarioError) -> [ScenarioExpectation] {
    let path = resolve(name, recordingsDir: recordingsDir)
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    return try Scenario.load(path: path).expectations
  }

  /// One stale or broken scenario recording found by `staleRecordings`.
  public struct Problem: Sendable {
    public var name: String
    public var message: String
    /// 1: the recording is stale; 2: the scenario cannot be read or generated.
    public var code: Int32
  }

  /// Checks every recording that has a scenario file in `recordingsDir` (only `names`, when
  /// given): generated again and compared with the committed `.jprec` event by event, both
  /// streamed (flat memory whatever the duration). Ground-truth labels are compared like any
  /// event: they are the scenario's declared intent (DESIGN §9), so a PoseSpec edit never makes
  /// a recording stale; a scenario whose meaning changed (`generator_sha256`, comments aside)
  /// or whose events the generator no longer makes is. Recordings without a scenario are not
  /// looked at.
  public static func staleRecordings(recordingsDir: String, names: [String]?) throws(HarnessFailure) -> (checked: Int, problems: [Problem]) {
    var files = try scenarioFiles(in: recordingsDir)
    if let names {
      let wanted = Set(names)
      files = files.filter { Scenario.recordingName(ofFile: $0).map(wanted.contains) ?? false }
    }
    let problems = files.compactMap { file in staleness(ofScenario: file, name: Scenario.recordingName(ofFile: file)!) }
    return (files.count, problems)
  }

  /// Recording `name` against its scenario file `file` (which exists): nil when the recording
  /// is what the scenario generates, else the problem.
  static func staleness(ofScenario file: String, name: String) -> Problem? {
    staleness(ofScenario: file, name: name, loaded: Result { () throws(ScenarioError) in try Scenario.load(path: file) })
  }

  /// The same, with the scenario file already read (`loaded`: its scenario or why it does not read).
  static func staleness(ofScenario file: String, name: String, loaded: Result<Scenario, ScenarioError>) -> Problem? {
    let rec = recordingPath(forScenario: file, name: name)
    let scenario: Scenario
    switch loaded {
    case .success(let s): scenario = s
    case .failure(let error): return Problem(name: name, message: error.description, code: 2)
    }
    guard let diff = scenario.generate().compare(withRecordingAt: rec).difference else { return nil }
    return Problem(
      name: name, message: "stale: \(rec) is not what \(file) generates; run jpreplay record \(name) (\(diff))", code: 1)
  }
}

extension ScenarioCorpus {
  /// Just Photo's hook for `verify`'s scenario checks in `recordingsDir`: its scenario files
  /// (`<name>.scenario.yaml`), staleness (a scenario recording is generated again and
  /// compared, before its replay) and the `expect:` rules (checked against each replay, apart
  /// from the goldens).
  ///
  /// A rule naming a cue that is not in the spec (`specPath`, default ./PoseSpec.json, when it
  /// can be loaded) would hold vacuously: the scenario is bad input (an unreadable finding
  /// naming the file, the rule and the nearest cue id).
  public static func checks(recordingsDir dir: String, specPath: String? = nil) throws(HarnessFailure) -> ScenarioChecks {
    let names = try scenarioFiles(in: dir).compactMap { Scenario.recordingName(ofFile: $0) }
    let path = specPath ?? Harness.defaultSpecPath
    let cueIDs: [String]? =
      FileManager.default.fileExists(atPath: path) ? (try? Harness.loadSpec(path: path))?.cues.map(\.id) : nil
    // Each scenario file is read and parsed once, however many of the checks below ask.
    let files = ScenarioFiles(dir: dir)
    return ScenarioChecks(
      engine: JustPhotoVocabulary.engineName, names: Set(names),
      // The scenario file of a name is `<dir>/<name>.scenario.yaml` (the names come from that
      // listing): the folder is not listed again per recording.
      staleness: { name in
        if let p = staleness(ofScenario: files.path(of: name), name: name, loaded: files.scenario(of: name)) {
          return ScenarioFinding(message: p.message, unreadable: p.code == 2)
        }
        guard let cueIDs, let unknown = unknownCue(in: files.rules(of: name), known: cueIDs, spec: path) else { return nil }
        return ScenarioFinding(message: unknown, unreadable: true)
      },
      expectations: expectationCheck { files.rules(of: $0) },
      knownMisses: knownMissCheck { files.rules(of: $0) })
  }

  /// The `known:` misses of recording NAME's scenario on the committed draw (draw 0), its rules
  /// from `rules`: the rules whose marker names draw 0 and that miss as it says, one line each.
  /// Only a scenario with such a marker is judged again.
  static func knownMissCheck(
    _ rules: @escaping @Sendable (String) -> [ScenarioExpectation]
  ) -> @Sendable (String, ReplayProducts) -> [String] {
    { name, products in
      let rules = rules(name)
      guard rules.contains(where: { $0.knownMiss?.draws.contains(0) == true }) else { return [] }
      return judge(rules, products).knownMisses.map(\.knownDescription)
    }
  }

  /// The first rule of `rules` that names a cue id not in `known` (the cue ids of the spec
  /// `spec`), as a message naming the file, line, rule and the nearest known id; nil when
  /// every named cue is known. Checked: `displayed`, `not_displayed` and a `with: {cue_id: …}`.
  public static func unknownCue(in rules: [ScenarioExpectation], known: [String], spec: String) -> String? {
    let ids = Set(known)
    for r in rules {
      let named: (what: String, cue: String)?
      switch r.rule {
      case .displayed(let cue, _, _, _): named = ("displayed", cue)
      case .notDisplayed(let cue?, _, _, _): named = ("not_displayed", cue)
      case .lines(let m, _, _, _, _), .state(let m, _, _):
        named = m.with.first { $0.key == "cue_id" }?.value.stringValue.map { ("with: cue_id", $0) }
      default: named = nil
      }
      guard let (what, cue) = named, !ids.contains(cue) else { continue }
      let near = nearest(cue, in: known).map { " (did you mean \"\($0)\"?)" } ?? ""
      return "\(r.place): \(what): unknown cue id \"\(ConsoleText.line(Excerpt.short(cue)))\"\(near); expected a cue id of \(spec) (the rule would hold vacuously)"
    }
    return nil
  }

  /// The known id nearest to `word` by edit distance (case-insensitive); nil when `known` is empty.
  static func nearest(_ word: String, in known: [String]) -> String? {
    let w = Array(word.lowercased())
    return known.min { a, b in
      let (da, db) = (editDistance(w, Array(a.lowercased())), editDistance(w, Array(b.lowercased())))
      return da != db ? da < db : a.utf8.lexicographicallyPrecedes(b.utf8)
    }
  }

  /// Gives `verifier` Just Photo's scenario checks of the corpus in `recordingsDir`
  /// (``checks(recordingsDir:)``). `verify` and `assertReplay` both judge through these
  /// checks, so they judge a recording the same way.
  public static func addChecks(to verifier: inout Verifier, recordingsDir dir: String) throws(HarnessFailure) {
    verifier.judgeScenarios(with: [try checks(recordingsDir: dir)])
  }
}

/// The scenario files of one folder as `ScenarioCorpus.checks` reads them: each read and parsed
/// once (verify asks for a recording's scenario up to four times: staleness, the cue-id check,
/// the rules, the known misses), from any of verify's worker threads.
final class ScenarioFiles: @unchecked Sendable {
  let dir: String
  private let lock = NSLock()
  private var loaded: [String: Result<Scenario, ScenarioError>] = [:]
  private var readCount = 0

  init(dir: String) { self.dir = dir }

  /// How many files were read so far (what the test of "once" counts).
  var reads: Int { lock.withLock { readCount } }

  /// `<dir>/<name>.scenario.yaml`.
  func path(of name: String) -> String { ScenarioCorpus.join(dir, name + Scenario.suffix) }

  /// Recording `name`'s scenario, or why its file does not read (a missing file included).
  func scenario(of name: String) -> Result<Scenario, ScenarioError> {
    if let known = lock.withLock({ loaded[name] }) { return known }
    let file = path(of: name)
    let result = Result { () throws(ScenarioError) in try Scenario.load(path: file) }
    lock.withLock {
      loaded[name] = result
      readCount += 1
    }
    return result
  }

  /// Recording `name`'s `expect:` rules; empty when it has no scenario file, or one that does
  /// not read (the staleness check reports that one).
  func rules(of name: String) -> [ScenarioExpectation] {
    guard FileManager.default.fileExists(atPath: path(of: name)) else { return [] }
    return (try? scenario(of: name).get())?.expectations ?? []
  }
}
