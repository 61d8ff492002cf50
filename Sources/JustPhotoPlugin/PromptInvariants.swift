import CanonicalJSON
import JustPhotoEngine
import EngineIO
import Replay

/// Invariants of the prompt system (ENGINE §4.1, §4.3, PRD Appendix A), checked on a trace's
/// records:
///
/// 1. at most one L3 visible at any time (the modal slot and the Viewer blocking bar together);
/// 2. an L2 with a primary button is never dismissed by its timer (A.3.1: "L2 only without
///    primary button");
/// 3. a timer dismissal happens exactly `auto_ms` after the show, and with VoiceOver on the
///    toast lasts ≥ 6000 ms and a banner ≥ 8000 ms (A.3.1 VoiceOver constants).
public enum PromptInvariants {
  /// Breaches in time order; empty when every invariant holds. `voiceOver(t)` says whether
  /// VoiceOver was on at t (from the recording's header and `voiceover` events).
  public static func check(records: [TraceRecord], voiceOver: (Int64) -> Bool = { _ in false }) -> [String] {
    struct Shown {
      var key: String
      var level: String
      var t: Int64
      var autoMs: Int64?
    }
    var visible: [Shown] = []
    var breaches: [String] = []
    for r in records {
      let v = JSONValue.object(r.fields)
      let t = r.t
      guard r.kind == .prompt, let key = v[.key]?.stringValue, let level = v[.level]?.stringValue else { continue }
      switch v[.op]?.stringValue {
      case "shown":
        if level == "L3", let other = visible.first(where: { $0.level == "L3" && $0.key != key }) {
          breaches.append("t=\(t): L3 \(key) shown while L3 \(other.key) (shown at \(other.t)) is visible")
        }
        visible.removeAll { $0.key == key }
        visible.append(Shown(key: key, level: level, t: t, autoMs: v[.auto_ms]?.int64Value))
        if let ms = v[.auto_ms]?.int64Value, voiceOver(t) {
          let floor: Int64 = level == "L1" ? 6000 : 8000
          if ms < floor { breaches.append("t=\(t): \(key) (\(level)) auto-dismisses after \(ms) ms with VoiceOver on (< \(floor))") }
        }
      case "dismissed":
        guard let i = visible.firstIndex(where: { $0.key == key }) else { continue }
        let shown = visible.remove(at: i)
        guard v["by"]?.stringValue == "timer" else { continue }
        if level == "L2", let k = PromptKey(rawValue: key), PromptCatalogue.definition(k)?.primaryAction != nil {
          breaches.append("t=\(t): L2 \(key) has a primary button but was dismissed by its timer")
        }
        if level == "L3" { breaches.append("t=\(t): L3 \(key) dismissed by a timer") }
        if let ms = shown.autoMs, t - shown.t != ms {
          breaches.append("t=\(t): \(key) dismissed by its timer after \(t - shown.t) ms, expected \(ms)")
        }
      default: break
      }
    }
    return breaches
  }
}
