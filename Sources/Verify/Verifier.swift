import Foundation
import Recording
import Replay

/// `verify`: replays recordings and compares them with their goldens (DESIGN §4).
public struct Verifier: Sendable {
  /// The goldens and recordings verified.
  public var store: GoldenStore
  /// What is verified and how (names, jobs, update mode, shard, diff).
  public var options: VerifyOptions
  /// Replays one recording to its canonical texts (usually `ReplayDriver.canonicalProducts`).
  public var replay: @Sendable (URL) throws(ReplayError) -> ReplayProducts

  /// A verifier.
  ///
  /// - Parameters:
  ///   - store: the goldens and recordings.
  ///   - options: what and how.
  ///   - replay: replays one recording into its canonical texts (the CLI routes it to its engine).
  public init(
    store: GoldenStore, options: VerifyOptions,
    replay: @escaping @Sendable (URL) throws(ReplayError) -> ReplayProducts
  ) {
    self.store = store
    self.options = options
    self.replay = replay
  }

  /// Convenience: verify with a ``ReplayDriver``.
  public init<E: ReplayableEngine & Sendable>(
    store: GoldenStore, options: VerifyOptions, driver: ReplayDriver<E>
  ) {
    self.init(store: store, options: options) { (url: URL) throws(ReplayError) -> ReplayProducts in
      try driver.canonicalProducts(url)
    }
  }

  /// Checks a recording against its scenario (`Recordings/<name>.scenario.yaml`) before it is
  /// replayed; nil when it has none or is up to date. Set by the CLI (the Lab knows scenarios).
  public var scenarioCheck: (@Sendable (String) -> ScenarioFinding?)?
  /// Checks a replay's trace and A.13 texts against the recording's scenario `expect:` rules;
  /// the lines of the rules broken (empty: all met, or no scenario). Set by the CLI.
  public var expectationCheck: (@Sendable (_ name: String, _ products: ReplayProducts) -> [String])?
  /// The rules of the recording's scenario that miss on this replay as their `known:` marker
  /// says (reported beside the result, never a failure). Set by the CLI.
  public var knownMissCheck: (@Sendable (_ name: String, _ products: ReplayProducts) -> [String])?
  /// Names that have a scenario file: a scenario without its recording is a (stale) case too.
  public var scenarioNames: [String] = []

  /// Runs the verification. `progress` is called once per finished recording, one call at a
  /// time (from worker threads when `jobs > 1`).
  public func run(progress: (@Sendable (VerifyProgress) -> Void)? = nil) throws -> VerifyReport {
    let recordings = Set(try store.recordingNames())
    let goldens = Set(try store.goldenNames())
    let scenarios = Set(scenarioNames)
    var names: [String]
    var unmatched = Set<String>()
    if let requested = options.names {
      let universe = recordings.union(goldens).union(scenarios).sortedByBytes()
      var selected = Set<String>()
      for argument in requested {
        let name = store.name(of: argument)
        guard GoldenStore.isGlob(name) else {
          selected.insert(name)
          continue
        }
        let hits = universe.filter { GoldenStore.glob(name, matches: $0) }
        if hits.isEmpty { unmatched.insert(name) }
        selected.formUnion(hits)
      }
      names = Array(selected.union(unmatched)).sortedByBytes()
    } else {
      names = Array(recordings.union(goldens).union(scenarios)).sortedByBytes()
    }
    if let shard = options.shard {
      names = names.enumerated().filter { shard.contains(position: $0.offset) }.map(\.element)
    }
    let corpus = self.store
    let replay = self.replay
    let options = self.options
    let check = self.scenarioCheck
    let expect = self.expectationCheck
    let known = self.knownMissCheck
    let noMatch = unmatched
    let work: @Sendable (String) -> VerifyCase = { name in
      if noMatch.contains(name) {
        return VerifyCase(
          name: name,
          status: .badInput(
            BadInputError(
              recording: corpus.recordingsDir.path,
              message: "no recording or golden matches '\(name)' (quote a glob: 'cov-*')")))
      }
      let finding = scenarios.contains(name) ? check?(name) : nil
      guard recordings.contains(name) else {
        var c = Self.unreferenced(name, golden: goldens.contains(name), finding: finding,
          store: corpus, policy: options.unreferenced)
        c.scenario = finding
        return c
      }
      let rules = scenarios.contains(name) ? expect : nil
      let clock = ContinuousClock()
      let start = clock.now
      var c = Self.verifyOne(
        name, store: corpus, options: options, replay: replay, write: finding == nil, expect: rules,
        known: scenarios.contains(name) ? known : nil)
      c.elapsed = Elapsed(seconds: Self.seconds(clock.now - start))
      c.scenario = finding
      return c
    }
    let selected = names
    let cases = ParallelMap.run(selected, jobs: options.jobs, work: work) {
      completed, index, result in
      progress?(
        VerifyProgress(
          completed: completed, total: selected.count, name: selected[index], passed: result.passed)
      )
    }
    // Messages name the folders as the user gave them.
    let labelled = cases.map { c in
      var c = c
      c.goldenDir = corpus.goldenLabel
      c.recordingsDir = corpus.recordingsLabel
      return c
    }
    return VerifyReport(cases: labelled, update: options.update)
  }

