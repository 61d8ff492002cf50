/// Deliberate engine bugs behind a switch (issue 24, after FoundationDB's BUGGIFY): each one is
/// a small, plausible mistake at one place of the engine. They exist so that the project can
/// measure whether its `expect:` rules catch a *wrong* engine — `jpreplay faults` replays the
/// corpus with each fault, goldens ignored, and reports which rules fail.
///
/// Only code can set them (`EngineConfiguration.plantedFaults`): no recording header, engine
/// option or `--set` reaches them, so a recording cannot turn a fault on.
public enum PlantedFault: String, CaseIterable, Sendable, Comparable {
  case gatePersistOffByOne = "gate-persist-off-by-one"
  case gateMinHoldIgnored = "gate-min-hold-ignored"
  case gateCooldownIgnored = "gate-cooldown-ignored"
  case gateHoldAfterClear = "gate-hold-after-clear"
  case exitThresholdIgnored = "exit-threshold-ignored"
  case exitPersistIgnored = "exit-persist-ignored"
  case praiseCooldownGlobal = "praise-cooldown-global"
  case praiseTimeoutDoubled = "praise-timeout-doubled"
  case shutterKeepsPraiseFrozen = "shutter-keeps-praise-frozen"
  case tieBreakerReversed = "tie-breaker-reversed"
  case severityBoostIgnored = "severity-boost-ignored"
  case t1CadenceWrong = "t1-cadence-400ms"
  case promptThrottleOff = "prompt-throttle-off"
  case promptSuppressionIgnored = "prompt-suppression-ignored"
  case promptWindowBeforePreemption = "prompt-window-before-preemption"
  case promptTTLOffByOne = "prompt-ttl-off-by-one"
  case retryBackoffStepBehind = "retry-backoff-step-behind"
  case a13PayloadFieldDropped = "a13-payload-field-dropped"
  case hardShownAsWarn = "hard-shown-as-warn"
  case sceneFilterIgnored = "scene-filter-ignored"
  case dropRuleLowered = "drop-rule-lowered"
  case confidenceGateIgnored = "confidence-gate-ignored"

  /// What the fault does, for `jpreplay faults --list` and reports.
  public var summary: String {
    switch self {
    case .gatePersistOffByOne: "the anti-jitter gate switches after persistFrames − 1 equal inputs (§3.9)"
    case .gateMinHoldIgnored: "the gate ignores the shown cue's minHoldMs (§3.9)"
    case .gateCooldownIgnored: "the gate ignores cooldownMs: a cue just hidden may come straight back (§3.9)"
    case .gateHoldAfterClear: "the gate holds an empty display for minHoldMs too (§3.9 step 3 exempts it)"
    case .exitThresholdIgnored: "exit observations count as none: an active cue never exits or praises (§3.5)"
    case .exitPersistIgnored: "one exit observation clears the cue instead of persistFrames (§3.5)"
    case .praiseCooldownGlobal: "one praise cooldown for every dimension instead of one per dimension (§3.12)"
    case .praiseTimeoutDoubled: "the praise freeze lasts twice timeoutMs (§3.12)"
    case .shutterKeepsPraiseFrozen: "a shutter tap does not unfreeze the praise card (§3.12)"
    case .tieBreakerReversed: "the last tie-breakers (mutexGroup, id) rank in reverse (§3.7)"
    case .severityBoostIgnored: "effectivePriority ignores the severity boost (§3.7)"
    case .t1CadenceWrong: "T1 ticks every 400 ms instead of 500 (§1.5)"
    case .promptThrottleOff: "the per-key prompt throttle is off (A.5.2)"
    case .promptSuppressionIgnored: "a dismissed prompt's suppression window is ignored (A.5.2)"
    case .promptWindowBeforePreemption: "a prompt that outranks the occupant is still held to the global window (§4.4 step 4)"
    case .promptTTLOffByOne: "auto-dismiss fires 1 ms late (TTL off by one)"
    case .retryBackoffStepBehind: "the album auto-retry waits the previous step's delay (§5.9)"
    case .a13PayloadFieldDropped: "engine A.13 lines lose the last field of their payload (§6)"
    case .hardShownAsWarn: "a cue shown at hard is displayed with level warn (§3.3)"
    case .sceneFilterIgnored: "cues of the other scene are evaluated too (§3.6)"
    case .dropRuleLowered: "joints are kept down to 0.1 under minLandmarkConfidence (§2.4)"
    case .confidenceGateIgnored: "a cue's confidence gate never makes it unavailable (§3.4.2)"
    }
  }

  public static func < (a: PlantedFault, b: PlantedFault) -> Bool { a.rawValue < b.rawValue }
}

/// A set of planted faults, as a bit mask (the hot path asks `contains` per frame).
public struct PlantedFaults: Equatable, Sendable {
  var bits: UInt64 = 0
  public init() {}
  public init(_ faults: some Sequence<PlantedFault>) { for f in faults { insert(f) } }
  public mutating func insert(_ f: PlantedFault) { bits |= 1 << UInt64(PlantedFault.allCases.firstIndex(of: f)!) }
  @inline(__always) public func contains(_ f: PlantedFault) -> Bool {
    bits != 0 && bits & (1 << UInt64(PlantedFault.allCases.firstIndex(of: f)!)) != 0
  }
  public var isEmpty: Bool { bits == 0 }
  public var all: [PlantedFault] { PlantedFault.allCases.filter(contains) }
}
