import PoseSpec

/// The text of the single director script card (ENGINE §3.10); all nil when no cue is shown.
struct ScriptCard: Equatable, Sendable {
  var cueId: String?
  var variant: Int?
  var zh: String?
  var en: String?
  static let empty = ScriptCard(cueId: nil, variant: nil, zh: nil, en: nil)
}

/// Chooses the card for the cue the gate displays.
///
/// Variant [D]: the number of times this cue's card had been shown before, modulo its variant
/// count (the first display shows variant 0); a card that becomes visible when a praise freeze
/// ends counts as a showing, a cue displayed while the card is frozen does not (§3.10). zh and en use the same index (each
/// modulo its own count, should the spec give them different lengths). A level change of the
/// displayed cue keeps its card. 👎 advances the shown cue to its next variant (`advance`).
struct DirectorCard: Equatable, Sendable {
  private(set) var card = ScriptCard.empty
  /// Cue id → how many times it became the displayed cue. Looked up only, never iterated.
  private(set) var timesDisplayed: [String: Int] = [:]

  /// The displayed cue changed to `cueId` (with `script`); returns the new card when its
  /// text changed, nil otherwise.
  mutating func display(_ cueId: String?, script: CueScript?) -> ScriptCard? {
    var next = ScriptCard.empty
    if let cueId {
      let k = timesDisplayed[cueId, default: 0]
      timesDisplayed[cueId] = k + 1
      next.cueId = cueId
      if let script, !script.zh.isEmpty || !script.en.isEmpty {
        let n = max(script.zh.count, 1)
        next.variant = k % n
        next.zh = script.zh.isEmpty ? nil : script.zh[k % script.zh.count]
        next.en = script.en.isEmpty ? nil : script.en[k % script.en.count]
      }
    }
    checkVariant(next, script)
    guard next != card else { return nil }
    card = next
    return next
  }

  /// The variant shown is one the script has, and every shown cue has been counted.
  @inline(__always)
  func checkVariant(_ c: ScriptCard, _ script: CueScript?) {
    guard let v = c.variant else { return }
    EngineInvariant.check(
      v >= 0 && v < max(script?.zh.count ?? 0, 1) && (c.cueId.flatMap { timesDisplayed[$0] } ?? 0) >= 1,
      "card: variant \(v) of \(c.cueId ?? "nil")")
  }

  /// The card for `cueId` when a praise freeze ends. It becomes visible again, so it is a
  /// showing like any other (§3.10 [pinned 2026-11-27]): its variant is the number of this cue's
  /// earlier showings, also when `cueId` is the cue shown before the freeze (S06 at 6,600: LEFT
  /// shown once before → variant 1). Always returned, since the visible text was the frozen one.
  mutating func showAfterFreeze(_ cueId: String?, script: CueScript?) -> ScriptCard {
    display(cueId, script: script) ?? card
  }

  /// The card for `cueId` when an expired entitlement becomes active again: the card as it was
  /// when `cueId` is still the card's cue (no new variant), otherwise as `display` would choose
  /// it. Always returned, since no card was visible.
  mutating func resume(_ cueId: String?, script: CueScript?) -> ScriptCard {
    if cueId == card.cueId { return card }
    return display(cueId, script: script) ?? card
  }

  /// 👎 (`praise_feedback vote=down`, §3.10): the next variant of the shown cue at once; the
  /// cue's cycle continues from there. nil when no cue is shown or it has a single variant.
  mutating func advance(script: CueScript?) -> ScriptCard? {
    guard let cueId = card.cueId, let script, max(script.zh.count, script.en.count) > 1 else { return nil }
    let k = timesDisplayed[cueId, default: 1]
    timesDisplayed[cueId] = k + 1
    var next = card
    next.variant = k % max(script.zh.count, 1)
    next.zh = script.zh.isEmpty ? nil : script.zh[k % script.zh.count]
    next.en = script.en.isEmpty ? nil : script.en[k % script.en.count]
    checkVariant(next, script)
    guard next != card else { return nil }
    card = next
    return next
  }
}