  /// A duration in seconds.
  static func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
  }

  /// Verifies one recording by name (its goldens per `options.update`), without the corpus
  /// walk or scenario check: what `assertReplay` runs.
  public func verify(name: String) -> VerifyCase {
    Self.verifyOne(name, store: store, options: options, replay: replay)
  }

  /// The case of a name without a recording: an orphan golden (per `policy`), a scenario not
  /// recorded yet (stale), or an unknown name (bad input).
  static func unreferenced(
    _ name: String, golden: Bool, finding: ScenarioFinding?, store: GoldenStore,
    policy: UnreferencedPolicy
  ) -> VerifyCase {
    if finding != nil { return VerifyCase(name: name, status: .passed) }
    guard golden else {
      return VerifyCase(
        name: name,
        status: .badInput(
          BadInputError(recording: store.recordingURL(name).path, message: "no such recording")))
    }
    switch policy {
    case .fail: return VerifyCase(name: name, status: .orphanGolden)
    case .ignore: return VerifyCase(name: name, status: .orphanIgnored)
    case .delete:
      do { return VerifyCase(name: name, status: .orphanDeleted(try store.deleteGoldens(name))) } catch {
        return VerifyCase(
          name: name,
          status: .badInput(
            BadInputError(
              recording: store.goldenURL(name, .trace).path,
              message: "cannot delete the orphan golden (\(SystemReason.message(error)))")))
      }
    }
  }

  /// Verifies one recording; `write: false` (a stale recording) writes nothing whatever the
  /// update mode: its replay is not what its scenario makes.
  static func verifyOne(
    _ name: String, store: GoldenStore, options: VerifyOptions,
    replay: (URL) throws(ReplayError) -> ReplayProducts, write: Bool = true,
    expect: (@Sendable (String, ReplayProducts) -> [String])? = nil,
    known: (@Sendable (String, ReplayProducts) -> [String])? = nil
  ) -> VerifyCase {
    let products: ReplayProducts
    do { products = try replay(store.recordingURL(name)) } catch {
      switch error {
      case .harness(let e): return VerifyCase(name: name, status: .harnessError(e))
      case .badInput(let e): return VerifyCase(name: name, status: .badInput(e))
      case .output(let m):
        return VerifyCase(name: name, status: .badInput(BadInputError(recording: name, message: m)))
      }
    }
    var result = VerifyCase(name: name, status: .passed, summary: products.summary)
    result.unmet = expect?(name, products) ?? []
    result.knownMisses = known?(name, products) ?? []
    var problems: [GoldenProblem] = []
    let mode = write ? options.update : .no
    for kind in GoldenKind.allCases {
      guard let fresh = products.text(kind) else {
        // An engine without diagnostics has no A.13 golden: one left on disk is stale.
        let url = store.goldenURL(name, kind)
        guard FileManager.default.fileExists(atPath: url.path) else { continue }
        let problem = GoldenProblem(
          file: kind, kind: .mismatch(nil),
          message: "\(kind.rawValue): \(store.goldenLabel)/\(name)\(kind.suffix) should not exist: this engine writes no A.13 lines (remove it, or --update always)")
        if mode == .always {
          do { try FileManager.default.removeItem(at: url) } catch {
            return VerifyCase(
              name: name, status: .badInput(BadInputError(recording: url.path, message: SystemReason.message(error))))
          }
          result.updated.append(problem)
        } else {
          problems.append(problem)
        }
        continue
      }
      do {
        let golden = try store.readGolden(name, kind)
        let checked: GoldenProblem?
        do {
          checked = try checkedCompare(
            golden: golden, fresh: fresh, kind: kind, name: name, diff: options.diff.reading(store.traceReading), goldenDir: store.goldenLabel,
            records: kind == .trace ? products.records : nil)
        } catch {
          // Only --update always may replace a golden that does not parse.
          guard mode == .always else { return VerifyCase(name: name, status: .badInput(error)) }
          checked = GoldenProblem(file: kind, kind: .mismatch(nil), message: "\(kind.rawValue): unreadable golden (\(error.message))")
        }
        if let problem = checked {
          switch mode {
          case .no: problems.append(problem)
          case .new:
            problems.append(problem)
            try store.writePending(name, kind, fresh)
            result.written.append(name + kind.suffix + ".new")
          case .always:
            try store.writeGolden(name, kind, fresh)
            try store.removePending(name, kind)
            result.updated.append(problem)
          }
        } else if mode != .no, try store.removePending(name, kind) {
          result.removedStale.append(name + kind.suffix + ".new")
        }
      } catch {
        return VerifyCase(
          name: name,
          status: .badInput(
            BadInputError(recording: store.goldenURL(name, kind).path, message: SystemReason.message(error))))
      }
    }
    if !problems.isEmpty { result.status = .failed(problems) }
    return result
  }

  /// nil when the fresh text holds against the golden.
  static func compare(
    golden: String?, fresh: String, kind: GoldenKind, name: String, diff: DiffOptions, goldenDir: String = "Golden"
  ) -> GoldenProblem? {
    do { return try checkedCompare(golden: golden, fresh: fresh, kind: kind, name: name, diff: diff, goldenDir: goldenDir) } catch {
      return GoldenProblem(file: kind, kind: .mismatch(nil), message: "\(kind.rawValue): unreadable golden (\(error.message))")
    }
  }

  /// As `compare`, but a golden that does not parse (merge-conflict markers, a truncated line)
  /// throws: it is bad input (exit 2, 125 under --bisect), not a behavioural difference that
  /// `git bisect` would blame on the commit (issue 23.6). `records`: the replay's trace in
  /// memory (the records of `fresh`), diffed as they are; nil reads `fresh` as a file.
  static func checkedCompare(
    golden: String?, fresh: String, kind: GoldenKind, name: String, diff: DiffOptions, goldenDir: String,
    records: [TraceRecord]? = nil
  ) throws(BadInputError) -> GoldenProblem? {
    guard let golden else {
      return GoldenProblem(
        file: kind, kind: .missing, message: "no golden \(goldenDir)/\(name)\(kind.suffix) yet")
    }
    if golden == fresh { return nil }
    let differ = TraceDiffer(options: diff)
    let result: DiffResult
    do {
        if kind != .trace {
          result = try differ.diffA13(golden: golden, replay: fresh)
        } else if let records {
          result = try differ.diffTraces(golden: golden, replay: records)
        } else {
          result = try differ.diffTraceFiles(golden: golden, replay: fresh)
        }
    } catch {
      throw BadInputError(recording: "\(goldenDir)/\(name)\(kind.suffix)", message: "the golden does not parse (\(error.message)); restore it or regenerate it with verify --update always")
    }
    if let d = result.divergence {
      var problem = GoldenProblem(
        file: kind, kind: .mismatch(d), message: "\(kind.rawValue): \(d.explanation)")
      problem.divergences = result.divergences
      problem.hunkCount = result.hunkCount
      return problem
    }
    if !diff.isExact { return nil }
    return GoldenProblem(
      file: kind, kind: .mismatch(nil),
      message:
        "\(kind.rawValue): same records but different bytes (golden not canonical); accept the .new to rewrite it"
    )
  }
}
