import CanonicalJSON
import JustPhotoEngine
import Foundation
import Recording
import JustPhotoPlugin
import PoseSpec
import Replay
import JustPhotoScenarios
import Verify

/// `jpreplay faults`: do the corpus' `expect:` rules catch a wrong engine? (issue 24)
///
/// Every recording whose scenario has rules is replayed once as it is (the rules unmet there
/// are set aside: they catch nothing) and once per planted fault (``PlantedFault``) or spec
/// mutant (``SpecMutant``), goldens ignored. A fault or mutant is *caught* when some rule that
/// held on the clean replay fails; *silent* when no trace changed at all (the corpus never
/// exercises it, so no rule could catch it). The catch rate counts the ones that changed
/// behaviour.
package enum FaultRun {
  /// One recording with rules: its name, file and rules' checker.
  struct Subject: Sendable {
    var name: String
    var url: URL
  }

  /// What one fault or mutant did to the corpus.
  package struct Outcome: Sendable {
    package var name: String
    package var summary: String
    /// Recordings whose trace differs from the clean replay's.
    package var changed: [String] = []
    /// `recording: rule` lines that held clean and fail with the fault.
    package var caughtBy: [String] = []
    /// Replays that failed outright (a crash of the harness would be a finding of its own).
    package var errors: [String] = []
    package var caught: Bool { !caughtBy.isEmpty }
    package var silent: Bool { changed.isEmpty && errors.isEmpty }
    /// An outcome (another engine's fault run reports through this type too).
    package init(name: String, summary: String, changed: [String] = [], caughtBy: [String] = [], errors: [String] = []) {
      (self.name, self.summary, self.changed, self.caughtBy, self.errors) = (name, summary, changed, caughtBy, errors)
    }
  }

  /// A run's outcomes and its figures.
  package struct Report: Sendable {
    package var recordings: [String]
    package var outcomes: [Outcome]
    /// Rules unmet on the clean replay (they cannot catch anything), `recording: rule`.
    package var unmetClean: [String]
    /// A report (another engine's fault run reports through this type too).
    package init(recordings: [String], outcomes: [Outcome], unmetClean: [String]) {
      (self.recordings, self.outcomes, self.unmetClean) = (recordings, outcomes, unmetClean)
    }
    package var behaviourChanging: [Outcome] { outcomes.filter { !$0.silent } }
    package var caught: Int { behaviourChanging.filter(\.caught).count }
    /// Caught among the behaviour-changing ones, 0…1 (1 when none changed behaviour).
    package var catchRate: Double { behaviourChanging.isEmpty ? 1 : Double(caught) / Double(behaviourChanging.count) }
    package var survivors: [Outcome] { behaviourChanging.filter { !$0.caught } }

    package func text(title: String) -> String {
      var lines = [
        "\(title): \(outcomes.count) on \(recordings.count) recordings with rules; \(behaviourChanging.count) change behaviour, \(caught) caught by rules (\(String(format: "%.1f", catchRate * 100)) %)"
      ]
      for o in outcomes {
        let mark = o.silent ? "silent  " : o.caught ? "caught  " : "SURVIVED"
        lines.append("\(mark) \(o.name): \(o.summary)")
        if o.caught {
          lines.append("  by \(o.caughtBy.count) rule(s), e.g. \(ConsoleText.line(o.caughtBy.prefix(2).joined(separator: "; ")))")
        } else if !o.silent {
          lines.append("  changed \(o.changed.count) recording(s) (\(ConsoleText.line(o.changed.prefix(4).joined(separator: ", ")))) and no rule failed")
        }
        for e in o.errors.prefix(2) { lines.append("  replay failed: \(e)") }
      }
      if !unmetClean.isEmpty {
        lines.append("rules unmet without any fault (set aside): \(unmetClean.count), e.g. \(ConsoleText.line(unmetClean.prefix(3).joined(separator: "; ")))")
      }
      return lines.joined(separator: "\n") + "\n"
    }

    package var json: String {
      let items: [JSONValue] = outcomes.map { o in
        .object([
          "name": .string(o.name), "summary": .string(o.summary), "caught": .bool(o.caught), "silent": .bool(o.silent),
          "changed": .array(o.changed.map { .string($0) }), "caught_by": .array(o.caughtBy.map { .string($0) }),
          "errors": .array(o.errors.map { .string($0) }),
        ])
      }
      let root: JSONObject = [
        "recordings": .array(recordings.map { .string($0) }), "outcomes": .array(items),
        "behaviour_changing": .number(Double(behaviourChanging.count)), "caught": .number(Double(caught)),
        "catch_rate": .number(catchRate), "survivors": .array(survivors.map { .string($0.name) }),
        "unmet_clean": .array(unmetClean.map { .string($0) }),
      ]
      return JSONWriter.write(.object(root), sortKeys: true) + "\n"
    }
  }

  /// A variant of the engine to judge: planted faults and/or another spec.
  package struct Variant: Sendable {
    package var name: String
    package var summary: String
    package var faults: PlantedFaults
    package var spec: PoseSpecDocument?
    package init(name: String, summary: String, faults: PlantedFaults = PlantedFaults(), spec: PoseSpecDocument? = nil) {
      (self.name, self.summary, self.faults, self.spec) = (name, summary, faults, spec)
    }
  }

  /// Every planted fault: its name and what it does.
  package static var plantedFaults: [(name: String, summary: String)] { PlantedFault.allCases.map { ($0.rawValue, $0.summary) } }

  /// The planted faults as variants (all of them, or those named).
  package static func faultVariants(_ names: [String] = []) throws(HarnessFailure) -> [Variant] {
    var out: [Variant] = []
    for f in PlantedFault.allCases where names.isEmpty || names.contains(f.rawValue) {
      out.append(Variant(name: f.rawValue, summary: f.summary, faults: PlantedFaults([f])))
    }
    if let unknown = names.first(where: { n in !PlantedFault.allCases.contains { $0.rawValue == n } }) {
      throw .badInput("--fault \(unknown): no such planted fault; `jpreplay faults --list` names them")
    }
    return out
  }

  /// Recordings of `recordingsDir` whose scenario has `expect:` rules (or those of `names`).
  static func subjects(recordingsDir: String, names: [String]?) throws(HarnessFailure) -> [Subject] {
    var out: [Subject] = []
    for file in try ScenarioCorpus.scenarioFiles(in: recordingsDir) {
      guard let name = Scenario.recordingName(ofFile: Paths.name(file)), names.map({ $0.contains(name) }) ?? true else { continue }
      let rules = (try? ScenarioCorpus.expectations(of: name, recordingsDir: recordingsDir)) ?? []
      let url = URL(fileURLWithPath: ScenarioCorpus.join(recordingsDir, "\(name).jprec"))
      guard !rules.isEmpty, FileManager.default.fileExists(atPath: url.path) else { continue }
      out.append(Subject(name: name, url: url))
    }
    return out
  }

  /// The scenario recordings of `recordingsDir` that `patterns` select (names or globs such as
  /// `'s0*'`, fnmatch rules); nil when there is no pattern (every recording). A pattern that
  /// selects nothing is bad input naming it and the folder.
  package static func names(in recordingsDir: String, matching patterns: [String]) throws(HarnessFailure) -> [String]? {
    guard !patterns.isEmpty else { return nil }
    let all = try ScenarioCorpus.scenarioFiles(in: recordingsDir).compactMap { Scenario.recordingName(ofFile: Paths.name($0)) }
    return try select(all, named: { $0 }, by: patterns, in: recordingsDir)
  }

  /// The items of `items` whose recording name (`name`) one of `patterns` selects (all of them
  /// when there is none); a pattern that selects nothing is bad input naming it and `folder`.
  /// One rule for every engine's corpus (`faults NAMES…`).
  package static func select<T>(
    _ items: [T], named name: (T) -> String, by patterns: [String], in folder: String
  ) throws(HarnessFailure) -> [T] {
    guard !patterns.isEmpty else { return items }
    for p in patterns where !items.contains(where: { GoldenStore.glob(p, matches: name($0)) }) {
      throw .badInput("\(folder): no scenario recording matches '\(p)' (a name, or a quoted glob such as 's0*')")
    }
    return items.filter { item in patterns.contains { GoldenStore.glob($0, matches: name(item)) } }
  }

  /// Runs `variants` over the recordings with rules in `recordingsDir` on `jobs` threads.
  package static func run(
    variants: [Variant], spec: PoseSpecDocument, recordingsDir: String, names: [String]? = nil, jobs: Int,
    progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws(HarnessFailure) -> Report {
    let subjects = try subjects(recordingsDir: recordingsDir, names: names)
    guard !subjects.isEmpty else { throw .badInput("\(recordingsDir): no recording has a scenario with expect: rules") }
    let check = ScenarioCorpus.expectationCheck(recordingsDir: recordingsDir)
    let clean = try Harness.driver(spec: spec, sessionStore: .none)
    struct Baseline: Sendable { var trace: String; var a13: String?; var unmet: Set<String> }
    let baselines: [Baseline?] = ParallelMap.run(subjects, jobs: jobs) { s in
      guard let p = try? clean.canonicalProducts(s.url) else { return nil }
      return Baseline(trace: p.trace, a13: p.a13, unmet: Set(check(s.name, p)))
    }
    var unmetClean: [String] = []
    for (s, b) in zip(subjects, baselines) { for u in (b?.unmet ?? []).sorted() { unmetClean.append("\(s.name): \(u)") } }
    // One job per (variant, recording): the corpus' short recordings make the grain small.
    let drivers: [ReplayDriver<Engine>] = try variants.map { v throws(HarnessFailure) in
      try Harness.driver(spec: v.spec ?? spec, sessionStore: .none, plantedFaults: v.faults)
    }
    let pairs = variants.indices.flatMap { v in subjects.indices.map { (v, $0) } }
    let done = FaultProgressCounter()
    let results: [(changed: Bool, caught: [String], error: String?)] = ParallelMap.run(pairs, jobs: jobs) { pair in
      let (v, i) = pair
      defer { progress?(done.increment(), pairs.count) }
      guard let base = baselines[i] else { return (false, [], nil) }
      do {
        let p = try drivers[v].canonicalProducts(subjects[i].url)
        guard p.trace != base.trace || p.a13 != base.a13 else { return (false, [], nil) }
        let broken = check(subjects[i].name, p).filter { !base.unmet.contains($0) }
        return (true, broken.map { "\(subjects[i].name): \($0)" }, nil)
      } catch {
        return (true, [], "\(subjects[i].name): \((error as? ReplayError)?.description ?? "\(error)")")
      }
    }
    var outcomes = variants.map { Outcome(name: $0.name, summary: $0.summary) }
    for ((v, i), r) in zip(pairs, results) {
      if r.changed { outcomes[v].changed.append(subjects[i].name) }
      outcomes[v].caughtBy += r.caught
      if let e = r.error { outcomes[v].errors.append(e) }
    }
    return Report(recordings: subjects.map(\.name), outcomes: outcomes, unmetClean: unmetClean)
  }
}

/// A thread-safe counter for progress.
final class FaultProgressCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var n = 0
  func increment() -> Int {
    lock.lock()
    defer { lock.unlock() }
    n += 1
    return n
  }
}

extension FaultRun {
  /// The cues a clean replay of the recordings with rules displays or evaluates at a level:
  /// the ones a spec mutant can be seen through.
  package static func cuesSeen(spec: PoseSpecDocument, recordingsDir: String, names: [String]? = nil, jobs: Int) throws(HarnessFailure) -> Set<String> {
    let subjects = try subjects(recordingsDir: recordingsDir, names: names)
    let driver = try Harness.driver(spec: spec, sessionStore: .none)
    let ids = spec.cues.map(\.id)
    let seen: [[String]] = ParallelMap.run(subjects, jobs: jobs) { s in
      guard let p = try? driver.canonicalProducts(s.url) else { return [] }
      return ids.filter { p.trace.contains("\"\($0)") }
    }
    return Set(seen.flatMap { $0 })
  }
}
