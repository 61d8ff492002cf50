import Replay

/// One engine's scenario files in a recordings folder, as `verify` judges them: the hook an
/// engine gives (Just Photo's in `JustPhotoPlugin`'s `ScenarioCorpus`, PixScan's in `PixScanPlugin`),
/// so `Verifier` judges every engine's recordings by one rule — a recording that is not what
/// its scenario generates is stale (nothing is written for it), and a replay that breaks the
/// scenario's `expect:` rules is unmet, apart from the goldens.
public struct ScenarioChecks: Sendable {
  /// The engine whose scenario files these are (the header's `engine`), for messages.
  public var engine: String
  /// The recording names that have a scenario file of this engine in the folder; a scenario
  /// without its recording is a (stale) case too.
  public var names: Set<String>
  /// Recording `name` against its scenario: nil when it is what the scenario generates, else
  /// the finding (stale, or `unreadable` when the scenario cannot be read or generated).
  public var staleness: @Sendable (_ name: String) -> ScenarioFinding?
  /// The scenario's `expect:` rules that one replay's canonical texts break, one line each
  /// (file, line, rule and what was seen); empty when all hold or there are none.
  public var expectations: @Sendable (_ name: String, _ products: ReplayProducts) -> [String]
  /// The scenario's rules that miss on this replay as their `known:` marker says they do
  /// (reported, never a failure), one line each; empty for an engine without markers.
  public var knownMisses: @Sendable (_ name: String, _ products: ReplayProducts) -> [String]

  /// One engine's hook.
  ///
  /// - Parameters:
  ///   - engine: the engine's header name.
  ///   - names: its scenario names in the folder.
  ///   - staleness: recording against scenario.
  ///   - expectations: the broken rules of a replay.
  ///   - knownMisses: the known misses of a replay (default: none).
  public init(
    engine: String, names: Set<String>, staleness: @escaping @Sendable (_ name: String) -> ScenarioFinding?,
    expectations: @escaping @Sendable (_ name: String, _ products: ReplayProducts) -> [String],
    knownMisses: @escaping @Sendable (_ name: String, _ products: ReplayProducts) -> [String] = { _, _ in [] }
  ) {
    self.engine = engine
    self.names = names
    self.staleness = staleness
    self.expectations = expectations
    self.knownMisses = knownMisses
  }
}

extension Verifier {
  /// Judges scenario recordings with each engine's hook: the names of all of them are
  /// scenario names, and a name goes to the engine whose scenario file it has. A name with
  /// scenario files of two engines cannot be judged (bad input naming both).
  public mutating func judgeScenarios(with engines: [ScenarioChecks]) {
    scenarioNames = engines.flatMap(\.names).sortedByBytes()
    scenarioCheck = { name in
      let owners = engines.filter { $0.names.contains(name) }
      guard owners.count <= 1 else {
        return ScenarioFinding(
          message: "\(name): scenario files of \(owners.map(\.engine).joined(separator: " and ")) both name this recording; keep one",
          unreadable: true)
      }
      return owners.first?.staleness(name)
    }
    expectationCheck = { name, products in
      engines.first { $0.names.contains(name) }?.expectations(name, products) ?? []
    }
    knownMissCheck = { name, products in
      engines.first { $0.names.contains(name) }?.knownMisses(name, products) ?? []
    }
  }
}

extension GoldenStore {
  /// The `expect:` rules of recording `name`'s scenario that its pending goldens (each `.new`,
  /// else the golden) break, judged by the engine whose scenario file it has (`engines`): what
  /// `review` warns about and `accept` refuses without `--force`. Empty when no engine has a
  /// scenario for it, when it has no rule, or when there is no trace to judge.
  public func unmetRules(ofPending name: String, engines: [ScenarioChecks]) -> [String] {
    guard let owner = engines.first(where: { $0.names.contains(name) }) else { return [] }
    func text(_ kind: GoldenKind) -> String? {
      ((try? readPending(name, kind)) ?? nil) ?? ((try? readGolden(name, kind)) ?? nil)
    }
    guard let trace = text(.trace) else { return [] }
    let products: ReplayProducts
    do { products = try ReplayProducts(goldenTrace: trace, a13: text(.a13) ?? "") } catch {
      return ["\(name)\(GoldenKind.trace.suffix): line \(error.line): the pending trace cannot be judged (\(error.message))"]
    }
    return owner.expectations(name, products)
  }
}
