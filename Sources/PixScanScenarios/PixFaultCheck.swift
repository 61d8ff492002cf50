import PixScanEngine

/// Do PixScan's `expect:` rules catch a wrong engine? Each scenario runs straight through the
/// engine (``PixDirectRun``) once as it is — the rules unmet there are set aside: they catch
/// nothing — and once per planted fault (``PixPlantedFault``), goldens ignored. A fault is
/// *caught* when a rule that held on the clean run fails; *silent* when no scenario's trace
/// changed. `jpreplay faults --recordings Recordings/pixscan` reports it as it does Just
/// Photo's faults.
public enum PixFaultCheck {
  /// What one planted fault did to the scenarios.
  public struct Outcome: Sendable, Equatable {
    public var fault: PixPlantedFault
    /// The fault's name and what it does.
    public var name: String { fault.rawValue }
    public var summary: String { fault.summary }
    /// Scenarios whose trace differs from the clean run's.
    public var changed: [String] = []
    /// `scenario: rule` lines (place and rule in words) that held clean and fail with the fault.
    public var caughtBy: [String] = []
    /// Scenarios whose events the engine's decoder refused (none in a scenario that parsed).
    public var errors: [String] = []
  }

  /// The planted faults named `names` (all for none), in declaration order; nil when a name
  /// is not a PixScan planted fault.
  public static func faults(named names: [String]) -> [PixPlantedFault]? {
    guard names.allSatisfy({ PixPlantedFault.named($0) != nil }) else { return nil }
    return PixPlantedFault.allCases.filter { names.isEmpty || names.contains($0.rawValue) }
  }

  /// The outcomes of `faults` (default: all), and the rules unmet without any fault
  /// (`scenario: rule`).
  public static func run(_ scenarios: [PixScenario], faults: [PixPlantedFault] = PixPlantedFault.allCases)
    -> (outcomes: [Outcome], unmetClean: [String])
  {
    var outcomes = faults.map { Outcome(fault: $0) }
    var unmetClean: [String] = []
    func rule(_ f: PixExpectationFailure) -> String { "\(f.expectation.place) (\(f.expectation.summary))" }
    for s in scenarios where !s.expectations.isEmpty {
      guard let clean = try? PixDirectRun.run(s.events) else {
        for i in outcomes.indices { outcomes[i].errors.append("\(s.name): its events do not decode") }
        continue
      }
      let unmet = Set(PixExpectations.check(s.expectations, records: clean).map(rule))
      unmetClean += unmet.sorted().map { "\(s.name): \($0)" }
      for i in outcomes.indices {
        let options = PixOptions(plantedFaults: PixPlantedFaults([outcomes[i].fault]))
        guard let faulty = try? PixDirectRun.run(s.events, options: options) else {
          outcomes[i].errors.append("\(s.name): its events do not decode")
          continue
        }
        guard faulty != clean else { continue }
        outcomes[i].changed.append(s.name)
        outcomes[i].caughtBy += PixExpectations.check(s.expectations, records: faulty).map(rule).filter { !unmet.contains($0) }
          .map { "\(s.name): \($0)" }
      }
    }
    return (outcomes, unmetClean)
  }
}
