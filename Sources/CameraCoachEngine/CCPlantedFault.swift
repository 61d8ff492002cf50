/// Deliberate bugs `jpreplay faults` plants to show that the scenarios' rules catch them
/// (docs/CAMERACOACH.md "Planted faults"). No recording or header can plant one.
public enum CCPlantedFault: String, CaseIterable, Sendable {
  /// The detector's y (origin bottom-left, y up) is used as the UI's (top-left, y down).
  case yNotFlipped = "cc-y-not-flipped"
  /// Headroom is measured from the face box's bottom edge instead of its top.
  case headroomFromBottom = "cc-headroom-from-bottom"
  /// The back camera's face-landmark x is used without mirroring it.
  case landmarkXNotMirrored = "cc-landmark-x-not-mirrored"
  /// Headroom over the whole frame height: the letterbox band is not subtracted.
  case letterboxIgnored = "cc-letterbox-ignored"
  /// No rate limits: the 2 per s, 3 per 10 s and per-minute budgets are not applied.
  case noRateLimit = "cc-no-rate-limit"

  /// What the fault does, in words.
  public var summary: String {
    switch self {
    case .yNotFlipped: "face boxes keep the detector's y (bottom-left origin) as if it were the UI's top-left y"
    case .headroomFromBottom: "headroom is measured from the face box's bottom edge"
    case .landmarkXNotMirrored: "the back camera's landmark x is not mirrored (thirds advice points the wrong way)"
    case .letterboxIgnored: "headroom over the full frame: the letterbox band is not subtracted"
    case .noRateLimit: "hints are not rate limited (2/s, 3 per 10 s per type, per-minute budget)"
    }
  }

  /// The fault named `name`.
  public static func named(_ name: String) -> CCPlantedFault? { allCases.first { $0.rawValue == name } }
}

/// The engine's options: its priority order and the planted faults (none in normal use).
public struct CCOptions: Equatable, Sendable {
  /// The order rules are asked in.
  public var priority: CCPriority
  /// Planted faults (tests and `jpreplay faults` only).
  public var plantedFaults: Set<String>

  /// Options.
  public init(priority: CCPriority = .standard, plantedFaults: [CCPlantedFault] = []) {
    self.priority = priority
    self.plantedFaults = Set(plantedFaults.map(\.rawValue))
  }

  /// Whether `fault` is planted.
  public func has(_ fault: CCPlantedFault) -> Bool { !plantedFaults.isEmpty && plantedFaults.contains(fault.rawValue) }
}
