import PoseSpec

/// The cue set of the UI scene (ENGINE §3.6) and a switch between scenes.
extension Engine {
  /// `scenePlans` split by tier (`sceneT0Plans`, `sceneT1Plans`).
  mutating func partitionScenePlans() {
    sceneT0Plans = scenePlans.filter { !plans[$0].isT1 && !plans[$0].isSystemFallback }
    sceneT1Plans = scenePlans.filter { plans[$0].isT1 && !plans[$0].isSystemFallback }
  }

  /// Indices of the cues evaluated in `uiScene`, in spec order (§3.6).
  func plansInScene(_ uiScene: String) -> [Int] {
    if faults.contains(.sceneFilterIgnored) { return plans.map(\.index) }
    let shared = configuration.spec.sceneCatalog.internalSharedScene
    return plans.filter { $0.scene == shared || $0.scene == uiScene }.map(\.index)
  }

  /// `ui_scene`: a different scene changes the cue set and resets every cue's hysteresis (§3.5).
  mutating func switchScene(to next: String) {
    guard next != scene else { return }
    scene = next
    scenePlans = plansInScene(next)
    resetCueStates()
    // §3.13d: deciders are cached per `<scene>|<fingerprint>`; a new key is a new decider.
    let key = MatchDecider.cacheKey(spec: configuration.spec, scene: next)
    if key != withRef.decider.cacheKey { withRef.decider = MatchDecider(spec: configuration.spec, scene: next) }
  }
}
