import CanonicalJSON

/// What `jpreplay spec validate` reports for a valid PoseSpec: identity, cue count and, per
/// UI scene, the cues evaluated there (base ∪ scene, ENGINE §3.6).
public struct PoseSpecSummary: Equatable, Sendable, CustomStringConvertible {
  public struct Scene: Equatable, Sendable {
    public var scene: String
    /// Cue ids evaluated in this scene, in file order.
    public var cueIds: [String]
    /// Per cue (same order): its tier and rate as the engine schedules it (§3.11), e.g.
    /// "T0 15 Hz", "T1 1 Hz", "T1 2 Hz (declared 30)", "fallback".
    public var tiers: [String]
    /// How many of them come from the shared (base) scene.
    public var sharedCount: Int
  }

  public var fileName: String
  public var sha256: String
  public var prdVersion: String
  public var schemaVersion: String
  public var fingerprint: String
  public var cueCount: Int
  public var sharedScene: String
  /// One entry per `sceneCatalog.uiScenes`, in that order.
  public var scenes: [Scene]
  public var warnings: [String]

  public init(_ doc: PoseSpecDocument) {
    fileName = doc.fileName
    sha256 = doc.sha256
    prdVersion = doc.prdVersion
    schemaVersion = doc.schemaVersion
    fingerprint = doc.fingerprint
    cueCount = doc.cues.count
    sharedScene = doc.sceneCatalog.internalSharedScene
    scenes = doc.sceneCatalog.uiScenes.map { scene in
      let cues = doc.cues(inScene: scene)
      return Scene(
        scene: scene, cueIds: cues.map(\.id), tiers: cues.map(Self.tier),
        sharedCount: cues.filter { $0.scene == doc.sceneCatalog.internalSharedScene }.count)
    }
    warnings = doc.warnings
  }

  /// The tier of a cue as scheduled: T0 at its 15 Hz, T1 capped at 2 Hz (t1MaxHz default,
  /// §3.11, G-31), the fallback cue without a rate.
  static func tier(_ cue: PoseSpecCue) -> String {
    let m = cue.metric
    switch m.computeTier {
    case "T0": return "T0 \(JSONWriter.shortest(m.updateHz)) Hz"
    case "T1":
      let hz = min(m.updateHz, 2)
      let shown = JSONWriter.shortest(hz)
      return m.updateHz > 2 ? "T1 \(shown) Hz (declared \(JSONWriter.shortest(m.updateHz)))" : "T1 \(shown) Hz"
    default: return m.computeTier
    }
  }

  /// Human-readable report, e.g.
  ///
  ///     PoseSpec.json: valid (prdVersion v1.1.4, schemaVersion 0.1, sha256 a1ff7510…1b56)
  ///     50 cues; fingerprint v1.1.4|v1.1.4-final-hotreload|cues=50
  ///     cafe: 35 cues evaluated (base 20 + cafe 15):
  ///       FRAME_MOVE_LEFT                   T0 15 Hz
  ///       …
  public var description: String {
    let shortSHA = sha256.count == 64 ? "\(sha256.prefix(8))…\(sha256.suffix(4))" : sha256
    var lines = [
      "\(fileName): valid (prdVersion \(prdVersion), schemaVersion \(schemaVersion), sha256 \(shortSHA))",
      "\(cueCount) cues; fingerprint \(fingerprint)",
    ]
    for s in scenes {
      lines.append(
        "\(s.scene): \(s.cueIds.count) cues evaluated (\(sharedScene) \(s.sharedCount) + \(s.scene) \(s.cueIds.count - s.sharedCount)):")
      let width = s.cueIds.map(\.count).max() ?? 0
      for (id, tier) in zip(s.cueIds, s.tiers) {
        lines.append("  " + id + String(repeating: " ", count: width - id.count) + "  " + tier)
      }
    }
    for w in warnings { lines.append("warning: \(w)") }
    return lines.joined(separator: "\n")
  }
}

extension PoseSpecDocument {
  /// The `spec validate` summary of this document.
  public var summary: PoseSpecSummary { PoseSpecSummary(self) }
}
