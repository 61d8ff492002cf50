import CanonicalJSON

/// A decoded PoseSpec (ENGINE §2.1–2.2): the typed sections the engine reads, the whole
/// document as written (`raw`) and the file's fingerprint.
///
/// Obtain one from `PoseSpecLoader.load(bytes:fileName:)`, which also runs the validation of
/// ENGINE §2.3; `PoseSpecLoader.decode(bytes:fileName:)` gives a decoded but unvalidated one.
public struct PoseSpecDocument: Equatable, Sendable {
  /// The only `prdVersion` this engine accepts (`PoseSpec.supportedVersion` in the app).
  public static let supportedPrdVersion = "v1.1.4"

  /// The display name the document was loaded under (a path or a file name).
  public var fileName: String
  /// SHA-256 of the exact bytes loaded, 64 lowercase hex digits.
  public var sha256: String
  /// The document as written, members in file order.
  public var raw: JSONValue

  public var name: String
  public var schemaVersion: String
  public var generatedAt: String
  public var prdVersion: String
  public var changeLog: [ChangeLogEntry]
  public var defaults: PoseSpecDefaults
  public var mutexGroups: [String]
  public var sceneCatalog: SceneCatalog
  /// nil when `binding` is absent or null (decodable; the validator rejects it).
  public var binding: PoseSpecBinding?
  public var rois: PoseSpecROIs
  /// The cues in file order.
  public var cues: [PoseSpecCue]
  /// Things the loader skipped without failing (e.g. unknown threshold operators, §3.1).
  public var warnings: [String]

  /// The cue with `id` (the first one if the file repeats an id).
  public func cue(id: String) -> PoseSpecCue? { cues.first { $0.id == id } }

  /// The cues evaluated in `uiScene`: `scene == internalSharedScene` (base) or `== uiScene`,
  /// in file order (ENGINE §3.6).
  public func cues(inScene uiScene: String) -> [PoseSpecCue] {
    let shared = sceneCatalog.internalSharedScene
    return cues.filter { $0.scene == shared || $0.scene == uiScene }
  }

  /// The decider fingerprint of ENGINE §3.13d: `<prdVersion>|<marker>|cues=<count>`, where
  /// the marker is the last changeLog entry's version ?? date.
  public var fingerprint: String {
    let last = changeLog.last
    let marker =
      last?.version ?? last?.date ?? last?.notes?.last ?? last?.changes?.last ?? last?.items?.last
      ?? last?.scope ?? ""
    return "\(prdVersion)|\(marker)|cues=\(cues.count)"
  }
}

/// One `changeLog` entry; `date` is required, the rest optional (ENGINE §2.1).
public struct ChangeLogEntry: Equatable, Sendable {
  public var version: String?
  public var date: String
  public var notes: [String]?
  public var changes: [String]?
  public var scope: String?
  public var items: [String]?
}

/// `defaults` (ENGINE §2.1).
public struct PoseSpecDefaults: Equatable, Sendable {
  public var minConfidence: Double
  public var minLandmarkConfidence: Double
  public var fallbackCueId: String
  /// Cue ids allowed as candidates when ≥ 2 people are present (§3.4.5).
  public var multiPersonDegradeTo: [String]
  public var antiJitter: AntiJitterParameters
  public var hysteresisEnabled: Bool
  /// `defaults.selection`, read leniently (the app decodes it as any JSON).
  public var selection: SelectionPolicy

  /// `minLandmarkConfidence` clamped to [0, 1], as the joint drop rule uses it (§2.4).
  public var landmarkConfidenceThreshold: Double { min(max(minLandmarkConfidence, 0), 1) }
}

/// The severity boost of ENGINE §3.7, from `defaults.selection.effectivePriority`.
public struct SelectionPolicy: Equatable, Sendable {
  public struct Boost: Equatable, Sendable {
    public var ifGte: Double
    public var add: Int
  }
  /// Boosts by descending `ifGte`; only the first that matches applies.
  public var boosts: [Boost]
  /// The cap applied to a boosted priority.
  public var cap: Int

  /// PS values: ≥ 1.75 → +2, ≥ 1.25 → +1, cap 6.
  public static let standard = SelectionPolicy(
    boosts: [Boost(ifGte: 1.75, add: 2), Boost(ifGte: 1.25, add: 1)], cap: 6)

  public init(boosts: [Boost], cap: Int) {
    self.boosts = boosts.sorted { $0.ifGte > $1.ifGte }
    self.cap = cap
  }

  /// Reads `effectivePriority {boostBySeverityNormalized: [{ifGte, add}], cap}`; any part
  /// that is missing or malformed falls back to `standard`.
  public init(json: JSONValue?) {
    let ep = json?["effectivePriority"]
    var boosts: [Boost] = []
    for item in ep?["boostBySeverityNormalized"]?.arrayValue ?? [] {
      guard let g = item["ifGte"]?.doubleValue, let a = item["add"]?.int64Value else { continue }
      boosts.append(Boost(ifGte: g, add: Int(a)))
    }
    let cap = ep?["cap"]?.int64Value.map { Int($0) } ?? Self.standard.cap
    self.init(boosts: boosts.isEmpty ? Self.standard.boosts : boosts, cap: cap)
  }

  /// `effectivePriority` of §3.7: the first boost whose `ifGte` ≤ severity adds to the base
  /// priority, capped; no boost (or nil severity) leaves the priority unchanged.
  public func effectivePriority(priority: Int, severity: Double?) -> Int {
    guard let severity else { return priority }
    for b in boosts where severity >= b.ifGte { return min(priority + b.add, cap) }
    return priority
  }
}

/// `sceneCatalog` (ENGINE §3.6).
public struct SceneCatalog: Equatable, Sendable {
  public var uiScenes: [String]
  public var internalSharedScene: String
}

/// `binding` (ENGINE §2.5).
public struct PoseSpecBinding: Equatable, Sendable {
  /// Alias → canonical path, in file order.
  public var aliases: [String: String]
  public var aliasOrder: [String]
  public var bodyPointsFrom: String
  public var bodyPointsInclude: String
  public var bodyPointsRule: String
}

/// `rois` (ENGINE §2.7). Each ROI may be absent in decoding; the validator requires all three.
public struct PoseSpecROIs: Equatable, Sendable {
  public var faceROI: FaceROI?
  public var eyeROI: EyeROI?
  public var bgROI: BgROI?

  public struct FaceROI: Equatable, Sendable {
    public var from: String
    public var paddingX: Double
    public var paddingY: Double
    public var clampToFrame: Bool
  }
  public struct EyeROI: Equatable, Sendable {
    public var from: [String]
    public var shape: String
    public var center: String
    public var sizeRuleW: String
    public var sizeRuleH: String
    public var clampToFrame: Bool
    public var requiresConfidence: String
  }
  public struct BgROI: Equatable, Sendable {
    public var type: String
    public var minus: String
  }
}
