import CanonicalJSON
import PoseSpec

/// Warns when a tuned path cannot change behaviour because something else decides.
///
/// - `defaults.<section>.<field>` where every cue sets `<section>.<field>` itself: the cue's
///   value wins (ENGINE §3.9: the anti-jitter defaults apply only while no cue is current or
///   incoming; per-cue confidence overrides the default one).
/// - `sceneDefaults.…`: decoded and checked by the loader, read by no engine rule.
enum ShadowCheck {
  static func warning(for parameter: TuneParameter, in spec: JSONValue) -> String? {
    guard case .spec(let places) = parameter.target, let place = places.first else { return nil }
    let keys = place.steps.compactMap { step -> String? in
      if case .key(let k) = step { return k }
      return nil
    }
    guard let head = keys.first else { return nil }
    if head == "sceneDefaults" {
      return "\(parameter.path): sceneDefaults is read by no engine rule (only validated); changing it changes nothing"
    }
    guard head == "defaults", keys.count >= 3, places.count == 1 else { return nil }
    let tail = Array(keys.dropFirst())
    let cues = spec["cues"]?.arrayValue ?? []
    guard !cues.isEmpty else { return nil }
    let overriding = cues.filter { cue in
      var node: JSONValue? = cue
      for k in tail { node = node?[k] }
      return node != nil
    }
    guard overriding.count == cues.count else { return nil }
    let field = tail.joined(separator: ".")
    return
      "\(parameter.path) is shadowed: every cue (\(cues.count)/\(cues.count)) sets \(field) itself, so the default applies only where no cue is involved; tune cues[*].\(field) instead"
  }
}
