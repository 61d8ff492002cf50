import Foundation

/// Options of `verify`.
public struct VerifyOptions: Sendable {
  /// Recordings to verify (names or paths); nil = the whole corpus, orphan goldens included.
  public var names: [String]?
  /// Parallel replays (threads); results come back in name order whatever the value.
  public var jobs: Int
  /// CI mode (DESIGN §4): write nothing, fail on a missing golden.
  public var ci: Bool
  /// `--shard i/n`: only every n-th name starting at the i-th (1-based) of the sorted list.
  public var shard: Shard?
  /// Tolerances; exact by default (byte equality decides).
  public var diff: DiffOptions

  public init(
    names: [String]? = nil, jobs: Int = 1, ci: Bool = false, shard: Shard? = nil,
    diff: DiffOptions = DiffOptions()
  ) {
    self.names = names
    self.jobs = jobs
    self.ci = ci
    self.shard = shard
    self.diff = diff
  }

  /// Whether the environment says CI: `CI` set to anything but "", "0" or "false".
  public static func isCI(_ environment: [String: String] = ProcessInfo.processInfo.environment)
    -> Bool
  {
    guard let v = environment["CI"] else { return false }
    return !["", "0", "false", "FALSE", "False"].contains(v)
  }
}

/// One slice of the corpus for parallel CI machines.
public struct Shard: Sendable, Equatable {
  /// 1-based, ≤ count.
  public var index: Int
  public var count: Int
  public init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }
  /// Parses "i/n" (1 ≤ i ≤ n).
  public init?(_ text: String) {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 1, i <= n
    else { return nil }
    self.init(index: i, count: n)
  }
  func contains(position: Int) -> Bool { position % count == index - 1 }
}

/// `verify`: replays recordings and compares them with their goldens (DESIGN §4).
public struct Verifier: Sendable {
  public var store: GoldenStore
  public var options: VerifyOptions
  /// Replays one recording to its canonical texts (usually `ReplayDriver.canonicalProducts`).
  public var replay: @Sendable (URL) throws(ReplayError) -> ReplayProducts

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

  /// Runs the verification. `progress` is called once per finished recording, one call at a
  /// time (from worker threads when `jobs > 1`).
  public func run(progress: (@Sendable (VerifyProgress) -> Void)? = nil) throws -> VerifyReport {
    let recordings = Set(try store.recordingNames())
    var names: [String]
    if let requested = options.names {
      names = Array(Set(requested.map { store.name(of: $0) })).sortedByBytes()
    } else {
      names = Array(recordings.union(try store.goldenNames())).sortedByBytes()
    }
    if let shard = options.shard {
      names = names.enumerated().filter { shard.contains(position: $0.offset) }.map(\.element)
    }
    let goldens = Set(try store.goldenNames())
    let corpus = self.store
    let replay = self.replay
    let options = self.options
    let work: @Sendable (String) -> VerifyCase = { name in
      if !recordings.contains(name) {
        if goldens.contains(name) { return VerifyCase(name: name, status: .orphanGolden) }
        return VerifyCase(
          name: name,
          status: .badInput(
            BadInputError(recording: corpus.recordingURL(name).path, message: "no such recording")))
      }
      return Self.verifyOne(name, store: corpus, options: options, replay: replay)
    }
    let selected = names
    let cases = ParallelMap.run(selected, jobs: options.jobs, work: work) {
      completed, index, result in
      progress?(
        VerifyProgress(
          completed: completed, total: selected.count, name: selected[index], passed: result.passed)
      )
    }
    return VerifyReport(cases: cases)
  }

  static func verifyOne(
    _ name: String, store: GoldenStore, options: VerifyOptions,
    replay: (URL) throws(ReplayError) -> ReplayProducts
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
    var problems: [GoldenProblem] = []
    for kind in GoldenKind.allCases {
      let fresh = products.text(kind)
      do {
        let golden = try store.readGolden(name, kind)
        if let problem = compare(
          golden: golden, fresh: fresh, kind: kind, name: name, diff: options.diff)
        {
          problems.append(problem)
          if !options.ci {
            try store.writePending(name, kind, fresh)
            result.written.append(name + kind.suffix + ".new")
          }
        } else if !options.ci, try store.removePending(name, kind) {
          result.removedStale.append(name + kind.suffix + ".new")
        }
      } catch {
        return VerifyCase(
          name: name,
          status: .badInput(
            BadInputError(recording: store.goldenURL(name, kind).path, message: "\(error)")))
      }
    }
    if !problems.isEmpty { result.status = .failed(problems) }
    return result
  }

  /// nil when the fresh text holds against the golden.
  static func compare(
    golden: String?, fresh: String, kind: GoldenKind, name: String, diff: DiffOptions
  ) -> GoldenProblem? {
    guard let golden else {
      return GoldenProblem(
        file: kind, kind: .missing, message: "no golden Golden/\(name)\(kind.suffix) yet")
    }
    if golden == fresh { return nil }
    let differ = TraceDiffer(options: diff)
    let result: DiffResult
    do {
      result =
        kind == .trace
        ? try differ.diffTraces(golden: golden, replay: fresh)
        : try differ.diffA13(golden: golden, replay: fresh)
    } catch {
      return GoldenProblem(
        file: kind, kind: .mismatch(nil), message: "\(kind.rawValue): unreadable golden (\(error))")
    }
    if let d = result.divergence {
      return GoldenProblem(
        file: kind, kind: .mismatch(d), message: "\(kind.rawValue): \(d.explanation)")
    }
    if !diff.isExact { return nil }
    return GoldenProblem(
      file: kind, kind: .mismatch(nil),
      message:
        "\(kind.rawValue): same records but different bytes (golden not canonical); accept the .new to rewrite it"
    )
  }
}
