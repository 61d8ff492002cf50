import CanonicalJSON

/// PoseSpec `praisePolicy` (ENGINE §3.12). The app keeps this section as raw JSON (its
/// presence is required, its shape is not validated), so it is read leniently: a missing or
/// mistyped field takes the value of the reference spec.
public struct PraisePolicy: Equatable, Sendable {
  public var enabled: Bool
  /// `exit_crossed` (the only trigger the engine knows).
  public var trigger: String
  /// `mutexGroup`: the praise dimension of a noRef exit is the displayed cue's mutexGroup.
  public var dimensionKey: String
  /// Per-dimension cooldown: a praise is ignored when `now − last[dimension] < cooldownMs`.
  public var cooldownMs: Int
  /// The frozen card text (`freezeAfterExit.script`); index 0 is shown.
  public var freezeZh: [String]
  public var freezeEn: [String]
  public var timeoutMs: Int
  /// `shutter_tap`, `timeout`.
  public var unfreezeOn: [String]

  public static let reference = PraisePolicy(
    enabled: true, trigger: "exit_crossed", dimensionKey: "mutexGroup", cooldownMs: 10_000,
    freezeZh: ["现在，拍下这一张"], freezeEn: ["Now—take the shot"], timeoutMs: 5_000,
    unfreezeOn: ["shutter_tap", "timeout"])

  public init(
    enabled: Bool, trigger: String, dimensionKey: String, cooldownMs: Int, freezeZh: [String],
    freezeEn: [String], timeoutMs: Int, unfreezeOn: [String]
  ) {
    self.enabled = enabled
    self.trigger = trigger
    self.dimensionKey = dimensionKey
    self.cooldownMs = cooldownMs
    self.freezeZh = freezeZh
    self.freezeEn = freezeEn
    self.timeoutMs = timeoutMs
    self.unfreezeOn = unfreezeOn
  }

  /// Reads `praisePolicy` as written (`json` is that value).
  public init(json: JSONValue?) {
    self = .reference
    guard let o = json?.objectValue else { return }
    if let b = o["enabled"]?.boolValue { enabled = b }
    if let s = o["trigger"]?.stringValue { trigger = s }
    if let s = o["dimensionKey"]?.stringValue { dimensionKey = s }
    if let n = o["cooldownMs"]?.int64Value { cooldownMs = Int(n) }
    if let f = o["freezeAfterExit"]?.objectValue {
      if let n = f["timeoutMs"]?.int64Value { timeoutMs = Int(n) }
      if let u = f["unfreezeOn"]?.arrayValue { unfreezeOn = u.compactMap(\.stringValue) }
      if let s = f["script"]?.objectValue {
        if let zh = s["zh"]?.arrayValue { freezeZh = zh.compactMap(\.stringValue) }
        if let en = s["en"]?.arrayValue { freezeEn = en.compactMap(\.stringValue) }
      }
    }
  }
}

extension PoseSpecDocument {
  /// The praise policy of this document (ENGINE §3.12).
  public var praisePolicy: PraisePolicy { PraisePolicy(json: raw["praisePolicy"]) }
}
